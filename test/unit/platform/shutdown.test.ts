import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/platform/logger.js';
import { exitAfterStop } from '../../../src/platform/shutdown.js';

const logger = createLogger('silent');

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('exit after a graceful stop', () => {
  it('exits 0 once the stop completed within the budget', async () => {
    const exit = vi.fn();
    exitAfterStop(async () => undefined, { budgetMs: 9_000, logger, exit });
    await vi.advanceTimersByTimeAsync(0);
    expect(exit).toHaveBeenCalledWith(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(exit).toHaveBeenCalledTimes(1); // the budget's timer was cleared
  });

  it('a forced shutdown (the budget ran out before the stop finished) exits non-zero', async () => {
    const exit = vi.fn();
    exitAfterStop(() => new Promise<void>(() => undefined), { budgetMs: 9_000, logger, exit });
    await vi.advanceTimersByTimeAsync(8_999);
    expect(exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it('a stop that fails exits non-zero', async () => {
    const exit = vi.fn();
    exitAfterStop(() => Promise.reject(new Error('redis gone')), { budgetMs: 9_000, logger, exit });
    await vi.advanceTimersByTimeAsync(0);
    expect(exit).toHaveBeenCalledWith(1);
  });
});
