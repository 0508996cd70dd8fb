/**
 * Reads the Web API error string (`not_in_channel`, `ratelimited`, …) out of an error thrown by
 * `@slack/web-api` (its platform errors carry `data.error`; rate-limit errors `code`
 * `slack_webapi_rate_limited_error`).
 */
export function slackErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; data?: { error?: unknown } };
  if (typeof e.data?.error === 'string') return e.data.error;
  if (e.code === 'slack_webapi_rate_limited_error') return 'ratelimited';
  return typeof e.code === 'string' ? e.code : undefined;
}

/** Errors meaning the bot cannot post in the channel (Slack: chat.postMessage errors). */
export const CANNOT_POST = new Set(['not_in_channel', 'channel_not_found', 'is_archived', 'restricted_action']);

/** Answer when the bot is not a member of the channel: how to fix it. */
export const INVITE_FIRST = "I can't post in this channel yet. Invite me with `/invite @Docs Agent`, then run the command again.";
