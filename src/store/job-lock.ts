import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a follow-up lock is held at most, in ms (a crashed holder's lock lapses after this). */
export const JOB_LOCK_TTL_MS = 30_000;

/**
 * Runs `fn` while holding the Redis lock `{prefix}:job-lock:{jobId}` (`SET NX PX` with a random
 * token, released only by its holder), so follow-ups to one job are sent one at a time across
 * every replica. Waits up to `waitMs` (ms) for the lock, polling every 50 ms.
 *
 * @throws Error when the lock could not be taken in time; rethrows what `fn` throws.
 */
export async function withJobLock<T>(redis: Redis, prefix: string, jobId: string, fn: () => Promise<T>, waitMs = JOB_LOCK_TTL_MS): Promise<T> {
  const key = `${prefix}:job-lock:${jobId}`;
  const token = randomBytes(8).toString('hex');
  const deadline = Date.now() + waitMs;
  while ((await redis.set(key, token, 'PX', JOB_LOCK_TTL_MS, 'NX')) !== 'OK') {
    if (Date.now() > deadline) throw new Error(`job ${jobId} is busy`);
    await sleep(50);
  }
  try {
    return await fn();
  } finally {
    await redis
      .eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, key, token)
      .catch(() => undefined);
  }
}
