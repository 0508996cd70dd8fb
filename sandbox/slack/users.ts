/**
 * `users.info` and `users.conversations` of the fake Slack.
 *
 * users.info (docs.slack.dev/reference/methods/users.info, "User object"): the user object with
 * `team_id` (the user's own workspace: another one for a Slack Connect user), `is_admin`, `is_owner`,
 * `is_primary_owner`, `is_restricted` (guest), `is_ultra_restricted` (single-channel guest), `is_bot`,
 * `tz`, `tz_label`, `tz_offset` (seconds east of UTC), `profile.display_name`, and `is_stranger` only
 * when it is set.
 *
 * users.conversations (docs.slack.dev/reference/methods/users.conversations): "List conversations the
 * calling user may access"; `types` is a comma list of public_channel (default), private_channel, mpim,
 * im (anything else → `invalid_types`); `user` browses another user's memberships: "Browse the public
 * channel membership of other users with the user parameter. Private channel membership is only
 * listed when the calling user, bot user, or app shares membership in a direct message, multi-person
 * direct message, or private channel"; `exclude_archived` ("Set to true to exclude archived channels
 * from the list", default false); `limit` "Must be an integer with a max value of 999" (default 100);
 * cursor pagination with `response_metadata.next_cursor`. "We omit the is_member and num_members
 * fields in this method's response." Tier 3.
 */
import { fail, str, type Json, type MethodTable } from './method.js';
import { truthy } from './history.js';
import { paginate } from './pagination.js';
import type { SlackState } from './state.js';
import type { FakeChannel } from './types.js';
import { channelJson, userJson } from './wire.js';

const CHANNEL_TYPES = new Set(['public_channel', 'private_channel', 'mpim', 'im']);

/** The conversation type names users.conversations filters by. */
function channelType(ch: FakeChannel): string {
  if (ch.isIm) return 'im';
  if (ch.isMpim) return 'mpim';
  return ch.isPrivate ? 'private_channel' : 'public_channel';
}

/** The `types` argument as a set. @throws `invalid_types`. */
function parseTypes(raw: unknown): Set<string> {
  const list = (str(raw) ?? 'public_channel')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (list.length === 0 || list.some((t) => !CHANNEL_TYPES.has(t))) fail('invalid_types');
  return new Set(list);
}

function conversations(state: SlackState, args: Json): Json {
  const types = parseTypes(args.types);
  const userId = str(args.user) ?? state.botUserId;
  if (!state.user(userId)) fail('user_not_found');
  const excludeArchived = truthy(args.exclude_archived);
  const visible = state.channels.filter((ch) => {
    const members = state.members(ch);
    if (!members.includes(userId) || !types.has(channelType(ch))) return false;
    if (excludeArchived && ch.isArchived) return false;
    return channelType(ch) === 'public_channel' || members.includes(state.botUserId);
  });
  const page = paginate(visible, args, { prefix: 'team', defaultLimit: 100, maxLimit: 999, key: (ch) => ch.id });
  return {
    ok: true,
    channels: page.items.map((ch) => channelJson(ch, undefined)),
    response_metadata: { next_cursor: page.nextCursor },
  };
}

/** `users.info` and `users.conversations` over `state`. Errors: `user_not_found`, `invalid_types`, `invalid_cursor`, `invalid_limit`. */
export function usersMethods(state: SlackState): MethodTable {
  return {
    'users.info': (args) => {
      const u = state.user(args.user) ?? fail('user_not_found');
      return { ok: true, user: userJson(state, u) };
    },
    'users.conversations': (args) => conversations(state, args),
  };
}
