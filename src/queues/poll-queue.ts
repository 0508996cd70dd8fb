import { Queue, type ConnectionOptions } from 'bullmq';

/** BullMQ queue that holds one step job per watched agent job (and follow-up). */
export const POLL_QUEUE = 'poll-agent-job';

/** Data of a poll step job. */
export interface PollJobData {
  agentJobId: string;
  /** Follow-up number being watched (0 = the first run). */
  cycle: number;
  /** Polls done so far in this cycle. */
  attempt: number;
}

/**
 * BullMQ job id of the poller of `(agentJobId, cycle)`. Derived, so adding it twice (a retry, a
 * second replica) tracks nothing twice. BullMQ job ids may not contain `:`.
 */
export function pollJobId(agentJobId: string, cycle: number): string {
  return `agent-${agentJobId.replace(/[^A-Za-z0-9_.-]/g, '_')}-${cycle}`;
}

/** Creates the poll queue under `prefix` (QUEUE_PREFIX). */
export function createPollQueue(connection: ConnectionOptions, prefix: string): Queue<PollJobData> {
  return new Queue<PollJobData>(POLL_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: {
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
      attempts: 5,
      backoff: { type: 'exponential', delay: 5_000 },
    },
  });
}

/**
 * Starts watching `(agentJobId, cycle)`: the first poll runs after `firstDelayMs`.
 * Idempotent: a second call for the same pair is ignored by BullMQ (same job id).
 */
export async function watchAgentJob(
  queue: Queue<PollJobData>,
  agentJobId: string,
  cycle: number,
  firstDelayMs: number,
): Promise<void> {
  await queue.add('poll', { agentJobId, cycle, attempt: 0 }, { jobId: pollJobId(agentJobId, cycle), delay: firstDelayMs });
}
