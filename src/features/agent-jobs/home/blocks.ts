import type { HomeView, KnownBlock } from '@slack/types';
import type { BudgetLeft } from '../../../platform/access.js';
import { describeSchedule } from '../../../platform/calendar.js';
import { formatDuration } from '../../../platform/slack/duration.js';
import { SLACK_LIMITS, escapeMrkdwn, safeUrl, truncate, quoteToken } from '../../../platform/slack/limits.js';
import { escapeReaderText } from '../../../platform/slack/markup.js';
import type { StatusState } from '../store.js';
import { ABOUT_MAX, jobIdCode } from '../job-record.js';

/** The App Home tab of the agent-jobs feature (a pure builder; the handler publishes it). */

/** One job as the App Home lists it. */
interface HomeJob {
  jobId: string;
  instruction: string;
  /** What the quoted text that went with it is about (one line, reader text). */
  about?: string;
  state: StatusState;
  prLink: string | null;
  /** Link to the job's thread, when Slack gave one. */
  permalink?: string;
  createdAt: number;
  followups: number;
  /** The latest 👍/👎 given to its result, if any. */
  rating?: 'positive' | 'negative';
}

/**
 * What the viewer may do with the docs agent, as the tab shows it: the hourly budget left (they may
 * start jobs), or `refused`, the access policy's sentence saying why they may not and whom to ask
 * (no budget shown). Absent: neither could be read, and the tab says nothing of either.
 */
export type HomeAccess = BudgetLeft | { refused: string };

/** At most this many characters of a refusal on the tab (its section holds 3000 in all). */
const REFUSAL_MAX = 1000;

/** Defaults in force, shown so people know how the bot behaves here. */
export interface HomeDefaults {
  followupPolicy: 'anyone' | 'requester';
  ignorePrefix: string;
  digestCron: string;
  digestTz: string;
}

const STATE_LABEL: Record<StatusState, string> = {
  starting: ':hourglass: Starting',
  start_failed: ':warning: Could not start',
  active: ':hourglass_flowing_sand: Working',
  completed: ':white_check_mark: Completed',
  failed: ':x: Failed',
  archived: ':file_cabinet: Archived',
  timeout: ':warning: Stopped watching',
  uncertain: ':grey_question: May or may not have started',
};

/** The job's `About:` line (its quoted text's subject), as reader text; none without one. */
function aboutLine(about: string | undefined): KnownBlock[] {
  if (!about) return [];
  return [{ type: 'context', elements: [{ type: 'mrkdwn', text: `About: ${escapeReaderText(about, ABOUT_MAX)}` }] }];
}

/** The tab's line on the agent: the budget left, the refusal, or none. */
function accessLines(access: HomeAccess | undefined): string[] {
  if (!access) return [];
  if ('refused' in access) return [`• *Docs jobs:* ${truncate(access.refused, REFUSAL_MAX)}`];
  return [
    `• *Agent budget this hour:* ${access.project} of ${access.perProject} requests left for the docs project \`${quoteToken(access.projectId, 100)}\`, ${access.user} of ${access.perUser} for you (a job start or a follow-up is one request).`,
  ];
}

/**
 * Builds the App Home tab (views.publish): the person's recent jobs, newest first (at most 20:
 * instruction, state, PR link, thread link, age, its latest 👍/👎 rating) and the defaults in force,
 * with the agent budget left for a viewer who may start jobs, or for one who may not the policy's
 * refusal instead (and no invitation to start one). Slack: a Home tab holds at most 100 blocks;
 * section text ≤ 3000 chars.
 *
 * @param nowMs - clock in epoch ms, for ages.
 * @param access - what the viewer may do ({@link HomeAccess}); absent: no line on it.
 */
export function buildHomeView(jobs: HomeJob[], defaults: HomeDefaults, nowMs: number, access?: HomeAccess): HomeView {
  const blocks: KnownBlock[] = [{ type: 'header', text: { type: 'plain_text', text: 'Your recent docs jobs' } }];
  if (jobs.length === 0) {
    const refused = access !== undefined && 'refused' in access;
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: refused
          ? 'No jobs yet.'
          : 'No jobs yet. Start one with `/docs-edit <what to change>` in a channel I am in, or mention me there.',
      },
    });
  }
  for (const j of jobs.slice(0, 20)) {
    const links = [
      safeUrl(j.prLink) ? `<${j.prLink}|Pull request>` : undefined,
      safeUrl(j.permalink) ? `<${j.permalink}|Thread>` : undefined,
    ].filter(Boolean);
    const meta = [
      STATE_LABEL[j.state],
      `${formatDuration(nowMs - j.createdAt)} ago`,
      j.followups ? `${j.followups} follow-up${j.followups === 1 ? '' : 's'}` : undefined,
      j.rating ? `rated ${j.rating === 'positive' ? '👍' : '👎'}` : undefined,
      jobIdCode(j.jobId),
      ...links,
    ].filter(Boolean);
    blocks.push(
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `*${escapeReaderText(j.instruction.replace(/\s+/g, ' '), 298)}*` },
      },
      ...aboutLine(j.about),
      { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(meta.join(' · '), SLACK_LIMITS.sectionText) }] },
    );
  }
  blocks.push(
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'How I work here' } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: [
          `• *Follow-ups:* by default, ${defaults.followupPolicy === 'requester' ? 'only the person who started a job can continue it' : 'anyone in the channel can continue a job by replying in its thread'} (\`/docs-settings\` in a channel shows its own).`,
          `• Thread replies starting with \`${escapeMrkdwn(defaults.ignorePrefix)}\` are not sent to the agent.`,
          '• From a channel, `/docs-reply <job-id> <instruction>` continues a job.',
          ...accessLines(access),
          `• *Weekly visitor digests:* \`/docs-visitors subscribe\` in a channel sends one there, ${escapeMrkdwn(describeSchedule({ pattern: defaults.digestCron, tz: defaults.digestTz }))} unless you pick a day and time.`,
        ].join('\n'),
      },
    },
  );
  return { type: 'home', blocks };
}
