import type { Redis } from 'ioredis';
import type { Logger } from './logger.js';

/** A worker and the Redis keys of the queue it takes from (BullMQ's `queue.keys`). */
export interface WatchedWorker {
  /** The queue's name (`intake`, `poll-agent-job`, …). */
  name: string;
  keys: Record<string, string>;
  /** The BullMQ worker: its `active` event means it took a job. */
  worker: { on(event: 'active', listener: () => void): unknown };
}

/**
 * Notices a worker that has stopped taking jobs while jobs are due (BullMQ workers have been seen
 * to stop silently after a Sentinel failover: taskforcesh/bullmq#3088, #4378), so `/healthz` can
 * fail and an orchestrator restart the replica.
 *
 * A job is due when it is waiting (the `wait` list or `prioritized`), or delayed past its time (the
 * earliest `delayed` entry: BullMQ scores them `timestamp * 0x1000 + counter`, see its
 * getDelayedScore.lua; workers promote them when they fetch). A worker is stuck when jobs have been
 * due for longer than `maxWaitMs` and it has taken none since they were first seen due. With two
 * replicas, a stuck one whose partner takes everything stays healthy: nothing waits.
 */
export class WorkerWatch {
  private readonly lastTaken = new Map<string, number>();
  private readonly dueSince = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param opts.maxWaitMs - HEALTHZ_DUE_JOB_MAX_WAIT_MS.
   * @param opts.now - clock, epoch ms.
   */
  constructor(
    private readonly redis: Pick<Redis, 'pipeline'>,
    private readonly watched: WatchedWorker[],
    private readonly opts: { maxWaitMs: number; now: () => number; logger: Logger },
  ) {
    this.follow(watched);
  }

  /** Watches more workers (the composition root builds the watch before it starts the workers). */
  add(workers: WatchedWorker[]): void {
    this.watched.push(...workers);
    this.follow(workers);
  }

  private follow(workers: WatchedWorker[]): void {
    for (const w of workers) {
      this.lastTaken.set(w.name, this.opts.now());
      w.worker.on('active', () => {
        this.lastTaken.set(w.name, this.opts.now());
        this.dueSince.delete(w.name);
      });
    }
  }

  /** Reads, for each queue, whether a job is due now (one pipeline). A Redis error leaves the last sample. */
  async sample(): Promise<void> {
    const now = this.opts.now();
    const p = this.redis.pipeline();
    for (const { keys } of this.watched) p.llen(keys.wait ?? '').zcard(keys.prioritized ?? '').zrange(keys.delayed ?? '', '0', '0', 'WITHSCORES');
    const res = await p.exec();
    if (!res) return;
    this.watched.forEach((w, i) => {
      const [[e1, waiting], [e2, prioritized], [e3, first]] = res.slice(i * 3, i * 3 + 3) as [[Error | null, unknown], [Error | null, unknown], [Error | null, unknown]];
      if (e1 ?? e2 ?? e3) return;
      const earliest = Array.isArray(first) && first[1] !== undefined ? Math.floor(Number(first[1]) / 0x1000) : Infinity;
      const due = Number(waiting) > 0 || Number(prioritized) > 0 || earliest <= now;
      if (!due) this.dueSince.delete(w.name);
      else if (!this.dueSince.has(w.name)) this.dueSince.set(w.name, now);
    });
  }

  /** Names of the queues whose worker has taken no job while one was due for longer than `maxWaitMs`. */
  stuck(): string[] {
    const now = this.opts.now();
    return this.watched
      .map((w) => w.name)
      .filter((name) => {
        const since = this.dueSince.get(name);
        return since !== undefined && now - since > this.opts.maxWaitMs && (this.lastTaken.get(name) ?? 0) <= since;
      });
  }

  /** Samples every `intervalMs` (ms) until {@link stop}; logs a stuck worker once per sample. */
  start(intervalMs = 5_000): void {
    this.timer = setInterval(() => {
      this.sample()
        .then(() => {
          const stuck = this.stuck();
          if (stuck.length) this.opts.logger.error({ queues: stuck, maxWaitMs: this.opts.maxWaitMs }, 'a worker has taken no job while jobs were due; /healthz answers 503 so the replica is restarted');
        })
        // Redis is down: /healthz's write probe reports that; the watch keeps its last sample.
        .catch((err: unknown) => this.opts.logger.debug({ err }, 'worker watch could not sample its queues'));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
