import type { Redis } from 'ioredis';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { healthHandler, type HealthDeps } from '../../../src/platform/health.js';
import { dropPrefix, randomPrefix, testRedis } from '../../helpers/redis.js';

const prefix = randomPrefix();
const probeKey = `${prefix}:healthz:host:1`;
const redis = testRedis();
let server: Server | undefined;
const closers: (() => Promise<unknown> | void)[] = [];

afterAll(() => redis.quit());
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  await dropPrefix(redis, prefix);
});

async function serve(deps: HealthDeps): Promise<string> {
  const handler = healthHandler(deps);
  server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
}

/**
 * Counts the SETs of the probe key the handler sends Redis: `redis` with its `set` counted (a
 * MONITOR connection shared the Redis of the whole unit project and could lose its place in
 * ioredis' command queue under load). `settle()` returns the count so far.
 */
function watchSets(client: Redis = redis) {
  const seen = { sets: 0 };
  const counted = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'set')
        return (...args: Parameters<Redis['set']>) => {
          if (args[0] === probeKey) seen.sets++;
          return target.set(...args);
        };
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { seen, counted, settle: () => Promise.resolve(seen.sets) };
}

describe('GET /healthz', () => {
  it('50 concurrent requests cost Redis one write; they all get its answer', async () => {
    // The clock stands still: on a loaded machine 50 requests can take longer than the answer's 1 s.
    const { counted, settle } = watchSets();
    const url = await serve({ redis: counted, probeKey, perf: { now: () => 1_000_000 } });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => fetch(url).then(async (r) => ({ status: r.status, body: await r.json() }))),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers[0]!.body).toEqual({ status: 'ok', redis: 'up', workers: 'ok' });
    expect(await settle()).toBe(1);
    expect(Number(await redis.pttl(probeKey))).toBeGreaterThan(50_000);
  });

  it('reuses an answer for 1 s, then probes again: 503 while Redis refuses the write, 200 once it takes it', async () => {
    let now = 1_000_000; // lru-cache reads a start time of 0 as "never stale"
    let down = true;
    const { counted, settle } = watchSets();
    const flaky = {
      set: (...args: Parameters<Redis['set']>) =>
        down
          ? Promise.reject(new Error("READONLY You can't write against a read only replica."))
          : counted.set(...args),
    } as unknown as Redis;
    const url = await serve({ redis: flaky, probeKey, perf: { now: () => now } });

    expect((await fetch(url)).status).toBe(503);
    expect(await (await fetch(url)).json()).toMatchObject({ status: 'unavailable', redis: 'down' });
    down = false;
    now += 999;
    expect((await fetch(url)).status).toBe(503); // the last answer, less than 1 s old
    now += 2;
    expect((await fetch(url)).status).toBe(200);
    now += 500;
    expect((await fetch(url)).status).toBe(200);
    expect(await settle()).toBe(1);
    now += 501;
    expect((await fetch(url)).status).toBe(200);
    expect(await settle()).toBe(2);
  });

  it('answers 503 naming the queue of a stuck worker, though Redis takes writes', async () => {
    const url = await serve({ redis, probeKey, stuckWorkers: () => ['poll-agent-job'] });
    const res = await fetch(url);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'unavailable',
      redis: 'up',
      workers: 'stuck',
      stuckQueues: ['poll-agent-job'],
    });
  });

  it('answers 503 "draining" while the replica drains before it stops, without writing to Redis', async () => {
    let draining = false;
    const { counted, settle } = watchSets();
    const url = await serve({ redis: counted, probeKey, draining: () => draining, perf: { now: () => 1_000_000 } });
    expect((await fetch(url)).status).toBe(200);
    draining = true;
    const res = await fetch(url);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'draining' });
    expect(await settle()).toBe(1); // the one probe before the drain
  });
});
