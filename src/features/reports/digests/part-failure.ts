import { DocsApiErrorCode, isDocsApiError } from '../../../platform/docs-api/errors.js';
import { docsApiErrorText } from '../../../platform/docs-api/error-text.js';
import { hasCode } from '../../../platform/errors.js';
import { ReportErrorCode, type AnalyticsBudgetError } from '../budget.js';

/** What to do about a part a digest could not show: nobody can retry a scheduled post by hand. */
const DIGEST_TRIES_AGAIN = 'the next digest tries again, or `/docs-visitors digest` sends one now.';

/**
 * Why a reader part of a digest is not shown, in the digest's words: the reason, then
 * {@link DIGEST_TRIES_AGAIN} (never "try again in a minute": a scheduled post has no one to retry
 * it). A rejected key (401/403), a rejected request (400, with the API's words) or an unknown project
 * (404) is worded as for a report ({@link docsApiErrorText}): the first two name what the admin must do.
 * Never includes secrets.
 */
export function digestPartFailureText(err: unknown): string {
  if (isDocsApiError(err) && WORDED_AS_FOR_A_REPORT.has(err.code)) {
    return docsApiErrorText(err);
  }
  return `${digestFailureReason(err)}; ${DIGEST_TRIES_AGAIN}`;
}

/** The docs API's refusals a digest words as a report does (the key, the request, an unknown project). */
const WORDED_AS_FOR_A_REPORT: ReadonlySet<string> = new Set([
  DocsApiErrorCode.Unauthorized,
  DocsApiErrorCode.Forbidden,
  DocsApiErrorCode.BadRequest,
  DocsApiErrorCode.CursorRejected,
  DocsApiErrorCode.NotFound,
]);

function digestFailureReason(err: unknown): string {
  if (hasCode<AnalyticsBudgetError>(err, ReportErrorCode.AnalyticsBudget)) {
    return err.reason === 'rate_limited'
      ? 'The docs analytics API was rate limiting us'
      : 'The bot had used the docs analytics requests it may make this hour';
  }
  if (!isDocsApiError(err)) return 'Something went wrong on my side';
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
