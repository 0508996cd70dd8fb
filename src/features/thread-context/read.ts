import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import { slackErrorCode } from '../../platform/slack/errors.js';
import type { BotSelf, ThreadMessage } from './format.js';

/** The Web API methods a thread is read with (scopes: *:history). */
export interface ThreadReadSlack {
  conversations: Pick<WebClient['conversations'], 'replies'>;
  auth: Pick<WebClient['auth'], 'test'>;
  /** `WebClient.paginate`, over `conversations.replies`. */
  paginate: WebClient['paginate'];
}

/** Slack errors meaning the bot cannot read a conversation (not a member, or it can't see it at all). */
const NO_ACCESS = new Set(['not_in_channel', 'channel_not_found', 'missing_scope', 'access_denied']);
/** Pages of `conversations.replies` read at most for a job's context (× the page size, 200: 1,000 messages). */
export const CONTEXT_PAGE_CAP = 5;
/** `limit` of each conversations.replies page (Slack recommends no more than 200). */
const THREAD_PAGE_SIZE = 200;
/** How long a thread read is kept, so a preview and the start right after it read Slack once, in ms. */
const THREAD_CACHE_TTL_MS = 60_000;
/** Characters a message costs in the prompt besides its text (author, date), for the read cap. */
const LINE_OVERHEAD = 30;

/** The codes of the thread context's errors (decided on with `hasCode`, platform/errors.ts). */
export const ThreadContextErrorCode = {
  /** The bot cannot read the conversation, or the thread is gone ({@link ThreadUnreadableError}). */
  ThreadUnreadable: 'thread_unreadable',
} as const;

/** Thrown when the bot cannot read the conversation, or the thread is gone; `slackError` is Slack's `error`. */
export class ThreadUnreadableError extends Error {
  readonly code = ThreadContextErrorCode.ThreadUnreadable;
  constructor(
    readonly reason: 'bot_cannot_read' | 'not_found',
    readonly slackError: string,
  ) {
    super(`cannot read the thread: ${slackError}`);
    this.name = 'ThreadUnreadableError';
  }
}

/** Turns the Slack errors that mean "no access" or "gone" into {@link ThreadUnreadableError}; rethrows the rest. */
export function unreadable(err: unknown): never {
  const code = slackErrorCode(err) ?? '';
  if (NO_ACCESS.has(code)) throw new ThreadUnreadableError('bot_cannot_read', code);
  if (code === 'thread_not_found' || code === 'message_not_found') throw new ThreadUnreadableError('not_found', code);
  throw err;
}

/**
 * What was read of a thread: its messages oldest first (root first), the cursor of the rest when
 * reading stopped early, and how many messages the thread has in all (the root's `reply_count` + 1).
 */
export interface ThreadRead {
  messages: ThreadMessage[];
  /** `response_metadata.next_cursor` of the last page read; undefined when the whole thread was read. */
  next?: string;
  total: number;
  /** Pages read so far. */
  pages: number;
}

/** Messages of the thread not read (0 when it was read whole). */
export const unreadCount = (r: ThreadRead): number => (r.next ? Math.max(0, r.total - r.messages.length) : 0);

type RepliesPage = { messages?: ThreadMessage[]; has_more?: boolean; response_metadata?: { next_cursor?: string } };

/** Options of {@link ThreadReader}. */
interface ThreadReaderOptions {
  slack: Pick<ThreadReadSlack, 'paginate'>;
  /** `limit` per page. @defaultValue {@link THREAD_PAGE_SIZE} */
  pageSize?: number;
  /** @defaultValue {@link THREAD_CACHE_TTL_MS} */
  ttlMs?: number;
}

/**
 * Reads threads with `conversations.replies` (WebClient.paginate), bounded: a preview reads one
 * page; a job's context reads until the text read could fill the prompt, and at most
 * {@link CONTEXT_PAGE_CAP} pages. What was read is kept in-process for {@link THREAD_CACHE_TTL_MS},
 * so a preview and a start right after it don't read twice (the start goes on from the preview's
 * cursor). Slack's errors for "can't read" and "gone" become {@link ThreadUnreadableError}.
 */
export class ThreadReader {
  private readonly cache: LRUCache<string, ThreadRead>;

  constructor(private readonly o: ThreadReaderOptions) {
    this.cache = new LRUCache({ max: 500, ttl: o.ttlMs ?? THREAD_CACHE_TTL_MS });
  }

  /** The first page of the thread `ts` belongs to. @throws {ThreadUnreadableError}; other Slack errors. */
  firstPage(channel: string, ts: string): Promise<ThreadRead> {
    return this.read(channel, ts, { pages: 1, chars: Number.POSITIVE_INFINITY });
  }

  /**
   * The thread, read until its text reaches `maxChars` (what a prompt of that size can use) or
   * {@link CONTEXT_PAGE_CAP} pages. @throws {ThreadUnreadableError}; other Slack errors.
   */
  forContext(channel: string, ts: string, maxChars: number): Promise<ThreadRead> {
    return this.read(channel, ts, { pages: CONTEXT_PAGE_CAP, chars: maxChars });
  }

  private async read(channel: string, ts: string, cap: { pages: number; chars: number }): Promise<ThreadRead> {
    const key = `${channel}:${ts}`;
    const cached = this.cache.get(key);
    const enough = (r: ThreadRead) => !r.next || r.pages >= cap.pages || textChars(r.messages) >= cap.chars;
    if (cached && enough(cached)) return cached;
    const got: ThreadRead = cached
      ? { ...cached, messages: [...cached.messages] }
      : { messages: [], total: 0, pages: 0 };
    const options = {
      channel,
      ts,
      limit: this.o.pageSize ?? THREAD_PAGE_SIZE,
      ...(cached?.next ? { cursor: cached.next } : {}),
    };
    try {
      for await (const raw of this.o.slack.paginate('conversations.replies', options)) {
        const page = raw as RepliesPage;
        got.pages += 1;
        got.messages.push(...(page.messages ?? []));
        const next = page.has_more ? page.response_metadata?.next_cursor || undefined : undefined;
        if (next) got.next = next;
        else delete got.next;
        if (enough(got)) break;
      }
    } catch (err) {
      unreadable(err);
    }
    // Slack: the root carries `reply_count` (replies, not counting the root).
    const root = got.messages[0] as { reply_count?: number } | undefined;
    got.total = Math.max(got.messages.length, (root?.reply_count ?? 0) + 1);
    this.cache.set(key, got);
    return got;
  }
}

/** Characters the messages would take in a prompt (text and per-line overhead). */
function textChars(messages: ThreadMessage[]): number {
  return messages.reduce((n, m) => n + (m.text?.length ?? 0) + LINE_OVERHEAD, 0);
}

const selves = new WeakMap<object, Promise<BotSelf>>();

/** The bot's own user id and bot id (auth.test), asked once per client. */
export function botSelf(slack: Pick<ThreadReadSlack, 'auth'>): Promise<BotSelf> {
  let self = selves.get(slack);
  if (!self) {
    self = slack.auth
      .test()
      .then((r) => ({ ...(r.user_id ? { userId: r.user_id } : {}), ...(r.bot_id ? { botId: r.bot_id } : {}) }));
    // Not cached when auth.test failed: the next caller asks again (the caller sees the error).
    self.catch(() => selves.delete(slack));
    selves.set(slack, self);
  }
  return self;
}
