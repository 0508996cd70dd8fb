/**
 * The `conversations.*` Web API family of the fake Slack (Slack docs: conversations.info,
 * conversations.open, conversations.replies, conversations.history). Ephemeral and deleted messages
 * are never listed; history lists top-level messages newest first, replies list a thread root first.
 */
import { fail, str, type Json, type MethodTable } from './method.js';
import type { SlackState } from './state.js';

function info(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel, false);
  return {
    ok: true,
    channel: {
      id: ch.id,
      ...(ch.isIm ? { user: ch.user } : { name: ch.name }),
      is_channel: !ch.isIm,
      is_group: false,
      is_im: ch.isIm ?? false,
      is_mpim: false,
      is_private: ch.isIm ?? false,
      is_archived: false,
      is_member: ch.botIsMember,
      created: 1700000000,
    },
  };
}

function replies(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel);
  const root = state.requireMessage(ch, args.ts);
  const threadTs = root.thread_ts ?? root.ts;
  const thread = state.messages.filter(
    (m) => m.channel === ch.id && !m.deleted && !m.ephemeralTo && (m.ts === threadTs || m.thread_ts === threadTs),
  );
  return { ok: true, messages: thread.map((m) => state.messageJson(m)), has_more: false };
}

function history(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel);
  const top = state.messages.filter((m) => m.channel === ch.id && !m.deleted && !m.ephemeralTo && (!m.thread_ts || m.thread_ts === m.ts));
  return { ok: true, messages: top.reverse().map((m) => state.messageJson(m)), has_more: false };
}

/**
 * The `conversations.*` methods over `state`. `conversations.open` takes one user id (a comma list
 * answers `not_supported`) and returns that user's IM. Errors: `channel_not_found`, `not_in_channel`,
 * `message_not_found`, `users_list_not_supplied`, `user_not_found`.
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
    'conversations.replies': (args) => replies(state, args),
    'conversations.history': (args) => history(state, args),
  };
}
