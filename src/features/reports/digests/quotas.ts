import type { Redis } from 'ioredis';
import type { Logger } from '../../../platform/logger.js';
import { Quota } from '../../../platform/quota.js';
import { nextSlotText } from '../../../platform/slack/dates.js';

/**
 * What the digests' requests may spend, shared by every replica through Redis: digests sent on
 * request (`/docs-visitors digest` and Retry on a failed digest, one slot per channel per hour) and
 * `/docs-visitors subscriptions` (one list per person per minute).
 */

/** Digests on request per channel per hour (`/docs-visitors digest`, Retry on a failed digest). */
const MANUAL_DIGESTS_PER_CHANNEL_PER_HOUR = 1;
/** One `/docs-visitors subscriptions` per person per this many seconds. */
export const SUBSCRIPTIONS_COOLDOWN_S = 60;

/** The quotas of the digests' requests. */
export interface DigestQuotas {
  /** Keyed {@link manualDigestSlot}: {@link MANUAL_DIGESTS_PER_CHANNEL_PER_HOUR}. */
  manualDigest: Pick<Quota, 'take' | 'give'>;
  /** Keyed by user id: one list per {@link SUBSCRIPTIONS_COOLDOWN_S}. */
  subscriptions: Pick<Quota, 'take'>;
}

/** Builds the digests' quotas (keys under `${QUEUE_PREFIX}:digests:quota:`). */
export function createDigestQuotas(redis: Redis, prefix: string): DigestQuotas {
  return {
    manualDigest: new Quota(redis, {
      keyPrefix: `${prefix}:digests:quota:manual`,
      points: MANUAL_DIGESTS_PER_CHANNEL_PER_HOUR,
      durationS: 3600,
    }),
    subscriptions: new Quota(redis, {
      keyPrefix: `${prefix}:digests:quota:subscriptions`,
      points: 1,
      durationS: SUBSCRIPTIONS_COOLDOWN_S,
    }),
  };
}

/** The manual-digest quota's key of a channel. */
export function manualDigestSlot(teamId: string, channel: string): string {
  return `${teamId}:${channel}`;
}

/** The answer to a digest on request past the channel's slot (the next free slot follows). */
export const MANUAL_DIGEST_USED =
  "This channel's digest was already sent on request in the last hour (one `/docs-visitors digest` or Retry " +
  'per channel per hour; the weekly schedule is not affected).';

/** The end of an answer when the bot's storage failed. */
export const STORAGE_DOWN = "(the bot's storage did not answer); try again in a moment.";

/**
 * Takes one use of `quota` for `key`; when it is used up, tells the person through `tell` (an
 * ephemeral text, with the next free slot) and returns false. A quota that cannot be read refuses
 * too (fail closed).
 */
export async function takeOrTell(
  deps: { logger: Logger; now: () => number },
  tell: (text: string) => Promise<void>,
  quota: Pick<Quota, 'take'>,
  key: string,
  refusal: string,
): Promise<boolean> {
  let taken: Awaited<ReturnType<Quota['take']>>;
  try {
    taken = await quota.take(key);
  } catch (err) {
    deps.logger.warn({ err }, 'could not read a digest quota; refused');
    await tell(`I couldn't check how often this was asked ${STORAGE_DOWN}`);
    return false;
  }
  if (taken.ok) return true;
  await tell(`${refusal} ${nextSlotText(deps.now(), taken.msBeforeNext, undefined)}`);
  return false;
}
