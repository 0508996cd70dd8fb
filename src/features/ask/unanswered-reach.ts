/**
 * Who may see a question the docs did not answer, for the digest's "Asked in Slack, not answered by
 * the docs": a question asked in a public channel may be shown in the digests of the other channels
 * of its workspace (their members can see a public channel); one from a private channel, a group DM
 * or a DM only in its own conversation's digest; none in another workspace's, nor in a channel shared
 * with another organization (Slack Connect: its other members can't see the workspace's channels).
 * Every check fails closed: a kind Slack can't tell now reads as private, a digest channel it can't
 * describe as shared.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/logger.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import type { AnswerRecord } from './store.js';
import type { DigestAudience, PublicWorkspaceOf } from './unanswered-log.js';

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
 * organization (`is_ext_shared` and `is_pending_ext_shared` false). Never throws: a channel Slack
 * can't describe now shows only its own questions (and a warn line).
 */
export async function digestAudience(
  slack: { conversations: Pick<WebClient['conversations'], 'info'> },
  where: { teamId: string; channel: string },
  logger: Logger,
): Promise<DigestAudience> {
  try {
    const c = (await slack.conversations.info({ channel: where.channel })).channel;
    const seesPublic =
      (c?.is_channel === true || c?.is_group === true) &&
      !c.is_im &&
      !c.is_mpim &&
      c.is_ext_shared === false &&
      !c.is_pending_ext_shared;
    return { ...where, seesPublic };
  } catch (err) {
    logger.warn(
      { channel: where.channel, slackError: slackErrorCode(err) },
      "could not read a digest channel's kind; its digest shows only the questions asked in it",
    );
    return { ...where, seesPublic: false };
  }
}
