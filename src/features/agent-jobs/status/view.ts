/** What a job's status message shows for its record (pure): the message, its fingerprint, the reaction. */
import { createHash } from 'node:crypto';
import { buildStatusMessage } from './blocks.js';
import type { JobRecord, StatusState } from '../store.js';

/** Reaction on the thread root for each state ('' = none). Slack emoji names, without colons. */
export const STATE_REACTION: Record<StatusState, string> = {
  starting: '',
  start_failed: '',
  active: 'hourglass_flowing_sand',
  completed: 'white_check_mark',
  failed: 'x',
  archived: 'file_cabinet',
  timeout: 'warning',
  uncertain: '',
};

/** The status message of `rec` at `nowMs` (epoch ms: the running time of a job not yet ended). */
export function statusMessageOf(rec: JobRecord, nowMs: number): { text: string; blocks: unknown[] } {
  return buildStatusMessage({
    requester: rec.requester,
    instruction: rec.instruction,
    ...(rec.about ? { about: rec.about } : {}),
    jobId: rec.jobId,
    projectId: rec.projectId,
    ...(rec.repository ? { repository: rec.repository } : {}),
    ...(rec.branch ? { branch: rec.branch } : {}),
    state: rec.state,
    elapsedMs: (rec.endedAt > 0 ? rec.endedAt : nowMs) - rec.cycleStartedAt,
    startedAt: rec.cycleStartedAt,
    prLink: rec.prLink,
    followups: rec.cycle,
    note: rec.note || undefined,
    hasContext: rec.contextFrom !== '',
    ...(rec.contextMessages ? { contextMessages: rec.contextMessages } : {}),
    ...(rec.preview ? { preview: rec.preview } : {}),
    ...(rec.previewUrl ? { previewUrl: rec.previewUrl } : {}),
  });
}

/** A short fingerprint of a status message (what people would see). */
export function fingerprint(msg: { text: string; blocks: unknown[] }): string {
  return createHash('sha1').update(JSON.stringify(msg)).digest('base64url').slice(0, 12);
}
