import { describe, expect, it } from 'vitest';
import { maxPollsFor, nextPollDelayMs } from '../../src/features/agent-jobs/schedule.js';

const bounds = { minMs: 10_000, maxMs: 120_000 };

describe('poll schedule', () => {
  it('waits exactly POLL_MIN_INTERVAL_MS before the first poll, whatever the jitter', () => {
    expect(nextPollDelayMs(0, bounds, () => 0)).toBe(10_000);
    expect(nextPollDelayMs(0, bounds, () => 0.999)).toBe(10_000);
  });

  it('doubles without jitter and caps at POLL_MAX_INTERVAL_MS', () => {
    const delays = [0, 1, 2, 3, 4, 5, 30].map((n) => nextPollDelayMs(n, bounds, () => 0));
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 120_000, 120_000, 120_000]);
  });

  it('takes up to 20% off as jitter, never below the minimum or above the maximum', () => {
    expect(nextPollDelayMs(2, bounds, () => 0.5)).toBe(36_000);
    expect(nextPollDelayMs(2, bounds, () => 0.999_999)).toBe(32_000);
    for (let n = 0; n < 50; n++) {
      for (const r of [0, 0.3, 0.99]) {
        const d = nextPollDelayMs(n, bounds, () => r);
        expect(d).toBeGreaterThanOrEqual(bounds.minMs);
        expect(d).toBeLessThanOrEqual(bounds.maxMs);
      }
    }
  });

  it('spreads polls of many jobs apart (jitter is real)', () => {
    const seen = new Set(Array.from({ length: 20 }, () => nextPollDelayMs(3, bounds)));
    expect(seen.size).toBeGreaterThan(5);
  });

  it('allows more started attempts than the most polls a job can take', () => {
    // 6 h at one poll per 10 s at the very least.
    expect(maxPollsFor(21_600_000, bounds)).toBeGreaterThan(2160);
  });
});
