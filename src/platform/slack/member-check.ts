import { audit, type AuditAction } from '../audit.js';
import type { Logger } from '../logger.js';
import { withinTime } from '../time-limit.js';
import { MembersUnknownError, type ConversationDirectory } from './conversations.js';
import { slackErrorCode } from './errors.js';

/**
 * The membership re-check of every form submission and button click that reads a conversation's
 * content or touches its job: the conversation comes from a value the bot signed, and the person
 * must still be in it. Fails closed: a member list too long to read (MembersUnknownError), a Slack
 * error or a check slower than asked all refuse.
 */

/** The outcome: a member, or refused with the sentence for the person. */
export type MembershipCheck = { ok: true } | { ok: false; reason: 'not_a_member' | 'members_unknown' | 'check_failed'; text: string };

/** Answer to someone who is not in the conversation a button or form is about. */
export const NOT_A_MEMBER_TEXT = "You're not a member of the conversation this is about, so I did nothing there. Join it first, or ask someone in it.";

/** Answer when the conversation has more members than the bot can list (MembersUnknownError). */
export const MEMBERS_UNKNOWN_TEXT =
  "That conversation has too many members for me to check that you're one of them, so I did nothing. Type the command in that channel instead.";

/** Answer when membership could not be checked at all (Slack failed, or too slow). */
export const MEMBERSHIP_CHECK_FAILED_TEXT = "I couldn't check that you're in that conversation, so I did nothing. Try again in a moment.";

/** Where the check runs: whose, for which audited action, and how long it may take. */
export interface MembershipRequest {
  channel: string;
  user: string;
  /** The audit line's action when refused. */
  action: AuditAction;
  /** At most this long (ms), for checks before an ack or while a trigger_id is valid; none by default. */
  withinMs?: number;
}

/**
 * Whether `req.user` is a member of `req.channel` ({@link ConversationDirectory.isMember}, cached).
 * A refusal writes one audit line (`refused`, reason `not_a_member`, `members_unknown` or
 * `check_failed`) and, when Slack failed, a warning. Never throws.
 */
export async function checkMembership(conversations: Pick<ConversationDirectory, 'isMember'>, logger: Logger, req: MembershipRequest): Promise<MembershipCheck> {
  const ask = conversations.isMember(req.channel, req.user).then(
    (member): MembershipCheck => (member ? { ok: true } : { ok: false, reason: 'not_a_member', text: NOT_A_MEMBER_TEXT }),
    (err: unknown): MembershipCheck => {
      if (err instanceof MembersUnknownError) return { ok: false, reason: 'members_unknown', text: MEMBERS_UNKNOWN_TEXT };
      logger.warn({ err, slackError: slackErrorCode(err), channel: req.channel }, 'could not check membership; refused (fail closed)');
      return { ok: false, reason: 'check_failed', text: MEMBERSHIP_CHECK_FAILED_TEXT };
    },
  );
  const late = (): MembershipCheck => {
    logger.warn({ channel: req.channel, withinMs: req.withinMs }, 'membership check too slow; refused (fail closed)');
    return { ok: false, reason: 'check_failed', text: MEMBERSHIP_CHECK_FAILED_TEXT };
  };
  const check = req.withinMs === undefined ? await ask : await withinTime(ask, req.withinMs, late);
  if (!check.ok) audit(logger, { actor: req.user, channel: req.channel, action: req.action, outcome: 'refused', reason: check.reason });
  return check;
}
