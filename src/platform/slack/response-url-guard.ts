import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from '../logger.js';
import { refuseBeforeListeners } from './refuse.js';

/**
 * Slack's host for `response_url`s (Slack docs, "Handling user interaction": slash commands and
 * interactions carry `https://hooks.slack.com/commands/…` or `…/actions/…`).
 */
const SLACK_RESPONSE_URL_HOST = 'hooks.slack.com';

/**
 * True when the bot may post to `url`: https on {@link SLACK_RESPONSE_URL_HOST} (default port), or
 * the origin of the configured SLACK_API_URL (a proxy in front of Slack, or the sandbox's fakes).
 * Anything else (another host, another port, http to Slack's host, not a URL) is refused.
 */
export function responseUrlAllowed(url: string, slackApiUrl: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol === 'https:' && u.hostname === SLACK_RESPONSE_URL_HOST && u.port === '' && !u.username && !u.password)
    return true;
  try {
    return u.origin === new URL(slackApiUrl).origin && !u.username && !u.password;
  } catch {
    return false;
  }
}

/** Answer to a command that came with a reply address that is not Slack's. */
const FOREIGN_RESPONSE_URL_TEXT = "This request came with a reply address that isn't Slack's, so I didn't act on it.";

/** Every `response_url` a payload carries: `response_url`, and `response_urls[].response_url` (view submissions). */
function responseUrlsOf(body: unknown): unknown[] {
  if (typeof body !== 'object' || body === null) return [];
  const b = body as { response_url?: unknown; response_urls?: unknown };
  const urls: unknown[] = b.response_url === undefined ? [] : [b.response_url];
  if (Array.isArray(b.response_urls))
    for (const r of b.response_urls) urls.push((r as { response_url?: unknown } | null)?.response_url);
  return urls;
}

/**
 * Bolt global middleware: a request whose `response_url` (or any of `response_urls`) is not one
 * the bot may post to ({@link responseUrlAllowed}) is acked and dropped before any listener runs,
 * so nothing is recorded and nothing is ever sent there; a command gets
 * {@link FOREIGN_RESPONSE_URL_TEXT} in its ack (refuse.ts's `refuseBeforeListeners`, with
 * `responseUrl: 'never'`). One warning names the URL's host only.
 */
export function responseUrlGuard(slackApiUrl: string, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const foreign = responseUrlsOf(args.body).filter(
      (u) => typeof u !== 'string' || !responseUrlAllowed(u, slackApiUrl),
    );
    if (foreign.length === 0) return args.next();
    logger.warn({ responseUrlHost: hostOf(foreign[0]) }, "refused a request whose response_url is not Slack's");
    const ack = (args as { ack?: (r?: unknown) => Promise<void> }).ack;
    const body = args.body as unknown as Record<string, unknown>;
    // Never told through the response_url: it is not Slack's.
    await refuseBeforeListeners(ack, body, FOREIGN_RESPONSE_URL_TEXT, { responseUrl: 'never' });
  };
}

function hostOf(u: unknown): string {
  if (typeof u !== 'string') return typeof u;
  try {
    return new URL(u).host.slice(0, 100);
  } catch {
    return 'not a URL';
  }
}
