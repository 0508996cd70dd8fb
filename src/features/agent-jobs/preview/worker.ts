import type { Worker } from 'bullmq';
import { createWorker, type QueueContext } from '../../../platform/queues.js';
import { maxPollsFor } from '../poll/schedule.js';
import { PREVIEW_CEILING_MS, type PreviewJobData, type PreviewStepDeps, type PreviewStepResult } from './context.js';
import { PREVIEW_QUEUE, PREVIEW_STEP_ATTEMPTS } from './queue.js';
import { createPreviewStep } from './step.js';
import type { AsWorkOf } from '../work-of.js';

const RETRY_CAP_MS = 60_000;
/** Most waits in line a preview can take (each a start of the step job): hours of a full line. */
const MAX_QUEUED_STARTS = 500;

/**
 * Starts the worker of `preview-deployment`: lock and stall settings as the poller's (a job held by
 * a killed process is picked up within ~15 s); `maxStartedAttempts` counts every run of a step job,
 * so it is above the most waits, status reads and retries one preview can take.
 */
export function startPreviewWorker(
  ctx: QueueContext,
  deps: PreviewStepDeps,
  asWorkOf: AsWorkOf = (_id, fn) => fn(),
): Worker<PreviewJobData, PreviewStepResult> {
  const step = createPreviewStep(deps);
  return createWorker<PreviewJobData, PreviewStepResult>(
    ctx,
    PREVIEW_QUEUE,
    (job, token) => asWorkOf(job.data.agentJobId, () => step(job, token)),
    {
      concurrency: 10,
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 10,
      maxStartedAttempts:
        maxPollsFor(deps.ceilingMs ?? PREVIEW_CEILING_MS, deps.bounds) + MAX_QUEUED_STARTS + PREVIEW_STEP_ATTEMPTS,
      settings: {
        backoffStrategy: (attemptsMade: number) => Math.min(RETRY_CAP_MS, 1_000 * 2 ** Math.max(0, attemptsMade - 1)),
      },
    },
  );
}
