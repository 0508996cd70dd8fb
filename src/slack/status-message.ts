import type { KnownBlock } from '@slack/types';
import { formatDuration } from './duration.js';
import { SLACK_LIMITS, escapeMrkdwn, quote, truncate } from './limits.js';

/** What the status message shows as the job's state. */
export type StatusState =
  | 'starting'
  | 'start_failed'
  | 'active'
  | 'completed'
  | 'failed'
  | 'archived'
  | 'timeout';

/** Input of {@link buildStatusMessage}. */
export interface StatusView {
  requester: string;
  instruction: string;
  /** Absent while the job is being created. */
  jobId?: string;
  state: StatusState;
  /** Time the job (or its latest follow-up) has run, in ms. */
  elapsedMs: number;
  prLink?: string | null;
  /** Follow-ups sent so far (0 for a fresh job). */
  followups?: number;
  /** Extra line, e.g. why it could not start, or "interrupted by a follow-up". */
  note?: string;
}

const STATE_LINE: Record<StatusState, (v: StatusView) => string> = {
  starting: () => ':hourglass: *Starting…*',
  start_failed: () => ':warning: *Could not start*',
  active: (v) => `:hourglass_flowing_sand: *Working* · running for ${formatDuration(v.elapsedMs)}`,
  completed: (v) =>
    v.prLink
      ? `:white_check_mark: *Pull request ready* · took ${formatDuration(v.elapsedMs)}`
      : `:white_check_mark: *Finished, no files changed* · took ${formatDuration(v.elapsedMs)}`,
  failed: (v) => `:x: *Failed* after ${formatDuration(v.elapsedMs)}`,
  archived: () => ':file_cabinet: *Archived*',
  timeout: (v) => `:warning: *Stopped watching* after ${formatDuration(v.elapsedMs)}`,
};

/**
 * Builds the job's status message (the thread root), edited in place as the state changes.
 * Stays within Slack's limits whatever the instruction's length (section text ≤ 3000 chars,
 * context element ≤ 3000; Slack Block Kit reference).
 *
 * @returns `text` (notification fallback) and `blocks` for chat.postMessage / chat.update.
 */
export function buildStatusMessage(v: StatusView): { text: string; blocks: KnownBlock[] } {
  const stateLine = STATE_LINE[v.state](v);
  const meta = [
    v.jobId ? `Job \`${escapeMrkdwn(v.jobId)}\`` : undefined,
    v.followups ? `${v.followups} follow-up${v.followups === 1 ? '' : 's'}` : undefined,
  ].filter(Boolean);
  const heading = `<@${v.requester}> asked the docs agent:\n`;
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: heading + quote(v.instruction, SLACK_LIMITS.sectionText - heading.length),
      },
    },
    {
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: truncate([stateLine, ...meta].join(' · '), SLACK_LIMITS.sectionText) },
      ],
    },
  ];
  if (v.prLink && v.state === 'completed') {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'View pull request' },
          url: truncate(v.prLink, SLACK_LIMITS.buttonUrl),
          action_id: 'open_pr_link',
        },
      ],
    });
  }
  if (v.note) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: truncate(v.note, SLACK_LIMITS.sectionText) }],
    });
  }
  const plainState = stateLine.replace(/:[a-z_]+: /, '').replace(/\*/g, '');
  const text = truncate(
    `Docs agent job${v.jobId ? ` ${v.jobId}` : ''} for <@${v.requester}>: ${plainState}`,
    SLACK_LIMITS.sectionText,
  );
  return { text, blocks };
}
