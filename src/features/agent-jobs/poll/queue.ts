/**
 * The poll queue: one BullMQ step job per watched agent job (and follow-up). The services add to it
 * (`watchAgentJob`); the worker (worker.ts) takes from it.
 */
import type { Queue } from 'bullmq';
import { createQueue, type QueueContext } from '../../../platform/queues.js';
import type { PollJobData } from './step.js';

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
export async function watchAgentJob(
  queue: Pick<Queue<PollJobData>, 'add'>,
  agentJobId: string,
  cycle: number,
  firstDelayMs: number,
): Promise<void> {
  await queue.add(
    'poll',
    { agentJobId, cycle, attempt: 0 },
    { jobId: pollJobId(agentJobId, cycle), delay: firstDelayMs },
  );
}
