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
export async function settleWithin(promises: Promise<unknown>[], timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const all = Promise.allSettled(promises).then(() => true as const);
  const done = await Promise.race([all, timeout]);
  clearTimeout(timer);
  return done;
}
