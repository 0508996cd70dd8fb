import { bench, describe } from 'vitest';
import { buildPollPlan, nextPollDelayMs } from '../src/features/agent-jobs/poll/schedule.js';
import { formatEconomy, MIXES, pollEconomy, seeded, statusEdits } from './poll-sim.js';

/**
 * Poll economy, in virtual time: for each job-duration mix (1–30 min), polls per
 * job and announcement lateness (p50/p95/max) under the learned schedule (from 200 finished jobs
 * of the mix), under the backoff alone (no history yet) and under naive 5-second polling, with the
 * default POLL_MIN_INTERVAL_MS (10 s) and POLL_MAX_INTERVAL_MS (120 s). 2,000 jobs per mix.
 * Goal: p95 ≤ 20 s, max ≤ 30 s, polls ≤ 1/5 of naive polling.
 */
const bounds = { minMs: 10_000, maxMs: 120_000 };
console.log(
  `\nPoll economy: 2,000 jobs per mix, POLL_MIN_INTERVAL_MS=${bounds.minMs}, POLL_MAX_INTERVAL_MS=${bounds.maxMs}\n${formatEconomy(pollEconomy(bounds))}\n`,
);
console.log(`\nStatus edits (chat.update) per workspace, jobs of ~10 min:\n${statusEdits([20, 100, 200, 1_000])}\n`);

describe('poll schedule', () => {
  const random = seeded(1);
  const history = Array.from({ length: 200 }, () => MIXES['log-normal, median 6 min (σ 0.5)']!(random));
  const plan = buildPollPlan(history);
  bench('learn a plan from 200 finished jobs', () => {
    buildPollPlan(history);
  });
  bench('next poll delay from a plan', () => {
    nextPollDelayMs({ attempt: 5, elapsedMs: 400_000, plan }, bounds);
  });
});
