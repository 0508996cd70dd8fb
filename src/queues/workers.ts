import type { WebClient } from '@slack/web-api';
import { Worker, type ConnectionOptions } from 'bullmq';
import { maxPollsFor } from '../agent-jobs/poll-schedule.js';
import { createPollStep } from '../agent-jobs/poll-step.js';
import type { Deps } from '../deps.js';
import { startDigestWorker } from '../visitors/digest-worker.js';
import { POLL_QUEUE, type PollJobData } from './poll-queue.js';

/**
 * Starts the BullMQ workers of this process: the agent-job poller and the digest sender.
 * Lock and stall settings let a job held by a killed process be picked up again within ~15 s.
 */
export function startWorkers(deps: Deps, slack: WebClient, connection: ConnectionOptions): Worker[] {
  const bounds = { minMs: deps.config.POLL_MIN_INTERVAL_MS, maxMs: deps.config.POLL_MAX_INTERVAL_MS };
  const poller = new Worker<PollJobData>(
    POLL_QUEUE,
    createPollStep({
      store: deps.store,
      docsApi: deps.docsApi,
      slack,
      status: deps.status,
      logger: deps.logger.child({ worker: POLL_QUEUE }),
      bounds,
      timeoutMs: deps.config.JOB_TIMEOUT_MS,
      now: deps.now,
    }),
    {
      connection,
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: 10,
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 10,
      maxStartedAttempts: maxPollsFor(deps.config.JOB_TIMEOUT_MS, bounds),
    },
  );
  poller.on('failed', (job, err) => {
    deps.logger.error({ jobId: job?.data.agentJobId, err: { name: err.name, message: err.message } }, 'poll step failed');
  });
  poller.on('error', (err) => deps.logger.error({ err: { name: err.name, message: err.message } }, 'poll worker error'));
  const digest = startDigestWorker(deps, slack, connection);
  return digest ? [poller, digest] : [poller];
}
