/** The per-job lock that sends follow-ups to one job one at a time, across replicas. */
import type { Redis } from 'ioredis';
import { withLock } from '../../../platform/lock.js';

/** How long a follow-up lock is held at most, in ms (a crashed holder's lock lapses after this). */
const JOB_LOCK_TTL_MS = 30_000;

/**
 * Runs `fn` while holding the lock of job `jobId` (a Redis mutex under `{prefix}:job-lock:`), so
 * follow-ups to one job are sent one at a time across every replica. Waits up to `waitMs` (ms).
 *
 * @throws when the lock could not be taken in time; rethrows what `fn` throws.
 */
export function withJobLock<T>(
  redis: Redis,
  prefix: string,
  jobId: string,
  fn: () => Promise<T>,
  waitMs = JOB_LOCK_TTL_MS,
): Promise<T> {
  return withLock(
    redis,
    `${prefix}:job-lock:${jobId}`,
    { lockTimeoutMs: JOB_LOCK_TTL_MS, acquireTimeoutMs: waitMs },
    fn,
  );
}
