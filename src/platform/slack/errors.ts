import { ErrorCode } from '@slack/web-api';
import { PlatformErrorCode } from '../errors.js';
/**
 * Slack Web API errors by kind, from Slack's documented error codes (method reference pages, e.g.
 * chat.postMessage, chat.update, reactions.add; "Rate limits"; and @slack/web-api's error codes).
 */

/**
 * Reads the Web API error string (`not_in_channel`, `ratelimited`, …) out of an error thrown by
 * `@slack/web-api` (its platform errors carry `data.error`; rate-limit errors `code`
 * `slack_webapi_rate_limited_error`).
 */
export function slackErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; data?: { error?: unknown } };
  if (typeof e.data?.error === 'string') return e.data.error;
  if (e.code === ErrorCode.RateLimitedError) return 'ratelimited';
  return typeof e.code === 'string' ? e.code : undefined;
}

/** Errors meaning the bot cannot post in the channel (Slack: chat.postMessage errors). */
export const CANNOT_POST = new Set(['not_in_channel', 'channel_not_found', 'is_archived', 'restricted_action']);

/** Answer when the bot is not a member of the channel: how to fix it. */
export const INVITE_FIRST =
  "I can't post in this channel yet. Invite me with `/invite @Docs Agent`, then run the command again.";

/** Answer when the channel is archived (chat.postMessage `is_archived`: "Channel has been archived."): inviting can't help. */
export const ARCHIVED_CHANNEL_TEXT =
  "This channel is archived, so I can't post in it. Run the command in another channel.";

/**
 * Answer when a workspace setting keeps the bot from posting in the channel (chat.postMessage
 * `restricted_action`: "A workspace preference prevents the authenticated user from posting."):
 * inviting can't help.
 */
export const RESTRICTED_CHANNEL_TEXT =
  "This channel doesn't let me post (a workspace setting limits who can post here). Run the command in another channel.";

/**
 * What to tell a person when Slack refused the bot's post with one of {@link CANNOT_POST}
 * (docs.slack.dev, chat.postMessage errors): invite the bot (`not_in_channel`, and
 * `channel_not_found`, which a private channel the bot isn't in gives), or use another channel
 * (`is_archived`, `restricted_action`).
 */
export function cannotPostHereText(code: string | undefined): string {
  if (code === 'is_archived') return ARCHIVED_CHANNEL_TEXT;
  if (code === 'restricted_action') return RESTRICTED_CHANNEL_TEXT;
  return INVITE_FIRST;
}

/**
 * Platform errors that may go away by themselves (Slack documents them as "try again"): server
 * trouble and rate limits. Every other platform error is permanent for the same call.
 */
const TRANSIENT_CODES = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'team_added_to_org',
]);

/**
 * Errors meaning the place is gone (or closed to the bot): the message can never be posted there.
 * `user_not_found` is the same for a person (views.publish of an App Home, chat.postEphemeral).
 */
const GONE_CODES = new Set([
  ...CANNOT_POST,
  'message_not_found',
  'thread_not_found',
  'cant_update_message',
  'edit_window_closed',
  'user_not_found',
]);

/** Errors meaning the message itself is refused: sending it again as plain text may work. */
export const CONTENT_CODES = new Set([
  'invalid_blocks',
  'invalid_blocks_format',
  'msg_too_long',
  'msg_blocks_too_long',
  'invalid_attachments',
  'too_many_attachments',
]);

/**
 * OAuth mode: the installation whose token a call needs is gone, not allowed
 * (SLACK_INSTALL_ALLOWLIST) or cannot be opened (installation-store.ts' codes): the same call
 * fails again, like a revoked token.
 */
const INSTALLATION_CODES: ReadonlySet<string> = new Set([
  PlatformErrorCode.InstallationNotFound,
  PlatformErrorCode.InstallationNotAllowed,
  PlatformErrorCode.InstallationKeyUnknown,
  PlatformErrorCode.InstallationUnreadable,
]);

/** How an error of a Web API call should be treated. */
export type SlackErrorKind =
  /** Worth retrying with backoff (rate limits, 5xx, network). */
  | 'transient'
  /** The conversation or message is gone or closed to the bot: give up on this place. */
  | 'gone'
  /** The same call will fail again (bad content, revoked token, missing scope): give up, log once. */
  | 'permanent';

/** A classified Web API error. */
export interface SlackErrorInfo {
  kind: SlackErrorKind;
  /** Slack's error code, or @slack/web-api's code for non-platform errors. */
  code: string;
  /** The Web API method, when the error came through the bot's {@link createWebClient} client. */
  method?: string;
}

/**
 * Classifies an error thrown by a Web API call.
 * - @slack/web-api request errors (network) and HTTP 5xx/429: `transient`;
 * - platform errors: {@link TRANSIENT_CODES} → `transient`, {@link GONE_CODES} → `gone`, others `permanent`;
 * - OAuth mode's installation errors ({@link INSTALLATION_CODES}: no token to call with): `permanent`;
 * - anything that is not a Slack error: `transient` (e.g. a timeout in our own code).
 */
export function classifySlackError(err: unknown): SlackErrorInfo {
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    statusCode?: unknown;
    slackMethod?: unknown;
  };
  const method = typeof e.slackMethod === 'string' ? { method: e.slackMethod } : {};
  const code = slackErrorCode(err) ?? 'unknown_error';
  if (e.code === ErrorCode.PlatformError) {
    const kind: SlackErrorKind = TRANSIENT_CODES.has(code) ? 'transient' : GONE_CODES.has(code) ? 'gone' : 'permanent';
    return { kind, code, ...method };
  }
  if (typeof e.code === 'string' && INSTALLATION_CODES.has(e.code)) return { kind: 'permanent', code, ...method };
  if (
    e.code === ErrorCode.HTTPError &&
    typeof e.statusCode === 'number' &&
    e.statusCode < 500 &&
    e.statusCode !== 429
  ) {
    return { kind: 'permanent', code: `http_${e.statusCode}`, ...method };
  }
  return { kind: 'transient', code, ...method };
}

/**
 * True for OAuth mode's error of a call whose installation is gone or cannot be opened (the
 * installation store's codes): the same call fails again.
 */
export function isInstallationError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && INSTALLATION_CODES.has(code);
}

/** True for an error @slack/web-api threw (a platform, request, HTTP or rate-limit error). */
export function isSlackError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SLACK_ERROR_CODES.has(code);
}

/** @slack/web-api's error codes (its exported `ErrorCode` enum). */
const SLACK_ERROR_CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));
