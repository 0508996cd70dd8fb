import { audit, type AuditAction } from '../audit.js';
import type { Logger } from '../logger.js';
import { withinTime } from '../time-limit.js';
import { MembersUnknownError, type ConversationDirectory } from './conversations.js';
import { slackErrorCode } from './errors.js';
import { hasCode, PlatformErrorCode } from '../errors.js';

/**
 * The membership re-check of every form submission and button click that reads a conversation's
 * content or touches its job: the conversation comes from a value the bot signed, and the person
 * must still be in it. Fails closed: membership Slack can't tell now (MembersUnknownError), a
 * Slack error or a check slower than asked all refuse, each with its own sentence.
 */

/**
 * The outcome: a member, or refused with the sentence for the person. `busy`: the reads are
 * budgeted or rate limited just now (try again in a minute); `members_unknown`: the person is in
 * more conversations than the bot reads through; `bot_cannot_see`: Slack answered
 * `channel_not_found` (a private conversation or DM the bot is not in), so nothing there can be
 * read by the bot either.
 */
type MembershipCheck =
  | { ok: true }
  | {
      ok: false;
      reason: 'not_a_member' | 'busy' | 'members_unknown' | 'bot_cannot_see' | 'check_failed';
      text: string;
    };

type Refusal = Extract<MembershipCheck, { ok: false }>;

/** Answer to someone who is not in the conversation a button or form is about. */
export const NOT_A_MEMBER_TEXT =
  "You're not a member of the conversation this is about, so I did nothing there. Join it first, or ask someone in it.";

/** Answer when membership can't be read just now (MembersUnknownError `busy`: read budgets, Slack's rate limits). */
export const MEMBERSHIP_BUSY_TEXT =
  "I can't check just now that you're in that conversation (too many checks at once, or Slack asked me to slow " +
  'down), so I did nothing. Try again in a minute.';

/** Answer when the person is in more conversations than the bot reads through (MembersUnknownError `too_large`). */
export const MEMBERS_UNKNOWN_TEXT =
  "You're in more conversations than I can look through, so I couldn't check that you're in this one, and did " +
  'nothing. Ask someone else in that conversation to do it.';

/** Answer when Slack won't show the bot the conversation (a private one or a DM it is not in). */
export const BOT_CANNOT_SEE_TEXT =
  "I can't see that conversation (I'm not in it), so I did nothing. " +
  'Invite me with `/invite @Docs Agent` there, then try again.';

/** Answer when membership could not be checked at all (Slack failed, or too slow). */
export const MEMBERSHIP_CHECK_FAILED_TEXT =
  "I couldn't check that you're in that conversation, so I did nothing. Try again in a moment.";

/** Where the check runs: whose, for which audited action, and how long it may take. */
interface MembershipRequest {
  channel: string;
  user: string;
  /** The audit line's action when refused. */
  action: AuditAction;
  /** At most this long (ms), for checks before an ack or while a trigger_id is valid; none by default. */
  withinMs?: number;
}

/** The refusal for an error of `isMember` (a warning when Slack failed). */
function refusalOf(err: unknown, logger: Logger, channel: string): Refusal {
  if (hasCode<MembersUnknownError>(err, PlatformErrorCode.MembersUnknown)) {
    return err.reason === 'busy'
      ? { ok: false, reason: 'busy', text: MEMBERSHIP_BUSY_TEXT }
      : { ok: false, reason: 'members_unknown', text: MEMBERS_UNKNOWN_TEXT };
  }
  const code = slackErrorCode(err);
  if (code === 'channel_not_found') return { ok: false, reason: 'bot_cannot_see', text: BOT_CANNOT_SEE_TEXT };
  logger.warn({ err, slackError: code, channel }, 'could not check membership; refused (fail closed)');
  return { ok: false, reason: 'check_failed', text: MEMBERSHIP_CHECK_FAILED_TEXT };
}

/**
 * Whether `req.user` is a member of `req.channel` ({@link ConversationDirectory.isMember}, cached).
 * A refusal writes one audit line (`refused`, reason `not_a_member`, `membership_busy`,
 * `members_unknown` or `check_failed`, the last also when the bot can't see the conversation) and,
 * when Slack failed, a warning. Never throws.
 */
export async function checkMembership(
  conversations: Pick<ConversationDirectory, 'isMember'>,
  logger: Logger,
  req: MembershipRequest,
): Promise<MembershipCheck> {
  const notMember: Refusal = { ok: false, reason: 'not_a_member', text: NOT_A_MEMBER_TEXT };
  const ask = conversations.isMember(req.channel, req.user).then(
    (member): MembershipCheck => (member ? { ok: true } : notMember),
    (err: unknown): MembershipCheck => refusalOf(err, logger, req.channel),
  );
  const late = (): MembershipCheck => {
    logger.warn({ channel: req.channel, withinMs: req.withinMs }, 'membership check too slow; refused (fail closed)');
    return { ok: false, reason: 'check_failed', text: MEMBERSHIP_CHECK_FAILED_TEXT };
  };
  const check = req.withinMs === undefined ? await ask : await withinTime(ask, req.withinMs, late);
  if (!check.ok) {
    const reasons = { bot_cannot_see: 'check_failed', busy: 'membership_busy' } as const;
    const reason = check.reason === 'bot_cannot_see' || check.reason === 'busy' ? reasons[check.reason] : check.reason;
    audit(logger, { actor: req.user, channel: req.channel, action: req.action, outcome: 'refused', reason });
  }
  return check;
}
