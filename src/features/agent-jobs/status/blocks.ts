import type { KnownBlock } from '@slack/types';
import { formatDuration } from '../../../platform/slack/duration.js';
import { SLACK_LIMITS, escapeMrkdwn, quoteToken, safeUrl, truncate } from '../../../platform/slack/limits.js';
import { LINK_ACTION_PREFIX } from '../../../platform/slack/actions.js';
import { escapeReaderText, quoteReaderText } from '../../../platform/slack/markup.js';
import type { PreviewStage, StatusState } from '../store.js';
import { buildPlan } from './plan.js';
import { ABOUT_MAX, jobIdCode } from '../job-record.js';

/**
 * Block Kit of the status message (pure builders): the job's message edited in place as its state
 * changes, and the "View pull request" button it shares with the announcement.
 */

/** `action_id` of the "View pull request" link button: the platform acks every `link.` action. */
export const ACTION_OPEN_PR = `${LINK_ACTION_PREFIX}open_pr`;

/** An actions block with the "View pull request" link button. */
export function prLinkActions(prLink: string, style?: 'primary'): KnownBlock {
  return {
    type: 'actions',
    elements: [
      {
        type: 'button',
        text: { type: 'plain_text', text: 'View pull request' },
        url: truncate(prLink, SLACK_LIMITS.buttonUrl),
        ...(style ? { style } : {}),
        action_id: ACTION_OPEN_PR,
      },
    ],
  };
}

/** Input of {@link buildStatusMessage}. */
export interface StatusView {
  requester: string;
  instruction: string;
  /** What the quoted text that went with the instruction is about (one line, reader text). */
  about?: string;
  /** Absent while the job is being created. */
  jobId?: string;
  /** The docs project the job goes to (shown from the start). */
  projectId?: string;
  /** Repository URL and branch the agent works in, once the API's `source` reports them. */
  repository?: string;
  branch?: string;
  state: StatusState;
  /** Time the job (or its latest follow-up) ran, in ms: shown once it ended. */
  elapsedMs: number;
  /** When the job (or its latest follow-up) started, epoch ms: shown while it works. */
  startedAt?: number;
  prLink?: string | null;
  /** Follow-ups sent so far (0 for a fresh job). */
  followups?: number;
  /** Extra line, e.g. why it could not start, or "interrupted by a follow-up". */
  note?: string;
  /** Whether Slack messages went to the agent with the instruction (the plan's "Reading the thread"). */
  hasContext?: boolean;
  /** How many Slack messages went with it, when known. */
  contextMessages?: number;
  /** Where the preview of the pull request stands (the plan's preview step), and its URL. */
  preview?: PreviewStage;
  previewUrl?: string;
}

/**
 * A time that each reader's Slack client shows in their own time zone and clock format, e.g.
 * "today 14:34" (Slack, "Formatting text for app surfaces": `<!date^unix^{date_short_pretty} {time}|fallback>`;
 * the fallback, in UTC, is for clients that cannot render it). The status message shows when a job
 * started rather than a running clock, so it need not be edited while nothing changes.
 */
export function slackDate(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `<!date^${Math.floor(epochMs / 1000)}^{date_short_pretty} {time}|${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC>`;
}

const STATE_LINE: Record<StatusState, (v: StatusView) => string> = {
  starting: () => ':hourglass: *Starting…*',
  start_failed: () => ':warning: *Could not start*',
  active: (v) =>
    v.startedAt
      ? `:hourglass_flowing_sand: *Working* · started ${slackDate(v.startedAt)}`
      : ':hourglass_flowing_sand: *Working*',
  completed: (v) =>
    v.prLink
      ? `:white_check_mark: *Pull request ready* · took ${formatDuration(v.elapsedMs)}`
      : `:white_check_mark: *Finished, no files changed* · took ${formatDuration(v.elapsedMs)}`,
  failed: (v) => `:x: *Failed* after ${formatDuration(v.elapsedMs)}`,
  archived: () => ':file_cabinet: *Archived*',
  timeout: (v) => `:warning: *Stopped watching* after ${formatDuration(v.elapsedMs)}`,
  uncertain: () => ':grey_question: *May or may not have started*',
};

/**
 * The context line under the instruction saying what the quoted text that went with it is about
 * (`About: …`), shown by the rules of reader text (`escapeReaderText`, ≤ 150 chars: one line, no
 * markup, mention or link); none without one.
 */
function aboutBlock(about: string | undefined): KnownBlock[] {
  const line = about ? escapeReaderText(about, ABOUT_MAX) : '';
  return line ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: `About: ${line}` }] }] : [];
}

/**
 * Builds the job's status message (the thread root), edited in place as the state changes.
 * Ends with the job's steps as a `plan` block ({@link buildPlan}).
 * Stays within Slack's limits whatever the instruction's length (section text ≤ 3000 chars,
 * context element ≤ 3000; Slack Block Kit reference).
 *
 * @returns `text` (notification fallback) and `blocks` for chat.postMessage / chat.update.
 */
export function buildStatusMessage(v: StatusView): { text: string; blocks: KnownBlock[] } {
  const stateLine = STATE_LINE[v.state](v);
  const meta = [
    v.jobId ? `Job ${jobIdCode(v.jobId)}` : undefined,
    v.projectId ? `Project \`${quoteToken(v.projectId, 100)}\`` : undefined,
    sourceText(v),
    v.followups ? `${v.followups} follow-up${v.followups === 1 ? '' : 's'}` : undefined,
  ].filter(Boolean);
  const heading = `<@${v.requester}> asked the docs agent:\n`;
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: heading + quoteReaderText(v.instruction, SLACK_LIMITS.sectionText - heading.length),
      },
    },
    ...aboutBlock(v.about),
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: truncate([stateLine, ...meta].join(' · '), SLACK_LIMITS.sectionText) }],
    },
  ];
  const link = v.state === 'completed' ? safeUrl(v.prLink) : undefined;
  if (link) blocks.push(prLinkActions(link));
  if (v.note) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: truncate(v.note, SLACK_LIMITS.sectionText) }],
    });
  }
  // Last, for clients that render plans; the blocks above say the same for those that don't (≤ 5 of Slack's 50 blocks).
  blocks.push(buildPlan(v));
  const plainState = stateLine
    .replace(/:[a-z_]+: /, '')
    .replace(/\*/g, '')
    .replace(/<!date\^[^|>]*\|([^>]*)>/g, '$1');
  const text = truncate(
    `Docs agent job${v.jobId ? ` ${v.jobId}` : ''} for <@${v.requester}>: ${plainState}`,
    SLACK_LIMITS.sectionText,
  );
  return { text, blocks };
}

/**
 * "`org/docs` on `main`": the repository (its URL shortened to owner/name when it is GitHub's, a
 * link when it is a safe https URL) and the branch, from the API's `source`; undefined when neither is known.
 */
function sourceText(v: { repository?: string; branch?: string }): string | undefined {
  const url = safeUrl(v.repository);
  const name = v.repository ? v.repository.replace(/^https:\/\/github\.com\//, '').replace(/\.git$/, '') : '';
  const repo = name
    ? url
      ? `<${url}|${escapeMrkdwn(truncate(name, 200))}>`
      : `\`${quoteToken(name, 200)}\``
    : undefined;
  const branch = v.branch ? `\`${quoteToken(v.branch, 200)}\`` : undefined;
  if (repo && branch) return `${repo} on ${branch}`;
  return repo ?? (branch ? `branch ${branch}` : undefined);
}
