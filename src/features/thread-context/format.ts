import { markupToText, type UserNameLookup } from '../../platform/slack/markup.js';

/**
 * Slack messages → the plain-text lines of a docs agent prompt's context (fitting and fencing them is
 * prompt.ts's). Pure apart from the user-name lookup.
 */

/** A message as `conversations.replies` returns it (only the fields read; Slack docs: "Message object"). */
export interface ThreadMessage {
  ts: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
  /** Name of a bot or integration message (Slack: `username`, `bot_profile.name`). */
  username?: string;
  bot_profile?: { name?: string };
  files?: { name?: string; title?: string; permalink?: string }[];
}

/** The bot's own ids (auth.test `user_id` and `bot_id`): its messages are never context. */
export interface BotSelf {
  userId?: string;
  botId?: string;
}

/** Subtypes of messages that carry what people (or other apps) said; joins, topic changes and the like are left out. */
const CONTENT_SUBTYPES = new Set<string | undefined>([
  undefined,
  'file_share',
  'thread_broadcast',
  'bot_message',
  'me_message',
]);

/** True for a message that is context: said by someone other than this bot, with text or files. */
export function isContext(m: ThreadMessage, self: BotSelf): boolean {
  if (!CONTENT_SUBTYPES.has(m.subtype)) return false;
  if ((self.userId && m.user === self.userId) || (self.botId && m.bot_id === self.botId)) return false;
  return Boolean(m.text?.trim()) || Boolean(m.files?.length);
}

/** `YYYY-MM-DD HH:MM` (UTC) of a Slack ts. */
function utcMinute(ts: string): string {
  const d = new Date(Math.floor(Number(ts)) * 1000);
  return Number.isNaN(d.getTime()) ? ts : d.toISOString().slice(0, 16).replace('T', ' ');
}

/** What follows an app's name: its text was not written by the team (webhooks, integrations, other bots). */
const APP_LABEL = '[app, not written by the team]';

/**
 * The author's name: a person's display name (users.info), else their id; an app's name followed
 * by {@link APP_LABEL}. A failed name lookup falls back to the id (a name is a nicety).
 */
async function authorName(m: ThreadMessage, lookup: UserNameLookup): Promise<string> {
  // A failed lookup falls back to the id (a name is a nicety; the lookup logs its own failures).
  if (m.user && !m.bot_id) return (await lookup(m.user).catch(() => undefined)) ?? m.user;
  // As above: the id stands in for a name that can't be looked up.
  const name =
    m.bot_profile?.name ||
    m.username ||
    (m.user ? ((await lookup(m.user).catch(() => undefined)) ?? m.user) : 'an app');
  return `${name} ${APP_LABEL}`;
}

/**
 * One message as a line of context: `Name (YYYY-MM-DD HH:MM UTC): text`, Slack markup made plain
 * (mentions → `@name`, channels → `#name`, links → `label (url)`, escapes undone; the bot's own
 * mention removed), then each file as `[file: name permalink]`.
 */
async function formatMessage(m: ThreadMessage, self: BotSelf, lookup: UserNameLookup): Promise<string> {
  // The author first: when a request's name lookups run out, who said it matters more than whom it mentions.
  const author = await authorName(m, lookup);
  const text = await markupToText(m.text ?? '', self.userId, lookup);
  const files = (m.files ?? []).map(
    (f) => `[file: ${f.name || f.title || 'file'}${f.permalink ? ` ${f.permalink}` : ''}]`,
  );
  const body = [text, ...files].filter(Boolean).join(' ');
  return `${author} (${utcMinute(m.ts)} UTC): ${body}`;
}

/**
 * Lines produced on demand: `count` of them, the i-th (0 = oldest) formatted when first asked for,
 * once. Fitting a long thread to the prompt asks only for the lines it keeps (and the one that did
 * not fit), so only those cost name lookups.
 */
export interface LineSource {
  count: number;
  line(i: number): Promise<string>;
}

/** A {@link LineSource} over lines already made. */
export function linesOf(lines: readonly string[]): LineSource {
  return { count: lines.length, line: (i) => Promise.resolve(lines[i] ?? '') };
}

/**
 * The context lines of a thread, oldest first (the order conversations.replies gives), formatted on
 * demand, leaving out this bot's messages, messages without content, and `excludeTs` (the request's
 * own message); `last`, when given and the thread has lines, follows them (e.g. "later replies not read").
 */
export function threadLines(
  messages: ThreadMessage[],
  self: BotSelf,
  lookup: UserNameLookup,
  opts: { excludeTs?: string | undefined; last?: string | undefined } = {},
): LineSource {
  const kept = messages.filter((m) => m.ts !== opts.excludeTs && isContext(m, self));
  const last = kept.length > 0 ? opts.last : undefined;
  const made = new Map<number, Promise<string>>();
  const make = (i: number): Promise<string> => {
    const m = kept[i];
    return m ? formatMessage(m, self, lookup) : Promise.resolve(last ?? '');
  };
  return {
    count: kept.length + (last ? 1 : 0),
    line: (i) => {
      let p = made.get(i);
      if (!p) made.set(i, (p = make(i)));
      return p;
    },
  };
}

/** Every context line of a thread at once (see {@link threadLines}): for short threads and tests. */
export async function formatThread(
  messages: ThreadMessage[],
  self: BotSelf,
  lookup: UserNameLookup,
  excludeTs?: string,
): Promise<string[]> {
  const src = threadLines(messages, self, lookup, { excludeTs });
  return Promise.all(Array.from({ length: src.count }, (_, i) => src.line(i)));
}
