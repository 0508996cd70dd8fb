import { WebClient, type RetryOptions, type WebAPICallResult } from '@slack/web-api';
import type { Logger } from '../logger.js';
import { toBoltLogger } from './bolt-logger.js';
import { classifySlackError, slackErrorCode, type SlackErrorInfo } from './errors.js';
import { STOPPING_TOKEN_CODES, type BotCredentials } from './installation-tokens.js';
import { withRequestTeam } from './org-wide.js';

/**
 * Retries of Web API calls: Slack's documented advice is to honour `Retry-After` on 429 and retry
 * a few times on 5xx and network errors (Slack docs: "Rate limits").
 */
export const webClientRetries: RetryOptions = {
  retries: 4,
  factor: 2,
  minTimeout: 500,
  maxTimeout: 5_000,
  randomize: true,
};

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
  /** Told about every failed call, after the client's own retries (metrics). */
  onError?: (info: SlackErrorInfo & { method: string }) => void;
  /**
   * The token is org-level (`auth.test` `is_enterprise_install`): the methods Slack lists as
   * needing `team_id` get the request's workspace (org-wide.ts). @defaultValue false
   */
  enterpriseInstall?: boolean;
  /**
   * OAuth mode: each call's token (and whether it is org-level) comes from here, the installation
   * of the current request or work (installation-tokens.ts); `token` is then unused. A failure to
   * find it is thrown as the store's error (classifySlackError: `permanent`) and reported to `onError`.
   */
  credentials?: () => Promise<BotCredentials>;
  /**
   * Told when Slack refuses a call's token (its error code and the credentials it was made with),
   * after the call failed: OAuth mode's InstallationTokens.refused, single-token mode's
   * {@link singleTokenRefusals} (a call given its own `token` is not reported). Awaited; must not throw.
   */
  onRefusedToken?: (creds: BotCredentials, slackError: string) => Promise<void>;
}

/**
 * A WebClient that names the method on every error it throws (`slackMethod`), so a log line or a
 * metric can say which call failed, and reports each failure to `onError`. With an org-level
 * token it gives the methods that need it the request's `team_id`.
 */
class ObservedWebClient extends WebClient {
  constructor(
    token: string,
    options: ConstructorParameters<typeof WebClient>[1],
    private readonly onError?: WebClientOptions['onError'],
    private readonly enterpriseInstall = false,
    private readonly credentials?: WebClientOptions['credentials'],
    private readonly onRefusedToken?: WebClientOptions['onRefusedToken'],
  ) {
    super(token, options);
  }

  override async apiCall(method: string, options?: Record<string, unknown>): Promise<WebAPICallResult> {
    try {
      if (!this.credentials || options?.token !== undefined) {
        const own = { token: this.token ?? '', enterpriseInstall: this.enterpriseInstall };
        const report = !this.credentials && options?.token === undefined ? this.onRefusedToken : undefined;
        return await super
          .apiCall(method, this.enterpriseInstall ? withRequestTeam(method, options) : options)
          .catch(async (err: unknown) => {
            const code = slackErrorCode(err);
            if (code && report) await report(own, code);
            throw err;
          });
      }
      const creds = await this.credentials();
      const withToken = { ...options, token: creds.token };
      return await super
        .apiCall(method, creds.enterpriseInstall ? withRequestTeam(method, withToken) : withToken)
        .catch(async (err: unknown) => {
          const code = slackErrorCode(err);
          if (code && this.onRefusedToken) await this.onRefusedToken(creds, code);
          throw err;
        });
    } catch (err) {
      if (typeof err === 'object' && err !== null) Object.assign(err, { slackMethod: method });
      this.onError?.({ ...classifySlackError(err), method });
      throw err;
    }
  }
}

/** A Web API client with the bot token, our retry policy and our logger (JSON, redacted). */
export function createWebClient(opts: WebClientOptions): WebClient {
  return new ObservedWebClient(
    opts.token,
    {
      slackApiUrl: opts.slackApiUrl,
      logger: toBoltLogger(opts.logger),
      ...(opts.rejectRateLimitedCalls
        ? { rejectRateLimitedCalls: true, retryConfig: { retries: 2, minTimeout: 500, maxTimeout: 2_000 } }
        : { retryConfig: webClientRetries }),
    },
    opts.onError,
    opts.enterpriseInstall,
    opts.credentials,
    opts.onRefusedToken,
  );
}

/**
 * Single-token mode's {@link WebClientOptions.onRefusedToken}: the first call Slack answers
 * `token_revoked`, `account_inactive` or `invalid_auth` (STOPPING_TOKEN_CODES) writes one error
 * line (the operator must reinstall the app or set SLACK_BOT_TOKEN again); nothing is deleted and
 * later calls go on failing as permanent Slack errors, unlogged here.
 */
export function singleTokenRefusals(logger: Logger): (creds: BotCredentials, slackError: string) => Promise<void> {
  let told = false;
  return async (_creds, slackError) => {
    if (told || !STOPPING_TOKEN_CODES.has(slackError)) return;
    told = true;
    logger.error(
      { slackError },
      'Slack refused SLACK_BOT_TOKEN: the app was uninstalled or its token revoked (or, for invalid_auth, check SLACK_API_URL and IP allowlists); reinstall the app and set SLACK_BOT_TOKEN to its new bot token',
    );
  };
}
