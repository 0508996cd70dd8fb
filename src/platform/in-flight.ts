import { withinTime } from './time-limit.js';

/**
 * Counts work that has started and not finished (listener work that goes on after `ack`), so a
 * graceful shutdown can wait for it.
 */
export class InFlight {
  private readonly pending = new Set<Promise<unknown>>();

  /** Tracks `p` until it settles; returns `p` unchanged. */
  track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    const drop = () => this.pending.delete(p);
    p.then(drop, drop);
    return p;
  }

  /** Number of tracked promises still pending. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Waits until everything tracked has settled, or `timeoutMs` (ms) passed.
   * @returns true when all settled in time.
   */
  drain(timeoutMs: number): Promise<boolean> {
    return settleWithin([...this.pending], timeoutMs);
  }
}

/**
 * Waits until every promise has settled, or `timeoutMs` (ms) passed, whichever comes first.
 * @returns true when all settled in time. Never rejects.
 */
export function settleWithin(promises: Promise<unknown>[], timeoutMs: number): Promise<boolean> {
  return withinTime(
    Promise.allSettled(promises).then(() => true),
    timeoutMs,
    () => false,
  );
}
