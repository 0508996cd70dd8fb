import {
  buildPollPlan,
  nextPollDelayMs,
  type PollBounds,
  type PollPlan,
} from '../src/features/agent-jobs/poll/schedule.js';

/**
 * Poll economy in virtual time: how many GET polls a job takes and how late its end is announced,
 * for the bot's schedule (learned from finished jobs of the same mix) and for naive 5-second polling.
 */

/** A seeded [0, 1) source (mulberry32), so every run of the bench sees the same jobs. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

const MIN = 60_000;
const clampJob = (ms: number) => Math.min(30 * MIN, Math.max(1 * MIN, ms));

/** Job-duration mixes (ms), all kept within 1–30 minutes. */
export const MIXES: Record<string, (random: () => number) => number> = {
  'all ~10 min (σ 30 s)': (r) => clampJob(10 * MIN + 30_000 * normal(r)),
  'log-normal, median 6 min (σ 0.3)': (r) => clampJob(6 * MIN * Math.exp(0.3 * normal(r))),
  'log-normal, median 6 min (σ 0.5)': (r) => clampJob(6 * MIN * Math.exp(0.5 * normal(r))),
  'bimodal 2 min / 20 min': (r) => clampJob(r() < 0.5 ? 2 * MIN + 15_000 * normal(r) : 20 * MIN + 2 * MIN * normal(r)),
};

/** Polls and lateness (ms) of one job that ends `durationMs` after its cycle started. */
export function simulateJob(
  durationMs: number,
  bounds: PollBounds,
  plan: PollPlan | undefined,
  random: () => number,
): { polls: number; latenessMs: number } {
  let t = 0;
  let polls = 0;
  for (;;) {
    t += nextPollDelayMs({ attempt: polls, elapsedMs: t, plan }, bounds, random);
    polls++;
    if (t >= durationMs) return { polls, latenessMs: t - durationMs };
  }
}

/** A plain doubling backoff, the comparison baseline: 10 s, doubling to a 120-s cap, minus up to 20 % jitter. */
export function simulateDoubling(durationMs: number, random: () => number): { polls: number; latenessMs: number } {
  let t = 0;
  let polls = 0;
  for (;;) {
    const base = polls === 0 ? 10_000 : Math.min(120_000, 10_000 * 2 ** polls);
    t += polls === 0 ? base : Math.max(10_000, base - random() * 0.2 * base);
    polls++;
    if (t >= durationMs) return { polls, latenessMs: t - durationMs };
  }
}

/** Naive polling every `intervalMs`. */
export function simulateNaive(durationMs: number, intervalMs = 5_000): { polls: number; latenessMs: number } {
  const polls = Math.ceil(durationMs / intervalMs);
  return { polls, latenessMs: polls * intervalMs - durationMs };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** Summary of one schedule over one mix. */
export interface EconomyRow {
  mix: string;
  schedule: string;
  pollsPerJob: number;
  p50S: number;
  p95S: number;
  maxS: number;
}

function summarize(mix: string, schedule: string, runs: { polls: number; latenessMs: number }[]): EconomyRow {
  const late = runs.map((r) => r.latenessMs).sort((a, b) => a - b);
  return {
    mix,
    schedule,
    pollsPerJob: runs.reduce((a, r) => a + r.polls, 0) / runs.length,
    p50S: quantile(late, 0.5) / 1000,
    p95S: quantile(late, 0.95) / 1000,
    maxS: late[late.length - 1]! / 1000,
  };
}

/**
 * For each mix: learns a plan from `history` finished jobs, then runs `jobs` fresh jobs under the
 * learned schedule, under the backoff alone (no history yet) and under naive 5-s polling.
 */
export function pollEconomy(bounds: PollBounds, jobs = 2_000, history = 200, seed = 12): EconomyRow[] {
  const rows: EconomyRow[] = [];
  for (const [name, draw] of Object.entries(MIXES)) {
    const random = seeded(seed);
    const plan = buildPollPlan(Array.from({ length: history }, () => draw(random)));
    const durations = Array.from({ length: jobs }, () => draw(random));
    rows.push(
      summarize(
        name,
        'learned',
        durations.map((d) => simulateJob(d, bounds, plan, random)),
      ),
    );
    rows.push(
      summarize(
        name,
        'backoff (no history)',
        durations.map((d) => simulateJob(d, bounds, undefined, random)),
      ),
    );
    rows.push(
      summarize(
        name,
        'naive 5 s',
        durations.map((d) => simulateNaive(d)),
      ),
    );
    rows.push(
      summarize(
        name,
        'doubling (10 s → 120 s)',
        durations.map((d) => simulateDoubling(d, random)),
      ),
    );
  }
  return rows;
}

/** The rows as a fixed-width text table, with each schedule's polls as a share of naive polling's. */
export function formatEconomy(rows: EconomyRow[]): string {
  const naive = new Map(rows.filter((r) => r.schedule === 'naive 5 s').map((r) => [r.mix, r.pollsPerJob]));
  const head = ['mix', 'schedule', 'polls/job', 'vs naive', 'lateness p50', 'p95', 'max'];
  const body = rows.map((r) => [
    r.mix,
    r.schedule,
    r.pollsPerJob.toFixed(1),
    `${((100 * r.pollsPerJob) / naive.get(r.mix)!).toFixed(0)} %`,
    `${r.p50S.toFixed(1)} s`,
    `${r.p95S.toFixed(1)} s`,
    `${r.maxS.toFixed(1)} s`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  return [head, ...body]
    .map((cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '))
    .join('\n');
}

/**
 * Status edits (chat.update) per workspace, compared with editing the status message on every poll
 * (to refresh a "running for …" clock): the bot edits only at the start ("Working") and the end. For jobs of the
 * ~10-minute mix started at a steady rate so that `inFlight` run at once: edits per minute, and
 * how many jobs in flight fit in a 40-per-minute budget.
 */
export function statusEdits(inFlight: number[], jobs = 2_000, seed = 12): string {
  const random = seeded(seed);
  const draw = MIXES['all ~10 min (σ 30 s)']!;
  const durations = Array.from({ length: jobs }, () => draw(random));
  const meanMin = durations.reduce((a, b) => a + b, 0) / jobs / 60_000;
  const everyPollPerJob = durations.reduce((a, d) => a + simulateDoubling(d, random).polls + 1, 0) / jobs;
  const onChangePerJob = 2;
  const lines = [
    `edits per job: every poll ${everyPollPerJob.toFixed(1)}, on change ${onChangePerJob}; jobs in flight within 40/min: every poll ${Math.floor((40 * meanMin) / everyPollPerJob)}, on change ${Math.floor((40 * meanMin) / onChangePerJob)}`,
  ];
  lines.push('jobs in flight  edits/min, every poll  edits/min, on change');
  for (const n of inFlight) {
    lines.push(
      `${String(n).padStart(14)}  ${((n * everyPollPerJob) / meanMin).toFixed(0).padStart(20)}  ${((n * onChangePerJob) / meanMin).toFixed(0).padStart(19)}`,
    );
  }
  return lines.join('\n');
}
