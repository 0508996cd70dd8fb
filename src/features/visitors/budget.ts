import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

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
 */

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

  /**
   * @param redis - the shared state connection.
   * @param keyPrefix - `${QUEUE_PREFIX}:visitors`; keys `…:budget:calls` and `…:budget:blocked`.
   * @param now - clock, epoch ms.
   */
  constructor(
    private readonly redis: Redis,
    keyPrefix: string,
    private readonly now: () => number,
  ) {
    this.callsKey = `${keyPrefix}:budget:calls`;
    this.blockedKey = `${keyPrefix}:budget:blocked`;
  }

  /**
   * Takes `count` (default 1) requests from the budget before calling the API.
   * @returns the number of requests in the window, including these.
   * @throws {AnalyticsBudgetError} `rate_limited` while a 429 back-off runs; `budget` when the
   *   purpose's ceiling ({@link INTERACTIVE_CEILING} or {@link DIGEST_CEILING}) would be passed.
   */
  async reserve(purpose: BudgetPurpose, count = 1): Promise<number> {
    const blockedFor = await this.redis.pttl(this.blockedKey);
    if (blockedFor > 0) throw new AnalyticsBudgetError('rate_limited', await this.used(), ANALYTICS_HOURLY_LIMIT, blockedFor);
    const ceiling = purpose === 'digest' ? DIGEST_CEILING : INTERACTIVE_CEILING;
    const member = `${this.now()}-${randomBytes(4).toString('hex')}`;
    const [ok, used, wait] = (await this.redis.eval(
      RESERVE_SCRIPT,
      1,
      this.callsKey,
      String(this.now()),
      String(ANALYTICS_WINDOW_MS),
      String(ceiling),
      member,
      String(count),
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
    await this.redis.multi().zadd(this.callsKey, ...args).pexpire(this.callsKey, ANALYTICS_WINDOW_MS).exec();
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
