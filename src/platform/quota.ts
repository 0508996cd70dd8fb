import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** Outcome of {@link Quota.take}: taken, or refused with the ms until its next slot frees. */
type QuotaTake = { ok: true } | { ok: false; msBeforeNext: number };

/** What a {@link Quota} counts: `points` per `durationS` seconds per key. */
interface QuotaOptions {
  /** Redis key prefix, e.g. `${QUEUE_PREFIX}:visitors:share`. */
  keyPrefix: string;
  /** Uses per window (≥ 1). */
  points: number;
  /** Window length in seconds; the window opens at a key's first use (rate-limiter-flexible's fixed window). */
  durationS: number;
}

/**
 * A small shared quota (per person, per channel, …) counted in Redis by rate-limiter-flexible's
 * RateLimiterRedis, so every replica sees one count. A refused take costs nothing: its point is
 * given back at once.
 */
export class Quota {
  private readonly limiter: RateLimiterRedis;

  /** @param redis - the state connection (commands fail rather than queue while Redis is down). */
  constructor(
    redis: Redis,
    readonly opts: QuotaOptions,
  ) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: opts.keyPrefix,
      points: opts.points,
      duration: opts.durationS,
    });
  }

  /** Takes one use for `key`. @throws Redis errors. */
  async take(key: string): Promise<QuotaTake> {
    const res = await consumeOne(this.limiter, key);
    return res ? { ok: false, msBeforeNext: Math.max(1_000, res.msBeforeNext) } : { ok: true };
  }

  /** Gives one use back (it was taken but nothing was spent). @throws Redis errors. */
  async give(key: string): Promise<void> {
    await this.limiter.reward(key, 1);
  }

  /** Uses left in `key`'s current window. @throws Redis errors. */
  async remaining(key: string): Promise<number> {
    const res = await this.limiter.get(key);
    return Math.max(0, res?.remainingPoints ?? this.opts.points);
  }
}

/**
 * Consumes one point of `limiter` for `key`; returns the limiter's answer when over the limit
 * (giving the point back: a refused request costs nothing), nothing when taken. @throws store errors.
 */
export async function consumeOne(limiter: RateLimiterRedis, key: string): Promise<RateLimiterRes | undefined> {
  try {
    await limiter.consume(key, 1);
    return undefined;
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    await limiter.reward(key, 1);
    return err;
  }
}
