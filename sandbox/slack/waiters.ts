/**
 * Waiting on conditions without sleeping: callers register a condition, the owner calls `notify()`
 * whenever its state changes, and each pending condition is re-checked then. Timeouts are in ms.
 */

interface Pending {
  check: () => boolean;
}

/** A set of pending conditions re-checked on every {@link Waiters.notify}. */
export class Waiters {
  private readonly pending = new Set<Pending>();

  /** Re-check every pending condition (call after each state change). */
  notify(): void {
    for (const p of [...this.pending]) p.check();
  }

  /**
   * Resolve with `fn()` as soon as it returns something other than undefined (checked now and on each
   * notify); reject after `timeoutMs` with "timed out after N ms waiting for <describe()>".
   */
  until<T>(fn: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
    const now = fn();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = {
        check: () => {
          const value = fn();
          if (value === undefined) return false;
          this.pending.delete(pending);
          clearTimeout(timer);
          resolve(value);
          return true;
        },
      };
      const timer = setTimeout(() => {
        this.pending.delete(pending);
        reject(new Error(`fake Slack Socket Mode: timed out after ${timeoutMs} ms waiting for ${describe()}`));
      }, timeoutMs);
      this.pending.add(pending);
    });
  }
}
