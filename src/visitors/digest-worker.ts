import type { WebClient } from '@slack/web-api';
import { Worker, type ConnectionOptions } from 'bullmq';
import type { Deps } from '../deps.js';
import { DIGEST_QUEUE, type DigestJobData } from '../queues/digest-queue.js';
import { runDigest, type DigestOutcome } from './send-digest.js';

/**
 * Starts the worker that sends digests (queue `send-digest`): the runs created by each channel's
 * job scheduler and the "send now" jobs. BullMQ gives each run to one worker of one replica; the
 * delivery record in runDigest makes the post exactly-once even across retries. A run lost with a
 * killed process is picked up again after the lock lapses (≈ 30 s).
 *
 * @returns the running worker (closed by main.ts on shutdown).
 */
export function startDigestWorker(deps: Deps, slack: WebClient, connection: ConnectionOptions): Worker | undefined {
  const logger = deps.logger.child({ worker: DIGEST_QUEUE });
  const worker = new Worker<DigestJobData, DigestOutcome>(
    DIGEST_QUEUE,
    async (job) => {
      const attempts = job.opts.attempts ?? 1;
      return runDigest(deps, slack, {
        runKey: job.id ?? `${job.name}-${job.timestamp}`,
        data: job.data,
        finalAttempt: job.attemptsMade + 1 >= attempts,
        nowMs: deps.now(),
      });
    },
    {
      connection,
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: 4,
      lockDuration: 30_000,
      stalledInterval: 15_000,
      maxStalledCount: 2,
    },
  );
  worker.on('completed', (job, outcome) => logger.info({ jobId: job.id, channel: job.data.channel, status: outcome.status }, 'digest run finished'));
  worker.on('failed', (job, err) =>
    logger.warn({ jobId: job?.id, channel: job?.data.channel, attemptsMade: job?.attemptsMade, err: { name: err.name, message: err.message } }, 'digest run failed'),
  );
  worker.on('error', (err) => logger.error({ err: { name: err.name, message: err.message } }, 'digest worker error'));
  return worker;
}
