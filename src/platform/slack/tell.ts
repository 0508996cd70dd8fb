import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { postToResponseUrl } from './respond.js';

/**
 * Where one person can be told something privately, best first: Bolt's `respond` of the click
 * being handled (when the key is there: Bolt leaves the function out when the payload has no
 * response_url), else a `response_url` (works where the bot is not a member; Slack: 5 uses within
 * 30 minutes), else an ephemeral message to `user` in `channel` (`chat.postEphemeral`, in
 * `threadTs` when given).
 */
export interface PrivateTarget {
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

/** The warning when a click came without a response_url (Slack sends one with every message button). */
export const NO_RESPONSE_URL_LOG = 'a click came without a response_url; the person could not be answered';

/**
 * Tells one person privately, the best way `to` offers ({@link PrivateTarget}). Resolves true when
 * told; false when it failed (one warning: `failure`, or for a click's `respond` "could not answer
 * through the response_url") or `to` names nowhere (a click without a response_url is a warning
 * too; a target without user and channel is not). Never throws. The one way the bot answers one
 * person privately (the intake's `TellPerson` too); {@link tellPrivately} and {@link clickReply} are its faces.
 */
export async function tryTelling(
  deps: TellDeps,
  to: PrivateTarget,
  text: string,
  failure = 'could not answer the person privately',
): Promise<boolean> {
  const message = { response_type: 'ephemeral', replace_original: false, text } as const;
  const viaClick = 'respond' in to;
  try {
    if (viaClick) {
      if (typeof to.respond !== 'function') {
        deps.logger.warn(NO_RESPONSE_URL_LOG);
        return false;
      }
      await to.respond(message);
    } else if (to.responseUrl) await postToResponseUrl(to.responseUrl, message);
    else if (to.user && to.channel && deps.slack) {
      const thread = to.threadTs ? { thread_ts: to.threadTs } : {};
      await deps.slack.chat.postEphemeral({ channel: to.channel, user: to.user, text, ...thread });
    } else return false;
    return true;
  } catch (err) {
    deps.logger.warn({ err }, viaClick ? 'could not answer through the response_url' : failure);
    return false;
  }
}

/** {@link tryTelling}, for callers that don't ask whether it worked. Never throws. */
export async function tellPrivately(deps: TellDeps, to: PrivateTarget, text: string): Promise<void> {
  await tryTelling(deps, to, text);
}

/** The private answer to whoever clicked, through the click's response_url (Bolt's `respond`). Never throws. */
export function clickReply(respond: RespondFn | undefined, logger: Logger): (text: string) => Promise<void> {
  return (text) => tellPrivately({ logger }, { respond }, text);
}
