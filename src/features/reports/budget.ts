import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Quota } from '../../platform/quota.js';
import { defineScript, type RedisScript } from '../../platform/scripts.js';

/**
 * This bot's share of the analytics rate limit, counted in Redis so every replica sees one count.
 *
 * Vendor fact (pages; test/fixtures/mintlify/SOURCE.md): analytics allows 100 requests per
 * organization per hour, shared by all analytics endpoints. We count our own calls over a sliding
 * 60-minute window (a sorted set of call times) and stop before the limit, keeping headroom for
 * scheduled digests and for other tools of the organization, so people read "budget nearly spent"
 * instead of meeting a 429. After a 429 every caller backs off for a while without sending.
 * Channels mapped to different docs projects (channel settings) share this one budget, because the
 * vendor's limit is per organization, not per project.
 *
 * Each person has a share of it (ANALYTICS_CALLS_PER_USER_PER_HOUR, default 20): interactive
 * requests that reach the API (cache misses) count against the share of the person who asked or
 * clicked, so one person's many distinct ranges cannot spend the organization's hour.
 */

/** ANALYTICS_CALLS_PER_USER_PER_HOUR's default. */
const ANALYTICS_USER_SHARE_DEFAULT = 20;

/** Vendor: analytics requests per organization per hour. */
export const ANALYTICS_HOURLY_LIMIT = 100;
/** Length of the counting window, in ms (one hour). */
export const ANALYTICS_WINDOW_MS = 3_600_000;
/** Reports and paging stop here (15 requests stay free: 10 for digests, 5 for other tools). */
export const INTERACTIVE_CEILING = 85;
/** Digests stop here (5 requests stay free for other tools of the organization). */
export const DIGEST_CEILING = 95;
/** From this many requests in the window, reports mention the budget. */
export const BUDGET_NOTE_FROM = 60;
/** Back-off after a 429 without `Retry-After` (the vendor documents none), in ms. */
export const RATE_LIMITED_BACKOFF_MS = 60_000;

/** Who is spending: interactive reports, or scheduled/test digests (which may use the reserve). */
export type BudgetPurpose = 'interactive' | 'digest';

// KEYS[1] = sorted set of call times; ARGV = now (ms), window (ms), ceiling, member, count.
// Drops entries older than the window; if count more fit under the ceiling, adds them and returns
// {1, used}; else returns {0, used, ms until enough entries leave the window}.
const RESERVE_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local ceiling = tonumber(ARGV[3])
local count = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
if used + count > ceiling then
  local idx = used + count - ceiling - 1
  local entry = redis.call('ZRANGE', KEYS[1], idx, idx, 'WITHSCORES')
  local wait = window
  if entry[2] then wait = tonumber(entry[2]) + window - now end
  return {0, used, wait}
end
for i = 1, count do
  redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. i)
end
redis.call('PEXPIRE', KEYS[1], window)
return {1, used + count, 0}
`;

/** Redis-backed sliding-window budget of analytics calls; see the module notes. */
export class AnalyticsBudget {
  private readonly callsKey: string;
  private readonly blockedKey: string;
  private readonly share: Quota;
  private readonly reserveScript: RedisScript;

  /**
   * @param redis - the shared state connection.
   * @param keyPrefix - `${QUEUE_PREFIX}:visitors`; keys `…:budget:calls` and `…:budget:blocked`.
   * @param now - clock, epoch ms.
   * @param perUser - ANALYTICS_CALLS_PER_USER_PER_HOUR: interactive API requests per person per hour
   *   (keys `…:budget:user:<user id>`).
   */
  constructor(
    private readonly redis: Redis,
    keyPrefix: string,
    private readonly now: () => number,
    perUser = ANALYTICS_USER_SHARE_DEFAULT,
  ) {
    this.callsKey = `${keyPrefix}:budget:calls`;
    this.blockedKey = `${keyPrefix}:budget:blocked`;
    this.reserveScript = defineScript(redis, 'AnalyticsReserve', 1, RESERVE_SCRIPT);
    this.share = new Quota(redis, {
      keyPrefix: `${keyPrefix}:budget:user`,
      points: perUser,
      durationS: ANALYTICS_WINDOW_MS / 1000,
    });
  }

  /** ANALYTICS_CALLS_PER_USER_PER_HOUR. */
  get perUser(): number {
    return this.share.opts.points;
  }

  /**
   * Takes `count` (default 1) requests from the budget before calling the API, and one from
   * `user`'s hourly share when a person asked (interactive reports; given back when the shared
   * budget refuses).
   * @returns the number of requests in the window, including these.
   * @throws {AnalyticsBudgetError} `rate_limited` while a 429 back-off runs; `user_share` when
   *   `user` has used their hourly share; `budget` when the purpose's ceiling
   *   ({@link INTERACTIVE_CEILING} or {@link DIGEST_CEILING}) would be passed.
   * @throws Redis errors.
   */
  async reserve(purpose: BudgetPurpose, count = 1, user?: string): Promise<number> {
    const blockedFor = await this.redis.pttl(this.blockedKey);
    if (blockedFor > 0)
      throw new AnalyticsBudgetError('rate_limited', await this.used(), ANALYTICS_HOURLY_LIMIT, blockedFor);
    if (user === undefined) return this.reserveShared(purpose, count);
    const mine = await this.share.take(user);
    if (!mine.ok) throw new AnalyticsBudgetError('user_share', await this.used(), this.perUser, mine.msBeforeNext);
    try {
      return await this.reserveShared(purpose, count);
    } catch (err) {
      await this.share.give(user);
      throw err;
    }
  }

  private async reserveShared(purpose: BudgetPurpose, count: number): Promise<number> {
    const ceiling = purpose === 'digest' ? DIGEST_CEILING : INTERACTIVE_CEILING;
    const member = `${this.now()}-${randomBytes(4).toString('hex')}`;
    const [ok, used, wait] = (await this.reserveScript.run(
      [this.callsKey],
      [String(this.now()), String(ANALYTICS_WINDOW_MS), String(ceiling), member, String(count)],
    )) as [number, number, number];
    if (ok !== 1) throw new AnalyticsBudgetError('budget', used, ANALYTICS_HOURLY_LIMIT, Math.max(1_000, wait));
    return used;
  }

  /** Counts `count` requests already sent (e.g. the client's retries of a 5xx), ignoring ceilings. */
  async record(count: number): Promise<void> {
    if (count <= 0) return;
    const now = this.now();
    const tag = randomBytes(4).toString('hex');
    const args: (string | number)[] = [];
    for (let i = 0; i < count; i++) args.push(now, `${now}-${tag}:x${i}`);
    await this.redis
      .multi()
      .zadd(this.callsKey, ...args)
      .pexpire(this.callsKey, ANALYTICS_WINDOW_MS)
      .exec();
  }

  /** Requests counted in the last hour. */
  async used(): Promise<number> {
    const now = this.now();
    return this.redis.zcount(this.callsKey, now - ANALYTICS_WINDOW_MS + 1, '+inf');
  }

  /** After a 429: nobody calls the analytics API for `ms` milliseconds (any replica). */
  async blockFor(ms: number): Promise<void> {
    await this.redis.set(this.blockedKey, '1', 'PX', Math.max(1, Math.round(ms)));
  }
}

/** The codes of the reports feature's errors (decided on with `hasCode`, platform/errors.ts). */
export const ReportErrorCode = {
  /** No analytics request was sent: the budget, the person's share, or a recent 429 ({@link AnalyticsBudgetError}). */
  AnalyticsBudget: 'analytics_budget',
  /** Another caller's fetch of the same query took longer than the wait ({@link VisitorsFetchWaitTimeoutError}). */
  FetchWaitTimeout: 'visitors_fetch_wait_timeout',
} as const;

/**
 * Thrown instead of calling the analytics API when this bot's hourly budget is (nearly) spent, the
 * person has used their hourly share, or while the API is known to be rate limiting us after a
 * 429. No request was sent.
 */
export class AnalyticsBudgetError extends Error {
  readonly code = ReportErrorCode.AnalyticsBudget;
  /**
   * @param reason - `budget`: our own count reached its ceiling; `user_share`: the person's hourly
   *   share is used up; `rate_limited`: a recent 429.
   * @param used - analytics requests this bot made in the last hour.
   * @param limit - the hourly limit that applies: the vendor's (100 per organization), or the
   *   person's share (ANALYTICS_CALLS_PER_USER_PER_HOUR) for `user_share`.
   * @param retryInMs - ms until a request may be made again.
   */
  constructor(
    readonly reason: 'budget' | 'user_share' | 'rate_limited',
    readonly used: number,
    readonly limit: number,
    readonly retryInMs: number,
  ) {
    super(
      reason === 'budget'
        ? `analytics budget spent: ${used} of ${limit} requests in the last hour`
        : reason === 'user_share'
          ? `this person's analytics share is used up (${limit} requests per hour)`
          : 'analytics API is rate limiting us',
    );
    this.name = 'AnalyticsBudgetError';
  }
}

/**
 * A local wait ran out: another caller (this replica or another) held the single-flight lock of the
 * same visitors query for longer than the caller would wait, and no answer appeared in the cache.
 * Nothing was sent to the docs API by this caller, and nothing says the docs service is down: the
 * other caller's fetch may still succeed. Trying again in a moment is the right move.
 */
export class VisitorsFetchWaitTimeoutError extends Error {
  readonly code = ReportErrorCode.FetchWaitTimeout;
  /**
   * @param waitedMs - how long the caller waited for the other fetch, in ms.
   */
  constructor(readonly waitedMs: number) {
    super(`timed out after ${waitedMs} ms waiting for another caller to fetch the same visitors query`);
    this.name = 'VisitorsFetchWaitTimeoutError';
  }
}
