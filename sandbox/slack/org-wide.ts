/**
 * The fake Slack's org-wide install (Slack docs, "Changes to APIs for org-wide apps"; auth.test and
 * auth.teams.list method pages): with an org-level token, `auth.test` answers the enterprise id as
 * `team_id` and `enterprise_id` with `is_enterprise_install: true`; `auth.teams.list` lists the
 * workspaces the app was added to; the methods Slack lists as needing `team_id` answer
 * `missing_argument` without it (what Slack answers, e.g. lyft/omnibot#44, sgratzl/slack-cleaner#101)
 * and `team_access_not_granted` for a workspace the app was not added to.
 */
import { fail, str, type Json, type MethodTable } from './method.js';
import type { SlackState } from './state.js';

/** Slack's list of methods needing `team_id` with an org-level token (as @slack/web-api 8 types it). */
export const NEEDS_TEAM_ID: ReadonlySet<string> = new Set([
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
 * Refuses `method` as Slack does for an org-level token: `missing_argument` without `team_id` where
 * Slack needs one, `team_access_not_granted` for a workspace the app was not added to. Nothing for
 * a workspace-level token.
 * @throws the Slack error.
 */
export function checkTeamArgument(state: SlackState, method: string, args: Json): void {
  const org = state.enterprise;
  if (!org?.orgWide) return;
  const team = str(args.team_id);
  if (team === undefined) {
    if (NEEDS_TEAM_ID.has(method)) fail('missing_argument');
    return;
  }
  if (!org.teams.some((t) => t.id === team)) fail('team_access_not_granted');
}

/** `auth.teams.list`: the workspaces the token may reach (all of the org's granted ones, or the bot's own). */
export function orgWideMethods(state: SlackState): MethodTable {
  return {
    'auth.teams.list': () => {
      const teams = state.enterprise?.orgWide
        ? state.enterprise.teams
        : [{ id: state.teamId, name: state.enterprise?.teams.find((t) => t.id === state.teamId)?.name ?? 'Sandbox' }];
      return {
        ok: true,
        teams: teams.map((t) => ({ id: t.id, name: t.name })),
        response_metadata: { next_cursor: '' },
      };
    },
  };
}
