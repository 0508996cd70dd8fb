/**
 * Which workspaces an org-wide install was removed from (Slack's `team_access_revoked`, called
 * `team_access_removed` in some of Slack's pages, and `team_access_granted`; docs.slack.dev events
 * reference: `event.team_ids`, the outer `team_id` null and `enterprise_id` set). Kept in Redis so
 * every replica agrees: `${QUEUE_PREFIX}:workspaces:removed` is a set of workspace ids. A removed
 * workspace's work pauses (its digests are not posted, its App Home not published); nothing is
 * deleted, so granting access again resumes it.
 */
import type { Redis } from 'ioredis';

/** The removed workspaces of an org-wide install. */
export class WorkspaceAccess {
  constructor(
    private readonly redis: Pick<Redis, 'sismember' | 'sadd' | 'srem'>,
    private readonly prefix: string,
  ) {}

  private get key(): string {
    return `${this.prefix}:workspaces:removed`;
  }

  /** Whether the app was removed from workspace `teamId`. @throws Redis errors. */
  async removed(teamId: string): Promise<boolean> {
    return (await this.redis.sismember(this.key, teamId)) === 1;
  }

  /** Records that the app was removed from `teamIds`. @throws Redis errors. */
  async remove(teamIds: readonly string[]): Promise<void> {
    if (teamIds.length > 0) await this.redis.sadd(this.key, ...teamIds);
  }

  /** Records that the app was added (again) to `teamIds`. @throws Redis errors. */
  async grant(teamIds: readonly string[]): Promise<void> {
    if (teamIds.length > 0) await this.redis.srem(this.key, ...teamIds);
  }
}
