/**
 * Previews of a job's pull request: when a run completes with a pull request on a branch, a step job
 * (`preview-deployment`) asks the docs platform for a preview deployment once, within the
 * organization's 5 a minute, and shows it in the job's thread (one message per job, edited in place
 * by later runs), with the changed pages linked; a failed build offers "Ask the agent to fix the build".
 */
export { createPreviewStep } from './step.js';
export {
  PREVIEW_CEILING_MS,
  type PreviewJob,
  type PreviewJobData,
  type PreviewStepDeps,
  type PreviewStepResult,
} from './context.js';
export { createPreviewQueue, PREVIEW_QUEUE, previewJobId, watchPreview } from './queue.js';
export { startPreviewWorker } from './worker.js';
export { PreviewStore, type PreviewRecord } from './record.js';
export { PreviewSlots, SLOTS_PER_WINDOW, SLOT_WINDOW_MS } from './slots.js';
export { ACTION_PREVIEW_FIX, PREVIEW_FIX_PURPOSE, previewMessage } from './blocks.js';
export { previewMessageKey } from './show.js';
