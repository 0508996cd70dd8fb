import type { Queue, Worker } from 'bullmq';
import { createQueue, createWorker, type QueueContext } from '../../../platform/queues.js';
import { installationRefOf } from '../../../platform/request-context.js';
import type { SlackClients } from '../../../platform/runtime.js';
import { runDigest, type DigestDeps, type DigestOutcome } from './service.js';
import { DIGEST_JOB_OPTIONS, type DigestJobData } from './store.js';

/** BullMQ queue of weekly visitor digests: one job scheduler per subscribed channel. */
export const DIGEST_QUEUE = 'send-digest';

/** Creates the digest queue (`send-digest`) under QUEUE_PREFIX. */
export function createDigestQueue(ctx: QueueContext): Queue<DigestJobData> {
  return createQueue<DigestJobData>(ctx, DIGEST_QUEUE, DIGEST_JOB_OPTIONS);
}

/**
 * Starts the worker that sends digests (queue `send-digest`): the runs created by each channel's
 * job scheduler and the "send now" jobs. BullMQ gives each run to one worker of one replica; the
 * delivery record in runDigest makes the post exactly-once even across retries. A run lost with a
 * killed process is picked up again after the lock lapses (≈ 30 s).
 *
 * @param now - clock in epoch ms (the week a run covers is the one before it).
 * @param slack - `forWork` runs a digest as work of the installation recorded with it (OAuth mode
 *   posts with that workspace's token); `installed`: a run for an uninstalled workspace posts
 *   nothing (`not_installed`), before any docs API read. Required: the platform's `SlackClients`
 *   (single-token mode's just run it).
 */
export function startDigestWorker(
  ctx: QueueContext,
  deps: DigestDeps,
  now: () => number,
  slack: Pick<SlackClients, 'forWork' | 'installed'>,
): Worker<DigestJobData, DigestOutcome> {
  const worker = createWorker<DigestJobData, DigestOutcome>(
    ctx,
    DIGEST_QUEUE,
    async (job) => {
      const ref = installationRefOf(job.data);
      if (!(await slack.installed(ref))) return { status: 'not_installed' } as const;
      return slack.forWork(ref, `digest-${job.id ?? job.timestamp}`, () =>
        runDigest(deps, {
          runKey: job.id ?? `${job.name}-${job.timestamp}`,
          data: job.data,
          finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
          nowMs: now(),
        }),
      );
    },
    { concurrency: 4, lockDuration: 30_000, stalledInterval: 15_000, maxStalledCount: 2 },
  );
  worker.on('completed', (job, outcome) =>
    deps.logger.info({ bullJobId: job.id, channel: job.data.channel, status: outcome.status }, 'digest run finished'),
  );
  return worker;
}
