/**
 * Chat streaming of the fake Slack: `chat.startStream`, `chat.appendStream`, `chat.stopStream`, as
 * Slack's reference pages document them (docs.slack.dev/reference/methods/chat.startStream,
 * …/chat.appendStream, …/chat.stopStream; their argument and error tables):
 * - startStream: `channel` required (the bot must be in it: `not_in_channel`); `thread_ts` required
 *   ("Streamed messages should always be replies to a user request"; missing → `invalid_arguments`);
 *   `recipient_user_id` and `recipient_team_id` "required when streaming to channels" (outside a
 *   DM: `missing_recipient_user_id`, `missing_recipient_team_id`; an unknown user `user_not_found`);
 *   `markdown_text` and `chunks` optional (the SDK's ChatStreamer.stop() starts a stream with
 *   neither). Answers `{ok, channel, ts}`: the ts of the new message, a reply in the thread.
 * - appendStream: `channel`, `ts` required; one of `markdown_text` or `chunks`
 *   (`markdown_text_or_chunks_required`), not both (`cannot_provide_both_markdown_text_and_chunks`),
 *   in the mode the stream began with (`streaming_mode_mismatch`). A message that is not streaming
 *   (stopped, or never a stream) → `message_not_in_streaming_state`; stopped by the person →
 *   `stopped_by_user`; another app's → `message_not_owned_by_app`; unknown → `message_not_found`.
 * - stopStream: `channel`, `ts` required; `markdown_text` or `chunks` optional (not both, same mode),
 *   `blocks` (≤ 50: `msg_blocks_too_many`; rendered after the text), `metadata`, `session_status`
 *   (active, processing, suspended, closed). Stopping a stopped stream →
 *   `message_not_in_streaming_state`. Answers `{ok, channel, ts, message}`.
 * - `markdown_text` is limited to 12,000 characters per call ("Limit this field to 12,000
 *   characters"); the pages name no error code, so the fake answers chat.postMessage's
 *   `msg_too_long`, and applies the limit to each markdown_text chunk too. `chunks` must be
 *   `markdown_text` {text}, `task_update` {id, title, status}, `plan_update` {title} or `blocks`
 *   {blocks ≤ 50} objects (@slack/types 3 `AnyChunk`), else `invalid_chunks`. Blocks (of the stop or of a
 *   chunk) are checked as a message's are (./block-kit/index.ts).
 * - `both markdown_text and chunks` is documented for append and stop; the fake refuses it on start too.
 * Rate limits (not modelled; inject 429s with failNext): startStream and stopStream Tier 2,
 * appendStream Tier 4.
 * The streamed message is a bot message in the thread whose text grows with each append; blocks of
 * the stop (and `blocks` chunks) follow the text. {@link FakeStreamState} refuses on demand.
 */
import type { FakeAgentState } from './agent-state.js';
import { checkMessageBlocks } from './block-kit/index.js';
import { parseMetadata } from './chat.js';
import { fail, obj, str, type Json, type MethodTable } from './method.js';
import type { SlackState } from './state.js';
import type { FakeStream, FakeStreamState } from './stream-state.js';
import type { SlackMessage } from './types.js';

/** Slack: "Limit this field to 12,000 characters." */
const MARKDOWN_TEXT_LIMIT = 12_000;
const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);
const SESSION_STATUSES = new Set(['active', 'processing', 'suspended', 'closed']);

/** The content of one call: its text and other chunks, and the mode it implies (none without content). */
interface Content {
  mode: FakeStream['mode'];
  text: string;
  other: unknown[];
  blocks: unknown[];
}

function checkChunk(raw: unknown): { text?: string; blocks?: unknown[] } {
  const c = obj(raw) ?? fail('invalid_chunks');
  if (c.type === 'markdown_text') {
    if (typeof c.text !== 'string') fail('invalid_chunks');
    if ((c.text as string).length > MARKDOWN_TEXT_LIMIT) fail('msg_too_long');
    return { text: c.text as string };
  }
  if (c.type === 'task_update') {
    if (!str(c.id) || !str(c.title) || !TASK_STATUSES.has(c.status as string)) fail('invalid_chunks');
    return {};
  }
  if (c.type === 'plan_update') return str(c.title) ? {} : fail('invalid_chunks');
  if (c.type === 'blocks') {
    if (!Array.isArray(c.blocks) || c.blocks.length > 50) fail('invalid_chunks');
    checkMessageBlocks(c.blocks);
    return { blocks: c.blocks as unknown[] };
  }
  return fail('invalid_chunks');
}

/** The `markdown_text` / `chunks` of a call, checked. An empty `chunks` array carries no content. */
function content(args: Json, required: boolean): Content {
  const hasText = str(args.markdown_text) !== undefined;
  const hasChunks = args.chunks !== undefined && !(Array.isArray(args.chunks) && args.chunks.length === 0);
  if (hasText && hasChunks) fail('cannot_provide_both_markdown_text_and_chunks');
  if (required && !hasText && !hasChunks) fail('markdown_text_or_chunks_required');
  if (hasText) {
    const text = args.markdown_text as string;
    if (text.length > MARKDOWN_TEXT_LIMIT) fail('msg_too_long');
    return { mode: 'markdown_text', text, other: [], blocks: [] };
  }
  if (args.chunks !== undefined && !Array.isArray(args.chunks)) fail('invalid_chunks');
  const chunks = (args.chunks ?? []) as unknown[];
  const checked = chunks.map((c) => ({ raw: c, ...checkChunk(c) }));
  return {
    mode: hasChunks ? 'chunks' : undefined,
    text: checked.map((c) => c.text ?? '').join(''),
    other: checked.filter((c) => c.text === undefined).map((c) => c.raw),
    blocks: checked.flatMap((c) => c.blocks ?? []),
  };
}

/** Adds `c` to the stream and its message; fixes the stream's mode on its first content. */
function apply(stream: FakeStream, msg: SlackMessage, c: Content): void {
  if (!c.mode) return;
  if (stream.mode && stream.mode !== c.mode) fail('streaming_mode_mismatch');
  stream.mode = c.mode;
  stream.contentCalls += 1;
  msg.text += c.text;
  stream.otherChunks.push(...c.other);
  if (c.blocks.length > 0) msg.blocks = [...(msg.blocks ?? []), ...c.blocks];
}

/** The bot's streamed message `args.ts` and its stream, for append and stop. */
function target(
  state: SlackState,
  streams: FakeStreamState,
  args: Json,
): { msg: SlackMessage; stream: FakeStream | undefined } {
  const ch = state.requireChannel(args.channel, false);
  const msg = state.requireMessage(ch, args.ts);
  if (msg.user !== state.botUserId) fail('message_not_owned_by_app');
  return { msg, stream: streams.get(ch.id, msg.ts) };
}

function startStream(state: SlackState, streams: FakeStreamState, args: Json): Json {
  const ch = state.requireChannel(args.channel);
  const refusal = streams.refuseIn.get(ch.id);
  if (refusal) fail(refusal);
  const threadTs = str(args.thread_ts) ?? fail('invalid_arguments');
  const userId = str(args.recipient_user_id);
  const teamId = str(args.recipient_team_id);
  if (!ch.isIm && !userId) fail('missing_recipient_user_id');
  if (!ch.isIm && !teamId) fail('missing_recipient_team_id');
  if (userId && !state.user(userId)) fail('user_not_found');
  const c = content(args, false);
  const msg = state.botMessage(ch, { text: '', thread_ts: threadTs }, 'api');
  const stream: FakeStream = {
    channel: ch.id,
    ts: msg.ts,
    threadTs,
    state: 'in_progress',
    contentCalls: 0,
    otherChunks: [],
    ...(userId ? { recipientUserId: userId } : {}),
    ...(teamId ? { recipientTeamId: teamId } : {}),
  };
  apply(stream, msg, c);
  state.messages.push(msg);
  streams.add(stream);
  return { ok: true, channel: ch.id, ts: msg.ts };
}

function appendStream(state: SlackState, streams: FakeStreamState, args: Json): Json {
  const { msg, stream } = target(state, streams, args);
  if (stream?.state === 'stopped_by_user') fail('stopped_by_user');
  if (!stream || stream.state !== 'in_progress') fail('message_not_in_streaming_state');
  apply(stream as FakeStream, msg, content(args, true));
  return { ok: true, channel: msg.channel, ts: msg.ts };
}

function stopStream(state: SlackState, streams: FakeStreamState, agent: FakeAgentState, args: Json): Json {
  const { msg, stream } = target(state, streams, args);
  if (!stream || stream.state !== 'in_progress') fail('message_not_in_streaming_state');
  const c = content(args, false);
  if (args.blocks !== undefined && (!Array.isArray(args.blocks) || args.blocks.length > 50))
    fail(Array.isArray(args.blocks) ? 'msg_blocks_too_many' : 'invalid_blocks');
  checkMessageBlocks(args.blocks);
  const metadata = parseMetadata(args.metadata);
  const sessionStatus = str(args.session_status);
  if (args.session_status !== undefined && !SESSION_STATUSES.has(sessionStatus ?? '')) fail('invalid_arguments');
  const live = stream as FakeStream;
  apply(live, msg, c);
  if (Array.isArray(args.blocks) && args.blocks.length > 0)
    msg.blocks = [...(msg.blocks ?? []), ...(args.blocks as unknown[])];
  if (metadata) msg.metadata = metadata;
  const session = agent.sessions.get(`${msg.channel}:${live.threadTs}`);
  if (session && sessionStatus) session.statuses.push(sessionStatus);
  live.state = 'completed';
  return { ok: true, channel: msg.channel, ts: msg.ts, message: state.messageJson(msg) };
}

/** The chat streaming methods over `state`; every one answers `streams.refuseWith` when it is set. */
export function streamMethods(state: SlackState, streams: FakeStreamState, agent: FakeAgentState): MethodTable {
  const refused = (): void => {
    if (streams.refuseWith) fail(streams.refuseWith);
  };
  return {
    'chat.startStream': (args) => (refused(), startStream(state, streams, args)),
    'chat.appendStream': (args) => (refused(), appendStream(state, streams, args)),
    'chat.stopStream': (args) => (refused(), stopStream(state, streams, agent, args)),
  };
}
