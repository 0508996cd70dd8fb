/**
 * Redis' `WAIT`, shared by concurrent callers on one connection.
 *
 * `WAIT numreplicas timeout` blocks the connection it runs on until the replicas have every write
 * that connection made before it, or until the timeout, and returns how many replicas have them
 * (Redis docs: WAIT). While it blocks, the server runs nothing else from that connection: WAITs
 * sent one per write would queue behind one another (ten writers with the replica down: ten
 * timeouts in a row for the last), and so would any write sent meanwhile.
 *
 * So at most one WAIT is in flight and at most one is queued. A caller that finds none in flight
 * sends its own; one that comes while a WAIT is in flight joins the queued one, which is sent
 * once the one in flight has returned (on the next turn of the event loop, so that the writes
 * held behind it on the connection, which complete as it returns, join that one too rather than
 * one more after it). Any caller's wait is thus at most about two timeouts: what is left of the
 * one in flight, then its own (each may end up to 1000/hz ms after its timeout, 100 ms at Redis'
 * default hz 10: the server checks blocked clients' timeouts at that rate).
 */
export class GroupedWait<T = number> {
  /** A WAIT is in flight, or the one after it is about to be sent. */
  private busy = false;
  private queued: Waiter<T>[] = [];

  /**
   * @param send - sends one `WAIT` on the connection that made the writes and resolves with its
   *   reply (the number of replicas that have them, or what the caller makes of it); rejects on a
   *   Redis error.
   */
  constructor(private readonly send: () => Promise<T>) {}

  /**
   * Resolves with the reply of a `WAIT` sent after this call (so it covers every write the
   * connection completed before the call), shared with the other callers of the same group.
   * @throws that WAIT's error (for every caller of the group).
   */
  wait(): Promise<T> {
    return new Promise((resolve, reject) => {
      this.queued.push({ resolve, reject });
      if (!this.busy) this.sendQueued();
    });
  }

  private sendQueued(): void {
    const group = this.queued;
    this.queued = [];
    this.busy = group.length > 0;
    if (!this.busy) return;
    void Promise.resolve()
      .then(() => this.send())
      .then(
        (replicas) => group.forEach((w) => w.resolve(replicas)),
        (err: unknown) => group.forEach((w) => w.reject(err)),
      )
      .finally(() => setImmediate(() => this.sendQueued()));
  }
}

interface Waiter<T> {
  resolve: (reply: T) => void;
  reject: (err: unknown) => void;
}
