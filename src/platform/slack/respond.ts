import { request } from 'undici';
import { PlatformErrorCode } from '../errors.js';

/** What may be sent to a `response_url` (Slack docs: "Handling user interaction — response_url"). */
export interface ResponseUrlMessage {
  /** Required unless `delete_original`. */
  text?: string;
  blocks?: unknown[];
  /** `ephemeral` (default: only the person sees it) or `in_channel`. */
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
  delete_original?: boolean;
  thread_ts?: string;
}

/**
 * A response_url that answered with an HTTP error. 4xx (Slack: `expired_url` after 30 minutes,
 * `used_url` after 5 uses, an unknown URL) will not change on a retry; 5xx may.
 */
export class ResponseUrlError extends Error {
  override readonly name = 'ResponseUrlError';
  readonly code = PlatformErrorCode.ResponseUrlRefused;
  /** @param status - the HTTP status the response_url answered. */
  constructor(readonly status: number) {
    super(`response_url answered HTTP ${status}`);
  }

  /** True when sending again cannot help (a 4xx). */
  get permanent(): boolean {
    return this.status >= 400 && this.status < 500;
  }
}

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

/** Milliseconds a response_url POST may take. */
const TIMEOUT_MS = 10_000;

/**
 * POSTs a message to a command's or interaction's `response_url` (JSON). Slack allows 5 uses
 * within 30 minutes per URL.
 * @throws ResponseUrlError when it answers outside 2xx (the body of Slack's answer is not included:
 *   it may echo the message); a network or timeout error when it does not answer within 10 s.
 */
export async function postToResponseUrl(url: string, message: ResponseUrlMessage): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  await res.body.dump();
  if (res.statusCode < 200 || res.statusCode >= 300) throw new ResponseUrlError(res.statusCode);
}

/** Answers the person who ran a command or clicked (through its `response_url`). */
export type Respond = (message: ResponseUrlMessage) => Promise<void>;

/**
 * A {@link Respond} over `url`; one that does nothing when there is none (a click that came without
 * a response_url). Its errors are {@link postToResponseUrl}'s: to tell a person privately without
 * them, see tell.ts.
 */
export function respondVia(url: string | undefined): Respond {
  return url ? (message) => postToResponseUrl(url, message) : async () => undefined;
}
