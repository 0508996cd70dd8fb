import {
  DocsApiErrorCode,
  isDocsApiError,
  type DocsApiBadRequestError,
  type DocsApiRateLimitedError,
} from './errors.js';
import { formatDuration } from '../slack/duration.js';
import { escapeMrkdwn, truncate } from '../slack/limits.js';

/**
 * Turns a failure of the docs API into one sentence a person in Slack can act on.
 * Never includes the key, a stack trace or a raw HTTP dump.
 *
 * A cursor refused (DocsApiCursorRejectedError: an analytics page whose cursor the API no longer accepts)
 * says the page expired and the report must be run again, then, on a second line, what the API said
 * (its `error` and `details`, escaped, cut to 300 chars): the spec names no answer for a bad cursor
 * but a 400, so the 400 may be about something else.
 *
 * @param err - anything thrown while calling the docs API.
 * @param defaultRetryMs - wait suggested on a 429 without `Retry-After`, in ms. The vendor documents
 *   no `Retry-After`. Its limits (test/fixtures/mintlify/SOURCE.md): the agent endpoints (create job,
 *   send message) allow 100 uses per project per hour; analytics allow 100 requests per organization
 *   per hour, shared by all analytics endpoints (their 429s are worded by the reports feature).
 */
export function docsApiErrorText(err: unknown, defaultRetryMs = 60_000): string {
  if (!isDocsApiError(err)) return 'Something went wrong on my side. Please try again.';
  switch (err.code) {
    case DocsApiErrorCode.CursorRejected:
      // Most likely a page of a report that expired; the API's own words follow on a line of their
      // own, in case the 400 was about something else.
      return `This page of the report expired; run the report again.\n${apiSaid((err as DocsApiBadRequestError).apiMessage)}`;
    case DocsApiErrorCode.RateLimited: {
      const wait = (err as DocsApiRateLimitedError).retryAfterMs ?? defaultRetryMs;
      return `The docs service is rate limiting us right now; try again in ${formatDuration(wait)}.`;
    }
    case DocsApiErrorCode.AssistantKeyRefused:
      return err.status === 403 ? FORBIDDEN_TEXT : UNAUTHORIZED_TEXT;
    case DocsApiErrorCode.Unauthorized:
      return UNAUTHORIZED_TEXT;
    case DocsApiErrorCode.Forbidden:
      return FORBIDDEN_TEXT;
    case DocsApiErrorCode.ServerError:
      return 'The docs service failed; try again in a minute.';
    case DocsApiErrorCode.NetworkError:
      return 'The docs service could not be reached; try again in a minute.';
    case DocsApiErrorCode.BadRequest:
      // The API's own words, escaped and cut short: they must not become mentions or links.
      return `The docs service rejected the request: ${escapeMrkdwn(truncate((err as DocsApiBadRequestError).apiMessage ?? 'invalid request', 300))}.`;
    case DocsApiErrorCode.NotFound:
    case DocsApiErrorCode.AssistantThreadNotFound:
      return 'The docs service does not know that job or project.';
    case DocsApiErrorCode.InvalidResponse:
    case DocsApiErrorCode.AssistantStreamFailed:
      return 'The docs service sent an answer I could not read; try again, and tell the admin if it keeps happening.';
  }
}

const UNAUTHORIZED_TEXT = "The bot's API key was rejected by the docs service; tell the admin who installed this bot.";
const FORBIDDEN_TEXT =
  "The docs service refused the bot's API key (missing scope or IP allowlist); tell the admin who installed this bot.";

/** `The docs service said: …` with the API's words escaped (no mention, link or markup) and cut to 300 chars. */
function apiSaid(apiMessage: string): string {
  return `The docs service said: ${escapeMrkdwn(truncate(apiMessage, 300))}`;
}
