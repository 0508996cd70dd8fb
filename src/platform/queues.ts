import {
  Queue,
  Worker,
  type ConnectionOptions,
  type DefaultJobOptions,
  type Processor,
  type WorkerOptions,
} from 'bullmq';
import type { Logger } from './logger.js';

/** Where every queue of the bot lives: one Redis, one key prefix (`keyPrefix`: QUEUE_PREFIX, or `{QUEUE_PREFIX}` on a Cluster). */
export interface QueueContext {
  connection: ConnectionOptions;
  /** The workers' connection, when it differs from the queues' (its own reconnect label). */
  workerConnection?: ConnectionOptions;
  /** The bot's key prefix (`keyPrefix`): BullMQ keys are `${prefix}:${queue}:…`. */
  prefix: string;
  logger: Logger;
}

/**
 * Creates a BullMQ queue under the context's prefix, with an `error` listener that logs through
 * pino (BullMQ docs: a Queue without an error listener prints unhandled errors to stderr during a
 * Redis outage).
 */
export function createQueue<T>(ctx: QueueContext, name: string, defaultJobOptions: DefaultJobOptions): Queue<T> {
  const queue = new Queue<T>(name, { connection: ctx.connection, prefix: ctx.prefix, defaultJobOptions });
  queue.on('error', (err) => ctx.logger.warn({ err, queue: name }, 'queue error'));
  return queue;
}

/** Worker settings a feature chooses (lock, stall and concurrency); connection and prefix come from the context. */
export type WorkerSettings = Omit<WorkerOptions, 'connection' | 'prefix'>;

/**
 * Starts a BullMQ worker on queue `name` under the context's prefix. `error` (connection trouble)
 * and `failed` (a job's attempt threw) are logged through pino with the error's stack.
 */
export function createWorker<T, R>(
  ctx: QueueContext,
  name: string,
  processor: Processor<T, R>,
  settings: WorkerSettings,
): Worker<T, R> {
  const worker = new Worker<T, R>(name, processor, {
    ...settings,
    connection: ctx.workerConnection ?? ctx.connection,
    prefix: ctx.prefix,
  });
  const log = ctx.logger.child({ worker: name });
  worker.on('error', (err) => log.error({ err }, 'worker error'));
  worker.on('failed', (job, err) =>
    log.warn({ err, bullJobId: job?.id, attemptsMade: job?.attemptsMade }, 'job attempt failed'),
  );
  return worker;
}
