import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.js';
import { WorkerWatch } from '../../src/platform/worker-watch.js';

/** A fake pipeline answering LLEN wait, ZCARD prioritized, ZRANGE delayed 0 0 WITHSCORES from `state`. */
function fakeRedis(state: { waiting: number; prioritized: number; delayedDueAt?: number }) {
  return {
    pipeline() {
      const p = {
        llen: () => p,
        zcard: () => p,
        zrange: () => p,
        exec: async () => [
          [null, state.waiting],
          [null, state.prioritized],
          [null, state.delayedDueAt === undefined ? [] : ['job-1', String(state.delayedDueAt * 0x1000 + 7)]],
        ],
      };
      return p;
    },
  };
}

function setup(state: { waiting: number; prioritized: number; delayedDueAt?: number }) {
  let now = 1_000_000;
  const worker = new EventEmitter();
  const watch = new WorkerWatch(fakeRedis(state) as never, [{ name: 'intake', keys: { wait: 'w', prioritized: 'p', delayed: 'd' }, worker }], { maxWaitMs: 60_000, now: () => now, logger: createLogger('silent') });
  return { watch, worker, tick: (ms: number) => (now += ms), now: () => now };
}

describe('WorkerWatch', () => {
  it('calls a worker stuck once a job has waited longer than the threshold and it took none meanwhile', async () => {
    const s = { waiting: 1, prioritized: 0 };
    const { watch, tick } = setup(s);
    await watch.sample();
    tick(59_000);
    await watch.sample();
    expect(watch.stuck()).toEqual([]);
    tick(2_000);
    await watch.sample();
    expect(watch.stuck()).toEqual(['intake']);
  });

  it('a worker that takes jobs is not stuck, however long the backlog', async () => {
    const { watch, worker, tick } = setup({ waiting: 50, prioritized: 0 });
    for (let i = 0; i < 10; i++) {
      await watch.sample();
      tick(30_000);
      worker.emit('active');
    }
    await watch.sample();
    tick(30_000);
    expect(watch.stuck()).toEqual([]);
  });

  it('an idle worker with nothing due is not stuck; a delayed job past its time is due', async () => {
    const s: { waiting: number; prioritized: number; delayedDueAt?: number } = { waiting: 0, prioritized: 0 };
    const { watch, tick, now } = setup(s);
    s.delayedDueAt = now() + 3_600_000; // a poll due in an hour
    await watch.sample();
    tick(120_000);
    await watch.sample();
    expect(watch.stuck()).toEqual([]);
    s.delayedDueAt = now() - 1; // due now, and nobody promotes it
    await watch.sample();
    tick(61_000);
    await watch.sample();
    expect(watch.stuck()).toEqual(['intake']);
  });

  it('recovers as soon as the worker takes a job again', async () => {
    const { watch, worker, tick } = setup({ waiting: 0, prioritized: 3 });
    await watch.sample();
    tick(61_000);
    expect(watch.stuck()).toEqual(['intake']);
    worker.emit('active');
    expect(watch.stuck()).toEqual([]);
  });
});

describe('/healthz with a stuck worker', () => {
  it('answers 503 naming the queue, though Redis takes writes', async () => {
    const { healthHandler } = await import('../../src/platform/health.js');
    let status = 0;
    let body = '';
    const res = { writeHead: (s: number) => void (status = s), end: (b: string) => void (body = b) };
    await healthHandler({ redis: { set: async () => 'OK' } as never, probeKey: 'k', stuckWorkers: () => ['poll-agent-job'] })({} as never, res as never);
    expect(status).toBe(503);
    expect(JSON.parse(body)).toEqual({ status: 'unavailable', redis: 'up', workers: 'stuck', stuckQueues: ['poll-agent-job'] });
  });
});
