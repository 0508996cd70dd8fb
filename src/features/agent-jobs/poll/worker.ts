import type { Worker } from 'bullmq';
import type { QueueContext } from '../../../platform/queues.js';
import { createPollStep, type PollJobData, type PollStepDeps, type PollStepResult } from './step.js';
import { POLL_QUEUE } from './queue.js';
import { maxPollsFor } from './schedule.js';
import { startStepJobWorker, STEP_JOB_ATTEMPTS, type AsWorkOf } from '../work-of.js';

export { createPollQueue, POLL_QUEUE, pollJobId, watchAgentJob } from './queue.js';
export type { PollJobData };

/**
 * Starts the worker of `poll-agent-job` (work-of.ts: `startStepJobWorker`; a job held by a killed
 * process is picked up again within ~15 s); `maxStartedAttempts` is set above the most polls a job
 * can take. Each step runs as work of its agent job's installation (`asWorkOf`, required:
 * work-of.ts's `asWorkOf`).
 */
export function startPollWorker(
  ctx: QueueContext,
  deps: PollStepDeps,
  asWorkOf: AsWorkOf,
): Worker<PollJobData, PollStepResult> {
  // Every poll and every retry starts the job once more (BullMQ counts both).
  const maxStarts = maxPollsFor(deps.timeoutMs, deps.bounds) + STEP_JOB_ATTEMPTS;
  return startStepJobWorker(ctx, POLL_QUEUE, createPollStep(deps), asWorkOf, maxStarts);
}
