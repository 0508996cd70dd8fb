import type { Worker } from 'bullmq';
import { createWorker, type QueueContext } from '../../../platform/queues.js';
import { createPollStep, type PollJobData, type PollStepDeps, type PollStepResult } from './step.js';
import { POLL_QUEUE, POLL_STEP_ATTEMPTS } from './queue.js';
import { maxPollsFor } from './schedule.js';
import { stepJobWorkerOptions, type AsWorkOf } from '../work-of.js';

export { createPollQueue, POLL_QUEUE, POLL_STEP_ATTEMPTS, pollJobId, watchAgentJob } from './queue.js';
export type { PollJobData };

/**
 * Starts the worker of `poll-agent-job` ({@link stepJobWorkerOptions}: a job held by a killed
 * process is picked up again within ~15 s); `maxStartedAttempts` is set above the most polls a job
 * can take. Each step runs as work of its agent job's installation (`asWorkOf`, required:
 * work-of.ts's `asWorkOf`).
 */
export function startPollWorker(
  ctx: QueueContext,
  deps: PollStepDeps,
  asWorkOf: AsWorkOf,
): Worker<PollJobData, PollStepResult> {
  const step = createPollStep(deps);
  return createWorker<PollJobData, PollStepResult>(
    ctx,
    POLL_QUEUE,
    (job, token) => asWorkOf(job.data.agentJobId, () => step(job, token)),
    // Every poll and every retry starts the job once more (BullMQ counts both).
    stepJobWorkerOptions(maxPollsFor(deps.timeoutMs, deps.bounds) + POLL_STEP_ATTEMPTS),
  );
}
