import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { PlatformErrorCode } from '../errors.js';

/**
 * The budgets of the Slack reads membership answers cost ({@link ConversationDirectory}): per
 * person, so that one person asking about conversation after conversation cannot spend what
 * everyone else's answers need, and in all, so that the bot stays well inside Slack's rate limits
 * (users.conversations and conversations.info are Tier 3: 50+ calls a minute each).
 */

/** Slack reads (pages of users.conversations, conversations.info calls) asked for one person per minute. */
const MEMBERSHIP_READS_PER_PERSON_PER_MINUTE = 5;
/** Slack reads for membership per minute in all, whoever asks (Slack: Tier 3, 50+ per minute and method). */
const MEMBERSHIP_READS_PER_MINUTE = 40;

/** Why membership is unknown: Slack can't be asked now (budgets, rate limits), or the person's list is too long to read. */
export type MembersUnknownReason = 'busy' | 'too_large';

/**
 * Thrown when membership can't be told: `busy` (a read budget is spent, or Slack rate limited the
 * reads: ask again in a minute) or `too_large` (the person is in more conversations than the bot
 * reads through, and this one was not among those read). Unknown, not "no".
 */
export class MembersUnknownError extends Error {
  readonly code = PlatformErrorCode.MembersUnknown;
  constructor(
    readonly channel: string,
    readonly reason: MembersUnknownReason = 'busy',
  ) {
    super(
      reason === 'busy'
        ? 'membership cannot be checked just now'
        : 'the person is in too many conversations to check this one',
    );
    this.name = 'MembersUnknownError';
  }
}

/**
 * Budgets of membership reads (rate-limiter-flexible limiters; one point per Slack call): per
 * person (key: the user id) and in all (key `all`).
 */
export interface MembershipReadLimits {
  perPerson: RateLimiterAbstract;
  all: RateLimiterAbstract;
}

/** Points and window (s) of each {@link MembershipReadLimits} limiter. */
export const MEMBERSHIP_READ_LIMITS = {
  perPerson: { points: MEMBERSHIP_READS_PER_PERSON_PER_MINUTE, duration: 60 },
  all: { points: MEMBERSHIP_READS_PER_MINUTE, duration: 60 },
} as const;

/** The default {@link MembershipReadLimits}, in process (main.ts shares them in Redis, with these as insurance). */
export function memoryReadLimits(): MembershipReadLimits {
  return {
    perPerson: new RateLimiterMemory(MEMBERSHIP_READ_LIMITS.perPerson),
    all: new RateLimiterMemory(MEMBERSHIP_READ_LIMITS.all),
  };
}

/**
 * {@link MembershipReadLimits} shared by the replicas in Redis (keys `<prefix>:membership-reads:*`);
 * while Redis fails, in-process limiters of the same size stand in (rate-limiter-flexible's
 * insuranceLimiter).
 */
export function redisReadLimits(redis: Redis, prefix: string): MembershipReadLimits {
  const limiter = (name: keyof typeof MEMBERSHIP_READ_LIMITS) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:membership-reads:${name}`,
      ...MEMBERSHIP_READ_LIMITS[name],
      insuranceLimiter: new RateLimiterMemory(MEMBERSHIP_READ_LIMITS[name]),
    });
  return { perPerson: limiter('perPerson'), all: limiter('all') };
}

/**
 * Takes one read from `user`'s budget (when a person is asking) and from the overall one.
 * @throws {MembersUnknownError} `busy` when either is spent (the person's point is given back when
 *   only the overall budget refused); the limiters' store errors.
 */
export async function takeRead(limits: MembershipReadLimits, channel: string, user: string | undefined): Promise<void> {
  const busy = (err: unknown) => (err instanceof RateLimiterRes ? new MembersUnknownError(channel, 'busy') : err);
  if (user !== undefined) await limits.perPerson.consume(user, 1).catch((err: unknown) => Promise.reject(busy(err)));
  try {
    await limits.all.consume('all', 1);
  } catch (err) {
    if (user !== undefined) await limits.perPerson.reward(user, 1);
    throw busy(err);
  }
}
