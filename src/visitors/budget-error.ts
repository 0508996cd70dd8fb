/**
 * Thrown instead of calling the analytics API when this bot's hourly budget is (nearly) spent, or
 * while the API is known to be rate limiting us after a 429. No request was sent.
 */
export class AnalyticsBudgetError extends Error {
  /**
   * @param reason - `budget`: our own count reached its ceiling; `rate_limited`: a recent 429.
   * @param used - analytics requests this bot made in the last hour.
   * @param limit - the vendor's hourly limit (100 per organization).
   * @param retryInMs - ms until a request may be made again.
   */
  constructor(
    readonly reason: 'budget' | 'rate_limited',
    readonly used: number,
    readonly limit: number,
    readonly retryInMs: number,
  ) {
    super(
      reason === 'budget'
        ? `analytics budget spent: ${used} of ${limit} requests in the last hour`
        : 'analytics API is rate limiting us',
    );
    this.name = 'AnalyticsBudgetError';
  }
}
