import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { withinTime } from './time-limit.js';

/** Milliseconds `/healthz` waits for Redis to take its write before answering 503. */
const HEALTH_TIMEOUT_MS = 1_000;

/** Milliseconds a write probe's answer is reused by later `/healthz` requests. */
const HEALTH_PROBE_REUSE_MS = 1_000;

/** What `/healthz` needs: a Redis write probe and the queues whose worker is stuck. */
export interface HealthDeps {
  redis: Pick<Redis, 'set'>;
  /** The probe's key (one per replica, e.g. `{prefix}:healthz:{host}:{pid}`); it expires after 60 s. */
  probeKey: string;
  /** Queues whose worker has taken no due job for too long (see WorkerWatch). */
  stuckWorkers?: () => string[];
  /**
   * Whether the replica is draining before it stops (SIGTERM; shutdown.ts `Drain`): then `/healthz`
   * answers 503 `{"status":"draining"}` without asking Redis, so a load balancer takes it out.
   */
  draining?: () => boolean;
  /** Clock of the probe's reuse (lru-cache's `perf`), in ms. @defaultValue `performance` */
  perf?: { now(): number };
}

/**
 * @returns true when Redis took a write (`SET probeKey … PX 60000`) within `timeoutMs` (ms): a
 *   PING would pass on a demoted primary that refuses writes (READONLY); never throws.
 */
async function redisWritable(redis: Pick<Redis, 'set'>, key: string, timeoutMs: number): Promise<boolean> {
  try {
    const ok = await withinTime(redis.set(key, String(Date.now()), 'PX', 60_000), timeoutMs, () => 'timed out');
    return ok === 'OK';
  } catch {
    // Any failure to write is the answer itself: not writable.
    return false;
  }
}

/**
 * Answers `GET /healthz`: 200 `{"status":"ok","redis":"up","workers":"ok"}`; 503 with
 * `"redis":"down"` while Redis does not take a write within {@link HEALTH_TIMEOUT_MS} (down, or a
 * demoted primary answering READONLY), or with `"workers":"stuck","stuckQueues":[…]` when a worker
 * has taken no job while jobs were due for longer than HEALTHZ_DUE_JOB_MAX_WAIT_MS (Redis is the
 * one dependency without which nothing can be taken or done; the docs API and Slack are retried).
 * While the replica drains before it stops, 503 `{"status":"draining"}` (requests are still taken).
 *
 * The route is unauthenticated, so a flood of requests must not become a flood of writes (nor,
 * during an outage, a pile of probes queued in the client): one probe at a time, shared by every
 * request that arrives meanwhile, and its answer reused for {@link HEALTH_PROBE_REUSE_MS} (an
 * lru-cache `fetch` with a TTL). Each handler has its own.
 */
export function healthHandler(deps: HealthDeps) {
  const probe = new LRUCache<'probe', { up: boolean }>({
    max: 1,
    ttl: HEALTH_PROBE_REUSE_MS,
    ...(deps.perf ? { perf: deps.perf, ttlResolution: 0 } : {}),
    fetchMethod: async () => ({ up: await redisWritable(deps.redis, deps.probeKey, HEALTH_TIMEOUT_MS) }),
  });
  return async (_req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (deps.draining?.()) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'draining' }));
      return;
    }
    const up = (await probe.fetch('probe'))?.up ?? false;
    const stuck = deps.stuckWorkers?.() ?? [];
    const ok = up && stuck.length === 0;
    const body = {
      status: ok ? 'ok' : 'unavailable',
      redis: up ? 'up' : 'down',
      workers: stuck.length ? 'stuck' : 'ok',
      ...(stuck.length ? { stuckQueues: stuck } : {}),
    };
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
}
