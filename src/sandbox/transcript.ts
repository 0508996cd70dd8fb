/**
 * Renders what the fake Slack recorded as a plain-text transcript a person can read: channels as
 * they would look in the Slack client (threads under their roots, names instead of ids, Block Kit
 * flattened to text), plus a one-line renderer for the live call log.
 */
import type { FakeSlack, SlackCall, SlackMessage } from './fake-slack.js';

/** Options of {@link renderTranscript}. */
export interface TranscriptOptions {
  /** Only this channel id. Default: every channel that has messages, in first-message order. */
  channel?: string;
  /** Display names by user id; falls back to the fake's users, the bot is always "Docs Agent". */
  users?: Record<string, string> | Map<string, string>;
  /** ANSI colours (names, dimmed ephemerals and marks). Default false: plain text. */
  color?: boolean;
}

type Json = Record<string, unknown>;

/** The part of the fake needed to turn ids into names. */
type Directory = Pick<FakeSlack, 'botUserId' | 'users' | 'channels'>;

const BOT_NAME = 'Docs Agent';
const THREAD_PREFIX = '  └ ';

const ANSI = { bold: '1', dim: '2', cyan: '36', magenta: '35', yellow: '33', red: '31' } as const;

function paint(on: boolean, codes: Array<keyof typeof ANSI>, s: string): string {
  if (!on || s === '') return s;
  return `\u001b[${codes.map((c) => ANSI[c]).join(';')}m${s}\u001b[0m`;
}

const asObj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asStr = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Parse a Slack ts ("1700000000.000100") into a sortable microsecond count. */
function tsKey(ts: string): number {
  const [s = '0', micro = '0'] = ts.split('.');
  return Number(s) * 1_000_000 + Number(micro.padEnd(6, '0').slice(0, 6));
}

/** Turns ids and Slack mrkdwn markup into what a reader sees. */
class Namer {
  constructor(
    private readonly slack: Directory,
    private readonly names: Map<string, string>,
  ) {}

  isBot(m: SlackMessage): boolean {
    return m.user === this.slack.botUserId || Boolean(m.bot_id);
  }

  user(id: string | undefined): string {
    if (!id) return 'someone';
    if (id === this.slack.botUserId) return BOT_NAME;
    return this.names.get(id) ?? this.slack.users.find((u) => u.id === id)?.name ?? id;
  }

  channel(id: string): string {
    const ch = this.slack.channels.find((c) => c.id === id);
    if (!ch) return `#${id}`;
    return ch.isIm ? `@${this.user(ch.user)} (DM)` : `#${ch.name}`;
  }

  /** Slack mrkdwn → readable text: `<@U…>` → `@name`, `<#C…|x>` → `#x`, `<url|label>` → `label (url)`, entities unescaped. */
  mrkdwn(text: string): string {
    const out = text.replace(/<([^<>]+)>/g, (_all, inner: string) => {
      const [target = '', label] = inner.split('|', 2);
      if (target.startsWith('@')) return `@${label ?? this.user(target.slice(1))}`;
      if (target.startsWith('#')) return label ? `#${label}` : this.channel(target.slice(1));
      if (target.startsWith('!subteam^')) return `@${label ?? target.slice('!subteam^'.length)}`;
      if (target.startsWith('!date^')) return label ?? target;
      if (target.startsWith('!')) return `@${target.slice(1)}`;
      return label && label !== target ? `${label} (${target})` : target;
    });
    return out.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  }
}

function textObject(v: unknown, namer: Namer): string {
  const o = asObj(v);
  if (!o) return '';
  const text = asStr(o.text);
  return o.type === 'mrkdwn' ? namer.mrkdwn(text) : text;
}

function richElements(elements: unknown[], namer: Namer): string {
  return elements
    .map((raw) => {
      const el = asObj(raw) ?? {};
      switch (el.type) {
        case 'text':
          return asStr(el.text);
        case 'link':
          return el.text ? `${asStr(el.text)} (${asStr(el.url)})` : asStr(el.url);
        case 'user':
          return `@${namer.user(asStr(el.user_id))}`;
        case 'channel':
          return namer.channel(asStr(el.channel_id));
        case 'emoji':
          return `:${asStr(el.name)}:`;
        case 'broadcast':
          return `@${asStr(el.range)}`;
        case 'usergroup':
          return `@${asStr(el.usergroup_id)}`;
        case 'date':
          return asStr(el.fallback) || String(el.timestamp ?? '');
        default:
          return asStr(el.text);
      }
    })
    .join('');
}

function richText(block: Json, namer: Namer): string[] {
  const lines: string[] = [];
  for (const raw of asArr(block.elements)) {
    const part = asObj(raw) ?? {};
    switch (part.type) {
      case 'rich_text_section':
        lines.push(...richElements(asArr(part.elements), namer).split('\n'));
        break;
      case 'rich_text_list': {
        const indent = '  '.repeat(Number(part.indent ?? 0));
        asArr(part.elements).forEach((item, i) => {
          const bullet = part.style === 'ordered' ? `${i + 1}.` : '•';
          lines.push(`${indent}${bullet} ${richElements(asArr(asObj(item)?.elements), namer)}`);
        });
        break;
      }
      case 'rich_text_preformatted':
        lines.push('```', ...richElements(asArr(part.elements), namer).split('\n'), '```');
        break;
      case 'rich_text_quote':
        lines.push(...richElements(asArr(part.elements), namer).split('\n').map((l) => `> ${l}`));
        break;
      default:
        break;
    }
  }
  return lines;
}

/** One interactive element as a reader sees it, e.g. `[ View pull request ↗ https://… ]`. */
function element(v: unknown, namer: Namer): string {
  const el = asObj(v) ?? {};
  const label = textObject(el.text, namer) || textObject(el.placeholder, namer);
  switch (el.type) {
    case 'button':
      return typeof el.url === 'string' ? `[ ${label} ↗ ${el.url} ]` : `[ ${label} ]`;
    case 'static_select':
    case 'external_select':
    case 'users_select':
    case 'conversations_select':
    case 'channels_select':
    case 'multi_static_select':
      return `[ ${label || 'Select'} ▾ ]`;
    case 'overflow':
      return '[ ⋯ ]';
    case 'image':
      return `[image: ${asStr(el.alt_text)}]`;
    case 'datepicker':
      return `[ ${asStr(el.initial_date) || label || 'date'} 📅 ]`;
    case 'plain_text_input':
      return `[ ${label || '…'} ]`;
    default:
      return label ? `[ ${label} ]` : `[${asStr(el.type) || 'element'}]`;
  }
}

/** Render a table block (`rows` of raw_text / rich_text cells) as aligned columns. */
function table(block: Json, namer: Namer): string[] {
  const rows = asArr(block.rows).map((row) =>
    asArr(row).map((cell) => {
      const c = asObj(cell) ?? {};
      if (c.type === 'rich_text') return richText(c, namer).join(' ');
      return asStr(c.text);
    }),
  );
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  const line = (row: string[]): string => row.map((cell, i) => cell + ' '.repeat((widths[i] ?? 0) - [...cell].length)).join(' | ').trimEnd();
  const out = rows.map(line);
  if (out.length > 1) out.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('-+-'));
  return out;
}

/**
 * Flatten Block Kit blocks to readable lines (section/context/header/markdown text, buttons, tables,
 * rich text, images, dividers). Unknown blocks show as `[<type> block]`.
 */
function blocksToLines(blocks: unknown[], namer: Namer): string[] {
  const lines: string[] = [];
  for (const raw of blocks) {
    const block = asObj(raw) ?? {};
    switch (block.type) {
      case 'header':
        lines.push(`== ${textObject(block.text, namer)} ==`);
        break;
      case 'section': {
        const text = textObject(block.text, namer);
        if (text) lines.push(...text.split('\n'));
        // Slack lays fields out in two columns; a field's own line breaks are shown as spaces here.
        const fields = asArr(block.fields).map((f) => textObject(f, namer).replace(/\n+/g, ' '));
        for (let i = 0; i < fields.length; i += 2) lines.push(fields.slice(i, i + 2).join('    '));
        if (block.accessory) lines.push(element(block.accessory, namer));
        break;
      }
      case 'context':
        lines.push(asArr(block.elements).map((e) => (asObj(e)?.type === 'image' ? element(e, namer) : textObject(e, namer))).join(' · '));
        break;
      case 'actions':
        lines.push(asArr(block.elements).map((e) => element(e, namer)).join(' '));
        break;
      case 'divider':
        lines.push('────────');
        break;
      case 'image':
        lines.push(`[image: ${asStr(block.alt_text)}${block.title ? ` — ${textObject(block.title, namer)}` : ''}]`);
        break;
      case 'markdown':
        lines.push(...namer.mrkdwn(asStr(block.text)).split('\n'));
        break;
      case 'rich_text':
        lines.push(...richText(block, namer));
        break;
      case 'table':
        lines.push(...table(block, namer));
        break;
      case 'input':
        lines.push(`${textObject(block.label, namer)}: ${element(block.element, namer)}`);
        break;
      default:
        lines.push(`[${asStr(block.type) || 'unknown'} block]`);
    }
  }
  return lines;
}

function messageLines(m: SlackMessage, namer: Namer, color: boolean, prefix: string): string[] {
  const isBot = namer.isBot(m);
  const name = paint(color, isBot ? ['bold', 'magenta'] : ['bold', 'cyan'], isBot ? BOT_NAME : namer.user(m.user));
  const body = m.blocks && m.blocks.length > 0 ? blocksToLines(m.blocks, namer) : namer.mrkdwn(m.text).split('\n');
  const lines = body.length > 0 ? [...body] : [''];
  if (m.edited) lines[lines.length - 1] = `${lines[lines.length - 1] ?? ''} ${paint(color, ['dim'], '(edited)')}`;
  const head = m.ephemeralTo ? `${paint(color, ['dim'], `(only visible to @${namer.user(m.ephemeralTo)})`)} ` : '';
  const out = [`${prefix}${head}${name}: ${lines[0] ?? ''}`];
  const indent = ' '.repeat([...prefix].length + 2);
  for (const line of lines.slice(1)) out.push(`${indent}${line}`);
  for (const f of m.files ?? []) out.push(`${indent}📎 ${f.title} (${f.size} bytes)`);
  if (m.reactions.length > 0) out.push(`${indent}${paint(color, ['yellow'], m.reactions.map((r) => `:${r}:`).join(' '))}`);
  return out;
}

function toNameMap(users: TranscriptOptions['users']): Map<string, string> {
  if (!users) return new Map();
  return users instanceof Map ? new Map(users) : new Map(Object.entries(users));
}

/**
 * Render the fake's channel state as a person would read it.
 *
 * Top-level messages appear in ts order, each thread's replies indented under its root with `  └ `;
 * ids become names (`<@U0ALICE>` → `@alice`, the bot is "Docs Agent"); Block Kit is flattened (buttons
 * as `[ Label ↗ url ]`, tables as aligned columns); updated messages show their latest state marked
 * "(edited)"; bot reactions as `:name:`; ephemerals as `(only visible to @alice) …`; deleted messages
 * are omitted. Each channel starts with a `── #name ──` header.
 *
 * @param slack - the fake whose `messages` are rendered (read only).
 * @param opts - see {@link TranscriptOptions}.
 * @returns the transcript, lines joined with "\n" (empty string when nothing was recorded).
 */
export function renderTranscript(slack: FakeSlack, opts: TranscriptOptions = {}): string {
  const color = opts.color ?? false;
  const namer = new Namer(slack, toNameMap(opts.users));
  const live = slack.messages.filter((m) => !m.deleted && (!opts.channel || m.channel === opts.channel));
  const channelOrder: string[] = [];
  for (const m of live) if (!channelOrder.includes(m.channel)) channelOrder.push(m.channel);

  const sections: string[] = [];
  for (const channel of channelOrder) {
    const inChannel = live.filter((m) => m.channel === channel).sort((a, b) => tsKey(a.ts) - tsKey(b.ts));
    const roots = new Set(inChannel.map((m) => m.ts));
    const isReply = (m: SlackMessage): boolean => Boolean(m.thread_ts && m.thread_ts !== m.ts && roots.has(m.thread_ts));
    const lines = [paint(color, ['bold'], `── ${namer.channel(channel)} ──`)];
    for (const root of inChannel.filter((m) => !isReply(m))) {
      lines.push(...messageLines(root, namer, color, ''));
      for (const reply of inChannel.filter((m) => isReply(m) && m.thread_ts === root.ts)) {
        lines.push(...messageLines(reply, namer, color, paint(color, ['dim'], THREAD_PREFIX)));
      }
    }
    sections.push(lines.join('\n'));
  }
  return sections.join('\n\n');
}

function summarize(call: SlackCall, max = 60): string {
  const a = call.args;
  let text = asStr(a.text) || asStr(a.initial_comment);
  if (!text && Array.isArray(a.blocks)) {
    const empty: Directory = { botUserId: '', users: [], channels: [] };
    text = blocksToLines(a.blocks, new Namer(empty, new Map())).filter(Boolean).join(' / ');
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * One line for the sandbox's live log of a recorded call, e.g.
 * `chat.update C0DOCS 1700000000.000100 "Opened PR #12"`, `reactions.add C0DOCS 1700000000.000200 :eyes:`,
 * `views.publish U0ALICE home`; failures end with ` → error_code` or ` → HTTP 429 retry-after 1s`.
 *
 * @param call - a {@link SlackCall} from `FakeSlack.calls` / `onCall`.
 * @returns a single line without trailing newline.
 */
export function renderCall(call: SlackCall): string {
  const a = call.args;
  const response = asObj(call.response) ?? {};
  const parts: string[] = [call.method];
  const channel = asStr(a.channel) || asStr(a.channel_id);
  if (channel) parts.push(channel);
  if (call.method.startsWith('views.')) {
    const who = asStr(a.user_id) || asStr(a.view_id) || asStr(a.trigger_id);
    if (who) parts.push(who);
    const type = asStr(asObj(a.view)?.type);
    if (type) parts.push(type);
  } else if (call.method === 'users.info') {
    parts.push(asStr(a.user));
  } else if (call.method.startsWith('files.') || call.method === 'file_upload') {
    const name = asStr(a.filename) || asArr(a.files).map((f) => asStr(asObj(f)?.title) || asStr(asObj(f)?.id)).join(',');
    if (name) parts.push(name);
    if (asStr(response.file_id)) parts.push(asStr(response.file_id));
  } else if (call.method === 'response_url') {
    const mode = a.delete_original === true ? 'delete_original' : a.replace_original === true ? 'replace_original' : asStr(a.response_type) || 'ephemeral';
    parts.push(mode);
  }
  const ts = asStr(a.ts) || asStr(a.timestamp) || asStr(a.message_ts) || asStr(response.ts) || asStr(response.message_ts);
  if (ts) parts.push(ts);
  if (asStr(a.thread_ts)) parts.push(`(thread ${asStr(a.thread_ts)})`);
  if (asStr(a.name)) parts.push(`:${asStr(a.name)}:`);
  const text = summarize(call);
  if (text) parts.push(`"${text}"`);
  let line = parts.filter(Boolean).join(' ');
  if (call.status === 429) line += ` → HTTP 429 retry-after ${call.retryAfterS ?? '?'}s`;
  else if (response.ok === false) line += ` → ${asStr(response.error) || 'error'}`;
  else if (call.status >= 400) line += ` → HTTP ${call.status}`;
  return line;
}
