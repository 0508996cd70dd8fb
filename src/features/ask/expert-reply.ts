/**
 * Who of a thread's repliers is one of the channel's docs team (`/docs-settings experts`), so that
 * Document this answer quotes their reply rather than an earlier one by someone else.
 */
import type { Logger } from '../../platform/logger.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import type { Experts } from '../settings/index.js';

/** What telling an expert needs. */
export interface ExpertCheckDeps {
  /** The channel's docs team. @throws the Redis error. */
  expertsFor: (channel: string) => Promise<Experts | undefined>;
  /** Membership of the team's channel (people's conversation lists, cached and budgeted). */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /**
   * Membership of the team's user group: the access directory's (usergroups.users.list, each
   * group's answer cached ≤ 5 minutes, so a thread's replies cost at most one call a group per
   * 5 minutes, not one each). @throws when Slack fails.
   */
  groups: { inAnyGroup(user: string, groups: readonly string[]): Promise<boolean> };
  logger: Logger;
}

/**
 * Whether `user` is one of `channel`'s docs team: a member of its experts channel, or of its user
 * group. Never throws: no team, or membership Slack or Redis can't tell now, is false (a warn line).
 */
export function expertCheck(deps: ExpertCheckDeps): (channel: string, user: string) => Promise<boolean> {
  return async (channel, user) => {
    try {
      const e = await deps.expertsFor(channel);
      if (!e) return false;
      if (e.kind === 'channel') return await deps.conversations.isMember(e.id, user);
      return await deps.groups.inAnyGroup(user, [e.id]);
    } catch (err) {
      const reason = slackErrorCode(err) ?? (err as { code?: unknown }).code ?? 'error';
      deps.logger.warn({ channel, reason: String(reason) }, 'could not tell whether a reply is the docs team’s');
      return false;
    }
  };
}
