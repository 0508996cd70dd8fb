import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** Outcome of asking the budget for one chat.update: go ahead, or wait `retryMs` (ms). */
type BudgetGrant = { ok: true } | { ok: false; retryMs: number };

/** Options of {@link EditBudget}. */
interface EditBudgetOptions {
  /** The state connection; each window's budget lives under `{prefix}:slack-update-budget:{teamId}:{window}`. */
  redis: Redis;
  /** QUEUE_PREFIX. */
  prefix: string;
  /** SLACK_UPDATE_BUDGET_PER_MINUTE: chat.update calls per workspace per minute, across every replica. */
  perMinute: number;
  /**
   * Length of the limiter's fixed window, in s (an integer: Redis EX). The minute's budget is
   * spread over 60 / windowS windows, so no sliding minute sees more than one window's worth above
   * the budget, while a window's worth may go at once (40/min in 15-s windows of 10: ten jobs
   * started together all show "Working", and no minute sees more than 50; Slack's Tier 3 allows ~50).
   * @defaultValue 15
   */
  windowS?: number;
  /** Clock in epoch ms: windows are the `windowS`-long spans of it since the epoch. @defaultValue Date.now */
  now?: () => number;
}

/**
 * The shared budget of status edits of a workspace (Slack: chat.update is Tier 3, about 50 per
 * minute per workspace; https://docs.slack.dev/apis/web-api/rate-limits). A rate-limiter-flexible
 * RateLimiterRedis counting per team id and fixed window of the clock (the window's number is in
 * the key; Redis expires it), so every replica draws from one budget.
 */
export class EditBudget {
  private readonly limiter: RateLimiterRedis;
  private readonly now: () => number;
  /** Edits allowed per window. */
  readonly points: number;
  /** The window, in s. */
  readonly windowS: number;

  constructor(opts: EditBudgetOptions) {
    this.now = opts.now ?? Date.now;
    this.windowS = opts.windowS ?? 15;
    this.points = Math.max(1, Math.floor((opts.perMinute * this.windowS) / 60));
    this.limiter = new RateLimiterRedis({
      storeClient: opts.redis,
      keyPrefix: `${opts.prefix}:slack-update-budget`,
      points: this.points,
      // The window's number is in the key, so the key's Redis expiry only has to outlive the window:
      // kept a minute past it, a replica whose clock lags (or a slow caller) still counts against
      // the same window instead of finding it expired and fresh.
      duration: 2 * this.windowS + 60,
    });
  }

  /**
   * Takes one edit from the workspace's budget.
   * @returns `{ ok: true }`, or `{ ok: false, retryMs }` when the window is spent: the ms until the next
   *   window (≥ 1).
   * @throws when Redis fails (the caller decides whether to edit anyway).
   */
  async take(teamId: string): Promise<BudgetGrant> {
    const windowMs = this.windowS * 1000;
    const now = this.now();
    const window = Math.floor(now / windowMs);
    try {
      await this.limiter.consume(`${teamId || 'unknown-team'}:${window}`, 1);
      return { ok: true };
    } catch (res) {
      if (res instanceof RateLimiterRes) return { ok: false, retryMs: Math.max(1, (window + 1) * windowMs - now) };
      throw res;
    }
  }
}
