import type { Logger } from '../../platform/logger.js';
import {
  MembersUnknownError,
  type ConversationDirectory,
  type Visibility,
} from '../../platform/slack/conversations.js';
import { classifySlackError, slackErrorCode } from '../../platform/slack/errors.js';
import { markupToText } from '../../platform/slack/markup.js';
import { withQuoted } from '../../platform/prompt-fence.js';
import type { UserNames } from '../../platform/slack/user-names.js';
import { isContext, threadLines } from './format.js';
import { assemblePrompt, type ContextSection, type PromptStats } from './prompt.js';
import {
  findMessageLinks,
  MAX_LINKS,
  quotedLinksLine,
  refusedLinksLine,
  type LinkRefusal,
  type MessageLink,
} from './links.js';
import {
  botSelf,
  ThreadContextErrorCode,
  ThreadUnreadableError,
  unreadable,
  unreadCount,
  type ThreadReader,
  type ThreadReadSlack,
  type ThreadRead,
} from './read.js';
import { hasCode, PlatformErrorCode } from '../../platform/errors.js';

export { botSelf, ThreadUnreadableError, unreadable };

/** The Web API methods the context is read with (scopes: *:history, *:read). */
type ThreadContextSlack = ThreadReadSlack;

/** What reading and building context needs. */
export interface ThreadContextDeps {
  slack: ThreadContextSlack;
  /** Who is in a conversation and how public it is (cached; shared with the follow-up check). */
  conversations: Pick<ConversationDirectory, 'isMember' | 'visibilityOf'>;
  /** ACCESS_ALLOWED_CHANNELS: links into other conversations are not expanded (empty: any). */
  allowedChannels: readonly string[];
  /** People's names for mentions and authors (users.info on a client of their own, cached). */
  names: Pick<UserNames, 'lookup'>;
  logger: Logger;
  /** AGENT_PROMPT_MAX_CHARS: the longest prompt, instruction included. */
  maxChars: number;
  /** Reads threads, bounded and briefly cached (shared by the preview and the context). */
  reader: Pick<ThreadReader, 'firstPage' | 'forContext'>;
  /** Draws the id of each prompt's fence markers (platform/prompt-fence.ts). @defaultValue 8 random bytes, hex */
  fenceId?: () => string;
}

/** The line that stands for the replies of a thread too long to read whole (they were not read). */
export function unreadLine(n: number): string {
  return `[… ${n} later ${n === 1 ? 'reply' : 'replies'} not read: the thread is longer than the prompt can hold …]`;
}

/** {@link unreadLine} for a thread not read whole, else undefined. */
function unreadNote(read: ThreadRead): string | undefined {
  const unread = unreadCount(read);
  return unread > 0 ? unreadLine(unread) : undefined;
}

/** A request whose instruction may get Slack context (a thread, message links in it); agent-jobs' prompts are built from it. */
export interface ContextRequest {
  /** The requester's workspace (names are looked up per team); omitted: the bot's own. */
  teamId?: string;
  channel: string;
  requester: string;
  /** Plain text (Slack markup already converted), trimmed, non-empty. */
  instruction: string;
  /** The thread the request was made in or pointed at (same channel); `excludeTs` is the request's own message in it. */
  thread?: { ts: string; excludeTs?: string };
  /**
   * Text the bot quotes for the agent (a question, an answer, reader text), already fenced
   * (platform/prompt-fence.ts) under a line saying it is information: it follows the instruction in
   * the prompt, and nothing in it acts (no `project=`; its links are never read, and the person is
   * told they were not).
   */
  quoted?: string;
}

/** Outcome of {@link buildPrompt}. */
export type ContextResult =
  | {
      ok: true;
      prompt: string;
      /** Lines for the requester (links not expanded; private text that may reach the pull request). */
      notice?: string;
      /** The conversations whose messages are in the prompt (ids, in order): follow-ups need their members. */
      sources: string[];
      stats: PromptStats & { links: number; linksRead: number };
    }
  | { ok: false; reason: 'bot_cannot_read' | 'not_found'; message: string };

/** The person's sentence when the thread a request is about can't be read. */
const CANNOT_READ_TEXT = {
  bot_cannot_read:
    "I can't read that conversation: I'm not in it. Invite me with `/invite @Docs Agent` (in a DM, use the shortcut in a channel I'm in instead), then try again. Nothing was started.",
  not_found: 'That message no longer exists, so there is no thread to read. Nothing was started.',
} as const;

/** Reads one linked thread, if its conversation is allowed, the requester is in it and the bot can read it. */
async function readLink(
  deps: ThreadContextDeps,
  requester: string,
  link: MessageLink,
): Promise<{ read: ThreadRead } | { why: LinkRefusal }> {
  if (deps.allowedChannels.length > 0 && !deps.allowedChannels.includes(link.channel))
    return { why: 'not_allowed_channel' };
  try {
    if (!(await deps.conversations.isMember(link.channel, requester).catch(unreadable))) return { why: 'not_member' };
    return { read: await deps.reader.forContext(link.channel, link.threadTs, deps.maxChars) };
  } catch (err) {
    if (hasCode<ThreadUnreadableError>(err, ThreadContextErrorCode.ThreadUnreadable)) return { why: err.reason };
    // A list too long to read is an answer; 'busy' (Slack rate limits, the read budgets) is worth retrying, below.
    if (hasCode<MembersUnknownError>(err, PlatformErrorCode.MembersUnknown) && err.reason === 'too_large')
      return { why: 'members_unknown' };
    if (classifySlackError(err).kind === 'transient') throw err;
    deps.logger.warn({ slackError: slackErrorCode(err), channel: link.channel }, 'could not read a linked thread');
    return { why: 'slack_error' };
  }
}

/** How public a conversation is; a conversation Slack won't describe counts as private (the careful answer). */
async function visibility(deps: ThreadContextDeps, channel: string): Promise<Visibility> {
  try {
    return await deps.conversations.visibilityOf(channel);
  } catch (err) {
    deps.logger.warn(
      { slackError: slackErrorCode(err), channel },
      'could not tell how public a conversation is; taken as private',
    );
    return 'private';
  }
}

/**
 * The line telling the requester that text from private conversations other than the job's own
 * went to the agent (it may end up in the pull request), or undefined when none did.
 */
async function privateSourcesLine(
  deps: ThreadContextDeps,
  jobChannel: string,
  sources: string[],
): Promise<string | undefined> {
  const others = [...new Set(sources.filter((c) => c !== jobChannel))];
  const vis = await Promise.all(others.map(async (c) => ({ c, v: await visibility(deps, c) })));
  const hidden = vis.filter((x) => x.v !== 'public').map((x) => x.c);
  if (hidden.length === 0) return undefined;
  const where = hidden.map((c) => (c.startsWith('D') ? 'a direct message' : `<#${c}>`)).join(', ');
  return `Heads-up: messages from a private conversation (${where}) went to the docs agent with this job. What the agent writes may end up in the pull request, where people outside that conversation can read it. Only people in every conversation the job read can send it follow-ups.`;
}

/**
 * The docs agent's prompt for a request: the instruction as typed, then the thread it was made in
 * (if any) and the threads of up to {@link MAX_LINKS} message permalinks in the instruction, each
 * fitted to AGENT_PROMPT_MAX_CHARS (only the lines kept are formatted) and fenced. People's names
 * come from one lookup for the whole request: at most NAME_LOOKUPS_PER_REQUEST users.info calls
 * (platform/slack/user-names.ts), the root and newest lines first; a person not looked up stays `@U…`.
 * A link is read only when its conversation is in ACCESS_ALLOWED_CHANNELS (when set), the requester
 * is a member of it and the bot can read it; the others make one `notice` line for the person, and
 * so does text from a private conversation other than the request's own. Text the bot quotes
 * (`req.quoted`) follows the instruction as it is: no link in it is read (one notice line says so).
 * `sources` names the
 * conversations whose messages went in. Logs counts and ids only, never message text.
 * Ask access and take the agent budget before calling it: it reads Slack.
 * @returns the prompt, or why the request's own thread can't be read (then nothing should start).
 * @throws transient Slack errors (worth retrying).
 */
export async function buildPrompt(deps: ThreadContextDeps, req: ContextRequest): Promise<ContextResult> {
  const self = await botSelf(deps.slack);
  const lookup = deps.names.lookup(req.teamId);
  const sections: ContextSection[] = [];
  const sources: string[] = [];
  if (req.thread) {
    let read: ThreadRead;
    try {
      read = await deps.reader.forContext(req.channel, req.thread.ts, deps.maxChars);
    } catch (err) {
      if (hasCode<ThreadUnreadableError>(err, ThreadContextErrorCode.ThreadUnreadable))
        return { ok: false, reason: err.reason, message: CANNOT_READ_TEXT[err.reason] };
      throw err;
    }
    const lines = threadLines(read.messages, self, lookup, { excludeTs: req.thread.excludeTs, last: unreadNote(read) });
    sections.push({ source: 'the Slack thread this request was made in', lines });
    if (lines.count > 0) sources.push(req.channel);
  }
  const links = findMessageLinks(req.instruction).filter(
    (l) => !(req.thread && l.channel === req.channel && l.threadTs === req.thread.ts),
  );
  const refused: { url: string; why: LinkRefusal }[] = links
    .slice(MAX_LINKS)
    .map((l) => ({ url: l.url, why: 'too_many' }));
  for (const link of links.slice(0, MAX_LINKS)) {
    const read = await readLink(deps, req.requester, link);
    if ('why' in read) refused.push({ url: link.url, why: read.why });
    else {
      const lines = threadLines(read.read.messages, self, lookup, { last: unreadNote(read.read) });
      sections.push({ source: `the Slack thread linked as ${link.url}`, lines });
      if (lines.count > 0) sources.push(link.channel);
    }
  }
  const { prompt, stats } = await assemblePrompt(
    withQuoted(req.instruction, req.quoted),
    sections,
    deps.maxChars,
    deps.fenceId ? { randomId: deps.fenceId } : {},
  );
  const all = { ...stats, links: links.length, linksRead: links.length - refused.length };
  deps.logger.info({ channel: req.channel, ...all }, 'built the prompt context');
  const notice = [
    refusedLinksLine(refused),
    quotedLinksLine(req.quoted),
    await privateSourcesLine(deps, req.channel, sources),
  ]
    .filter(Boolean)
    .join('\n');
  return { ok: true, prompt, ...(notice ? { notice } : {}), sources: [...new Set(sources)], stats: all };
}

/** What the shortcut's modal shows about a thread before anything starts. */
export type ThreadPreview =
  | { ok: true; messages: number; authors: string[]; firstLine: string }
  | { ok: false; reason: 'bot_cannot_read' | 'not_found' };

/**
 * A short preview of a thread from its first page only: how many messages are context (those
 * read, plus the replies not read, counted from the root's `reply_count`), who wrote them (user
 * ids in order of first appearance, then the root's `reply_users` not seen yet) and the first
 * line of the first one (plain text; only that line's mentions are looked up).
 * @throws transient Slack errors.
 */
export async function previewThread(
  deps: {
    slack: Pick<ThreadContextSlack, 'auth'>;
    names: Pick<UserNames, 'lookup'>;
    reader: Pick<ThreadReader, 'firstPage'>;
  },
  channel: string,
  ts: string,
): Promise<ThreadPreview> {
  let read: ThreadRead;
  try {
    read = await deps.reader.firstPage(channel, ts);
  } catch (err) {
    if (hasCode<ThreadUnreadableError>(err, ThreadContextErrorCode.ThreadUnreadable))
      return { ok: false, reason: err.reason };
    throw err;
  }
  const self = await botSelf(deps.slack);
  const kept = read.messages.filter((m) => isContext(m, self));
  const replyUsers = (read.messages[0] as { reply_users?: string[] } | undefined)?.reply_users ?? [];
  const authors = [...new Set([...kept.map((m) => m.user ?? m.bot_id ?? ''), ...(read.next ? replyUsers : [])])].filter(
    (u) => u && u !== self.userId,
  );
  // Only the line shown is converted (its mentions are the only names looked up): the first that is not empty as text.
  const lookup = deps.names.lookup();
  let firstLine = '';
  for (const raw of (kept[0]?.text ?? '').split('\n')) {
    firstLine = await markupToText(raw, self.userId, lookup);
    if (firstLine) break;
  }
  return { ok: true, messages: kept.length + unreadCount(read), authors, firstLine };
}
