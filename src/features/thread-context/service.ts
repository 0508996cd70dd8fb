import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/logger.js';
import { classifySlackError, slackErrorCode } from '../../platform/slack/errors.js';
import { markupToText } from '../../platform/slack/markup.js';
import { userNameLookup } from '../../platform/slack/user-names.js';
import { assemblePrompt, formatThread, isContext, type BotSelf, type ContextSection, type PromptStats, type ThreadMessage } from './format.js';
import { findMessageLinks, MAX_LINKS, refusedLinksLine, type LinkRefusal, type MessageLink } from './links.js';

/** The Web API methods the context is read with (scopes: *:history, *:read, users:read). */
export interface ThreadContextSlack {
  conversations: Pick<WebClient['conversations'], 'replies' | 'members'>;
  users: Pick<WebClient['users'], 'info'>;
  auth: Pick<WebClient['auth'], 'test'>;
}

/** What reading and building context needs. */
export interface ThreadContextDeps {
  slack: ThreadContextSlack;
  logger: Logger;
  /** AGENT_PROMPT_MAX_CHARS: the longest prompt, instruction included. */
  maxChars: number;
  /** `limit` of each conversations.replies / conversations.members page (Slack recommends ≤ 200). Default 200. */
  pageSize?: number;
}

/** Slack errors meaning the bot cannot read a conversation (not a member, or it can't see it at all). */
const NO_ACCESS = new Set(['not_in_channel', 'channel_not_found', 'missing_scope', 'access_denied']);
/** Pages read at most per thread or member list (200 × 100 = 20,000 messages). */
const MAX_PAGES = 100;

/** Thrown by {@link readThread} when the bot cannot read the conversation, or the thread is gone. */
export class ThreadUnreadableError extends Error {
  constructor(
    readonly reason: 'bot_cannot_read' | 'not_found',
    readonly code: string,
  ) {
    super(`cannot read the thread: ${code}`);
    this.name = 'ThreadUnreadableError';
  }
}

/** Reads every page of a cursor-paginated method (`response_metadata.next_cursor`, Slack docs: "Pagination"). */
async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next?: string }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i += 1) {
    const res = await page(cursor);
    all.push(...res.items);
    if (!res.next) break;
    cursor = res.next;
  }
  return all;
}

/** Turns the Slack errors that mean "no access" or "gone" into {@link ThreadUnreadableError}; rethrows the rest. */
function unreadable(err: unknown): never {
  const code = slackErrorCode(err) ?? '';
  if (NO_ACCESS.has(code)) throw new ThreadUnreadableError('bot_cannot_read', code);
  if (code === 'thread_not_found' || code === 'message_not_found') throw new ThreadUnreadableError('not_found', code);
  throw err;
}

/**
 * Every message of the thread that `ts` belongs to (its root first, then the replies, oldest
 * first), all pages of `conversations.replies`. A message without replies comes back alone.
 * @throws {ThreadUnreadableError} when the bot can't read the conversation or the thread is gone;
 *   other Slack errors as thrown (transient ones are worth retrying).
 */
export async function readThread(deps: Pick<ThreadContextDeps, 'slack' | 'pageSize'>, channel: string, ts: string): Promise<ThreadMessage[]> {
  const limit = deps.pageSize ?? 200;
  return allPages(async (cursor) => {
    const res = await deps.slack.conversations.replies({ channel, ts, limit, ...(cursor ? { cursor } : {}) }).catch(unreadable);
    return { items: (res.messages ?? []) as ThreadMessage[], next: res.has_more ? res.response_metadata?.next_cursor || undefined : undefined };
  });
}

/**
 * Whether `user` is a member of `channel` (all pages of `conversations.members`).
 * @throws {ThreadUnreadableError} when the bot can't see the conversation.
 */
export async function isMember(deps: Pick<ThreadContextDeps, 'slack' | 'pageSize'>, channel: string, user: string): Promise<boolean> {
  const limit = deps.pageSize ?? 200;
  const members = await allPages(async (cursor) => {
    const res = await deps.slack.conversations.members({ channel, limit, ...(cursor ? { cursor } : {}) }).catch(unreadable);
    return { items: res.members ?? [], next: res.response_metadata?.next_cursor || undefined };
  });
  return members.includes(user);
}

const selves = new WeakMap<object, Promise<BotSelf>>();

/** The bot's own user id and bot id (auth.test), asked once per client. */
export function botSelf(slack: Pick<ThreadContextSlack, 'auth'>): Promise<BotSelf> {
  let self = selves.get(slack);
  if (!self) {
    self = slack.auth.test().then((r) => ({ ...(r.user_id ? { userId: r.user_id } : {}), ...(r.bot_id ? { botId: r.bot_id } : {}) }));
    self.catch(() => selves.delete(slack));
    selves.set(slack, self);
  }
  return self;
}

/** A request whose instruction may get Slack context. */
export interface ContextRequest {
  channel: string;
  requester: string;
  /** Plain text (Slack markup already converted), trimmed. */
  instruction: string;
  /** The thread the request was made in or pointed at; `excludeTs` is the request's own message in it. */
  thread?: { ts: string; excludeTs?: string };
}

/** Outcome of {@link buildPrompt}. */
export type ContextResult =
  | { ok: true; prompt: string; notice?: string; stats: PromptStats & { links: number; linksRead: number } }
  | { ok: false; reason: 'bot_cannot_read' | 'not_found'; message: string };

/** The person's sentence when the thread a request is about can't be read. */
export const CANNOT_READ_TEXT = {
  bot_cannot_read: "I can't read that conversation: I'm not in it. Invite me with `/invite @Docs Agent` (in a DM, use the shortcut in a channel I'm in instead), then try again. Nothing was started.",
  not_found: 'That message no longer exists, so there is no thread to read. Nothing was started.',
} as const;

/** Reads one linked thread, if the requester is in its conversation and the bot can read it. */
async function readLink(deps: ThreadContextDeps, requester: string, link: MessageLink): Promise<{ messages: ThreadMessage[] } | { why: LinkRefusal }> {
  try {
    if (!(await isMember(deps, link.channel, requester))) return { why: 'not_member' };
    return { messages: await readThread(deps, link.channel, link.threadTs) };
  } catch (err) {
    if (err instanceof ThreadUnreadableError) return { why: err.reason };
    if (classifySlackError(err).kind === 'transient') throw err;
    deps.logger.warn({ slackError: slackErrorCode(err), channel: link.channel }, 'could not read a linked thread');
    return { why: 'slack_error' };
  }
}

/**
 * The docs agent's prompt for a request: the instruction as typed, then the thread it was made in
 * (if any) and the threads of up to {@link MAX_LINKS} message permalinks in the instruction, each
 * formatted and fitted to AGENT_PROMPT_MAX_CHARS. A link is read only when the requester is a
 * member of its conversation (conversations.members) and the bot can read it; the others make one
 * `notice` line for the person. Logs counts and ids only, never message text.
 * @returns the prompt, or why the request's own thread can't be read (then nothing should start).
 * @throws transient Slack errors (worth retrying).
 */
export async function buildPrompt(deps: ThreadContextDeps, req: ContextRequest): Promise<ContextResult> {
  const self = await botSelf(deps.slack);
  const lookup = userNameLookup(deps.slack);
  const sections: ContextSection[] = [];
  if (req.thread) {
    let messages: ThreadMessage[];
    try {
      messages = await readThread(deps, req.channel, req.thread.ts);
    } catch (err) {
      if (err instanceof ThreadUnreadableError) return { ok: false, reason: err.reason, message: CANNOT_READ_TEXT[err.reason] };
      throw err;
    }
    sections.push({ source: 'the Slack thread this request was made in', lines: await formatThread(messages, self, lookup, req.thread.excludeTs) });
  }
  const links = findMessageLinks(req.instruction).filter((l) => !(req.thread && l.channel === req.channel && l.threadTs === req.thread.ts));
  const refused: { url: string; why: LinkRefusal }[] = links.slice(MAX_LINKS).map((l) => ({ url: l.url, why: 'too_many' }));
  for (const link of links.slice(0, MAX_LINKS)) {
    const read = await readLink(deps, req.requester, link);
    if ('why' in read) refused.push({ url: link.url, why: read.why });
    else sections.push({ source: `the Slack thread linked as ${link.url}`, lines: await formatThread(read.messages, self, lookup) });
  }
  const { prompt, stats } = assemblePrompt(req.instruction, sections, deps.maxChars);
  const all = { ...stats, links: links.length, linksRead: links.length - refused.length };
  deps.logger.info({ channel: req.channel, ...all }, 'built the prompt context');
  const notice = refusedLinksLine(refused);
  return { ok: true, prompt, ...(notice ? { notice } : {}), stats: all };
}

/** What the shortcut's modal shows about a thread before anything starts. */
export type ThreadPreview =
  | { ok: true; messages: number; authors: string[]; firstLine: string }
  | { ok: false; reason: 'bot_cannot_read' | 'not_found' };

/**
 * A short preview of a thread: how many messages are context, who wrote them (user ids, in order of
 * first appearance) and the first line of the first one (plain text).
 * @throws transient Slack errors.
 */
export async function previewThread(deps: Pick<ThreadContextDeps, 'slack' | 'pageSize'>, channel: string, ts: string): Promise<ThreadPreview> {
  let messages: ThreadMessage[];
  try {
    messages = await readThread(deps, channel, ts);
  } catch (err) {
    if (err instanceof ThreadUnreadableError) return { ok: false, reason: err.reason };
    throw err;
  }
  const self = await botSelf(deps.slack);
  const kept = messages.filter((m) => isContext(m, self));
  const authors = [...new Set(kept.map((m) => m.user ?? m.bot_id ?? '').filter(Boolean))];
  const firstText = await markupToText(kept[0]?.text ?? '', self.userId, userNameLookup(deps.slack));
  const firstLine = firstText.split('\n')[0]?.trim() ?? '';
  return { ok: true, messages: kept.length, authors, firstLine };
}
