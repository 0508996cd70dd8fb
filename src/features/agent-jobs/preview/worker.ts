import type { Worker } from 'bullmq';
import type { QueueContext } from '../../../platform/queues.js';
import { maxPollsFor } from '../poll/schedule.js';
import { PREVIEW_CEILING_MS, type PreviewJobData, type PreviewStepDeps, type PreviewStepResult } from './context.js';
import { PREVIEW_QUEUE } from './queue.js';
import { createPreviewStep } from './step.js';
import { startStepJobWorker, STEP_JOB_ATTEMPTS, type AsWorkOf } from '../work-of.js';

/** Most waits in line a preview can take (each a start of the step job): hours of a full line. */
const MAX_QUEUED_STARTS = 500;

/**
 * Starts the worker of `preview-deployment` (work-of.ts: `startStepJobWorker`, as the poller's: a job
 * held by a killed process is picked up within ~15 s); `maxStartedAttempts` is above the most
 * waits, status reads and retries one preview can take. Each step runs as work of its agent job's
 * installation (`asWorkOf`, required: work-of.ts's `asWorkOf`).
 */
export function startPreviewWorker(
  ctx: QueueContext,
  deps: PreviewStepDeps,
  asWorkOf: AsWorkOf,
): Worker<PreviewJobData, PreviewStepResult> {
  const maxStarts =
    maxPollsFor(deps.ceilingMs ?? PREVIEW_CEILING_MS, deps.bounds) + MAX_QUEUED_STARTS + STEP_JOB_ATTEMPTS;
  return startStepJobWorker(ctx, PREVIEW_QUEUE, createPreviewStep(deps), asWorkOf, maxStarts);
}
