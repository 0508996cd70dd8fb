/**
 * The poll queue: one BullMQ step job per watched agent job (and follow-up). The services add to it
 * (`watchAgentJob`); the worker (worker.ts) takes from it.
 */
import type { Queue } from 'bullmq';
import type { QueueContext } from '../../../platform/queues.js';
import { createStepJobQueue, stepJobId } from '../work-of.js';
import type { PollJobData } from './step.js';

/** BullMQ queue that holds one step job per watched agent job (and follow-up). */
export const POLL_QUEUE = 'poll-agent-job';

export type { PollJobData };

/** BullMQ job id of the poller of `(agentJobId, cycle)` (work-of.ts: `stepJobId`). */
export function pollJobId(agentJobId: string, cycle: number): string {
  return stepJobId('agent', agentJobId, cycle);
}

/** Creates the poll queue (`poll-agent-job`) under QUEUE_PREFIX (work-of.ts: `createStepJobQueue`). */
export function createPollQueue(ctx: QueueContext): Queue<PollJobData> {
  return createStepJobQueue<PollJobData>(ctx, POLL_QUEUE);
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
