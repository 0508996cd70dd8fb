/**
 * Renders what the fake Slack recorded as a plain-text transcript a person can read: channels as
 * they would look in the Slack client (threads under their roots, names instead of ids, Block Kit
 * flattened to text, buttons numbered so a reader can press them), plus a one-line renderer for the
 * live call log.
 *
 * The pieces live in `./transcript/`: `names.ts` (ids and mrkdwn → names), `blocks.ts` (Block Kit →
 * lines) and `call-line.ts` (the call log). This module is the stable entry point.
 */
import type { FakeSlack, SlackMessage } from './fake-slack.js';
import { loadingLines, promptLines, sessionLines } from './transcript/agent.js';
import { blocksToLines, textObject, type ButtonNumberer } from './transcript/blocks.js';
import { asStr, BOT_NAME, Namer, paint, type Directory } from './transcript/names.js';

export { renderCall } from './transcript/call-line.js';

/** Options of {@link renderTranscript}. */
export interface TranscriptOptions {
  /** Only this channel id. Default: every channel that has messages, in first-message order. */
  channel?: string;
  /** Display names by user id; falls back to the fake's users, the bot is always "Docs Agent". */
  users?: Record<string, string> | Map<string, string>;
  /** ANSI colours (names, dimmed ephemerals and marks). Default false: plain text. */
  color?: boolean;
}

/**
 * One numbered button of a rendered transcript: what a click on it must carry in a `block_actions`
 * payload (Slack docs: "block_actions payload": `container.channel_id`, `container.message_ts`,
 * `actions[].action_id` / `value` / `block_id`). Link buttons (`url`) send block_actions too.
 */
export interface ButtonRef {
  /** The number shown in the transcript, `[n: Label]`; 1-based, in order of appearance. */
  n: number;
  /** The button's text as shown. */
  label: string;
  /** Channel id of the message holding the button. */
  channel: string;
  /** ts of the message holding the button. */
  messageTs: string;
  /**
   * The button's `action_id`. Slack generates one when a button has none; the transcript then uses
   * the stand-in `button-<n>`.
   */
  actionId: string;
  value?: string;
  /** block_id of the block holding the button, when the block has one (Slack generates one otherwise). */
  blockId?: string;
  /** For link buttons: the URL the client opens. */
  url?: string;
}

/** A rendered transcript and its numbered buttons (`buttons[i].n === i + 1`). */
export interface RenderedTranscript {
  text: string;
  buttons: ButtonRef[];
}

const THREAD_PREFIX = '  └ ';

/** Parse a Slack ts ("1700000000.000100") into a sortable microsecond count. */
function tsKey(ts: string): number {
  const [s = '0', micro = '0'] = ts.split('.');
  return Number(s) * 1_000_000 + Number(micro.padEnd(6, '0').slice(0, 6));
}

/** What rendering a transcript carries along: names, colour, and the buttons numbered so far. */
interface Pen {
  namer: Namer;
  /** The fake's agent state (suggested prompts, loading lines, sessions). */
  agent?: FakeSlack['agent'];
  /** The fake's streams: a streamed message shows its text, then its blocks, and a mark while not completed. */
  streams?: FakeSlack['streams'];
  color: boolean;
  buttons: ButtonRef[];
}

/** Numbers the buttons of message `m` on from `pen.buttons.length + 1`, remembering each. */
function buttonNumberer(m: SlackMessage, pen: Pen): ButtonNumberer {
  return (el, blockId) => {
    const n = pen.buttons.length + 1;
    const ref: ButtonRef = {
      n,
      label: textObject(el.text, pen.namer),
      channel: m.channel,
      messageTs: m.ts,
      actionId: asStr(el.action_id) || `button-${n}`,
    };
    if (typeof el.value === 'string') ref.value = el.value;
    if (blockId) ref.blockId = blockId;
    if (typeof el.url === 'string') ref.url = el.url;
    pen.buttons.push(ref);
    return n;
  };
}

const STREAM_MARKS = {
  in_progress: '(streaming…)',
  stopped_by_user: '(stopped by the reader)',
  expired: '(stream ended by Slack)',
} as const;

/**
 * A message's body lines: its blocks, else its text. A streamed message (chat.startStream) shows
 * its text and then its blocks (Slack renders the stop's blocks "at the bottom of the finalized
 * message"), marked while it is not completed.
 */
function bodyLines(m: SlackMessage, pen: Pen): string[] {
  const { namer } = pen;
  const blocks = m.blocks && m.blocks.length > 0 ? blocksToLines(m.blocks, namer, buttonNumberer(m, pen)) : [];
  const stream = pen.streams?.get(m.channel, m.ts);
  if (!stream) return blocks.length > 0 ? blocks : namer.mrkdwn(m.text).split('\n');
  const lines = [...(m.text === '' ? [] : namer.mrkdwn(m.text).split('\n')), ...blocks];
  if (stream.state !== 'completed') lines.push(paint(pen.color, ['dim'], STREAM_MARKS[stream.state]));
  return lines;
}

function messageLines(m: SlackMessage, pen: Pen, prefix: string): string[] {
  const { namer, color } = pen;
  const isBot = namer.isBot(m);
  const name = paint(color, isBot ? ['bold', 'magenta'] : ['bold', 'cyan'], isBot ? BOT_NAME : namer.user(m.user));
  const body = bodyLines(m, pen);
  const lines = body.length > 0 ? [...body] : [''];
  if (m.edited) lines[lines.length - 1] = `${lines[lines.length - 1] ?? ''} ${paint(color, ['dim'], '(edited)')}`;
  const head = m.ephemeralTo ? `${paint(color, ['dim'], `(only visible to @${namer.user(m.ephemeralTo)})`)} ` : '';
  const out = [`${prefix}${head}${name}: ${lines[0] ?? ''}`];
  const indent = ' '.repeat([...prefix].length + 2);
  for (const line of lines.slice(1)) out.push(`${indent}${line}`);
  for (const f of m.files ?? []) out.push(`${indent}📎 ${f.title} (${f.size} bytes)`);
  if (m.reactions.length > 0)
    out.push(`${indent}${paint(color, ['yellow'], m.reactions.map((r) => `:${r}:`).join(' '))}`);
  return out;
}

/** One channel: its `── #name ──` header, then top-level messages in ts order with their thread replies under them. */
function channelLines(channel: string, messages: SlackMessage[], pen: Pen): string[] {
  const inChannel = messages.filter((m) => m.channel === channel).sort((a, b) => tsKey(a.ts) - tsKey(b.ts));
  const roots = new Set(inChannel.map((m) => m.ts));
  const isReply = (m: SlackMessage): boolean => Boolean(m.thread_ts && m.thread_ts !== m.ts && roots.has(m.thread_ts));
  const lines = [
    paint(pen.color, ['bold'], `── ${pen.namer.channel(channel)} ──`),
    ...promptLines(pen.agent, channel, pen.color),
  ];
  for (const root of inChannel.filter((m) => !isReply(m))) {
    const replies = inChannel.filter((m) => isReply(m) && m.thread_ts === root.ts);
    const seen = new Set([root.ts, ...replies.map((r) => r.ts)]);
    lines.push(...messageLines(root, pen, ''), ...loadingLines(pen.agent, root, root.ts, seen, pen.color));
    for (const reply of replies) {
      lines.push(
        ...messageLines(reply, pen, paint(pen.color, ['dim'], THREAD_PREFIX)),
        ...loadingLines(pen.agent, root, reply.ts, seen, pen.color),
      );
    }
    lines.push(
      ...loadingLines(pen.agent, root, undefined, seen, pen.color),
      ...sessionLines(pen.agent, root, pen.color),
    );
  }
  return lines;
}

function toNameMap(users: TranscriptOptions['users']): Map<string, string> {
  if (!users) return new Map();
  return users instanceof Map ? new Map(users) : new Map(Object.entries(users));
}

/**
 * Render the fake's channel state as a person would read it, numbering its buttons.
 *
 * Top-level messages appear in ts order, each thread's replies indented under its root with `  └ `;
 * ids become names (`<@U0ALICE>` → `@alice`, the bot is "Docs Agent"); Block Kit is flattened (buttons
 * as `[1: Label ↗ url]` / `[2: Label]`, numbered in order of appearance across the transcript, tables
 * as aligned columns); updated messages show their latest state marked "(edited)"; bot reactions as
 * `:name:`; ephemerals as `(only visible to @alice) …`; deleted messages are omitted; a streamed reply
 * shows its text and then its blocks, with `(streaming…)` until it is stopped. Each channel starts
 * with a `── #name ──` header.
 *
 * @param slack - the fake whose `messages` are rendered (read only).
 * @param opts - see {@link TranscriptOptions}.
 * @returns the transcript text (lines joined with "\n", empty string when nothing was recorded) and
 *   which button each number is.
 */
export function renderTranscriptWithButtons(slack: FakeSlack, opts: TranscriptOptions = {}): RenderedTranscript {
  const namer = new Namer(slack, toNameMap(opts.users));
  const pen: Pen = { namer, color: opts.color ?? false, buttons: [], agent: slack.agent, streams: slack.streams };
  const live = slack.messages.filter((m) => !m.deleted && (!opts.channel || m.channel === opts.channel));
  const channelOrder: string[] = [];
  for (const m of live) if (!channelOrder.includes(m.channel)) channelOrder.push(m.channel);
  // A Messages tab with suggestions but no message yet is shown too.
  for (const c of slack.agent?.prompts.keys() ?? [])
    if (!channelOrder.includes(c) && (!opts.channel || c === opts.channel)) channelOrder.push(c);
  const text = channelOrder.map((channel) => channelLines(channel, live, pen).join('\n')).join('\n\n');
  return { text, buttons: pen.buttons };
}

/**
 * Render the fake's channel state as a person would read it: the text of
 * {@link renderTranscriptWithButtons} (buttons numbered `[1: Label]`).
 *
 * @param slack - the fake whose `messages` are rendered (read only).
 * @param opts - see {@link TranscriptOptions}.
 * @returns the transcript, lines joined with "\n" (empty string when nothing was recorded).
 */
export function renderTranscript(slack: FakeSlack, opts: TranscriptOptions = {}): string {
  return renderTranscriptWithButtons(slack, opts).text;
}

/**
 * Render Block Kit blocks outside a message (e.g. an App Home view) with the transcript's block
 * renderer: ids become names, buttons are drawn unnumbered as `[ Label ↗ url ]`.
 *
 * @param slack - users and channels for names (the fake itself will do).
 * @param blocks - a `blocks` array as sent to Slack.
 * @returns the lines, joined with "\n".
 */
export function renderBlocks(slack: Directory, blocks: unknown[], opts: Pick<TranscriptOptions, 'users'> = {}): string {
  return blocksToLines(blocks, new Namer(slack, toNameMap(opts.users))).join('\n');
}
