/**
 * Runs tasks one at a time per key, in the order they were submitted to this process (e.g. two
 * follow-ups to one job that reach this replica's sending step). Different keys run in parallel.
 * In-process only: it orders nothing across replicas. Keys are dropped once idle.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of `key` has settled; resolves/rejects like `task`. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(task, task);
    // The next task runs whatever this one did; its caller gets the error through `next`.
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
