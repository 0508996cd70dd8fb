/**
 * The `conversations.*` Web API family of the fake Slack (Slack docs: conversations.info,
 * conversations.open, conversations.members; history and replies live in `./history.ts`).
 *
 * conversations.members (docs.slack.dev/reference/methods/conversations.members): "a paginated list of
 * members party to a conversation" as user ids, cursor-paginated with `limit` (default 100, "Must be an
 * integer with a max value of 999" per @slack/web-api's CursorPaginationEnabled docs), every page
 * carrying `response_metadata.next_cursor` ("" on the last, as the method's example and the pagination
 * guide show). Reading members needs no membership in a public channel (`channels:read`), but a private
 * channel or IM the bot is not in answers `channel_not_found`.
 */
import { fail, str, type Json, type MethodTable } from './method.js';
import { paginate } from './pagination.js';
import type { SlackState } from './state.js';
import { channelJson } from './wire.js';
import { historyMethods, truthy } from './history.js';

/** conversations.info: the conversation object; `num_members` with `include_num_members`. */
function info(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel, false);
  return {
    ok: true,
    channel: channelJson(ch, ch.botIsMember, truthy(args.include_num_members) ? state.members(ch).length : undefined),
  };
}

/** conversations.members: one page of member user ids. */
function members(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel, false);
  const page = paginate(state.members(ch), args, {
    prefix: 'user_id',
    defaultLimit: 100,
    maxLimit: 999,
    key: (id) => id,
  });
  return { ok: true, members: page.items, response_metadata: { next_cursor: page.nextCursor } };
}

/**
 * The `conversations.*` methods over `state`. `conversations.open` takes one user id (a comma list
 * answers `not_supported`) and returns that user's IM. Errors: `channel_not_found`, `not_in_channel`,
 * `thread_not_found`, `users_list_not_supplied`, `user_not_found`, `invalid_cursor`, `invalid_limit`,
 * `invalid_ts_oldest`, `invalid_ts_latest`.
 */
export function conversationsMethods(state: SlackState): MethodTable {
  return {
    'conversations.info': (args) => info(state, args),
    'conversations.open': (args) => {
      const id = str(args.users) ?? fail('users_list_not_supplied');
      if (id.includes(',')) fail('not_supported');
      const u = state.user(id) ?? fail('user_not_found');
      return { ok: true, channel: { id: state.openIm(u).id } };
    },
    'conversations.members': (args) => members(state, args),
    ...historyMethods(state),
  };
}
