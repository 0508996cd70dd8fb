import { DocsApiRateLimitedError } from '../../platform/docs-api/errors.js';

/**
 * What the ask feature tells people, in its own words (the admin API's `docsApiErrorText` speaks of
 * agent jobs and admin keys). Every refusal and error is private (ephemeral) and plain: what
 * happened and what to do; never a key, a thread key or a status code.
 */

/** Asking is off: DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN are not set. */
export const NOT_CONFIGURED_TEXT =
  "Asking the docs isn't turned on for this workspace yet. Whoever runs Docs Agent turns it on by setting " +
  "`DOCS_ASSISTANT_API_KEY` (the docs site's assistant API key) and `DOCS_DOMAIN` (its domain); see the setup " +
  'guide. Until then, `/docs-edit` still changes the docs.';

/** The discovery API refused the assistant key (401/403): the operator's to fix; the log names the variable. */
export const KEY_REFUSED_TEXT =
  "I can't ask the docs right now: the docs assistant isn't accepting my credentials. " +
  "I've logged it for whoever runs me.";

/** The domain is unknown to the discovery API (404 without a thread). */
export const SITE_UNKNOWN_TEXT =
  "I can't ask the docs right now: the docs assistant doesn't know the docs site I'm set up for. " +
  "I've logged it for whoever runs me.";

/** 5xx, timeouts and network errors after one retry, and anything else unexpected. */
export const COULD_NOT_ANSWER_TEXT =
  "I couldn't answer that: the docs assistant didn't respond properly, even on a second try. Ask again in a moment.";

/**
 * `/docs-ask`'s question could not be posted in its channel, even on the last try (Slack or the
 * bot's storage failing): nothing was asked.
 */
export const QUESTION_NOT_POSTED_TEXT =
  "I couldn't post your question just now, so I couldn't answer it. It doesn't count against your questions; ask again in a moment.";

/** The assistant no longer knows the thread (404 with a thread id): the conversation cannot go on. */
export const THREAD_LOST_TEXT =
  "I can't continue this conversation: the docs assistant no longer knows it (conversations are kept about a " +
  'week). Ask again with `/docs-ask` or a new message.';

/** A person's fourth question while three of their answers are still being written. */
export const TOO_MANY_ANSWERS_TEXT =
  "I'm still writing 3 answers for you, the most I write for one person at once. Ask again when one of them is done.";

/** A question over the length the bot sends. */
export function questionTooLongText(chars: number, max: number): string {
  const [n, limit] = [chars.toLocaleString('en-US'), max.toLocaleString('en-US')];
  return `Your question is ${n} characters long; the limit is ${limit}. Shorten it and ask again.`;
}

/** 429 from the discovery API: when to try again (its Retry-After, else "in a few minutes"). */
export function rateLimitedText(err: DocsApiRateLimitedError): string {
  const ms = err.retryAfterMs;
  const when =
    ms === undefined
      ? 'in a few minutes'
      : ms < 90_000
        ? `in ${Math.max(1, Math.ceil(ms / 1000))} seconds`
        : `in ${Math.ceil(ms / 60_000)} minutes`;
  return `The docs assistant has had too many questions this hour. Ask again ${when}.`;
}

/** After a job start from a mention (ask is on): how to ask instead, if the guess was wrong. */
export const ASK_INSTEAD_TEXT =
  'I took your message as a change to the docs and started a job. Meant it as a question? Ask with ' +
  '`/docs-ask …`, or start the message with a question word or end it with a question mark.';

/**
 * After a job start from a mention in a channel whose mentions setting is `edit` (ask is on): no
 * phrasing makes a mention a question there, only `/docs-ask`.
 */
export const EDIT_CHANNEL_ASK_TEXT =
  'I took your message as a change to the docs and started a job: this channel takes every mention as a docs ' +
  'change. To ask the docs a question here, use `/docs-ask …`.';

/** A message in a question channel that reads as a docs change (the mention rule): no job, this private line. */
export const QUESTION_CHANNEL_HINT_TEXT =
  "This channel answers questions, and your message reads as a docs change, so I didn't start one: " +
  'mention me or use `/docs-edit …` to change the docs, or rephrase it as a question.';

/** A button's answer record could not be read just now (Redis failing, or too slow for Slack's 3 s): nothing was done. */
export const ANSWER_UNREADABLE_TEXT = "I couldn't read that answer just now, so I did nothing. Try again in a moment.";
