import type { KnownBlock } from '@slack/types';
import { formatDuration } from './duration.js';
import { SLACK_LIMITS, escapeMrkdwn, truncate } from './limits.js';

/** How a job (or its latest follow-up) ended, as far as the bot is concerned. */
export type JobOutcome =
  | { kind: 'completed'; prLink: string | null }
  | { kind: 'failed' }
  | { kind: 'archived' }
  | { kind: 'timeout'; watchedMs: number };

/**
 * Builds the one thread reply that tells people how their job ended. It always @-mentions
 * `mention`: the requester, or the author of the latest follow-up (and of any follow-up it
 * interrupted).
 *
 * @returns `text` (also the notification) and `blocks`.
 */
export function buildAnnouncement(p: { mention: string | string[]; jobId: string; outcome: JobOutcome }): {
  text: string;
  blocks: KnownBlock[];
} {
  const who = [p.mention].flat().map((u) => `<@${u}>`).join(' ');
  const job = `\`${escapeMrkdwn(p.jobId)}\``;
  const o = p.outcome;
  let text: string;
  switch (o.kind) {
    case 'completed':
      text = o.prLink
        ? `${who} your docs change is ready for review: ${o.prLink}`
        : `${who} the agent finished job ${job}, and no files were changed, so there is no pull request. Reply in this thread to ask for something more specific.`;
      break;
    case 'failed':
      text = `${who} job ${job} failed: the agent could not finish. Reply in this thread to try again with more detail, or start a new job with \`/docs-edit\`.`;
      break;
    case 'archived':
      text = `${who} job ${job} was archived, so it will not make any more changes. Start a new one with \`/docs-edit\` if you still need it.`;
      break;
    case 'timeout':
      text = `${who} I stopped watching job ${job} after ${formatDuration(o.watchedMs)} without an answer. It may still finish on the docs platform; check there, or start a new one with \`/docs-edit\`.`;
      break;
  }
  text = truncate(text, SLACK_LIMITS.sectionText);
  const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text } }];
  if (o.kind === 'completed' && o.prLink) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'View pull request' },
          url: truncate(o.prLink, SLACK_LIMITS.buttonUrl),
          style: 'primary',
          action_id: 'open_pr_link',
        },
      ],
    });
  }
  return { text, blocks };
}
