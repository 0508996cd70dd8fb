/**
 * The preview endpoint's limit, shared by every replica: 5 requests a minute per organization (the
 * vendor's page api/preview/trigger). Each request reserves a time slot in one Redis sorted set, in
 * the order they ask: the next slot is now, or one window after the fifth latest slot, so no window
 * of {@link SLOT_WINDOW_MS} ever holds more than the limit, and a burst goes out in order (the
 * first 5 at once, the next 5 a window later, …) instead of being refused by the API. A run that
 * sends its request first {@link PreviewSlots.spend spends} its slot (it then counts for good); a
 * run that ends or waits without sending {@link PreviewSlots.release releases} it, so a request
 * that never goes out (plan off, superseded, another run asking) holds no place in the window.
 *
 * Why not rate-limiter-flexible's RateLimiterRedis (used elsewhere, platform/quota.ts): its window
 * is fixed from the first use, so 5 at the end of one window and 5 at the start of the next make 10
 * within seconds, which a sliding limit at the vendor refuses; and it says "no" rather than giving a
 * place in line, so who goes next would be whoever polls first, not who asked first.
 */
import type { Redis } from 'ioredis';
import { defineScript, type RedisScript } from '../../../platform/scripts.js';

/** Preview requests per window (the vendor: 5 a minute per organization). */
export const SLOTS_PER_WINDOW = 5;
/** Added to the vendor's window: the time between a slot and its request reaching the vendor, in ms. */
export const SLOT_MARGIN_MS = 2_000;
/** The window, in ms: the vendor's minute plus {@link SLOT_MARGIN_MS}. */
export const SLOT_WINDOW_MS = 60_000 + SLOT_MARGIN_MS;

// KEYS[1] = the sorted set of slots (score: epoch ms); ARGV = now ('' = Redis TIME), window, limit,
// member, ttl (ms), margin (ms). Returns { slot, now } as strings (the clock the slot was decided on).
// A member that holds a slot already gets it again (a retry after a crash asks for no second one),
// unless it woke more than the margin after it: a request sent that late would not fit the window
// the slot was counted in, so it takes a new place in line.
const RESERVE = `
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window, limit, margin = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[6])
local have = redis.call('ZSCORE', KEYS[1], ARGV[4])
if have then
  if now - tonumber(have) <= margin then return { have, tostring(now) } end
  redis.call('ZREM', KEYS[1], ARGV[4])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
local at = now
if n >= limit then
  local fifth = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  at = math.max(now, tonumber(fifth[2]) + window)
end
redis.call('ZADD', KEYS[1], at, ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return { tostring(at), tostring(now) }
`;

// KEYS[1] = the sorted set of slots; ARGV = member, now ('' = Redis TIME), ttl (ms). The member's
// slot, reserved for a request about to go out, is kept under `<member>#sent` (same score): it
// counts in its window like any other, but neither `release` nor a late wake's re-reservation can
// remove it. A member whose reservation is gone (a second run of the same step gave it back in the
// instant between this run's claim and this call) is counted from now.
const SPEND = `
local at = redis.call('ZSCORE', KEYS[1], ARGV[1])
if at then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  at = tonumber(ARGV[2])
  if not at then
    local t = redis.call('TIME')
    at = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
end
redis.call('ZADD', KEYS[1], at, ARGV[1] .. '#sent')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** The organization's preview slots (one sorted set `{prefix}:preview-slots`: every project of the admin key is one organization). */
export class PreviewSlots {
  private readonly reserveScript: RedisScript;
  private readonly spendScript: RedisScript;
  private readonly key: string;

  /**
   * @param clock - epoch ms for fakes and tests in virtual time; absent (production): the slot is
   *   decided on Redis' own clock (`TIME` inside the script), so every replica shares one clock.
   */
  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly limit = SLOTS_PER_WINDOW,
    private readonly windowMs = SLOT_WINDOW_MS,
    private readonly clock?: () => number,
  ) {
    this.reserveScript = defineScript(redis, 'PreviewReserveSlot', 1, RESERVE);
    this.spendScript = defineScript(redis, 'PreviewSpendSlot', 1, SPEND);
    this.key = `${prefix}:preview-slots`;
  }

  /**
   * Reserves the next free slot for `member` (a request: `<jobId>:<cycle>:<try>`), or returns the
   * one it holds (a new one when it woke more than {@link SLOT_MARGIN_MS} after it).
   * @returns how long to wait for the slot, in ms (0: send now), on the clock the slot was decided on.
   * @throws Redis errors.
   */
  async reserve(member: string): Promise<number> {
    // The set's PEXPIRE, in ms: 1,000 windows (about 17 hours) after the latest reservation. Long
    // enough that no slot still ahead (a burst of even thousands is 5 per window) expires before it
    // comes; short enough that an idle organization's set goes away. Old slots are trimmed on each reserve.
    const ttl = this.windowMs * 1_000;
    const now = this.clock ? String(Math.round(this.clock())) : '';
    const args = [now, this.windowMs, this.limit, member, ttl, SLOT_MARGIN_MS];
    const [slot, at] = (await this.reserveScript.run([this.key], args)) as [string, string];
    return Math.max(0, Number(slot) - Number(at));
  }

  /**
   * Marks `member`'s slot as used by a request that is about to go out: from now on it counts in
   * its window for good ({@link release} and a late re-reservation leave it). Call it right before
   * the request. @throws Redis errors.
   */
  async spend(member: string): Promise<void> {
    const now = this.clock ? String(Math.round(this.clock())) : '';
    await this.spendScript.run([this.key], [member, now, this.windowMs * 1_000]);
  }

  /**
   * Gives back `member`'s slot when its request will not go out (the step ended or waits for
   * something else: plan off, superseded, another run holds the request, …), so the slot is free
   * for the next request instead of counting against the limit for a window. A slot already
   * {@link spend spent} is kept. @throws Redis errors.
   */
  async release(member: string): Promise<void> {
    await this.redis.zrem(this.key, member);
  }
}
