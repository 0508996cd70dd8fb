import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { UserFacts } from './policy.js';

/** The Slack methods the directory reads (scopes: users:read, usergroups:read). */
export interface DirectorySlack {
  users: Pick<WebClient['users'], 'info'>;
  usergroups: { users: Pick<WebClient['usergroups']['users'], 'list'> };
  auth: Pick<WebClient['auth'], 'test'>;
}

/** Cache lifetimes, in ms. */
export interface DirectoryOptions {
  /** users.info answers: ≤ 10 minutes (issue #10). Default 10 min. */
  userTtlMs?: number;
  /** usergroups.users.list answers: ≤ 5 minutes. Default 5 min. */
  groupTtlMs?: number;
  /** Clock for the caches' expiry (lru-cache's `perf`), in ms; default `performance`. */
  perf?: { now(): number };
}

/**
 * Who people are, from Slack, cached per process (lru-cache, TTL): `users.info` for roles, team
 * and time zone; `usergroups.users.list` for group membership; `auth.test` for the bot's own
 * team. Concurrent lookups of one key share one call. Failures are not cached.
 */
export class SlackDirectory {
  private readonly users: LRUCache<string, UserFacts>;
  private readonly groups: LRUCache<string, ReadonlySet<string>>;
  private homeTeam: Promise<string> | undefined;

  constructor(
    private readonly slack: DirectorySlack,
    opts: DirectoryOptions = {},
  ) {
    // ttlResolution 0: read the clock on every check (lru-cache otherwise caches it for 1 ms on a timer).
    const perf = opts.perf ? { perf: opts.perf, ttlResolution: 0 } : {};
    this.users = new LRUCache<string, UserFacts>({ max: 20_000, ttl: opts.userTtlMs ?? 600_000, ...perf, fetchMethod: (user) => this.fetchUser(user) });
    this.groups = new LRUCache<string, ReadonlySet<string>>({ max: 200, ttl: opts.groupTtlMs ?? 300_000, ...perf, fetchMethod: (group) => this.fetchGroup(group) });
  }

  /** The person's facts. @throws when Slack fails (e.g. `user_not_found`, a network error). */
  async user(user: string): Promise<UserFacts> {
    const facts = await this.users.fetch(user);
    if (!facts) throw new Error('users.info returned nothing');
    return facts;
  }

  /** Whether `user` is in any of `groups`. @throws when Slack fails. */
  async inAnyGroup(user: string, groups: readonly string[]): Promise<boolean> {
    for (const g of groups) {
      const members = await this.groups.fetch(g);
      if (members?.has(user)) return true;
    }
    return false;
  }

  /** The bot's own team id (`auth.test`), fetched once. @throws when Slack fails (and asks again next time). */
  homeTeamId(): Promise<string> {
    this.homeTeam ??= this.slack.auth.test().then((r) => {
      if (!r.team_id) throw new Error('auth.test returned no team_id');
      return r.team_id;
    });
    this.homeTeam.catch(() => (this.homeTeam = undefined));
    return this.homeTeam;
  }

  private async fetchUser(user: string): Promise<UserFacts> {
    const res = await this.slack.users.info({ user });
    const u = res.user;
    if (!u) throw new Error('users.info returned no user');
    return {
      id: user,
      ...(u.team_id ? { teamId: u.team_id } : {}),
      isBot: Boolean(u.is_bot) && u.id !== 'USLACKBOT',
      deleted: Boolean(u.deleted),
      isGuest: Boolean(u.is_restricted || u.is_ultra_restricted),
      isStranger: Boolean(u.is_stranger),
      isWorkspaceAdmin: Boolean(u.is_admin || u.is_owner || u.is_primary_owner),
      ...(u.tz ? { tz: u.tz } : {}),
    };
  }

  private async fetchGroup(group: string): Promise<ReadonlySet<string>> {
    const res = await this.slack.usergroups.users.list({ usergroup: group });
    return new Set(res.users ?? []);
  }
}
