import type { WebClient } from '@slack/web-api';
import { currentInstallationSlot, requiredSlot } from '../../platform/request-context.js';
import { LRUCache } from 'lru-cache';
import type { HomeOrg, UserFacts } from './policy.js';

/** The Slack methods the directory reads (scopes: users:read, usergroups:read). */
export interface DirectorySlack {
  users: Pick<WebClient['users'], 'info'>;
  usergroups: { users: Pick<WebClient['usergroups']['users'], 'list'> };
  auth: Pick<WebClient['auth'], 'test'>;
}

/** Longest time a person's facts are reused, in ms (10 minutes): a longer `userTtlMs` is cut to it. */
export const USER_FACTS_MAX_TTL_MS = 600_000;

/**
 * When people's facts last changed (Slack's `user_change` event, recorded by whichever replica got
 * it): a cached answer fetched before that is not used.
 */
export interface UserChanges {
  /** Epoch ms of `user`'s last recorded change, or undefined. @throws Redis errors. */
  changedAt(user: string): Promise<number | undefined>;
}

/** Cache lifetimes, in ms. */
interface DirectoryOptions {
  /** users.info answers: ≤ {@link USER_FACTS_MAX_TTL_MS} (10 minutes). Default 10 min. */
  userTtlMs?: number;
  /** usergroups.users.list answers: ≤ 5 minutes. Default 5 min. */
  groupTtlMs?: number;
  /** Clock for the caches' expiry (lru-cache's `perf`), in ms; default `performance`. */
  perf?: { now(): number };
  /** Recorded `user_change` events (shared by replicas); without it only this process's own events count. */
  changes?: UserChanges;
  /** Wall clock, epoch ms (compared with {@link UserChanges.changedAt}); default `Date.now`. */
  now?: () => number;
  /**
   * OAuth mode: the bot's own team and people's facts are asked (and cached) per installation, the
   * current request's (each installation's token has its own `auth.test`, and `users.info` answers
   * for its own workspace: admin, guest, deactivated). Default false: once per process, by user id.
   */
  perInstallation?: boolean;
}

/**
 * The current request's installation (OAuth mode, `team:T…` / `enterprise:E…`): its org for an
 * org-wide install, else its workspace.
 * @throws NoInstallationError (`installation_missing`) when the request has none: nothing is asked
 *   or cached under a key every installation would share.
 */
function installationKey(): string {
  return requiredSlot(currentInstallationSlot, "people's Slack facts") as string;
}

/** The user id of a users cache key (`<installation>|<user>` in OAuth mode, else the id itself). */
function userOfKey(key: string): string {
  return key.slice(key.lastIndexOf('|') + 1);
}

/** A person's facts and when they were fetched (epoch ms). */
interface CachedFacts {
  facts: UserFacts;
  at: number;
}

/**
 * Who people are, from Slack, cached per process (lru-cache, TTL): `users.info` for roles, team,
 * Enterprise Grid organization (`enterprise_user.enterprise_id`) and time zone (≤ 10 minutes, and dropped when Slack's `user_change` says the person changed);
 * `usergroups.users.list` for group membership; `auth.test` for the bot's own team. Concurrent
 * lookups of one key share one call. Failures are not cached.
 */
export class SlackDirectory {
  private readonly users: LRUCache<string, CachedFacts>;
  private readonly changes: UserChanges | undefined;
  private readonly now: () => number;
  private readonly groups: LRUCache<string, ReadonlySet<string>>;
  private readonly homeOrgs = new Map<string, Promise<HomeOrg>>();
  private readonly perInstallation: boolean;

  constructor(
    private readonly slack: DirectorySlack,
    opts: DirectoryOptions = {},
  ) {
    // ttlResolution 0: read the clock on every check (lru-cache otherwise caches it for 1 ms on a timer).
    const perf = opts.perf ? { perf: opts.perf, ttlResolution: 0 } : {};
    this.changes = opts.changes;
    this.perInstallation = opts.perInstallation === true;
    this.now = opts.now ?? Date.now;
    const userTtl = Math.min(opts.userTtlMs ?? USER_FACTS_MAX_TTL_MS, USER_FACTS_MAX_TTL_MS);
    this.users = new LRUCache<string, CachedFacts>({
      max: 20_000,
      ttl: userTtl,
      ...perf,
      fetchMethod: async (key) => ({ at: this.now(), facts: await this.fetchUser(userOfKey(key)) }),
    });
    this.groups = new LRUCache<string, ReadonlySet<string>>({
      max: 200,
      ttl: opts.groupTtlMs ?? 300_000,
      ...perf,
      fetchMethod: (group) => this.fetchGroup(group),
    });
  }

  /**
   * The person's facts: cached, unless a `user_change` was recorded after they were fetched (or
   * whether one was cannot be read: then Slack is asked). @throws when Slack fails (e.g.
   * `user_not_found`, a network error); in OAuth mode NoInstallationError when the request has no
   * installation.
   */
  async user(user: string): Promise<UserFacts> {
    const key = this.userKey(user);
    let cached = await this.users.fetch(key);
    if (cached && this.changes && this.users.has(key)) {
      const changed = await this.changes.changedAt(user).catch(() => Number.POSITIVE_INFINITY);
      if (changed !== undefined && changed >= cached.at) {
        this.forget(user);
        cached = await this.users.fetch(key);
      }
    }
    if (!cached) throw new Error('users.info returned nothing');
    return cached.facts;
  }

  /**
   * Whether `user`'s facts are cached and fresh (no `users.info` call to tell them, barring a
   * recorded `user_change` that {@link user} then fetches again). Reads only this process's cache.
   * False in OAuth mode when the request has no installation.
   */
  knows(user: string): boolean {
    if (this.perInstallation && !currentInstallationSlot()) return false;
    return this.users.has(this.userKey(user));
  }

  /**
   * The cache key of `user`'s facts: OAuth mode keys them by the current installation too, since
   * `users.info` answers for the token's workspace (`is_admin`, guest, deactivated are per workspace).
   * @throws NoInstallationError in OAuth mode when the request has no installation.
   */
  private userKey(user: string): string {
    return this.perInstallation ? `${installationKey()}|${user}` : user;
  }

  /** Drops `user`'s cached facts, in every installation (their `user_change` arrived here): the next check asks Slack. */
  forget(user: string): void {
    if (!this.perInstallation) {
      this.users.delete(user);
      return;
    }
    for (const key of [...this.users.keys()]) if (userOfKey(key) === user) this.users.delete(key);
  }

  /** Whether `user` is in any of `groups`. @throws when Slack fails. */
  async inAnyGroup(user: string, groups: readonly string[]): Promise<boolean> {
    for (const g of groups) {
      const members = await this.groups.fetch(g);
      if (members?.has(user)) return true;
    }
    return false;
  }

  /**
   * The bot's own workspace and, on Enterprise Grid, organization (`auth.test` `team_id` and
   * `enterprise_id`; for an org-wide install both are the enterprise id), fetched once.
   * @throws when Slack fails (and asks again next time); in OAuth mode NoInstallationError when
   *   the request has no installation (rejects; nothing asked).
   */
  home(): Promise<HomeOrg> {
    let key = '';
    try {
      if (this.perInstallation) key = installationKey();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    let home = this.homeOrgs.get(key);
    if (home) return home;
    home = this.slack.auth.test().then((r) => {
      if (!r.team_id) throw new Error('auth.test returned no team_id');
      return { teamId: r.team_id, ...(r.enterprise_id ? { enterpriseId: r.enterprise_id } : {}) };
    });
    this.homeOrgs.set(key, home);
    home.catch(() => this.homeOrgs.delete(key));
    return home;
  }

  /** The bot's own team id (`auth.test` `team_id`), see {@link home}. @throws when Slack fails. */
  async homeTeamId(): Promise<string> {
    return (await this.home()).teamId;
  }

  private async fetchUser(user: string): Promise<UserFacts> {
    const res = await this.slack.users.info({ user });
    const u = res.user;
    if (!u) throw new Error('users.info returned no user');
    return {
      id: user,
      ...(u.team_id ? { teamId: u.team_id } : {}),
      ...(u.enterprise_user?.enterprise_id ? { enterpriseId: u.enterprise_user.enterprise_id } : {}),
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
