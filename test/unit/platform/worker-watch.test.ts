import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { EventEmitter } from 'node:events';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/platform/logger.js';
import { runningJobs, WORKER_WATCH_SAMPLE_MS, WorkerWatch } from '../../../src/platform/worker-watch.js';
import { arrayLogger } from '../../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../../helpers/redis.js';
import { until } from '../../helpers/redis-topology.js';

interface QueueState {
  waiting: number;
  prioritized: number;
  delayedDueAt?: number;
  down?: boolean;
  /** When set, exec waits for this promise first (Redis slow to answer). */
  hang?: Promise<void>;
}

/** A fake pipeline answering LLEN wait, ZCARD prioritized, ZRANGE delayed 0 0 WITHSCORES from `state`; `down` makes exec fail as ioredis does when Redis is away. */
function fakeRedis(state: QueueState) {
  return {
    pipeline() {
      const p = {
        llen: () => p,
        zcard: () => p,
        zrange: () => p,
        exec: async () => {
          if (state.hang) await state.hang;
          if (state.down) throw new Error('Connection is closed.');
          return [
            [null, state.waiting],
            [null, state.prioritized],
            [null, state.delayedDueAt === undefined ? [] : ['job-1', String(state.delayedDueAt * 0x1000 + 7)]],
          ];
        },
      };
      return p;
    },
  };
}

/** A worker as the watch sees a BullMQ one: `active` events, a concurrency and BullMQ's count of the jobs it runs. */
class FakeWorker extends EventEmitter {
  running = 0;
  readonly lockManager = { getActiveJobCount: () => this.running };
  constructor(readonly concurrency: number) {
    super();
  }
  isRunning() {
    return true;
  }
  /** Takes a job into a slot (BullMQ emits `active`). */
  take() {
    this.running++;
    this.emit('active');
  }
}

function setup(state: QueueState, concurrency = 1, logger = createLogger('silent')) {
  let now = 1_000_000;
  const worker = new FakeWorker(concurrency);
  const watch = new WorkerWatch(
    fakeRedis(state) as never,
    [{ name: 'intake', keys: { wait: 'w', prioritized: 'p', delayed: 'd' }, worker }],
    { maxWaitMs: 60_000, now: () => now, logger },
  );
  return { watch, worker, tick: (ms: number) => (now += ms), now: () => now };
}

/** Samples every 5 s (the watch's interval) for `ms`. */
async function sampleFor(s: { watch: WorkerWatch; tick: (ms: number) => number }, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 5_000) {
    s.tick(5_000);
    await s.watch.sample().catch(() => undefined);
  }
}

describe('WorkerWatch', () => {
  it('calls a worker with a free slot stuck once a job has waited longer than the threshold and it took none meanwhile', async () => {
    const s = setup({ waiting: 1, prioritized: 0 });
    await s.watch.sample();
    await sampleFor(s, 55_000);
    expect(s.watch.stuck()).toEqual([]);
    await sampleFor(s, 10_000);
    expect(s.watch.stuck()).toEqual(['intake']);
  });

  it('a worker whose every slot is busy is not stuck, however long jobs are due; once a slot frees and it takes nothing for the threshold, it is', async () => {
    // The Monday digests: 4 slots, each held by a handler waiting on a hanging docs API.
    const s = setup({ waiting: 30, prioritized: 0 }, 4);
    for (let i = 0; i < 4; i++) s.worker.take();
    await s.watch.sample();
    await sampleFor(s, 180_000);
    expect(s.watch.stuck()).toEqual([]);
    // One handler ends; the worker should take the next job at once. It does not.
    s.worker.running--;
    expect(s.watch.stuck()).toEqual([]);
    await sampleFor(s, 60_000);
    expect(s.watch.stuck()).toEqual([]);
    await sampleFor(s, 10_000);
    expect(s.watch.stuck()).toEqual(['intake']);
  });

  it('a worker that takes jobs is not stuck, however long the backlog', async () => {
    const s = setup({ waiting: 50, prioritized: 0 });
    for (let i = 0; i < 10; i++) {
      await sampleFor(s, 30_000);
      s.worker.take();
      s.worker.running--;
    }
    await sampleFor(s, 30_000);
    expect(s.watch.stuck()).toEqual([]);
  });

  it('an idle worker with nothing due is not stuck; a delayed job past its time is due', async () => {
    const state: QueueState = { waiting: 0, prioritized: 0 };
    const s = setup(state);
    state.delayedDueAt = s.now() + 3_600_000; // a poll due in an hour
    await sampleFor(s, 120_000);
    expect(s.watch.stuck()).toEqual([]);
    state.delayedDueAt = s.now() - 1; // due now, and nobody promotes it
    await s.watch.sample();
    await sampleFor(s, 65_000);
    expect(s.watch.stuck()).toEqual(['intake']);
  });

  it('recovers as soon as the worker takes a job again', async () => {
    const s = setup({ waiting: 0, prioritized: 3 });
    await s.watch.sample();
    await sampleFor(s, 65_000);
    expect(s.watch.stuck()).toEqual(['intake']);
    s.worker.take();
    expect(s.watch.stuck()).toEqual([]);
  });

  it('judges nothing while its sample of Redis fails, and starts the clock again when Redis answers', async () => {
    const state: QueueState = { waiting: 2, prioritized: 0 };
    const s = setup(state);
    await s.watch.sample();
    await sampleFor(s, 50_000);
    state.down = true;
    await expect(s.watch.sample()).rejects.toThrow('Connection is closed.');
    await sampleFor(s, 120_000);
    expect(s.watch.stuck()).toEqual([]);
    state.down = false;
    await sampleFor(s, 60_000);
    expect(s.watch.stuck()).toEqual([]);
    await sampleFor(s, 10_000);
    expect(s.watch.stuck()).toEqual(['intake']);
  });
});

describe('WorkerWatch when Redis is slow or down', () => {
  afterEach(() => void vi.useRealTimers());

  it('a sample still waiting for Redis is not doubled: the next one fails at once, judging nothing; the late answer frees it', async () => {
    let answer!: () => void;
    const state: QueueState = { waiting: 1, prioritized: 0, hang: new Promise<void>((r) => (answer = r)) };
    const s = setup(state);
    const first = s.watch.sample();
    await expect(s.watch.sample()).rejects.toThrow('the previous sample is still waiting for Redis');
    expect(s.watch.stuck()).toEqual([]);
    delete state.hang;
    answer();
    await first;
    await expect(s.watch.sample()).resolves.toBeUndefined();
  });

  it('running on its timer: a stuck worker is an error line naming the queue; a sample Redis refuses is a debug line, never a crash', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { logger, lines } = arrayLogger('debug');
    const state: QueueState = { waiting: 1, prioritized: 0 };
    const s = setup(state, 1, logger);
    s.watch.start();
    try {
      for (let t = 0; t <= 65_000; t += WORKER_WATCH_SAMPLE_MS) {
        s.tick(WORKER_WATCH_SAMPLE_MS);
        await vi.advanceTimersByTimeAsync(WORKER_WATCH_SAMPLE_MS);
      }
      expect(lines.filter((l) => l.level === 50)).toContainEqual(
        expect.objectContaining({ queues: ['intake'], msg: expect.stringMatching(/^a worker with a free slot/) }),
      );
      state.down = true;
      lines.length = 0;
      await vi.advanceTimersByTimeAsync(WORKER_WATCH_SAMPLE_MS);
      expect(lines).toEqual([expect.objectContaining({ level: 20, msg: 'worker watch could not sample its queues' })]);
    } finally {
      s.watch.stop();
    }
  });

  it("a BullMQ whose worker no longer tells how many jobs it runs is named (check BullMQ's upgrade), not read as idle", () => {
    expect(() => runningJobs({ concurrency: 1 } as never)).toThrow(
      /getActiveJobCount\(\) is gone: check BullMQ's upgrade/,
    );
  });
});

describe('WorkerWatch on a real BullMQ worker (Redis)', () => {
  const prefix = randomPrefix();
  const redis = testRedis();
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await dropPrefix(redis, prefix);
  });
  afterAll(() => redis.quit());

  it("reads BullMQ's own count of running jobs: slots held by slow handlers are busy, and a step job that moves itself to delayed frees its slot (no completed or failed event)", async () => {
    const connection = { url: TEST_REDIS_URL };
    const queue = new Queue('watched', { connection, prefix });
    closers.push(() => queue.close());
    const release = new Map<string, (how: 'complete' | 'delay') => void>();
    const worker = new Worker(
      'watched',
      async (job: Job, token?: string) => {
        const how = await new Promise<'complete' | 'delay'>((r) => release.set(String(job.id), r));
        if (how === 'complete') return;
        await job.moveToDelayed(Date.now() + 3_600_000, token);
        throw new DelayedError();
      },
      { connection, prefix, concurrency: 2 },
    );
    closers.push(() => worker.close(true));
    const events: string[] = [];
    for (const e of ['completed', 'failed'] as const) worker.on(e, () => events.push(e));
    let now = Date.now();
    const watch = new WorkerWatch(redis, [{ name: 'watched', keys: queue.keys, worker }], {
      maxWaitMs: 60_000,
      now: () => now,
      logger: createLogger('silent'),
    });

    await queue.addBulk([
      { name: 'a', data: {}, opts: { jobId: 'a' } },
      { name: 'b', data: {}, opts: { jobId: 'b' } },
      { name: 'c', data: {}, opts: { jobId: 'c' } },
    ]);
    await until('both slots busy', 10_000, () => release.size === 2);
    expect(runningJobs(worker)).toBe(2);
    // Job c waits; both slots are busy for longer than the threshold: busy, not stuck.
    await watch.sample();
    for (let i = 0; i < 14; i++) {
      now += 5_000;
      await watch.sample();
    }
    expect(watch.stuck()).toEqual([]);

    release.get('a')!('delay');
    await until('job a moved to delayed and its slot taken by c', 10_000, () => release.has('c'));
    release.get('b')!('complete');
    release.get('c')!('delay');
    await until('every slot free', 10_000, () => runningJobs(worker) === 0);
    expect(events).toEqual(['completed']);
  });
});
