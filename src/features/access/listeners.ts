import type { App } from '@slack/bolt';
import type { EventArgs } from '../../platform/slack/listener-args.js';
import type { Redis } from 'ioredis';
import type { Logger } from '../../platform/logger.js';
import type { WorkspaceAccess } from '../../platform/workspace-access.js';
import { SlackDirectory, USER_FACTS_MAX_TTL_MS, type DirectorySlack, type UserChanges } from './directory.js';

/**
 * `user_change` events recorded in Redis (`${QUEUE_PREFIX}:access:user-changed:<user id>` = epoch
 * ms, kept as long as a cached answer can live), so every replica's directory drops an answer
 * fetched before the change, whichever replica Slack sent the event to.
 */
class RedisUserChanges implements UserChanges {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  private key(user: string): string {
    return `${this.prefix}:access:user-changed:${user}`;
  }

  /** Records that `user` changed now. @throws Redis errors. */
  async mark(user: string): Promise<void> {
    await this.redis.set(this.key(user), String(this.now()), 'PX', USER_FACTS_MAX_TTL_MS);
  }

  async changedAt(user: string): Promise<number | undefined> {
    const raw = await this.redis.get(this.key(user));
    const at = raw === null ? Number.NaN : Number(raw);
    return Number.isFinite(at) ? at : undefined;
  }
}

/** What the access listeners need. */
interface AccessListenerDeps {
  directory: Pick<SlackDirectory, 'forget'>;
  changes: Pick<RedisUserChanges, 'mark'>;
  /** The workspaces an org-wide install was removed from. */
  workspaces?: Pick<WorkspaceAccess, 'grant' | 'remove'>;
  logger: Logger;
}

/** Workspace ids of a `team_access_*` event's `team_ids` (anything else is dropped). */
function teamIds(event: unknown): string[] {
  const ids = (event as { team_ids?: unknown } | undefined)?.team_ids;
  return Array.isArray(ids) ? ids.filter((t): t is string => typeof t === 'string' && /^T[A-Z0-9]{2,30}$/.test(t)) : [];
}

/**
 * Slack's `team_access_granted` / `team_access_revoked` (docs.slack.dev events reference: sent to
 * an org-wide app when it is added to, or removed from, workspaces of the org; `event.team_ids`):
 * recorded in Redis for every replica. A removed workspace's digests and App Home pause; nothing is
 * deleted, and granting access again resumes them. When Redis won't take it the listener throws,
 * so the event is not acked and Slack sends it again.
 */
function teamAccessEvent(deps: AccessListenerDeps, change: 'granted' | 'revoked') {
  return async ({ event }: { event: unknown }): Promise<void> => {
    const teams = teamIds(event);
    if (teams.length === 0 || !deps.workspaces) {
      deps.logger.warn({ change }, 'a team_access event without workspace ids; ignored');
      return;
    }
    await (change === 'granted' ? deps.workspaces.grant(teams) : deps.workspaces.remove(teams));
    deps.logger.info({ teams, change }, `team_access_${change}: the org-wide install's workspaces changed`);
  };
}

/**
 * Slack's `user_change` (scope `users:read`; docs.slack.dev/reference/events/user_change: "sent
 * ... when a member updates their profile or data", e.g. made a guest, deactivated, made an
 * admin): this process forgets the person's facts and the change is recorded for the other
 * replicas. When Redis won't take it the listener throws, so the event is not acked and Slack
 * sends it again.
 */
export function userChangeEvent(deps: AccessListenerDeps) {
  return async ({ event }: EventArgs<'user_change'>): Promise<void> => {
    const user = (event.user as { id?: unknown } | undefined)?.id;
    if (typeof user !== 'string' || !/^[UW][A-Z0-9]{2,30}$/.test(user)) {
      deps.logger.warn('a user_change event without a user id; ignored');
      return;
    }
    deps.directory.forget(user);
    await deps.changes.mark(user);
    deps.logger.info({ user }, 'user_change: access facts dropped');
  };
}

/** Registers the access feature's event listeners (`user_change`, `team_access_granted`, `team_access_revoked`). */
export function register(app: App, deps: AccessListenerDeps): void {
  app.event('user_change', userChangeEvent(deps));
  app.event('team_access_granted', teamAccessEvent(deps, 'granted'));
  app.event('team_access_revoked', teamAccessEvent(deps, 'revoked'));
}

/**
 * The directory of who people are, kept fresh by Slack's `user_change` on every replica, and its
 * listener. @param o.slack - users.info, usergroups.users.list, auth.test.
 */
export function createAccessDirectory(o: {
  slack: DirectorySlack;
  redis: Redis;
  prefix: string;
  now: () => number;
  logger: Logger;
  workspaces?: Pick<WorkspaceAccess, 'grant' | 'remove'>;
  /** OAuth mode: the bot's own team per installation (SlackDirectory's `perInstallation`). */
  perInstallation?: boolean;
}): { directory: SlackDirectory; register(app: App): void } {
  const changes = new RedisUserChanges(o.redis, o.prefix, o.now);
  const perInstallation = o.perInstallation ? { perInstallation: true } : {};
  const directory = new SlackDirectory(o.slack, { changes, now: o.now, ...perInstallation });
  const workspaces = o.workspaces ? { workspaces: o.workspaces } : {};
  return { directory, register: (app) => register(app, { directory, changes, logger: o.logger, ...workspaces }) };
}
