import { ErrorCode } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { StartupError } from '../startup-error.js';
import { classifySlackError } from './errors.js';
import { createWebClient } from './web-client.js';

export { logStartFailure, StartupError } from '../startup-error.js';

/** The token variables a start-up failure can name. */
type TokenVariable = 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN';

/** What to do when Slack refuses each token (Slack app settings pages). */
const WHAT_TO_DO: Record<TokenVariable, string> = {
  SLACK_BOT_TOKEN: 'reinstall the app or copy the Bot User OAuth Token (OAuth & Permissions) again',
  SLACK_APP_TOKEN:
    'generate a new app-level token with the connections:write scope (Basic Information → App-Level Tokens)',
};

/** The bot user's ids, as `auth.test` answers them for a bot token (`user_id`, `bot_id`). */
export interface BotIdentity {
  botUserId: string;
  botId: string;
}

/**
 * Turns an error of a Web API call made with `variable`'s token at start-up into a
 * {@link StartupError}, or returns undefined when it is not a Slack error (a bug: let it show its
 * stack). Slack's answers (method pages, e.g. auth.test, apps.connections.open): a refused token is
 * HTTP 200 `{"ok":false,"error":"invalid_auth"}` (or `not_authed`, `account_inactive`,
 * `token_revoked`, …); trouble on Slack's side is a "try again" code or HTTP 5xx; a network
 * failure is @slack/web-api's request error (after the client's retries).
 */
export function toStartupError(variable: TokenVariable, err: unknown, slackApiUrl: string): StartupError | undefined {
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    statusCode?: unknown;
    original?: { code?: unknown; cause?: { code?: unknown } };
  };
  const { kind, code } = classifySlackError(err);
  const where = new URL(slackApiUrl).origin;
  if (e.code === ErrorCode.PlatformError) {
    const message =
      kind === 'transient'
        ? `Slack could not check ${variable} (${code}): Slack is having trouble; start the bot again later`
        : `Slack refused ${variable} (${code}): ${WHAT_TO_DO[variable]}`;
    return new StartupError(message, { variable, slackError: code });
  }
  if (e.code === ErrorCode.HTTPError) {
    const status = typeof e.statusCode === 'number' ? e.statusCode : 0;
    return new StartupError(
      `Slack answered HTTP ${status} when checking ${variable} at ${where}: check SLACK_API_URL, or start the bot again later if Slack is down`,
      { variable, slackError: `http_${status}` },
    );
  }
  if (e.code === ErrorCode.RequestError) {
    // fetch's TypeError("fetch failed") carries the system error (ECONNREFUSED, ENOTFOUND, …) as its cause.
    const found = [e.original?.code, e.original?.cause?.code].find((c) => typeof c === 'string');
    const cause = typeof found === 'string' ? found : 'request_error';
    return new StartupError(
      `Could not reach Slack at ${where} to check ${variable} (${cause}): check the network, the proxy and SLACK_API_URL`,
      { variable, slackError: cause },
    );
  }
  return undefined;
}

/** What the start-up `auth.test` says of SLACK_BOT_TOKEN. */
export interface BotInstall {
  /** The bot's ids, when Slack gave both. */
  identity?: BotIdentity;
  /**
   * An org-level token (Enterprise Grid org-wide install): `auth.test` answers
   * `is_enterprise_install: true`, with the enterprise id as `team_id` and `enterprise_id`.
   */
  enterpriseInstall: boolean;
  /** `auth.test` `enterprise_id`, on Grid. */
  enterpriseId?: string;
  /** `auth.test` `team_id`: the token's workspace (for an org-wide install, the org's id). */
  teamId?: string;
}

/**
 * Checks SLACK_BOT_TOKEN once, as the bot starts: `auth.test` (Slack docs: "checks authentication
 * and tells you who you are"), with the bot's usual retries of network errors and 5xx
 * (`webClientRetries`: 5 tries over 8 to 12 s, then the error).
 *
 * @returns the bot's ids (which Bolt is then given so that it does not call `auth.test` again) and
 *   whether the token is an org-wide install.
 * @throws {@link StartupError} when Slack refuses the token or cannot be reached; any other error as is.
 */
export async function checkBotInstall(opts: {
  token: string;
  slackApiUrl: string;
  logger: Logger;
}): Promise<BotInstall> {
  try {
    const res = await createWebClient(opts).auth.test();
    return {
      ...(res.user_id && res.bot_id ? { identity: { botUserId: res.user_id, botId: res.bot_id } } : {}),
      enterpriseInstall: res.is_enterprise_install === true,
      ...(res.enterprise_id ? { enterpriseId: res.enterprise_id } : {}),
      ...(res.team_id ? { teamId: res.team_id } : {}),
    };
  } catch (err) {
    throw toStartupError('SLACK_BOT_TOKEN', err, opts.slackApiUrl) ?? err;
  }
}

/** {@link checkBotInstall}'s identity alone. @throws as {@link checkBotInstall}. */
export async function checkBotToken(opts: {
  token: string;
  slackApiUrl: string;
  logger: Logger;
}): Promise<BotIdentity | undefined> {
  return (await checkBotInstall(opts)).identity;
}
