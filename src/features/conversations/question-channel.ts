/**
 * The question-channel rule: which `message` events in a channel set to `/docs-settings answer-all
 * on` are taken as questions. Pure and deterministic (no network, no model), documented in
 * docs/using.md ("Question channels"), tested over Slack's documented event shapes.
 *
 * Slack facts (docs.slack.dev, "message event" and its subtypes): a person's new message has no
 * `subtype` (or `file_share` when it carries files, its text the comment); bots' messages carry
 * `bot_id` (and `subtype: "bot_message"` when posted without a bot user); an edit is
 * `message_changed` and a deletion `message_deleted` (both `hidden: true`); a thread reply carries
 * `thread_ts` (≠ its own `ts`), a reply also sent to the channel is `thread_broadcast`; joins,
 * topics and the like have subtypes of their own; `channel_type` is `channel` (public), `group`
 * (private), `im` or `mpim`.
 */
import { mentionsUser } from '../../platform/slack/markup.js';

/** Why a message in a question channel is not answered (for the debug log and the tests). */
type QuestionChannelSkip =
  'bot' | 'subtype' | 'thread_reply' | 'not_a_channel' | 'no_author' | 'mentions_bot' | 'no_words';

/** The rule's verdict: a question (the fields the listener records), or why not. */
type QuestionChannelVerdict =
  { take: true; channel: string; user: string; text: string; ts: string } | { take: false; why: QuestionChannelSkip };

/** Subtypes written by a person as a new top-level message: none, or `file_share` (a file with a comment). */
const NEW_MESSAGE_SUBTYPES = new Set<unknown>([undefined, 'file_share']);

/** Channel types a question channel can be: public and private channels (DMs go the DM way). */
const CHANNEL_TYPES = new Set<unknown>(['channel', 'group']);

/**
 * What is left of a message's text once mentions (`<@U…>`, `<!subteam^…>`, `<!here>`), channel
 * names (`<#C…>`), links (`<https://…>`, bare `https://…`), emoji (`:tada:`) and punctuation
 * are removed: the words a question is made of.
 */
export function questionWords(text: string): string[] {
  const plain = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\bhttps?:\/\/\S+/gi, ' ')
    .replace(/:[a-z0-9_+-]+:/gi, ' ');
  return plain.match(/\p{L}{2,}/gu) ?? [];
}

/**
 * Whether a `message` event in a question channel is a question to answer, in order (the first
 * that applies decides):
 * 1. from a bot (`bot_id`, or the `bot_message` subtype) → no;
 * 2. any subtype but none or `file_share` (edits, deletions, `thread_broadcast`, joins, `/me`…) → no;
 * 3. a thread reply (`thread_ts` other than its own `ts`) → no (a reply in an answer's thread
 *    continues that conversation the usual way);
 * 4. not in a public or private channel (`channel_type` `channel`/`group`) → no;
 * 5. no author or no text → no;
 * 6. it mentions the bot → no here (it is a mention, and goes the mention way);
 * 7. no word of two letters or more once mentions of others, channel names, links and emoji are
 *    taken out (only a mention, a link or a file) → no;
 * 8. otherwise → yes.
 * @param event - the `message` event as Slack sent it (any shape: untrusted).
 * @param botUserId - the bot's user id (from the event's authorizations), to see its mention.
 */
export function questionChannelMessage(event: unknown, botUserId: string | undefined): QuestionChannelVerdict {
  const e = (typeof event === 'object' && event !== null ? event : {}) as Record<string, unknown>;
  if (e.bot_id || e.subtype === 'bot_message') return { take: false, why: 'bot' };
  if (!NEW_MESSAGE_SUBTYPES.has(e.subtype)) return { take: false, why: 'subtype' };
  if (typeof e.thread_ts === 'string' && e.thread_ts !== e.ts) return { take: false, why: 'thread_reply' };
  if (!CHANNEL_TYPES.has(e.channel_type)) return { take: false, why: 'not_a_channel' };
  const { user, text, channel, ts } = e;
  if (typeof user !== 'string' || !user || typeof text !== 'string' || typeof channel !== 'string')
    return { take: false, why: 'no_author' };
  if (typeof ts !== 'string') return { take: false, why: 'no_author' };
  if (mentionsUser(text, botUserId)) return { take: false, why: 'mentions_bot' };
  if (questionWords(text).length === 0) return { take: false, why: 'no_words' };
  return { take: true, channel, user, text, ts };
}
