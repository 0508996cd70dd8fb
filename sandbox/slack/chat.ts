/**
 * The `chat.*` Web API family of the fake Slack: post, update, delete, post ephemeral, permalink
 * (Slack docs: method reference pages chat.postMessage, chat.update, chat.delete, chat.postEphemeral,
 * chat.getPermalink).
 */
import { checkMessageBlocks } from './block-kit/index.js';
import { fail, obj, type Json, type MethodTable } from './method.js';
import type { SlackState } from './state.js';
import type { SlackMessage, SlackMetadata } from './types.js';

/**
 * Apply an edit to `msg` in place and mark it edited: a string `text` replaces the text; Slack docs
 * (chat.update): omitted blocks are retained; an empty array removes them. `response_url` posts with
 * `replace_original` behave the same.
 */
export function editMessage(msg: SlackMessage, edit: { text?: unknown; blocks?: unknown }): void {
  if (typeof edit.text === 'string') msg.text = edit.text;
  if (Array.isArray(edit.blocks)) {
    if (edit.blocks.length > 0) msg.blocks = edit.blocks as unknown[];
    else delete msg.blocks;
  }
  msg.edited = true;
}

/** Slack answers `no_text` when a message has none of text, blocks or attachments; its blocks are checked. */
function requireContent(args: Json): void {
  if (typeof args.text !== 'string' && args.blocks === undefined && !Array.isArray(args.attachments)) fail('no_text');
  checkMessageBlocks(args.blocks);
}

/** chat.update: "msg_too_long: Message text is too long. The `text` field cannot exceed 4,000 characters." */
const UPDATE_TEXT_MAX = 4_000;

/**
 * The `metadata` argument (docs.slack.dev "Using message metadata": `{event_type, event_payload}`;
 * WebClient sends it JSON-encoded in a form field). Absent → undefined.
 * @throws `invalid_metadata_format` when it is not an object with a string `event_type` and an object `event_payload`.
 */
export function parseMetadata(raw: unknown): SlackMetadata | undefined {
  if (raw === undefined || raw === '') return undefined;
  const m = obj(raw);
  const payload = obj(m?.event_payload);
  if (!m || typeof m.event_type !== 'string' || m.event_type === '' || !payload) fail('invalid_metadata_format');
  return { event_type: m?.event_type as string, event_payload: payload ?? {} };
}

function postMessage(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel);
  // Slack (chat.postMessage errors): `is_archived` "Channel has been archived."
  if (ch.isArchived) fail('is_archived');
  requireContent(args);
  const metadata = parseMetadata(args.metadata);
  const msg = state.botMessage(ch, args, 'api');
  if (metadata) msg.metadata = metadata;
  state.messages.push(msg);
  return { ok: true, channel: ch.id, ts: msg.ts, message: state.messageJson(msg) };
}

/** The bot's own live message `args.ts` in `args.channel` (membership not needed); `notOwn` when it is someone else's. */
function ownMessage(state: SlackState, args: Json, notOwn: string): SlackMessage {
  const ch = state.requireChannel(args.channel, false);
  const msg = state.requireMessage(ch, args.ts);
  if (msg.user !== state.botUserId) fail(notOwn);
  return msg;
}

function update(state: SlackState, args: Json): Json {
  const msg = ownMessage(state, args, 'cant_update_message');
  if (typeof args.text === 'string' && args.text.length > UPDATE_TEXT_MAX) fail('msg_too_long');
  checkMessageBlocks(args.blocks);
  const metadata = parseMetadata(args.metadata);
  editMessage(msg, { text: args.text, blocks: args.blocks });
  if (metadata) msg.metadata = metadata;
  return { ok: true, channel: msg.channel, ts: msg.ts, text: msg.text, message: state.messageJson(msg) };
}

function deleteMessage(state: SlackState, args: Json): Json {
  const msg = ownMessage(state, args, 'cant_delete_message');
  msg.deleted = true;
  return { ok: true, channel: msg.channel, ts: msg.ts };
}

/**
 * chat.postEphemeral (Slack's reference page, api.slack.com/methods/chat.postEphemeral: `user` "should
 * be in the channel specified by the channel argument"; errors `user_not_in_channel` "Intended
 * recipient is not in the specified channel", and `user_not_found`, which the page does not list but
 * the fake keeps for an id it does not know).
 */
function postEphemeral(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel);
  const u = state.user(args.user) ?? fail('user_not_found');
  if (!state.members(ch).includes(u.id)) fail('user_not_in_channel');
  requireContent(args);
  const msg = state.botMessage(ch, args, 'api');
  msg.ephemeralTo = u.id;
  state.messages.push(msg);
  return { ok: true, message_ts: msg.ts };
}

function getPermalink(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel, false);
  const msg = state.requireMessage(ch, args.message_ts);
  return { ok: true, channel: ch.id, permalink: state.permalink(msg) };
}

/** The `chat.*` methods over `state`. Errors: `channel_not_found`, `not_in_channel`, `is_archived` (chat.postMessage), `no_text`, `invalid_metadata_format`, `invalid_blocks_format`, `invalid_blocks`, `msg_blocks_too_long` (Block Kit: see block-kit/index.ts), `msg_too_long` (chat.update text over 4,000), `message_not_found`, `cant_update_message`, `cant_delete_message`, `user_not_found`, `user_not_in_channel`. */
export function chatMethods(state: SlackState): MethodTable {
  return {
    'chat.postMessage': (args) => postMessage(state, args),
    'chat.update': (args) => update(state, args),
    'chat.delete': (args) => deleteMessage(state, args),
    'chat.postEphemeral': (args) => postEphemeral(state, args),
    'chat.getPermalink': (args) => getPermalink(state, args),
  };
}
