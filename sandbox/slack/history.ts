/**
 * `conversations.history` and `conversations.replies` of the fake Slack.
 *
 * Slack docs (docs.slack.dev/reference/methods/conversations.history and .replies):
 * - history lists a conversation's top-level messages newest first; replies lists a thread oldest
 *   first, its parent first. `ts` may name the parent or any message in the thread ("Unique identifier
 *   of either a thread's parent message or a message in the thread"); a message without replies is
 *   returned alone; an unknown ts answers `thread_not_found`.
 * - `oldest` / `latest` bound the time range (ts strings), exclusive unless `inclusive` is true;
 *   malformed ones answer `invalid_ts_oldest` / `invalid_ts_latest`.
 * - `limit`: history default 100, "Maximum of 999"; replies default 1000 (the api.slack.com page; the
 *   May 2025 cap of 15 applies only to non-Marketplace commercially distributed apps, not internal ones).
 * - cursor pagination: `has_more`, and `response_metadata.next_cursor` while more follow.
 * - message `metadata` only with `include_all_metadata` (docs.slack.dev "Using message metadata").
 * - roots carry `reply_count`, `reply_users_count`, `latest_reply`, `reply_users`; replies
 *   `parent_user_id` (the replies example on the method page).
 * Ephemeral and deleted messages are never listed.
 */
import { fail, str, type Json, type MethodTable } from './method.js';
import { paginate, tsMicros, type PageSpec } from './pagination.js';
import type { SlackState } from './state.js';
import type { FakeChannel, SlackMessage } from './types.js';
import type { MessageJsonOptions, ThreadSummary } from './wire.js';

/** Whether a boolean-ish argument is set (form fields arrive as "true" / "1"). */
export const truthy = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 1;

/** The `oldest` / `latest` / `inclusive` window of a call, in microseconds. */
interface Range {
  oldest: number;
  latest: number;
  inclusive: boolean;
}

/** A ts argument as a string (JSON bodies may carry numbers); undefined when absent or "". */
const tsArg = (v: unknown): string | undefined => (typeof v === 'number' ? String(v) : str(v));

/** The call's time range. @throws `invalid_ts_oldest`, `invalid_ts_latest`. */
function timeRange(args: Json): Range {
  const oldestArg = tsArg(args.oldest);
  const latestArg = tsArg(args.latest);
  const oldest = oldestArg === undefined ? 0 : tsMicros(oldestArg);
  const latest = latestArg === undefined ? Number.POSITIVE_INFINITY : tsMicros(latestArg);
  if (Number.isNaN(oldest)) fail('invalid_ts_oldest');
  if (Number.isNaN(latest)) fail('invalid_ts_latest');
  // Slack docs: inclusive is "Ignored unless either timestamp is specified".
  return { oldest, latest, inclusive: truthy(args.inclusive) && (oldestArg !== undefined || latestArg !== undefined) };
}

function inRange(m: SlackMessage, r: Range): boolean {
  const t = tsMicros(m.ts);
  return r.inclusive ? t >= r.oldest && t <= r.latest : t > r.oldest && t < r.latest;
}

/** Messages of `ch` a member can read (not deleted, not ephemeral). */
function readable(state: SlackState, ch: FakeChannel): SlackMessage[] {
  return state.messages.filter((m) => m.channel === ch.id && !m.deleted && !m.ephemeralTo);
}

/** Thread summary of root `root` among `all`, or undefined when it has no replies. */
function threadSummary(root: SlackMessage, all: SlackMessage[]): ThreadSummary | undefined {
  const replies = all.filter((m) => m.thread_ts === root.ts && m.ts !== root.ts);
  if (replies.length === 0) return undefined;
  const users = [...new Set(replies.map((m) => m.user ?? m.bot_id ?? ''))].filter(Boolean);
  const latest = replies.reduce((a, b) => (tsMicros(b.ts) > tsMicros(a.ts) ? b : a));
  return { replyCount: replies.length, replyUsers: users, latestReply: latest.ts };
}

/** JSON of `m` with metadata (when asked) and thread fields. */
function listedJson(state: SlackState, m: SlackMessage, all: SlackMessage[], includeMetadata: boolean): Json {
  const opts: MessageJsonOptions = { includeMetadata };
  const isReply = m.thread_ts !== undefined && m.thread_ts !== m.ts;
  if (isReply) {
    const parent = all.find((x) => x.ts === m.thread_ts);
    if (parent?.user) opts.parentUserId = parent.user;
  } else {
    const thread = threadSummary(m, all);
    if (thread) opts.thread = thread;
  }
  return state.messageJson(m, opts);
}

const key = (m: SlackMessage): string => String(tsMicros(m.ts));

const HISTORY_PAGES: PageSpec<SlackMessage> = {
  prefix: 'next_ts',
  defaultLimit: 100,
  maxLimit: 999,
  key,
  startAt: (items, k) => items.findIndex((m) => tsMicros(m.ts) <= Number(k)),
};

const REPLIES_PAGES: PageSpec<SlackMessage> = {
  prefix: 'next_ts',
  defaultLimit: 1000,
  maxLimit: 1000,
  key,
  startAt: (items, k) => items.findIndex((m) => tsMicros(m.ts) >= Number(k)),
};

/** The common answer: messages, `has_more`, echoed bounds, `response_metadata` while more follow. */
function listing(
  state: SlackState,
  args: Json,
  ordered: SlackMessage[],
  all: SlackMessage[],
  spec: PageSpec<SlackMessage>,
): Json {
  const page = paginate(ordered, args, spec);
  const includeMetadata = truthy(args.include_all_metadata);
  return {
    ok: true,
    messages: page.items.map((m) => listedJson(state, m, all, includeMetadata)),
    has_more: page.hasMore,
    ...(tsArg(args.oldest) ? { oldest: tsArg(args.oldest) } : {}),
    ...(tsArg(args.latest) ? { latest: tsArg(args.latest) } : {}),
    pin_count: 0,
    ...(page.hasMore ? { response_metadata: { next_cursor: page.nextCursor } } : {}),
  };
}

function history(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel);
  const range = timeRange(args);
  const all = readable(state, ch);
  const top = all
    .filter((m) => (!m.thread_ts || m.thread_ts === m.ts) && inRange(m, range))
    .sort((a, b) => tsMicros(b.ts) - tsMicros(a.ts));
  return listing(state, args, top, all, HISTORY_PAGES);
}

function replies(state: SlackState, args: Json): Json {
  const ch = state.requireChannel(args.channel);
  const range = timeRange(args);
  const all = readable(state, ch);
  const ts = str(args.ts) ?? fail('thread_not_found');
  const named = all.find((m) => m.ts === ts) ?? fail('thread_not_found');
  const rootTs = named.thread_ts ?? named.ts;
  const thread = all
    .filter((m) => (m.ts === rootTs || m.thread_ts === rootTs) && inRange(m, range))
    .sort((a, b) => tsMicros(a.ts) - tsMicros(b.ts));
  return listing(state, args, thread, all, REPLIES_PAGES);
}

/**
 * `conversations.history` and `conversations.replies` over `state`. Errors: `channel_not_found`,
 * `not_in_channel`, `thread_not_found`, `invalid_ts_oldest`, `invalid_ts_latest`, `invalid_cursor`,
 * `invalid_limit`.
 */
export function historyMethods(state: SlackState): MethodTable {
  return {
    'conversations.history': (args) => history(state, args),
    'conversations.replies': (args) => replies(state, args),
  };
}
