import type { Redis } from 'ioredis';
import { Mutex } from 'redis-semaphore';
import type { Logger } from './logger.js';

/** Timing of a {@link withLock} lock, in ms. */
interface LockTiming {
  /** How long the lock lives if its holder dies (it is refreshed while held). */
  lockTimeoutMs: number;
  /** How long to wait for it. */
  acquireTimeoutMs: number;
  /** How often to try while waiting. @defaultValue 50 */
  retryIntervalMs?: number;
}

/**
 * Runs `fn` while holding the Redis mutex `key` (redis-semaphore's `Mutex`: `SET NX PX` with a
 * random identifier, refreshed while held, released only by its holder; its key is `mutex:<key>`,
 * so pass a key under QUEUE_PREFIX). Waits up to `acquireTimeoutMs` for it.
 *
 * @throws redis-semaphore's TimeoutError when the lock could not be taken in time; rethrows what
 *   `fn` throws.
 */
export async function withLock<T>(
  redis: Redis,
  key: string,
  timing: LockTiming,
  fn: () => Promise<T>,
  logger?: Logger,
): Promise<T> {
  const mutex = new Mutex(redis, key, {
    lockTimeout: timing.lockTimeoutMs,
    acquireTimeout: timing.acquireTimeoutMs,
    retryInterval: timing.retryIntervalMs ?? 50,
    onLockLost: (err) => logger?.warn({ err, lock: key }, 'a lock lapsed while held'),
  });
  await mutex.acquire();
  try {
    return await fn();
  } finally {
    // A release that fails leaves the lock to lapse on its own (lockTimeoutMs): nothing else to do.
    await mutex
      .release()
      .catch((err: unknown) => logger?.warn({ err, lock: key }, 'could not release a lock; it lapses on its own'));
  }
}

/**
 * Takes the Redis mutex `key` if it is free, without waiting.
 * @returns a function that releases it, or undefined when someone else holds it.
 * @throws the Redis error when Redis can't say (callers retry or give up on it).
 */
export async function tryLock(
  redis: Redis,
  key: string,
  lockTimeoutMs: number,
  logger?: Logger,
): Promise<(() => Promise<void>) | undefined> {
  const mutex = new Mutex(redis, key, {
    lockTimeout: lockTimeoutMs,
    acquireAttemptsLimit: 1,
    onLockLost: (err) => logger?.warn({ err, lock: key }, 'a lock lapsed while held'),
  });
  if (!(await mutex.tryAcquire())) return undefined;
  return () =>
    mutex
      .release()
      .catch((err: unknown) => logger?.warn({ err, lock: key }, 'could not release a lock; it lapses on its own'));
}
