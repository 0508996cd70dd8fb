import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import type { Logger } from '../../platform/logger.js';
import { canonicalTimeZone } from '../../platform/calendar.js';

/** How long a person's time zone is remembered, in seconds (a day). */
const USER_TZ_TTL_S = 86_400;

/**
 * A person's IANA time zone for date shortcuts: Slack users.info `user.tz` (scope `users:read`),
 * cached in Redis for a day under `${keyPrefix}:tz:${userId}`. Falls back to `UTC` when Slack has
 * none or the call fails (logged, never thrown).
 *
 * @param keyPrefix - `${QUEUE_PREFIX}:visitors`.
 */
export async function userTimeZone(
  client: { users: Pick<WebClient['users'], 'info'> },
  redis: Redis,
  keyPrefix: string,
  userId: string,
  logger: Logger,
): Promise<string> {
  const key = `${keyPrefix}:tz:${userId}`;
  try {
    const cached = await redis.get(key);
    if (cached) return cached;
  } catch {
    // Redis hiccup: ask Slack
  }
  try {
    const res = await client.users.info({ user: userId });
    const zone = typeof res.user?.tz === 'string' ? canonicalTimeZone(res.user.tz) : undefined;
    const tz = zone ?? 'UTC';
    // Not cached this time: the next report asks Slack again (the zone itself is known).
    await redis.set(key, tz, 'EX', USER_TZ_TTL_S).catch(() => undefined);
    return tz;
  } catch (err) {
    logger.warn({ user: userId, err }, 'users.info failed; using UTC');
    return 'UTC';
  }
}
