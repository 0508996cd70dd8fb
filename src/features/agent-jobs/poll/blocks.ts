/** Block Kit of a job's end (pure builders): the one announcement in its thread. */
import type { KnownBlock } from '@slack/types';
import { jobIdCode } from '../job-record.js';
import { formatDuration } from '../../../platform/slack/duration.js';
import { SLACK_LIMITS, escapeMrkdwn, safeUrl, truncate } from '../../../platform/slack/limits.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { feedbackBlock } from '../feedback.js';
import { prLinkActions } from '../status/index.js';
import type { JobOutcome } from './outcome.js';

/**
 * Builds the one thread reply that tells people how their job ended. It always @-mentions
 * `mention`: the requester, or the author of the latest follow-up (and of any follow-up it
 * interrupted). Every end the agent reached carries 👍/👎 feedback buttons ({@link feedbackBlock}).
 *
 * @returns `text` (also the notification) and `blocks`.
 */
export function buildAnnouncement(
  p: { mention: string | string[]; jobId: string; outcome: JobOutcome },
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  const who = [p.mention]
    .flat()
    .map((u) => `<@${u}>`)
    .join(' ');
  const job = jobIdCode(p.jobId);
  const o = p.outcome;
  let text: string;
  switch (o.kind) {
    case 'completed':
      if (safeUrl(o.prLink)) text = `${who} your docs change is ready for review: ${escapeMrkdwn(o.prLink ?? '')}`;
      else if (o.prLink)
        text = `${who} job ${job} finished with a pull request, but the docs service sent a link I can't show safely; find it on the docs platform.`;
      else
        text = `${who} the agent finished job ${job}, and no files were changed, so there is no pull request. Reply in this thread to ask for something more specific.`;
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
  const link = o.kind === 'completed' ? safeUrl(o.prLink) : undefined;
  if (link) blocks.push(prLinkActions(link, 'primary'));
  // A result to rate: the end the agent reached (not the bot giving up on watching).
  if (o.kind !== 'timeout') blocks.push(feedbackBlock(p.jobId, signer));
  return { text, blocks };
}
