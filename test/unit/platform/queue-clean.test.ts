import { afterEach, describe, expect, it, vi } from 'vitest';
import { finishedJobAges, QueueCleaner, type CleanTarget } from '../../../src/platform/queue-clean.js';
import { arrayLogger } from '../../helpers/logs.js';

/*
 * The cleaner's timing and bounds (what BullMQ's clean deletes is tested on real Redis in
 * test/integration/platform/queue-clean.test.ts). A queue here answers `clean` from a script of
 * results, so a run's calls can be counted under fake timers.
 */

const HOUR = 3_600_000;

/** A queue whose `clean` records its calls and answers each with `answer(call)` (ids, or a rejection). */
function scriptedQueue(name: string, answer: (call: number) => Promise<string[]> = async () => []) {
  const calls: [number, number, string][] = [];
  const queue = {
    name,
    clean: (grace: number, limit: number, state?: string) => {
      calls.push([grace, limit, state ?? 'completed']);
      return answer(calls.length);
    },
  } as CleanTarget['queue'];
  return { queue, calls };
}

describe('QueueCleaner on its timer', () => {
  afterEach(() => void vi.useRealTimers());

  it('runs a minute after start, then every hour; stop() ends it: no run after the shutdown', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { logger } = arrayLogger();
    const q = scriptedQueue('intake');
    const cleaner = new QueueCleaner([{ queue: q.queue, ages: { completed: 24 * HOUR, failed: 7 * 24 * HOUR } }], {
      logger,
    });
    cleaner.start();
    try {
      await vi.advanceTimersByTimeAsync(59_000);
      expect(q.calls).toEqual([]);
      await vi.advanceTimersByTimeAsync(1_000);
      // BullMQ's clean takes its grace in ms.
      expect(q.calls).toEqual([
        [24 * HOUR, 1_000, 'completed'],
        [7 * 24 * HOUR, 1_000, 'failed'],
      ]);
      await vi.advanceTimersByTimeAsync(HOUR);
      expect(q.calls).toHaveLength(4);
    } finally {
      cleaner.stop();
    }
    await vi.advanceTimersByTimeAsync(5 * HOUR);
    expect(q.calls).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a run cut by the shutdown makes no further call and warns nothing (Redis closing under it)', async () => {
    const { logger, lines } = arrayLogger();
    let fail!: (err: Error) => void;
    const q = scriptedQueue('intake', () => new Promise((_, reject) => (fail = reject)));
    const cleaner = new QueueCleaner([{ queue: q.queue, ages: { completed: HOUR, failed: HOUR } }], { logger });
    const run = cleaner.clean();
    cleaner.stop();
    fail(new Error('Connection is closed.'));
    await run;
    expect(q.calls).toHaveLength(1);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    await cleaner.clean();
    expect(q.calls).toHaveLength(1);
  });

  it('is bounded: calls of `limit` until one deletes fewer or `maxCalls` were made; runs never overlap', async () => {
    const { logger, lines } = arrayLogger();
    const full = scriptedQueue('intake', async () => ['a', 'b']);
    const some = scriptedQueue('ask-answer', async (call) => (call === 1 ? ['a', 'b'] : ['c']));
    const cleaner = new QueueCleaner(
      [
        { queue: full.queue, ages: { failed: HOUR } },
        { queue: some.queue, ages: { completed: HOUR } },
      ],
      { logger, limit: 2, maxCalls: 3 },
    );
    await Promise.all([cleaner.clean(), cleaner.clean()]);
    expect(full.calls).toEqual([
      [HOUR, 2, 'failed'],
      [HOUR, 2, 'failed'],
      [HOUR, 2, 'failed'],
    ]);
    expect(some.calls).toEqual([
      [HOUR, 2, 'completed'],
      [HOUR, 2, 'completed'],
    ]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 30,
        deleted: { intake: { failed: 6 }, 'ask-answer': { completed: 3 } },
        more: true,
      }),
    );
  });

  it('a call that does not answer in time (Redis away) is one warn line; the run ends', async () => {
    const { logger, lines } = arrayLogger();
    const q = scriptedQueue('intake', () => new Promise(() => undefined));
    const cleaner = new QueueCleaner([{ queue: q.queue, ages: { completed: HOUR, failed: HOUR } }], {
      logger,
      callTimeoutMs: 20,
    });
    await cleaner.clean();
    expect(q.calls).toHaveLength(1);
    expect(lines.filter((l) => l.level === 40)).toEqual([
      expect.objectContaining({
        queue: 'intake',
        state: 'completed',
        err: expect.objectContaining({ message: 'Queue.clean took longer than 20 ms' }),
      }),
    ]);
  });
});

describe('finishedJobAges', () => {
  it("reads BullMQ's ages (seconds) as ms: the job's options first, else the worker's; a count alone is no age", () => {
    expect(finishedJobAges({ removeOnComplete: { age: 60 }, removeOnFail: { age: 120, count: 5 } })).toEqual({
      completed: 60_000,
      failed: 120_000,
    });
    expect(finishedJobAges({}, { removeOnComplete: { age: 60, count: 1000 }, removeOnFail: { age: 7 } })).toEqual({
      completed: 60_000,
      failed: 7_000,
    });
    expect(finishedJobAges({ removeOnComplete: true, removeOnFail: 100 }, { removeOnFail: { age: 9 } })).toEqual({
      completed: 0,
    });
    expect(finishedJobAges({})).toEqual({});
  });
});
