import { WebClient, type RetryOptions } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { toBoltLogger } from './bolt-logger.js';

/**
 * Retries of Web API calls: Slack's documented advice is to honour `Retry-After` on 429 and retry
 * a few times on 5xx and network errors (Slack docs: "Rate limits").
 */
export const webClientRetries: RetryOptions = { retries: 4, factor: 2, minTimeout: 500, maxTimeout: 5_000, randomize: true };

/** Options of {@link createWebClient}. */
export interface WebClientOptions {
  token: string;
  /** SLACK_API_URL. */
  slackApiUrl: string;
  logger: Logger;
  /**
   * Reject a 429 at once instead of waiting it out inside the client (for callers that wait out
   * `Retry-After` themselves and then send a newer state). @defaultValue false
   */
  rejectRateLimitedCalls?: boolean;
}

/** A Web API client with the bot token, our retry policy and our logger (JSON, redacted). */
export function createWebClient(opts: WebClientOptions): WebClient {
  return new WebClient(opts.token, {
    slackApiUrl: opts.slackApiUrl,
    logger: toBoltLogger(opts.logger),
    ...(opts.rejectRateLimitedCalls
      ? { rejectRateLimitedCalls: true, retryConfig: { retries: 2, minTimeout: 500, maxTimeout: 2_000 } }
      : { retryConfig: webClientRetries }),
  });
}
