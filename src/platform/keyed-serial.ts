/**
 * Runs tasks one at a time per key, in the order they were submitted (e.g. two follow-ups to one
 * job sent quickly reach the docs API in the order people wrote them). Different keys run in
 * parallel. In-process only; keys are dropped once idle.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of `key` has settled; resolves/rejects like `task`. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
