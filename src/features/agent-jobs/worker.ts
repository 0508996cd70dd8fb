import type { Queue, Worker } from 'bullmq';
import { createQueue, createWorker, type QueueContext } from '../../platform/queues.js';
import { createPollStep, type PollJobData, type PollStepDeps, type PollStepResult } from './poll.js';
import { maxPollsFor } from './schedule.js';

/** BullMQ queue that holds one step job per watched agent job (and follow-up). */
export const POLL_QUEUE = 'poll-agent-job';

export type { PollJobData };

/**
 * BullMQ job id of the poller of `(agentJobId, cycle)`. Derived, so adding it twice (a retry, a
 * second replica) tracks nothing twice. BullMQ job ids may not contain `:`.
 */
export function pollJobId(agentJobId: string, cycle: number): string {
  return `agent-${agentJobId.replace(/[^A-Za-z0-9_.-]/g, '_')}-${cycle}`;
}

/**
 * Attempts of a poll step that throws (Redis trouble: an API or Slack failure reschedules instead),
 * with a backoff doubling from 1 s to at most 1 minute: about 16 hours of retries, so a Redis
 * outage delays an announcement but never drops it.
 */
export const POLL_STEP_ATTEMPTS = 1_000;
const POLL_RETRY_CAP_MS = 60_000;

/**
 * Creates the poll queue (`poll-agent-job`) under QUEUE_PREFIX. Only what a job must carry is in
 * its options (each tracked job keeps them in its BullMQ hash for hours): how long finished jobs
 * are kept is the worker's setting.
 */
export function createPollQueue(ctx: QueueContext): Queue<PollJobData> {
  return createQueue<PollJobData>(ctx, POLL_QUEUE, {
    attempts: POLL_STEP_ATTEMPTS,
    backoff: { type: 'capped' },
  });
}

/**
 * Starts watching `(agentJobId, cycle)`: the first poll runs after `firstDelayMs` (ms).
 * Idempotent: a second call for the same pair is ignored by BullMQ (same job id).
 */
export async function watchAgentJob(queue: Pick<Queue<PollJobData>, 'add'>, agentJobId: string, cycle: number, firstDelayMs: number): Promise<void> {
  await queue.add('poll', { agentJobId, cycle, attempt: 0 }, { jobId: pollJobId(agentJobId, cycle), delay: firstDelayMs });
}

/**
 * Starts the worker of `poll-agent-job`. Lock and stall settings let a job held by a killed
 * process be picked up again within ~15 s; `maxStartedAttempts` counts every poll of a step job
 * (BullMQ guide "Process step jobs"), so it is set above the most polls a job can take.
 */
export function startPollWorker(ctx: QueueContext, deps: PollStepDeps): Worker<PollJobData, PollStepResult> {
  return createWorker<PollJobData, PollStepResult>(ctx, POLL_QUEUE, createPollStep(deps), {
    concurrency: 10,
    removeOnComplete: { age: 24 * 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600 },
    lockDuration: 10_000,
    stalledInterval: 5_000,
    maxStalledCount: 10,
    // Every poll and every retry starts the job once more (BullMQ counts both).
    maxStartedAttempts: maxPollsFor(deps.timeoutMs, deps.bounds) + POLL_STEP_ATTEMPTS,
    settings: { backoffStrategy: (attemptsMade: number) => Math.min(POLL_RETRY_CAP_MS, 1_000 * 2 ** Math.max(0, attemptsMade - 1)) },
  });
}
