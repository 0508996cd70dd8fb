import { ErrorCode, type WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../logger.js';
import type { UserNameLookup } from './markup.js';

/**
 * Most users.info calls one request makes (a budget per request, not per message, so what one request
 * costs Slack is bounded whatever its messages hold: a thread of 200 messages mentioning 25 people
 * each costs at most this many). Names already cached cost nothing; a person not looked up stays as
 * their id.
 */
export const NAME_LOOKUPS_PER_REQUEST = 100;

/** Options of {@link UserNames}. */
interface UserNamesOptions {
  logger: Logger;
  /** How long a name is kept, in ms. @defaultValue 1 hour */
  ttlMs?: number;
  /** How long a failed lookup (unknown user, Slack error) is kept, in ms, so a flood of one id costs one call. @defaultValue 60 s */
  failureTtlMs?: number;
  /** Most names kept (all teams together). @defaultValue 5,000 */
  max?: number;
  /** Clock for the cache's expiry and the 429 pause (lru-cache's `perf`), in ms. @defaultValue `performance` */
  perf?: { now(): number };
}

/** A cached answer: the name, or none (unknown, or the lookup failed). */
interface NameEntry {
  name: string | undefined;
}

/**
 * People's display names for message text, from `users.info` (scope users:read), shared by
 * every feature of one process:
 * - cached in an lru-cache keyed by team and user: names for {@link UserNamesOptions.ttlMs},
 *   failures (unknown user, a Slack error) briefly ({@link UserNamesOptions.failureTtlMs});
 * - concurrent lookups of one person share one call (lru-cache `fetch`);
 * - each request's lookup asks Slack about at most {@link NAME_LOOKUPS_PER_REQUEST} people (and
 *   `markupToText` asks it about at most `MAX_NAME_LOOKUPS` per text: both bounds hold);
 * - made on a Web API client of their own that rejects a 429 at once (`rejectRateLimitedCalls`):
 *   Slack's rate limit on users.info (Tier 4, per app and workspace) then never pauses the client
 *   that posts and edits messages; for the `Retry-After` it gives, every lookup answers "unknown"
 *   without calling Slack.
 * Prefers the display name, then the real name, then the handle (Slack: users.info → user.profile).
 */
export class UserNames {
  private readonly cache: LRUCache<string, NameEntry>;
  private readonly perf: { now(): number };
  private pausedUntil = 0;

  /** @param client - a Web API client used for nothing else (e.g. `createWebClient({ …, rejectRateLimitedCalls: true })`). */
  constructor(
    private readonly client: { users: Pick<WebClient['users'], 'info'> },
    private readonly opts: UserNamesOptions,
  ) {
    this.perf = opts.perf ?? performance;
    const perf = opts.perf ? { perf: opts.perf, ttlResolution: 0 } : {};
    this.cache = new LRUCache<string, NameEntry>({
      max: opts.max ?? 5_000,
      ttl: opts.ttlMs ?? 3_600_000,
      ...perf,
      fetchMethod: (key, _stale, { options }) => this.fetchName(key, options),
    });
  }

  /**
   * The lookup for one request, for people as team `teamId` sees them (the team of the request the
   * text came from; omitted: the bot's own workspace). Use one per request: it asks Slack about at
   * most `budget` distinct people not in the cache, and answers undefined (unknown) for the others.
   * Never rejects.
   * @param budget - users.info calls this lookup may cause. @defaultValue {@link NAME_LOOKUPS_PER_REQUEST}
   */
  lookup(teamId?: string, budget = NAME_LOOKUPS_PER_REQUEST): UserNameLookup {
    const charged = new Set<string>();
    return async (userId) => {
      const key = `${teamId ?? ''}/${userId}`;
      const hit = this.cache.get(key);
      if (hit) return hit.name;
      if (this.perf.now() < this.pausedUntil) return undefined;
      if (!charged.has(key)) {
        if (charged.size >= budget) return undefined;
        charged.add(key);
      }
      return (await this.cache.fetch(key))?.name;
    };
  }

  private async fetchName(key: string, options: { ttl?: number }): Promise<NameEntry> {
    const user = key.slice(key.indexOf('/') + 1);
    try {
      const u = (await this.client.users.info({ user })).user;
      return { name: u?.profile?.display_name || u?.profile?.real_name || u?.name || undefined };
    } catch (err) {
      options.ttl = this.opts.failureTtlMs ?? 60_000;
      const code = (err as { code?: unknown }).code;
      if (code === ErrorCode.RateLimitedError) {
        const retryAfterS = Number((err as { retryAfter?: unknown }).retryAfter) || 60;
        this.pausedUntil = Math.max(this.pausedUntil, this.perf.now() + retryAfterS * 1000);
        this.opts.logger.warn({ retryAfterS }, 'Slack is rate limiting users.info; names are left as ids meanwhile');
      } else {
        this.opts.logger.debug({ err }, 'could not look up a name; the id stands in for it');
      }
      return { name: undefined };
    }
  }
}
