import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { buildStatusMessage } from '../slack/status-message.js';
import type { JobRecord } from '../store/job-store.js';

/**
 * Elapsed time of the record's latest cycle, in ms: until now while active, until `endedAt`
 * once ended.
 */
export function cycleElapsedMs(rec: JobRecord, nowMs: number): number {
  return (rec.endedAt > 0 ? rec.endedAt : nowMs) - rec.cycleStartedAt;
}

/**
 * Edits the job's status message in place (chat.update) to show the record's state.
 * Failures are logged, not thrown: the status line is cosmetic, the announcement is what counts.
 */
export async function refreshStatusMessage(
  slack: WebClient,
  rec: JobRecord,
  nowMs: number,
  logger: Logger,
  note?: string,
): Promise<void> {
  const msg = buildStatusMessage({
    requester: rec.requester,
    instruction: rec.instruction,
    jobId: rec.jobId,
    state: rec.state,
    elapsedMs: cycleElapsedMs(rec, nowMs),
    prLink: rec.prLink,
    followups: rec.cycle,
    note,
  });
  try {
    await slack.chat.update({ channel: rec.channel, ts: rec.statusTs, text: msg.text, blocks: msg.blocks });
  } catch (err) {
    logger.warn({ err, jobId: rec.jobId }, 'could not update the status message');
  }
}
