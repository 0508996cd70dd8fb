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

/** A workspace id (`T…`); enterprise ids (`E…`) are not workspaces. */
const WORKSPACE_ID = /^T[A-Z0-9]{2,30}$/;

/** `v` when it is a workspace id (`T…`), else undefined (e.g. an enterprise id `E…`, null). */
export function workspaceId(v: unknown): string | undefined {
  return typeof v === 'string' && WORKSPACE_ID.test(v) ? v : undefined;
}

/**
 * Every workspace id (`T…`) a Slack request's body names, without repeats, in this order: the
 * Events API's `context_team_id`, then `team_id` (the Events API's, a command's), an interaction's
 * `team.id`, then its `user.team_id`. The first is {@link requestTeamId}'s; the workspace guard
 * (org-workspace-guard.ts) checks them all. Empty when the body names none (e.g.
 * `team_access_granted`, whose `team_id` is null).
 */
export function bodyTeamIds(body: Record<string, unknown>): string[] {
  const team = body.team as { id?: unknown } | null | undefined;
  const user = body.user as { team_id?: unknown } | null | undefined;
  const ids = [body.context_team_id, body.team_id, team?.id, user?.team_id].map(workspaceId);
  return [...new Set(ids.filter((id): id is string => id !== undefined))];
}

/**
 * The workspace a Slack request happened in: the first of {@link bodyTeamIds} (the Events API's
 * `context_team_id` or `team_id`, a command's `team_id`, an interaction's `team.id` or its
 * `user.team_id`). Undefined when the body names none (e.g. `team_access_granted`, whose `team_id`
 * is null).
 */
export function requestTeamId(body: Record<string, unknown>): string | undefined {
  return bodyTeamIds(body)[0];
}

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
