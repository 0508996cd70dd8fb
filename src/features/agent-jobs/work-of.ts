/**
 * Which installation an agent job's background work (its poller, status edits, previews) belongs
 * to: OAuth mode reads it from the job's record (`teamId`, `enterpriseId`, `enterpriseInstall`,
 * recorded when the job started), so that work posts with that workspace's token only. Also the
 * queue, job id and worker settings the agent jobs' two step-job queues (poll, preview) share.
 */
import type { Job, Queue, Worker } from 'bullmq';
import { createQueue, createWorker, type QueueContext, type WorkerSettings } from '../../platform/queues.js';
import type { Platform } from '../../platform/runtime.js';
import type { JobStore } from './store.js';

/** Runs `fn` as work of agent job `agentJobId`'s installation. */
export type AsWorkOf = <T>(agentJobId: string, fn: () => Promise<T>) => Promise<T>;

/**
 * The {@link AsWorkOf} of the platform's mode: single-token mode just runs `fn` (nothing read);
 * OAuth mode reads the job's record first (a job without one runs with no installation: its Slack
 * calls fail with `installation_not_found`, and the step handles that as a permanent Slack error).
 * @throws Redis errors (the step is retried).
 */
export function asWorkOf(platform: Pick<Platform, 'slack' | 'installations'>, store: Pick<JobStore, 'get'>): AsWorkOf {
  if (!platform.installations) return (_id, fn) => fn();
  return async (agentJobId, fn) => {
    const rec = await store.get(agentJobId);
    return platform.slack.forWork(rec ?? {}, `agent-job-${agentJobId}`, fn);
  };
}

/**
 * Attempts of a step job that throws (Redis trouble: an API or Slack failure reschedules instead),
 * with a backoff doubling from 1 s to at most 1 minute: about 16 hours of retries, so a Redis
 * outage delays an announcement or a preview but never drops it.
 */
export const STEP_JOB_ATTEMPTS = 1_000;

/**
 * BullMQ job id of the step job of `(agentJobId, cycle)` on one step queue (`kind`: `agent` for the
 * poller, `preview`). Derived, so adding it twice (a retry, a second replica) adds nothing twice.
 * BullMQ job ids may not contain `:`.
 */
export function stepJobId(kind: 'agent' | 'preview', agentJobId: string, cycle: number): string {
  return `${kind}-${agentJobId.replace(/[^A-Za-z0-9_.-]/g, '_')}-${cycle}`;
}

/**
 * Creates the step queue `name` under QUEUE_PREFIX. Only what a job must carry is in its options
 * ({@link STEP_JOB_ATTEMPTS}, the worker's capped backoff; each job keeps them in its BullMQ hash
 * for hours): how long finished jobs are kept is the worker's setting.
 */
export function createStepJobQueue<T>(ctx: QueueContext, name: string): Queue<T> {
  return createQueue<T>(ctx, name, { attempts: STEP_JOB_ATTEMPTS, backoff: { type: 'capped' } });
}

/**
 * Starts the worker of step queue `name` ({@link stepJobWorkerOptions} with `maxStartedAttempts`):
 * each step runs as work of its agent job's installation (`asWorkOf`: {@link asWorkOf}).
 */
export function startStepJobWorker<T extends { agentJobId: string }, R>(
  ctx: QueueContext,
  name: string,
  step: (job: Job<T>, token?: string) => Promise<R>,
  asWorkOf: AsWorkOf,
  maxStartedAttempts: number,
): Worker<T, R> {
  return createWorker<T, R>(
    ctx,
    name,
    (job, token) => asWorkOf(job.data.agentJobId, () => step(job, token)),
    stepJobWorkerOptions(maxStartedAttempts),
  );
}

/** Longest wait between two tries of a step that threw, in ms. */
const STEP_RETRY_CAP_MS = 60_000;

/**
 * Worker settings of an agent-job step queue (poll, preview): 10 at once; lock and stall settings
 * let a job held by a killed process be picked up again within ~15 s; tries back off doubling from
 * 1 s up to a minute. `maxStartedAttempts` counts every start of a step job, each poll or wait and
 * each retry (BullMQ guide "Process step jobs"): the caller gives the most its job can take.
 */
function stepJobWorkerOptions(maxStartedAttempts: number): WorkerSettings {
  return {
    concurrency: 10,
    removeOnComplete: { age: 24 * 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600 },
    lockDuration: 10_000,
    stalledInterval: 5_000,
    maxStalledCount: 10,
    maxStartedAttempts,
    settings: {
      backoffStrategy: (attemptsMade: number) =>
        Math.min(STEP_RETRY_CAP_MS, 1_000 * 2 ** Math.max(0, attemptsMade - 1)),
    },
  };
}
