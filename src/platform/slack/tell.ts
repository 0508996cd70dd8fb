/**
 * Telling one person something privately: the one way the bot does it (a click's `respond`, a
 * `response_url`, else `chat.postEphemeral`; or the ephemeral message first). Which to reach for:
 * - {@link tellPrivately}: most callers (a failure is one warn line, and nothing else happens);
 * - {@link tryTelling}: when the caller needs to know whether the person was told (it resolves
 *   false when not), e.g. the intake's `TellPerson`;
 * - {@link clickReply}: a listener answering the click it handles (Bolt's `respond`), as a
 *   `(text) => Promise<void>`.
 * None throws.
 */
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { postToResponseUrl } from './respond.js';

/**
 * Where one person can be told something privately, best first: Bolt's `respond` of the click
 * being handled, else a `response_url` (works where the bot is not a member; Slack: 5 uses within
 * 30 minutes), else an ephemeral message to `user` in `channel` (`chat.postEphemeral`, in
 * `threadTs` when given). {@link TellOptions.prefer} can put the ephemeral message first. The
 * intake's `ReplyTo` (what a record keeps) is this without `respond`.
 */
export interface PrivateTarget {
  /**
   * Bolt's `respond` of the click being handled. The key's presence, even with the value
   * undefined, chooses the click's way and no other: Bolt leaves the function out when the payload
   * has no response_url, and that is then a warning ("a click came without a response_url"), not
   * a fallback to the other fields ({@link clickReply} relies on it).
   */
  respond?: RespondFn | undefined;
  responseUrl?: string | undefined;
  user?: string | undefined;
  channel?: string | undefined;
  threadTs?: string | undefined;
}

/** What telling one person privately needs (`slack` only for the ephemeral-message way). */
export interface TellDeps {
  slack?: { chat: Pick<WebClient['chat'], 'postEphemeral'> };
  logger: Logger;
}

/** What is said privately: its text, and Block Kit blocks when it has some (the text is then the notification's). */
export interface PrivateMessage {
  text: string;
  blocks?: unknown[] | undefined;
}

/** How {@link tryTelling} tells. */
export interface TellOptions {
  /** The warn line when telling failed. @defaultValue 'could not answer the person privately' */
  failure?: string;
  /**
   * Absent (the default): the best way the target offers ({@link PrivateTarget}), tried once.
   * `'ephemeral'`: `chat.postEphemeral` to `user` in `channel` first (when both are there); when
   * Slack refuses it, the `response_url` instead (that failure is the one logged; with no
   * response_url nobody is told and nothing is logged). A report's answers, which carry a Retry
   * button, go this way.
   */
  prefer?: 'ephemeral';
}

/** The warning when a click came without a response_url (Slack sends one with every message button). */
const NO_RESPONSE_URL_LOG = 'a click came without a response_url; the person could not be answered';

/**
 * Tells one person privately ({@link PrivateTarget}, {@link TellOptions}): a new ephemeral message
 * (through a response_url, `replace_original: false`: the message clicked stays). Resolves true
 * when told; false when it failed (one warning: `how.failure`, or for a click's `respond` "could
 * not answer through the response_url") or `to` names nowhere (a click without a response_url is
 * a warning too; a target without user and channel is not). Never throws. The one way the bot
 * answers one person privately (the intake's `TellPerson` too); {@link tellPrivately} and
 * {@link clickReply} are its faces (see the file's header for which to reach for).
 */
export async function tryTelling(
  deps: TellDeps,
  to: PrivateTarget,
  said: string | PrivateMessage,
  how: TellOptions = {},
): Promise<boolean> {
  const msg = typeof said === 'string' ? { text: said } : said;
  const failure = how.failure ?? 'could not answer the person privately';
  if (how.prefer === 'ephemeral' && to.user && to.channel && deps.slack) {
    try {
      await postEphemeral(deps.slack, { ...to, user: to.user, channel: to.channel }, msg);
      return true;
    } catch {
      // Slack would not post it: the response_url instead, whose failure is the one logged.
      return tryTelling(deps, { responseUrl: to.responseUrl }, msg, { failure });
    }
  }
  const blocks = msg.blocks ? { blocks: msg.blocks } : {};
  const message = { response_type: 'ephemeral', replace_original: false, text: msg.text, ...blocks } as const;
  const viaClick = 'respond' in to;
  try {
    if (viaClick) {
      if (typeof to.respond !== 'function') {
        deps.logger.warn(NO_RESPONSE_URL_LOG);
        return false;
      }
      await to.respond(message);
    } else if (to.responseUrl) await postToResponseUrl(to.responseUrl, message);
    else if (to.user && to.channel && deps.slack)
      await postEphemeral(deps.slack, { ...to, user: to.user, channel: to.channel }, msg);
    else return false;
    return true;
  } catch (err) {
    deps.logger.warn({ err }, viaClick ? 'could not answer through the response_url' : failure);
    return false;
  }
}

/** `chat.postEphemeral` of `msg` to `to.user` in `to.channel` (in `to.threadTs` when given). @throws Slack's error. */
async function postEphemeral(
  slack: NonNullable<TellDeps['slack']>,
  to: PrivateTarget & { user: string; channel: string },
  msg: PrivateMessage,
): Promise<void> {
  const thread = to.threadTs ? { thread_ts: to.threadTs } : {};
  const blocks = msg.blocks ? { blocks: msg.blocks as never } : {};
  await slack.chat.postEphemeral({ channel: to.channel, user: to.user, text: msg.text, ...blocks, ...thread });
}

/** {@link tryTelling}, for callers that don't ask whether it worked. Never throws. */
export async function tellPrivately(
  deps: TellDeps,
  to: PrivateTarget,
  said: string | PrivateMessage,
  how?: TellOptions,
): Promise<void> {
  await tryTelling(deps, to, said, how);
}

/** The private answer to whoever clicked, through the click's response_url (Bolt's `respond`). Never throws. */
export function clickReply(respond: RespondFn | undefined, logger: Logger): (text: string) => Promise<void> {
  return (text) => tellPrivately({ logger }, { respond }, text);
}
