import type { Redis } from 'ioredis';
import type { Logger } from './logger.js';
import { withinTime } from './time-limit.js';

/** Milliseconds between two samples of the watched queues (HEALTHZ_DUE_JOB_MAX_WAIT_MS must be at least twice it). */
export const WORKER_WATCH_SAMPLE_MS = 5_000;

/** What the watch reads of a BullMQ (6) `Worker`. */
interface WatchableWorker {
  /** How many jobs it runs at once (BullMQ's `opts.concurrency`, default 1). */
  readonly concurrency: number;
  /** False when its main loop is not running (it stopped, or was closed): it takes no job. */
  isRunning(): boolean;
  /** Its `active` event means it took a job. */
  on(event: 'active', listener: () => void): unknown;
}

/** A worker and the Redis keys of the queue it takes from (BullMQ's `queue.keys`). */
interface WatchedWorker {
  /** The queue's name (`intake`, `poll-agent-job`, …). */
  name: string;
  keys: Record<string, string>;
  worker: WatchableWorker;
}

/**
 * How many jobs `worker` is running now: BullMQ's own count, its lock manager's tracked jobs
 * (`LockManager.getActiveJobCount()`; BullMQ 6 tracks a job from the start of `processJob` to its
 * `finally`). Counting `active` against `completed`/`failed` events would drift upwards: a step job
 * that moves itself to delayed (`DelayedError`, every poll of `poll-agent-job`), a rate-limited job
 * and a job whose lock was lost end without either event, and a drifted count would hide a stuck worker.
 * @throws Error when this BullMQ has no such count (`lockManager` is protected: an upgrade may move it).
 */
export function runningJobs(worker: WatchableWorker): number {
  const lockManager = (worker as { lockManager?: { getActiveJobCount?: () => unknown } }).lockManager;
  const n = lockManager?.getActiveJobCount?.();
  if (typeof n !== 'number')
    throw new Error(
      "the worker watch cannot read how many jobs a BullMQ worker runs (Worker.lockManager.getActiveJobCount() is gone: check BullMQ's upgrade)",
    );
  return n;
}

/** Whether `worker` could take a job now: it is not running, or runs fewer jobs than its concurrency. */
function hasFreeSlot(worker: WatchableWorker): boolean {
  return !worker.isRunning() || runningJobs(worker) < worker.concurrency;
}

type Reply = [Error | null, unknown];

/**
 * Notices a worker that has stopped taking jobs while jobs are due (BullMQ workers have been seen
 * to stop silently after a Sentinel failover: taskforcesh/bullmq#3088 and
 * taskforcesh/bullmq#4378), so `/healthz` can
 * fail and an orchestrator restart the replica.
 *
 * A job is due when it is waiting (the `wait` list or `prioritized`), or delayed past its time (the
 * earliest `delayed` entry: BullMQ scores them `timestamp * 0x1000 + counter`, see its
 * getDelayedScore.lua; workers promote them when they fetch). A worker is stuck when, for longer
 * than `maxWaitMs`, jobs have been due, it had a free slot (a worker whose every slot is busy with
 * slow handlers is busy, not stuck; a slot is noticed free at the next sample, ≤ 5 s late) and it
 * took none. A queue whose sample could not be read (Redis down or slow: `/healthz`'s write probe
 * reports that) is not judged, and its clock starts again at the next good sample. With two
 * replicas, a stuck one whose partner takes everything stays healthy: nothing waits.
 */
export class WorkerWatch {
  private readonly lastTaken = new Map<string, number>();
  private readonly dueSince = new Map<string, number>();
  private readonly freeSince = new Map<string, number>();
  /** The read of the queues still waiting for Redis' answer (one at a time, so none pile up in the client's queue). */
  private reading: Promise<unknown> | undefined;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param opts.maxWaitMs - HEALTHZ_DUE_JOB_MAX_WAIT_MS.
   * @param opts.now - clock, epoch ms.
   * @throws Error when a worker's running jobs cannot be read ({@link runningJobs}).
   */
  constructor(
    private readonly redis: Pick<Redis, 'pipeline'>,
    private readonly watched: WatchedWorker[],
    private readonly opts: { maxWaitMs: number; now: () => number; logger: Logger },
  ) {
    this.follow(watched);
  }

  /** Watches more workers (the composition root builds the watch before it starts the workers). @throws as the constructor. */
  add(workers: WatchedWorker[]): void {
    this.follow(workers);
    this.watched.push(...workers);
  }

  private follow(workers: WatchedWorker[]): void {
    for (const w of workers) runningJobs(w.worker);
    for (const w of workers) {
      this.lastTaken.set(w.name, this.opts.now());
      w.worker.on('active', () => {
        this.lastTaken.set(w.name, this.opts.now());
        this.dueSince.delete(w.name);
      });
    }
  }

  /**
   * Notes each worker's free slots, then reads, for each queue, whether a job is due now (one
   * pipeline, answered within {@link WORKER_WATCH_SAMPLE_MS}).
   * @throws the Redis error (or a timeout) when the queues could not be read; no queue is judged until a sample succeeds.
   */
  async sample(): Promise<void> {
    const now = this.opts.now();
    for (const w of this.watched) {
      if (!hasFreeSlot(w.worker)) this.freeSince.delete(w.name);
      else if (!this.freeSince.has(w.name)) this.freeSince.set(w.name, now);
    }
    let res: Reply[];
    try {
      res = await this.readQueues();
    } catch (err) {
      this.dueSince.clear();
      throw err;
    }
    this.watched.forEach((w, i) => {
      const [[e1, waiting], [e2, prioritized], [e3, first]] = res.slice(i * 3, i * 3 + 3) as [Reply, Reply, Reply];
      const earliest =
        Array.isArray(first) && first[1] !== undefined ? Math.floor(Number(first[1]) / 0x1000) : Infinity;
      const due = Number(waiting) > 0 || Number(prioritized) > 0 || earliest <= now;
      if ((e1 ?? e2 ?? e3) || !due) this.dueSince.delete(w.name);
      // A job taken while Redis answered: the wait starts at the next sample.
      else if (!this.dueSince.has(w.name) && (this.lastTaken.get(w.name) ?? 0) <= now) this.dueSince.set(w.name, now);
    });
  }

  private async readQueues(): Promise<Reply[]> {
    if (this.reading) throw new Error('the previous sample is still waiting for Redis');
    const p = this.redis.pipeline();
    for (const { keys } of this.watched)
      p.llen(keys.wait ?? '')
        .zcard(keys.prioritized ?? '')
        .zrange(keys.delayed ?? '', '0', '0', 'WITHSCORES');
    const reading = p.exec();
    this.reading = reading;
    // Cleared when Redis answers, however late; a late answer is not used.
    void reading
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => (this.reading = undefined));
    const res = await withinTime(reading, WORKER_WATCH_SAMPLE_MS, () => {
      throw new Error(`the queues' sample took longer than ${WORKER_WATCH_SAMPLE_MS} ms`);
    });
    if (!res) throw new Error('the pipeline was not run');
    return res as Reply[];
  }

  /** Names of the queues whose worker has had a free slot and taken no job while one was due, for longer than `maxWaitMs`. */
  stuck(): string[] {
    const now = this.opts.now();
    return this.watched
      .filter((w) => {
        const due = this.dueSince.get(w.name);
        const free = this.freeSince.get(w.name);
        if (due === undefined || free === undefined || !hasFreeSlot(w.worker)) return false;
        return now - Math.max(due, free) > this.opts.maxWaitMs;
      })
      .map((w) => w.name);
  }

  /** Samples every {@link WORKER_WATCH_SAMPLE_MS} until {@link stop}; logs a stuck worker once per sample. */
  start(): void {
    this.timer = setInterval(() => {
      this.sample()
        .then(() => {
          const stuck = this.stuck();
          if (stuck.length)
            this.opts.logger.error(
              { queues: stuck, maxWaitMs: this.opts.maxWaitMs },
              'a worker with a free slot has taken no job while jobs were due; /healthz answers 503 so the replica is restarted',
            );
        })
        // Redis is down or slow: /healthz's write probe reports that; no queue is judged meanwhile.
        .catch((err: unknown) => this.opts.logger.debug({ err }, 'worker watch could not sample its queues'));
    }, WORKER_WATCH_SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
