import { DocsApiError } from '../../platform/docs-api/errors.js';
import { docsApiErrorText } from '../../platform/docs-api/error-text.js';
import { AnalyticsBudgetError } from '../visitors/index.js';

/** What to do about a part a digest could not show: nobody can retry a scheduled post by hand. */
export const DIGEST_TRIES_AGAIN = 'the next digest tries again, or `/docs-visitors digest` sends one now.';

/**
 * Why a reader part of a digest is not shown, in the digest's words: the reason, then
 * {@link DIGEST_TRIES_AGAIN} (never "try again in a minute": a scheduled post has no one to retry
 * it). A rejected key (401/403), a rejected request (400, with the API's words) or an unknown project
 * (404) is worded as for a report ({@link docsApiErrorText}): the first two name what the admin must do.
 * Never includes secrets.
 */
export function digestPartFailureText(err: unknown): string {
  if (err instanceof DocsApiError && ['unauthorized', 'forbidden', 'bad_request', 'not_found'].includes(err.code)) {
    return docsApiErrorText(err);
  }
  return `${digestFailureReason(err)}; ${DIGEST_TRIES_AGAIN}`;
}

function digestFailureReason(err: unknown): string {
  if (err instanceof AnalyticsBudgetError) {
    return err.reason === 'rate_limited'
      ? 'The docs analytics API was rate limiting us'
      : 'The bot had used the docs analytics requests it may make this hour';
  }
  if (!(err instanceof DocsApiError)) return 'Something went wrong on my side';
  switch (err.code) {
    case 'rate_limited':
      return 'The docs analytics API was rate limiting us';
    case 'network_error':
      return 'The docs service could not be reached';
    case 'invalid_response':
      return 'The docs service sent an answer I could not read';
    default:
      return 'The docs service failed';
  }
}
