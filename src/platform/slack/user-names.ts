import type { WebClient } from '@slack/web-api';
import type { UserNameLookup } from './markup.js';

const TTL_MS = 60 * 60 * 1000;
const MAX = 2_000;
const cache = new Map<string, { name: string | undefined; at: number }>();

/**
 * A {@link UserNameLookup} over `users.info` (scope users:read), cached in-process for an hour.
 * Prefers the display name, then the real name, then the handle (Slack: users.info → user.profile).
 */
export function userNameLookup(client: { users: Pick<WebClient['users'], 'info'> }, now: () => number = Date.now): UserNameLookup {
  return async (userId) => {
    const hit = cache.get(userId);
    if (hit && now() - hit.at < TTL_MS) return hit.name;
    const res = await client.users.info({ user: userId });
    const u = res.user;
    const name = u?.profile?.display_name || u?.profile?.real_name || u?.name || undefined;
    if (cache.size >= MAX) cache.delete(cache.keys().next().value as string);
    cache.set(userId, { name, at: now() });
    return name;
  };
}
