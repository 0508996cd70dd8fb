/** Bounds of the poll schedule, in ms (POLL_MIN_INTERVAL_MS, POLL_MAX_INTERVAL_MS). */
export interface PollBounds {
  minMs: number;
  maxMs: number;
}

/** Share of a delay that jitter may take off (so replicas' polls spread out). */
export const POLL_JITTER = 0.2;

/**
 * Delay before poll number `attempt` (0 = the first poll after the job starts), in ms:
 * exponential backoff `min · 2^attempt` capped at `max`, minus up to 20 % random jitter, never
 * below `min`. So the first poll comes after exactly `min`, and no wait ever exceeds `max`.
 *
 * @param random - source of [0, 1) numbers; tests pass a fixed one.
 */
export function nextPollDelayMs(attempt: number, bounds: PollBounds, random: () => number = Math.random): number {
  const exp = bounds.minMs * 2 ** Math.min(Math.max(0, attempt), 40);
  const base = Math.min(bounds.maxMs, exp);
  const jittered = base - random() * POLL_JITTER * base;
  return Math.round(Math.min(bounds.maxMs, Math.max(bounds.minMs, jittered)));
}

/**
 * The most polls a job can take before `timeoutMs` runs out (every delay ≥ `minMs`), plus room
 * for retries after crashes. BullMQ's `maxStartedAttempts` counts every poll of a step job, so it
 * must be set above this.
 */
export function maxPollsFor(timeoutMs: number, bounds: PollBounds): number {
  return Math.ceil(timeoutMs / bounds.minMs) + 50;
}
