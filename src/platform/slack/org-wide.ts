/**
 * Org-wide apps on Enterprise Grid (Slack docs, "Changes to APIs for org-wide apps"): a token
 * installed on a whole org reaches many workspaces, so some Web API methods need `team_id` to say
 * which one to act on ("the team_id is only relevant when using an org-level token"; Slack answers
 * `missing_argument` without it). The bot gives those methods the workspace of the request it is
 * handling (the request context's `teamId`, carried into the intake's workers).
 */
import { currentRequestContext } from '../request-context.js';

/**
 * The methods that need `team_id` with an org-level token: Slack's list, as @slack/web-api 8 types
 * it (`OptionalTeamAssignable`: "If using an org token, `team_id` is required."). The bot calls
 * `users.conversations` (membership) and `usergroups.users.list` (the allow-list) of them.
 */
export const ORG_TOKEN_TEAM_METHODS: ReadonlySet<string> = new Set([
  'bots.info',
  'chat.scheduledMessages.list',
  'conversations.create',
  'conversations.list',
  'dnd.teamInfo',
  'files.list',
  'migration.exchange',
  'reactions.list',
  'reminders.add',
  'reminders.complete',
  'reminders.delete',
  'reminders.info',
  'reminders.list',
  'search.all',
  'search.files',
  'search.messages',
  'stars.list',
  'team.accessLogs',
  'team.billableInfo',
  'team.integrationLogs',
  'usergroups.create',
  'usergroups.disable',
  'usergroups.enable',
  'usergroups.list',
  'usergroups.update',
  'usergroups.users.list',
  'usergroups.users.update',
  'users.conversations',
  'users.list',
]);

/**
 * `options` with `team_id` set to the current request's workspace when `method` needs it
 * ({@link ORG_TOKEN_TEAM_METHODS}) and the caller gave none; otherwise `options` as they are.
 */
export function withRequestTeam(
  method: string,
  options: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!ORG_TOKEN_TEAM_METHODS.has(method) || options?.team_id !== undefined) return options;
  const teamId = currentRequestContext()?.teamId;
  return teamId ? { ...options, team_id: teamId } : options;
}
