import { describe, expect, it } from 'vitest';
import { withinTime } from '../../../src/platform/time-limit.js';

const never = new Promise<string>(() => undefined);

describe('withinTime (the one bounded wait, on AbortSignal.timeout)', () => {
  it('gives the work’s value, or its error, when it settles in time', async () => {
    await expect(withinTime(Promise.resolve('done'), 1_000, () => 'late')).resolves.toBe('done');
    await expect(withinTime(Promise.reject(new Error('redis down')), 1_000, () => 'late')).rejects.toThrow(
      'redis down',
    );
  });

  it('gives the late value once the time has passed, and rejects when late() throws', async () => {
    const t0 = Date.now();
    await expect(withinTime(never, 50, () => 'late')).resolves.toBe('late');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
    await expect(
      withinTime(never, 20, () => {
        throw new Error('timed out');
      }),
    ).rejects.toThrow('timed out');
  });
});
