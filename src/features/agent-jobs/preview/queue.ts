/**
 * The preview queue: one BullMQ step job per run whose pull request is previewed. The poller adds
 * to it when it announces a completed run with a pull request ({@link watchPreview}); the worker
 * (worker.ts) takes from it.
 */
import type { Queue } from 'bullmq';
import type { QueueContext } from '../../../platform/queues.js';
import { createStepJobQueue, stepJobId } from '../work-of.js';
import type { PreviewJobData } from './context.js';

/** BullMQ queue that holds one step job per previewed run. */
export const PREVIEW_QUEUE = 'preview-deployment';

/** BullMQ job id of the preview of `(agentJobId, cycle)`: derived, so adding it twice previews once. */
export function previewJobId(agentJobId: string, cycle: number): string {
  return stepJobId('preview', agentJobId, cycle);
}

/** Creates the preview queue (`preview-deployment`) under QUEUE_PREFIX (work-of.ts: `createStepJobQueue`). */
export function createPreviewQueue(ctx: QueueContext): Queue<PreviewJobData> {
  return createStepJobQueue<PreviewJobData>(ctx, PREVIEW_QUEUE);
}

/**
 * Previews the pull request of `(agentJobId, cycle)`, once: idempotent (same job id), so a crash
 * and retry of the announcement, or a second replica, adds nothing twice.
 * @param completedAt - when the run was seen completed, epoch ms. @throws Redis errors.
 */
export async function watchPreview(
  queue: Pick<Queue<PreviewJobData>, 'add'>,
  agentJobId: string,
  cycle: number,
  completedAt: number,
): Promise<void> {
  await queue.add(
    'preview',
    { agentJobId, cycle, completedAt, polls: 0, tries: 0 },
    { jobId: previewJobId(agentJobId, cycle) },
  );
}
