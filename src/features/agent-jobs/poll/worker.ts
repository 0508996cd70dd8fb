import type { Worker } from 'bullmq';
import { createWorker, type QueueContext } from '../../../platform/queues.js';
import { createPollStep, type PollJobData, type PollStepDeps, type PollStepResult } from './step.js';
import { POLL_QUEUE, POLL_STEP_ATTEMPTS } from './queue.js';
import { maxPollsFor } from './schedule.js';
import type { AsWorkOf } from '../work-of.js';

export { createPollQueue, POLL_QUEUE, POLL_STEP_ATTEMPTS, pollJobId, watchAgentJob } from './queue.js';
export type { PollJobData };

const POLL_RETRY_CAP_MS = 60_000;

/**
 * Starts the worker of `poll-agent-job`. Lock and stall settings let a job held by a killed
 * process be picked up again within ~15 s; `maxStartedAttempts` counts every poll of a step job
 * (BullMQ guide "Process step jobs"), so it is set above the most polls a job can take.
 */
export function startPollWorker(
  ctx: QueueContext,
  deps: PollStepDeps,
  asWorkOf: AsWorkOf = (_id, fn) => fn(),
): Worker<PollJobData, PollStepResult> {
  const step = createPollStep(deps);
  return createWorker<PollJobData, PollStepResult>(
    ctx,
    POLL_QUEUE,
    (job, token) => asWorkOf(job.data.agentJobId, () => step(job, token)),
    {
      concurrency: 10,
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 10,
      // Every poll and every retry starts the job once more (BullMQ counts both).
      maxStartedAttempts: maxPollsFor(deps.timeoutMs, deps.bounds) + POLL_STEP_ATTEMPTS,
      settings: {
        backoffStrategy: (attemptsMade: number) =>
          Math.min(POLL_RETRY_CAP_MS, 1_000 * 2 ** Math.max(0, attemptsMade - 1)),
      },
    },
  );
}
