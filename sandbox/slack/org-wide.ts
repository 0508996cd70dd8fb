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
import type { TokenIdentity } from './types.js';

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
 * a workspace-level token: Slack ("Changes to APIs for org-wide apps",
 * api.slack.com/enterprise/apps/changes-apis): "The team_id is only relevant when using an
 * org-level token. This field will be ignored if the API call is sent using a workspace-level token."
 * Which token is org-level is the calling token's own: an OAuth install's (`who`, its `orgWide`;
 * the workspaces it reaches are its org's, {@link teamsOf}), else the fake's bot token's
 * (`enterprise.orgWide`).
 * @throws the Slack error.
 */
export function checkTeamArgument(state: SlackState, method: string, args: Json, who?: TokenIdentity): void {
  const orgLevel = who ? who.orgWide : state.enterprise?.orgWide === true;
  if (!orgLevel) return;
  const team = str(args.team_id);
  if (team === undefined) {
    if (NEEDS_TEAM_ID.has(method)) fail('missing_argument');
    return;
  }
  if (!grantedTeams(state, who).some((t) => t.id === team)) fail('team_access_not_granted');
}

/** Slack's largest `limit` of `auth.teams.list` (its default is 100). */
const TEAMS_LIST_MAX_LIMIT = 1_000;

/**
 * `auth.teams.list` (Slack docs: "Obtain a full list of workspaces your org-wide app has been
 * approved for"; `limit` a positive integer ≤ 1000, default 100; `cursor` from `next_cursor`):
 * for an org-wide token the org's workspaces the app was added to, for a workspace token its own
 * workspace. A cursor the fake did not give answers `invalid_cursor`, a bad limit `invalid_limit`.
 */
export function orgWideMethods(state: SlackState): MethodTable {
  return {
    'auth.teams.list': (args) => {
      const limit = args.limit === undefined ? 100 : Number(args.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > TEAMS_LIST_MAX_LIMIT) fail('invalid_limit');
      const cursor = str(args.cursor);
      const start = cursor ? Number(/^teams:(\d+)$/.exec(cursor)?.[1] ?? NaN) : 0;
      if (!Number.isInteger(start)) fail('invalid_cursor');
      const teams = teamsOf(state);
      const page = teams.slice(start, start + limit);
      const next = start + limit < teams.length ? `teams:${start + limit}` : '';
      return {
        ok: true,
        teams: page.map((t) => ({ id: t.id, name: t.name })),
        response_metadata: { next_cursor: next },
      };
    },
  };
}

/** The workspaces the calling token reaches: an OAuth install's (its own, or its org's), else the bot token's. */
function teamsOf(state: SlackState): ReadonlyArray<{ id: string; name: string }> {
  const who = state.caller;
  if (who) return grantedTeams(state, who);
  const org = state.enterprise;
  if (org?.orgWide) return org.teams;
  return [{ id: state.teamId, name: org?.teams.find((t) => t.id === state.teamId)?.name ?? 'Sandbox' }];
}

/**
 * The workspaces token identity `who` reaches (its own workspace; for an org-wide install, the
 * workspaces of its org the app was added to), or, without `who`, the fake's bot token's org's.
 */
function grantedTeams(state: SlackState, who: TokenIdentity | undefined): ReadonlyArray<{ id: string; name: string }> {
  const org = state.enterprise;
  if (!who) return org?.teams ?? [];
  if (!who.orgWide) return [{ id: who.teamId, name: who.teamName }];
  if (org && who.enterpriseId === org.id) return org.teams;
  return who.teams ?? [];
}
