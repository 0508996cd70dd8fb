/**
 * `usergroups.users.list` and `usergroups.list` of the fake Slack.
 *
 * usergroups.users.list (docs.slack.dev/reference/methods/usergroups.users.list): arguments
 * `usergroup` (the encoded id, "S0604QSJC") and `include_disabled` ("Allow results that involve
 * disabled User Groups"); answers `{ok, users: [user ids]}`; an unknown group answers
 * `no_such_subteam` ("No usergroup found with the given ID"). The fake answers a disabled group the
 * same unless `include_disabled` is set.
 *
 * usergroups.list (docs.slack.dev/reference/methods/usergroups.list): every group of the team "in no
 * particular order", disabled ones only with `include_disabled`; `include_count` adds `user_count`
 * (a string in Slack's example), `include_users` adds `users`. Group objects follow the method's example.
 */
import { fail, str, type Json, type MethodTable } from './method.js';
import { truthy } from './history.js';
import type { SlackState } from './state.js';
import type { FakeUsergroup } from './types.js';

/** The group `args.usergroup` names. @throws `no_such_subteam` (also for a disabled group without `include_disabled`). */
function requireGroup(state: SlackState, args: Json): FakeUsergroup {
  const id = str(args.usergroup) ?? fail('no_such_subteam');
  const group = state.usergroups.find((g) => g.id === id) ?? fail('no_such_subteam');
  if (group.disabled && !truthy(args.include_disabled)) fail('no_such_subteam');
  return group;
}

/** A usergroup object as usergroups.list shows it (`user_count` / `users` on request). */
function groupJson(state: SlackState, g: FakeUsergroup, args: Json): Json {
  const created = 1700000000;
  return {
    id: g.id,
    team_id: state.teamId,
    is_usergroup: true,
    name: g.name ?? g.handle,
    description: g.description ?? '',
    handle: g.handle,
    is_external: false,
    date_create: created,
    date_update: created,
    date_delete: g.disabled ? created + 1 : 0,
    auto_type: null,
    created_by: 'USLACKBOT',
    updated_by: 'USLACKBOT',
    deleted_by: null,
    prefs: { channels: [], groups: [] },
    ...(truthy(args.include_users) ? { users: [...g.members] } : {}),
    ...(truthy(args.include_count) ? { user_count: String(g.members.length) } : {}),
  };
}

/** The `usergroups.*` methods over `state`. Errors: `no_such_subteam`. */
export function usergroupsMethods(state: SlackState): MethodTable {
  return {
    'usergroups.users.list': (args) => ({ ok: true, users: [...requireGroup(state, args).members] }),
    'usergroups.list': (args) => ({
      ok: true,
      usergroups: state.usergroups
        .filter((g) => !g.disabled || truthy(args.include_disabled))
        .map((g) => groupJson(state, g, args)),
    }),
  };
}
