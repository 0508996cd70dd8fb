import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/platform/logger.js';
import { Drain, exitAfterStop, HTTP_DRAIN_MS, shutdownDrainMs } from '../../../src/platform/shutdown.js';

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

describe('the drain before a stop (SIGTERM behind a load balancer)', () => {
  it('is draining from its start, and ends after its length, not before', async () => {
    const drain = new Drain(5_000);
    expect(drain.draining).toBe(false);
    let over = false;
    void drain.run().then(() => (over = true));
    expect(drain.draining).toBe(true);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(over).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(over).toBe(true);
    expect(drain.draining).toBe(true); // /healthz stays 503 until the port closes
  });

  it('a second signal ends it at once, during it or before it started', async () => {
    const drain = new Drain(20_000);
    let over = false;
    void drain.run().then(() => (over = true));
    await vi.advanceTimersByTimeAsync(1_000);
    drain.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(over).toBe(true);
    const early = new Drain(20_000);
    early.end();
    let earlyOver = false;
    void early.run().then(() => (earlyOver = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(earlyOver).toBe(true);
    expect(early.draining).toBe(true);
  });

  it('lasts SHUTDOWN_DRAIN_MS, by default 5 s in HTTP mode and none in Socket Mode', () => {
    expect(HTTP_DRAIN_MS).toBe(5_000);
    expect(shutdownDrainMs({})).toBe(5_000);
    expect(shutdownDrainMs({ SLACK_APP_TOKEN: 'xapp-1' })).toBe(0);
    expect(shutdownDrainMs({ SHUTDOWN_DRAIN_MS: 0 })).toBe(0);
    expect(shutdownDrainMs({ SHUTDOWN_DRAIN_MS: 12_000, SLACK_APP_TOKEN: 'xapp-1' })).toBe(12_000);
  });
});
