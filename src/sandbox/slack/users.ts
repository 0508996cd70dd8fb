/**
 * `users.info` of the fake Slack (Slack docs: users.info; the user object's `tz`, `tz_label` and
 * `tz_offset` in seconds east of UTC, `profile.display_name`).
 */
import { fail, type MethodTable } from './method.js';
import type { SlackState } from './state.js';

/** `users.info` over `state`. Errors: `user_not_found`. */
export function usersMethods(state: SlackState): MethodTable {
  return {
    'users.info': (args) => {
      const u = state.user(args.user) ?? fail('user_not_found');
      const realName = u.realName ?? u.name;
      return {
        ok: true,
        user: {
          id: u.id,
          team_id: state.teamId,
          name: u.name,
          deleted: false,
          real_name: realName,
          tz: u.tz ?? 'UTC',
          tz_label: u.tz ?? 'UTC',
          tz_offset: u.tzOffset ?? 0,
          is_bot: u.isBot ?? false,
          is_app_user: false,
          profile: { display_name: u.name, display_name_normalized: u.name, real_name: realName, real_name_normalized: realName, team: state.teamId },
        },
      };
    },
  };
}
