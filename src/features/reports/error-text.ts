import { DocsApiErrorCode, isDocsApiError, type DocsApiRateLimitedError } from '../../platform/docs-api/errors.js';
import { docsApiErrorText } from '../../platform/docs-api/error-text.js';
import { nextSlotText } from '../../platform/slack/dates.js';
import { formatDuration } from '../../platform/slack/duration.js';
import { hasCode } from '../../platform/errors.js';
import type { KnownBlock } from '@slack/types';
import { SLACK_LIMITS, truncate } from '../../platform/slack/limits.js';
import {
  ANALYTICS_HOURLY_LIMIT,
  RATE_LIMITED_BACKOFF_MS,
  ReportErrorCode,
  type AnalyticsBudgetError,
} from './budget.js';

/**
 * One sentence a person can act on for a failed analytics fetch (any report's, a digest's): the budget or the person's share
 * (nothing was sent; the share's answer ends with the next free slot, like the agent budget's), a
 * 429, a local wait for another caller's fetch, a 5xx, or any other docs API failure (via
 * docsApiErrorText). Never includes secrets.
 *
 * @param now - clock, epoch ms (for the next free slot).
 * @param tz - the person's IANA zone (the slot's fallback text); default UTC.
 */
export function analyticsErrorText(err: unknown, now: () => number = Date.now, tz?: string): string {
  const rateLimited = (waitMs: number) =>
    `The docs analytics API is rate limiting us (it allows ${ANALYTICS_HOURLY_LIMIT} requests per hour for the whole organization); try again in ${formatDuration(waitMs)}.`;
  if (hasCode<AnalyticsBudgetError>(err, ReportErrorCode.AnalyticsBudget)) {
    if (err.reason === 'rate_limited') return rateLimited(err.retryInMs);
    if (err.reason === 'user_share') {
      return (
        `You've used your hourly share of docs analytics requests (${err.limit} requests/hour; the organization's ${ANALYTICS_HOURLY_LIMIT} are shared by everyone). ` +
        `Reports opened in the last 10 minutes still work. ${nextSlotText(now(), err.retryInMs, tz)}`
      );
    }
    return (
      `This bot has used ${err.used} of the ${ANALYTICS_HOURLY_LIMIT} analytics requests the docs API allows per hour ` +
      `(shared by the whole organization), so I stopped before hitting the limit. Pages already opened in the last 10 minutes still work; ` +
      `new ones will in ${formatDuration(err.retryInMs)}.`
    );
  }
  if (hasCode<DocsApiRateLimitedError>(err, DocsApiErrorCode.RateLimited))
    return rateLimited(err.retryAfterMs ?? RATE_LIMITED_BACKOFF_MS);
  if (hasCode(err, ReportErrorCode.FetchWaitTimeout))
    return 'The same report is already being fetched and is taking a while; try again in a minute.';
  return docsApiErrorText(err);
}

/** True when trying the same request later may succeed (a Retry button makes sense). */
export function isRetryable(err: unknown): boolean {
  if (hasCode(err, ReportErrorCode.AnalyticsBudget)) return true;
  if (isDocsApiError(err)) return err.retryable;
  return true;
}

/**
 * The ephemeral answer to a report page that could not be loaded ("I couldn't load the `what`.
 * `text`"), with a Retry button when `retry` is given (its `action_id` and signed value: the whole
 * query, plus `messageTs` when a report message should be edited). Shared by every report.
 */
export function reportFailure(
  what: string,
  text: string,
  retry: { actionId: string; value: string } | undefined,
): { text: string; blocks: KnownBlock[] } {
  const body = truncate(`:warning: I couldn't load the ${what}. ${text}`, SLACK_LIMITS.sectionText);
  const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: body } }];
  if (retry) {
    const button = { type: 'plain_text' as const, text: 'Retry' };
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: button, action_id: retry.actionId, value: retry.value }],
    });
  }
  return { text: `I couldn't load the ${what}. ${text}`, blocks };
}
