import { ErrorCode, LogLevel, WebClient, type WebAPIPlatformError, type WebClientOptions } from '@slack/web-api';
import type { FakeSlack } from '../../sandbox/fake-slack.js';
import { rejectionOf } from './rejection.js';

/**
 * A real WebClient pointed at the fake Slack: only errors logged, no retries (a refusal or a 429
 * reaches the test at once). `options` overrides any of these.
 */
export function fakeSlackClient(
  slack: Pick<FakeSlack, 'url'>,
  token: string,
  options: WebClientOptions = {},
): WebClient {
  return new WebClient(token, {
    slackApiUrl: slack.url,
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 0 },
    ...options,
  });
}

/** The error a Slack call settles with; it must reject with an Error (asserted). */
export async function platformError(p: Promise<unknown>): Promise<WebAPIPlatformError> {
  return (await rejectionOf(p, Error)) as WebAPIPlatformError;
}

/** The code a Slack call is refused with (`data.error`, e.g. `invalid_arguments`); it must reject. */
export async function platformErrorCode(p: Promise<unknown>): Promise<string> {
  return (await platformError(p)).data.error;
}

/**
 * The error @slack/web-api rejects with when Slack answers `{ ok: false, error: code }` (its
 * platform error shape: `code` ErrorCode.PlatformError, `data.error` Slack's code).
 */
export function slackPlatformError(code: string): WebAPIPlatformError {
  return Object.assign(new Error(`An API error occurred: ${code}`), {
    code: ErrorCode.PlatformError,
    data: { ok: false as const, error: code },
  }) as WebAPIPlatformError;
}
