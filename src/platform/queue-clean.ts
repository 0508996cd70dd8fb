import type { DefaultJobOptions, Queue, WorkerOptions } from 'bullmq';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from './logger.js';
import { METRICS } from './metrics-catalog.js';
import { withinTime } from './time-limit.js';

/**
 * BullMQ deletes a finished job past its `removeOnComplete` / `removeOnFail` `age` only when a later
 * job of its queue finishes the same way (bullmq 6.7: the age is applied in the finishing job's
 * `moveToFinished` script; BullMQ runs no timer of its own for it): a failed `intake` record, which holds what someone typed, could stay
 * forever in a queue where nothing fails again. The {@link QueueCleaner} deletes them with BullMQ's
 * own `Queue.clean(grace ms, limit, state)` at the ages the queues declare, every hour in every
 * replica.
 */

/** Finished states a queue keeps by age. */
export type FinishedState = 'completed' | 'failed';
const FINISHED_STATES: readonly FinishedState[] = ['completed', 'failed'];

/** How long a queue keeps its finished jobs, in ms, per state; a state without an age is not cleaned. */
export type FinishedJobAges = Partial<Record<FinishedState, number>>;

type KeepOptions = Pick<DefaultJobOptions, 'removeOnComplete' | 'removeOnFail'>;

/** A `removeOnComplete` / `removeOnFail` value as an age in ms: `true` (deleted when finished) is 0; a count alone, `false` or none is no age. */
function ageMs(keep: KeepOptions['removeOnComplete']): number | undefined {
  if (keep === true) return 0;
  if (typeof keep === 'object' && 'age' in keep) return keep.age * 1_000; // BullMQ's KeepJobs `age` is in seconds
  return undefined;
}

/**
 * The ages BullMQ keeps a queue's finished jobs for, as it resolves them when a job finishes (its
 * `moveToFinished`): the job's own options (the queue's `defaultJobOptions`) first, else its
 * worker's. One source: the options the queue and worker were made with.
 * @returns ms per state; a state with no age (none set, or a count only) is absent.
 */
export function finishedJobAges(job: KeepOptions, worker: KeepOptions = {}): FinishedJobAges {
  const ages: FinishedJobAges = {};
  const completed = ageMs(job.removeOnComplete ?? worker.removeOnComplete);
  const failed = ageMs(job.removeOnFail ?? worker.removeOnFail);
  if (completed !== undefined) ages.completed = completed;
  if (failed !== undefined) ages.failed = failed;
  return ages;
}

/** A queue to clean and its ages. */
export interface CleanTarget {
  queue: Pick<Queue, 'name' | 'clean'>;
  ages: FinishedJobAges;
}

/**
 * Each queue with the ages its options declare ({@link finishedJobAges}), read from the queue's
 * `defaultJobOptions` and from the options of the worker of the same name, if any.
 */
export function cleanTargets(
  queues: Pick<Queue, 'name' | 'clean' | 'defaultJobOptions'>[],
  workers: { name: string; opts: Pick<WorkerOptions, 'removeOnComplete' | 'removeOnFail'> }[],
): CleanTarget[] {
  return queues.map((queue) => ({
    queue,
    ages: finishedJobAges(queue.defaultJobOptions, workers.find((w) => w.name === queue.name)?.opts),
  }));
}

/** Options of {@link QueueCleaner}; the defaults are production's, tests shorten them. */
export interface QueueCleanerOptions {
  logger: Logger;
  /** Registers `docs_bot_queue_jobs_cleaned_total{queue,state}` here (the bot's registry). */
  registry?: Registry;
  /** ms between two runs. @defaultValue 1 hour */
  everyMs?: number;
  /** ms from {@link QueueCleaner.start} to the first run. @defaultValue 1 minute */
  firstAfterMs?: number;
  /** Most jobs one `Queue.clean` call deletes. @defaultValue 1,000 */
  limit?: number;
  /** Most calls per queue and state in one run (so at most `limit` × this jobs each). @defaultValue 10 */
  maxCalls?: number;
  /** Longest wait for one call, in ms (Redis away: the queue connection waits for it). @defaultValue 60 s */
  callTimeoutMs?: number;
}

/**
 * Deletes the finished jobs of each target older than its age, on a timer ({@link start}, once
 * soon after start-up, then every hour) in every replica: idempotent (a second replica's run finds
 * nothing left), and bounded (calls of at most `limit` jobs, until one deletes fewer or `maxCalls`
 * were made; the rest waits for the next run). A run never throws: a Redis error or a call past
 * `callTimeoutMs` ends that queue's part of it with one warn line (the other queues are still
 * cleaned), and the next run tries again. Runs never overlap.
 */
export class QueueCleaner {
  private readonly cleaned?: Counter<'queue' | 'state'>;
  private first: NodeJS.Timeout | undefined;
  private every: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly targets: CleanTarget[],
    private readonly opts: QueueCleanerOptions,
  ) {
    if (!opts.registry) return;
    this.cleaned = new Counter({ ...METRICS.queueJobsCleaned, registers: [opts.registry] });
    for (const { queue, ages } of targets)
      for (const state of FINISHED_STATES)
        if (ages[state] !== undefined) this.cleaned.inc({ queue: queue.name, state }, 0);
  }

  /** Runs {@link clean} after `firstAfterMs`, then every `everyMs`, until {@link stop}. */
  start(): void {
    const { firstAfterMs = 60_000, everyMs = 3_600_000 } = this.opts;
    this.first = setTimeout(() => void this.clean(), firstAfterMs);
    this.every = setInterval(() => void this.clean(), everyMs);
    this.first.unref();
    this.every.unref();
  }

  /** Stops the timer; a run under way makes no further call, and its failure (Redis closing) is not warned. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.first);
    clearInterval(this.every);
  }

  /**
   * One run: every target's finished jobs past its age deleted. Skipped while the previous run is
   * still under way. Never rejects.
   * @returns once the run ended (or at once when skipped).
   */
  clean(): Promise<void> {
    if (this.running || this.stopped) return Promise.resolve();
    const run = this.run().finally(() => (this.running = undefined));
    this.running = run;
    return run;
  }

  private async run(): Promise<void> {
    const deleted: Record<string, Partial<Record<FinishedState, number>>> = {};
    let more = false;
    for (const { queue, ages } of this.targets)
      for (const state of FINISHED_STATES) {
        const grace = ages[state];
        if (grace === undefined || this.stopped) continue;
        const outcome = await this.cleanState(queue, state, grace);
        if (outcome.deleted) (deleted[queue.name] ??= {})[state] = outcome.deleted;
        more ||= outcome.more;
        if (outcome.failed) break; // this queue's other state waits for the next run; the other queues go on
      }
    if (Object.keys(deleted).length)
      this.opts.logger.info({ deleted, more }, 'finished queue jobs past their age deleted');
  }

  /** Cleans one state of one queue, call after call; a failure is logged here (one line) and ends that queue's part of the run. */
  private async cleanState(queue: CleanTarget['queue'], state: FinishedState, grace: number) {
    const { limit = 1_000, maxCalls = 10, callTimeoutMs = 60_000 } = this.opts;
    let deleted = 0;
    for (let call = 0; call < maxCalls && !this.stopped; call++) {
      let ids: string[];
      try {
        ids = await withinTime(queue.clean(grace, limit, state), callTimeoutMs, () => {
          throw new Error(`Queue.clean took longer than ${callTimeoutMs} ms`);
        });
      } catch (err) {
        if (this.stopped)
          this.opts.logger.debug({ err, queue: queue.name, state }, 'queue clean cut short at shutdown');
        else
          this.opts.logger.warn(
            { err, queue: queue.name, state },
            'could not delete finished queue jobs past their age; the next run (within the hour) tries again',
          );
        return { deleted, more: false, failed: true };
      }
      deleted += ids.length;
      this.cleaned?.inc({ queue: queue.name, state }, ids.length);
      if (ids.length < limit) return { deleted, more: false, failed: false };
    }
    return { deleted, more: !this.stopped, failed: false };
  }
}
