import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from '../logger.js';
import { refuseBeforeListeners } from './refuse.js';
import { responseUrlAllowed } from './respond.js';

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
