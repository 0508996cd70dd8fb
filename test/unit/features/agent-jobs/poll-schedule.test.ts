import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildPollPlan,
  DENSE_GAP_MS,
  maxPollsFor,
  MIN_HISTORY,
  nextPollDelayMs,
  SPARSE_GAP_MS,
  type PollBounds,
  type PollPlan,
} from '../../../../src/features/agent-jobs/poll/schedule.js';

/*
 * The schedule is a pure function of (polls so far, elapsed time, learned plan, bounds): these
 * tests walk it in virtual time, the way a job is polled, and look at what a person would notice
 * (how late the end is announced) and what the docs API would (how many GETs).
 */

const bounds: PollBounds = { minMs: 10_000, maxMs: 120_000 };
const MIN = 60_000;

/** Durations spread evenly over [from, to] ms (a deterministic "history"). */
function spread(n: number, from: number, to: number): number[] {
  return Array.from({ length: n }, (_, i) => from + ((to - from) * i) / (n - 1));
}

/** Polls a job that ends `durationMs` after its start: how many GETs, and how late the end is seen (ms). */
function walk(durationMs: number, plan: PollPlan | undefined, b = bounds, random = () => 0.5) {
  let t = 0;
  let polls = 0;
  const gaps: number[] = [];
  for (;;) {
    const gap = nextPollDelayMs({ attempt: polls, elapsedMs: t, plan }, b, random);
    gaps.push(gap);
    t += gap;
    polls++;
    if (t >= durationMs) return { polls, latenessMs: t - durationMs, gaps };
  }
}

describe('poll schedule without history (backoff)', () => {
  it('waits exactly POLL_MIN_INTERVAL_MS before the first poll, whatever the jitter', () => {
    expect(nextPollDelayMs({ attempt: 0, elapsedMs: 0 }, bounds, () => 0)).toBe(10_000);
    expect(nextPollDelayMs({ attempt: 0, elapsedMs: 0 }, bounds, () => 0.999)).toBe(10_000);
  });

  it('doubles without jitter and caps at 29 s, so an end is never announced more than 29 s late', () => {
    const delays = [1, 2, 3, 30].map((n) => nextPollDelayMs({ attempt: n, elapsedMs: 0 }, bounds, () => 0));
    expect(delays).toEqual([20_000, SPARSE_GAP_MS, SPARSE_GAP_MS, SPARSE_GAP_MS]);
    expect(walk(10 * MIN, undefined).latenessMs).toBeLessThanOrEqual(SPARSE_GAP_MS);
  });

  it('takes up to 20% off as jitter, never below the minimum or above the maximum', () => {
    expect(nextPollDelayMs({ attempt: 1, elapsedMs: 0 }, bounds, () => 0.5)).toBe(18_000);
    for (let n = 0; n < 50; n++) {
      for (const r of [0, 0.3, 0.99]) {
        const d = nextPollDelayMs({ attempt: n, elapsedMs: 0 }, { minMs: 10_000, maxMs: 15_000 }, () => r);
        expect(d).toBeGreaterThanOrEqual(10_000);
        expect(d).toBeLessThanOrEqual(15_000);
      }
    }
  });

  it('spreads polls of many jobs apart (jitter is real)', () => {
    const seen = new Set(Array.from({ length: 20 }, () => nextPollDelayMs({ attempt: 3, elapsedMs: 0 }, bounds)));
    expect(seen.size).toBeGreaterThan(5);
  });

  it(`needs ${MIN_HISTORY} finished jobs before it plans from them`, () => {
    expect(buildPollPlan(spread(MIN_HISTORY - 1, 9 * MIN, 11 * MIN))).toBeUndefined();
    expect(buildPollPlan([...spread(MIN_HISTORY - 1, 9 * MIN, 11 * MIN), Number.NaN, -5, 0])).toBeUndefined();
    // From the 20th job on, the schedule is learned: no 20-s backoff step a minute into a job that
    // history says ends near 10 minutes, but the longest gap, then dense polls where such jobs end.
    const plan = buildPollPlan(spread(MIN_HISTORY, 9 * MIN, 11 * MIN));
    const early = { attempt: 1, elapsedMs: bounds.minMs };
    expect(nextPollDelayMs(early, bounds, () => 0)).toBe(20_000);
    expect(nextPollDelayMs({ ...early, plan }, bounds, () => 0)).toBe(bounds.maxMs);
    expect(nextPollDelayMs({ attempt: 5, elapsedMs: 10 * MIN, plan }, bounds)).toBe(DENSE_GAP_MS);
  });

  it('allows more started attempts than the most polls a job can take', () => {
    // 6 h at one poll per 10 s at the very least.
    expect(maxPollsFor(21_600_000, bounds)).toBeGreaterThan(2160);
  });
});

describe('poll schedule learned from finished jobs', () => {
  const tenMinutes = buildPollPlan(spread(200, 9 * MIN, 11 * MIN))!;

  it('announces a 10-minute job within 19 s with at most 24 polls (naive 5-s polling: 120)', () => {
    for (const d of spread(41, 9 * MIN, 11 * MIN)) {
      const { polls, latenessMs } = walk(d, tenMinutes);
      expect(latenessMs).toBeLessThanOrEqual(DENSE_GAP_MS);
      expect(polls).toBeLessThanOrEqual(24);
    }
  });

  it('polls sparsely where jobs do not end, densely where they do, and never waits past 29 s once they may', () => {
    const { gaps } = walk(11 * MIN, tenMinutes);
    expect(gaps[0]).toBe(bounds.minMs);
    expect(gaps[1]).toBe(bounds.maxMs); // nothing ends in the first minutes
    expect(nextPollDelayMs({ attempt: 5, elapsedMs: 10 * MIN, plan: tenMinutes }, bounds)).toBe(DENSE_GAP_MS);
    expect(nextPollDelayMs({ attempt: 5, elapsedMs: 20 * MIN, plan: tenMinutes }, bounds)).toBe(SPARSE_GAP_MS);
    // An unusually short job (4 min, none like it in the history) still learns its end within the longest gap.
    expect(walk(4 * MIN, tenMinutes).latenessMs).toBeLessThanOrEqual(bounds.maxMs);
  });

  it('keeps apart the two modes of a bimodal mix (2 min and 20 min): long gaps in between', () => {
    const plan = buildPollPlan([...spread(100, 1.5 * MIN, 2.5 * MIN), ...spread(100, 17 * MIN, 23 * MIN)])!;
    expect(nextPollDelayMs({ attempt: 3, elapsedMs: 2 * MIN, plan }, bounds)).toBe(DENSE_GAP_MS);
    expect(nextPollDelayMs({ attempt: 5, elapsedMs: 8 * MIN, plan }, bounds)).toBe(bounds.maxMs);
    expect(nextPollDelayMs({ attempt: 9, elapsedMs: 20 * MIN, plan }, bounds)).toBe(DENSE_GAP_MS);
    for (const d of [2 * MIN, 20 * MIN, 22 * MIN]) expect(walk(d, plan).latenessMs).toBeLessThanOrEqual(DENSE_GAP_MS);
  });

  it("stays within POLL_MIN_INTERVAL_MS and POLL_MAX_INTERVAL_MS, such as the sandbox's 150 ms–600 ms", () => {
    const quick = buildPollPlan(spread(50, 1_000, 4_000))!;
    const b = { minMs: 150, maxMs: 600 };
    for (let t = 0; t < 10_000; t += 97) {
      const d = nextPollDelayMs({ attempt: 3, elapsedMs: t, plan: quick }, b);
      expect(d).toBeGreaterThanOrEqual(150);
      expect(d).toBeLessThanOrEqual(600);
    }
  });

  it('for any history and any job within it: every gap within bounds, the end seen within 29 s', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: MIN, max: 30 * MIN }), { minLength: MIN_HISTORY, maxLength: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (history, q) => {
          const plan = buildPollPlan(history)!;
          const sorted = [...history].sort((a, b) => a - b);
          const job = sorted[Math.floor(q * (sorted.length - 1))]!;
          const { gaps, latenessMs } = walk(job, plan);
          expect(Math.min(...gaps)).toBeGreaterThanOrEqual(bounds.minMs);
          expect(Math.max(...gaps)).toBeLessThanOrEqual(bounds.maxMs);
          expect(latenessMs).toBeLessThanOrEqual(SPARSE_GAP_MS);
        },
      ),
      { numRuns: 60 },
    );
  });
});
