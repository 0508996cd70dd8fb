/**
 * Who may see a question the docs did not answer, for the digest's "Asked in Slack, not answered by
 * the docs": a question asked in a public channel may be shown in the digests of the other channels
 * of its workspace whose members can all see a public channel: a channel known to have no guest
 * (single- or multi-channel guests see only the channels they are in) and not shared with another
 * organization (Slack Connect: its other members can't see the workspace's channels). One from a
 * private channel, a group DM or a DM shows only in its own conversation's digest; none in another
 * workspace's. Every check fails closed: a kind Slack can't tell now reads as private; a digest
 * channel it can't describe, or whose members it can't all tell (too many, a read failing), shows
 * only its own questions.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/logger.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import type { AnswerRecord } from './store.js';
import type { DigestAudience, PublicWorkspaceOf } from './unanswered-log.js';
import { digestChannelGuests, type DigestPeople } from './unanswered-guests.js';

export { DIGEST_MEMBERS_AT_MOST, DIGEST_USERS_INFO_AT_MOST, type DigestPeople } from './unanswered-guests.js';

/**
 * The store's `publicIn`: the answer's workspace (its record's `teamId`) when `channel` is public
 * (`ConversationDirectory.visibilityOf`, conversations.info kept per conversation), else undefined.
 * Never throws: an answer it no longer has, or a visibility Slack or Redis can't tell now, is
 * undefined (and a warn line, without the question).
 */
export function publicWorkspaceOf(deps: {
  answer: (answerId: string) => Promise<AnswerRecord | undefined>;
  conversations: Pick<ConversationDirectory, 'visibilityOf'>;
  logger: Logger;
}): PublicWorkspaceOf {
  return async (channel, answerId) => {
    try {
      const [rec, visibility] = await Promise.all([deps.answer(answerId), deps.conversations.visibilityOf(channel)]);
      return visibility === 'public' && rec?.teamId ? rec.teamId : undefined;
    } catch (err) {
      const why = slackErrorCode(err) ?? (err as { code?: unknown }).code ?? 'error';
      deps.logger.warn(
        { channel, reason: String(why) },
        'could not tell whether a channel is public; its unanswered question stays in its own digest',
      );
      return undefined;
    }
  };
}

/**
 * Where a digest of workspace `teamId` posted in `channel` is read (conversations.info:
 * docs.slack.dev, "Conversation object"): it may show the workspace's public questions when it is a
 * channel (`is_channel` or `is_group`, neither `is_im` nor `is_mpim`) not shared with another
 * organization (`is_ext_shared` and `is_pending_ext_shared` false) and known to have no guest
 * (see {@link digestChannelGuests}: conversations.members up to {@link DIGEST_MEMBERS_AT_MOST}
 * members, people's facts from `people`, at most {@link DIGEST_USERS_INFO_AT_MOST} users.info calls).
 * Never throws: a channel Slack can't describe now, or whose members it can't all tell, shows only
 * its own questions (a warn line when a read failed).
 */
export async function digestAudience(
  slack: { conversations: Pick<WebClient['conversations'], 'info' | 'members'> },
  people: DigestPeople,
  where: { teamId: string; channel: string },
  logger: Logger,
): Promise<DigestAudience> {
  let channel;
  try {
    channel = (await slack.conversations.info({ channel: where.channel })).channel;
  } catch (err) {
    logger.warn(
      { channel: where.channel, slackError: slackErrorCode(err) },
      "could not read a digest channel's kind; its digest shows only the questions asked in it",
    );
    return { ...where, seesPublic: false };
  }
  const c = channel;
  const isChannel =
    (c?.is_channel === true || c?.is_group === true) &&
    !c.is_im &&
    !c.is_mpim &&
    c.is_ext_shared === false &&
    !c.is_pending_ext_shared;
  if (!isChannel) return { ...where, seesPublic: false };
  const guests = await digestChannelGuests(slack, people, where.channel, logger);
  return { ...where, seesPublic: guests === 'none' };
}
