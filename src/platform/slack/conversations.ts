import { ErrorCode, type WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { KeyedSerial } from '../keyed-serial.js';
import type { Logger } from '../logger.js';
import { slackErrorCode } from './errors.js';

/**
 * Who is in a conversation, and how public it is, asked of Slack sparingly (issue #22 item 1):
 * - per conversation, not per person: `conversations.info` with `include_num_members` first (one
 *   call answers how public it is and how many members it has: over {@link MEMBER_LIST_CAP} is "too
 *   large to list" without reading a page), then the member list, page by page, only as far as a
 *   question needs; the members read so far, and every verdict ("complete", "too large"), are kept
 *   for {@link CONVERSATION_CACHE_TTL_MS} whoever asks next;
 * - page reads are budgeted per conversation and in all ({@link MemberPageLimits}: shared in Redis
 *   by the composition root, so replicas count together); a question the budget can't answer now
 *   is "unknown for now", never "no";
 * - meant for a Web API client of its own that rejects a 429 at once (`rejectRateLimitedCalls`):
 *   Slack's rate limit then never pauses the client that posts and edits, and the method Slack
 *   limited is not called again until the `Retry-After` it gave has passed (membership is "unknown
 *   for now" meanwhile).
 */

/** The Web API methods used (scopes: channels:read, groups:read, im:read, mpim:read). */
export interface ConversationsSlack {
  conversations: Pick<WebClient['conversations'], 'info' | 'members'>;
}

/** Pages of `conversations.members` read at most per member list (× {@link MEMBER_PAGE_SIZE} = {@link MEMBER_LIST_CAP}). */
export const MEMBER_PAGE_CAP = 20;
/** `limit` of each conversations.members page (Slack: "We recommend no more than 200 results at a time"). */
export const MEMBER_PAGE_SIZE = 200;
/** Members a list may have for the bot to read it through (4,000). */
export const MEMBER_LIST_CAP = MEMBER_PAGE_CAP * MEMBER_PAGE_SIZE;
/** How long a membership or privacy answer is kept, in ms (5 min). */
export const CONVERSATION_CACHE_TTL_MS = 5 * 60_000;
/**
 * Pages one conversation's list may be read for per {@link CONVERSATION_CACHE_TTL_MS}, whoever asks
 * and on whichever replica: two whole lists (each replica keeps what it read for the TTL).
 */
export const MEMBER_PAGES_PER_CONVERSATION = 2 * MEMBER_PAGE_CAP;
/** Pages of member lists read per minute in all (Slack: conversations.members is Tier 4, 100+ per minute): half of it. */
export const MEMBER_PAGES_PER_MINUTE = 50;

/** Why membership is unknown: the list is too long to read through, or Slack can't be asked now (rate limits). */
export type MembersUnknownReason = 'too_large' | 'busy';

/**
 * Thrown when membership can't be told: `too_large` (more than {@link MEMBER_LIST_CAP} members and
 * the person was not among those read; kept like any answer), or `busy` (the page budget is spent
 * or Slack rate limited the reads: ask again later). Unknown, not "no".
 */
export class MembersUnknownError extends Error {
  constructor(
    readonly channel: string,
    readonly reason: MembersUnknownReason = 'too_large',
  ) {
    super(reason === 'too_large' ? `more than ${MEMBER_LIST_CAP} members: membership not checked` : 'membership cannot be checked just now');
    this.name = 'MembersUnknownError';
  }
}

/** How public a conversation is (Slack: conversations.info `is_private`, `is_im`, `is_mpim`). */
export type Visibility = 'public' | 'private' | 'im';

/**
 * Budgets of member-list pages (rate-limiter-flexible limiters; one point per page): per
 * conversation (key: its id) and in all (key `all`). Default: in-process limiters of
 * {@link MEMBER_PAGES_PER_CONVERSATION} per {@link CONVERSATION_CACHE_TTL_MS} and {@link MEMBER_PAGES_PER_MINUTE} per minute.
 */
export interface MemberPageLimits {
  perConversation: RateLimiterAbstract;
  all: RateLimiterAbstract;
}

/** Points and window (s) of each {@link MemberPageLimits} limiter. */
export const MEMBER_PAGE_LIMITS = {
  perConversation: { points: MEMBER_PAGES_PER_CONVERSATION, duration: CONVERSATION_CACHE_TTL_MS / 1000 },
  all: { points: MEMBER_PAGES_PER_MINUTE, duration: 60 },
} as const;

/** The default {@link MemberPageLimits}, in process (main.ts shares them in Redis, with these as insurance). */
export function memoryPageLimits(): MemberPageLimits {
  return { perConversation: new RateLimiterMemory(MEMBER_PAGE_LIMITS.perConversation), all: new RateLimiterMemory(MEMBER_PAGE_LIMITS.all) };
}

/**
 * {@link MemberPageLimits} shared by the replicas in Redis (keys `<prefix>:member-pages:*`); while
 * Redis fails, in-process limiters of the same size stand in (rate-limiter-flexible's insuranceLimiter).
 */
export function redisPageLimits(redis: Redis, prefix: string): MemberPageLimits {
  const limiter = (name: keyof typeof MEMBER_PAGE_LIMITS) =>
    new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:member-pages:${name}`, ...MEMBER_PAGE_LIMITS[name], insuranceLimiter: new RateLimiterMemory(MEMBER_PAGE_LIMITS[name]) });
  return { perConversation: limiter('perConversation'), all: limiter('all') };
}

/** Options of {@link ConversationDirectory}. */
export interface ConversationDirectoryOptions {
  /** A client used for nothing else, rejecting 429s (`createWebClient({ …, rejectRateLimitedCalls: true })`). */
  slack: ConversationsSlack;
  /** Cache lifetime in ms. @defaultValue {@link CONVERSATION_CACHE_TTL_MS} */
  ttlMs?: number;
  /** `limit` per page. @defaultValue {@link MEMBER_PAGE_SIZE} */
  pageSize?: number;
  /** @defaultValue {@link memoryPageLimits} */
  limits?: MemberPageLimits;
  /** Clock in epoch ms, for the 429 pause. @defaultValue Date.now */
  now?: () => number;
  /** Told (warn) when Slack rate limits the reads. */
  logger?: Logger;
}

/** What is known of one conversation's members. */
interface MemberList {
  known: Set<string>;
  /** Cursor of the next page; none once the list was read to its end. */
  next?: string;
  pages: number;
  verdict?: 'complete' | 'too_large';
}

/** What conversations.info said, as kept. */
interface ConversationInfo {
  visibility: Visibility;
  /** `num_members`, when Slack gave it. */
  members?: number;
}

/**
 * Membership and visibility of conversations, cached for a few minutes per conversation (see the
 * module's comment). Slack's errors are not cached (the next ask tries Slack again).
 */
export class ConversationDirectory {
  private readonly lists: LRUCache<string, MemberList>;
  private readonly infos: LRUCache<string, Promise<ConversationInfo>>;
  private readonly serial = new KeyedSerial();
  private readonly limits: MemberPageLimits;
  private readonly now: () => number;
  /** Per method (Slack's rate limits are per method and workspace): epoch ms until which it is not called. */
  private readonly pausedUntil = new Map<string, number>();

  constructor(private readonly o: ConversationDirectoryOptions) {
    const ttl = o.ttlMs ?? CONVERSATION_CACHE_TTL_MS;
    // Sized by the members held (about 60 bytes each): 250,000 ids at most.
    this.lists = new LRUCache({ maxSize: 250_000, sizeCalculation: (l) => l.known.size + 1, ttl });
    this.infos = new LRUCache({ max: 5_000, ttl });
    this.limits = o.limits ?? memoryPageLimits();
    this.now = o.now ?? Date.now;
  }

  /**
   * Whether `user` is a member of `channel`: from what is known of its list, else conversations.info
   * (a count over {@link MEMBER_LIST_CAP} answers "too large"), else the next pages of
   * conversations.members until `user` is among them or the list ends. Questions about one
   * conversation are answered one at a time, so concurrent ones share the pages read.
   * @throws {MembersUnknownError} `too_large` or `busy` (see there); Slack's errors as thrown
   *   (`channel_not_found` when the bot can't see the conversation).
   */
  isMember(channel: string, user: string): Promise<boolean> {
    const list = this.lists.get(channel);
    if (list?.known.has(user)) return Promise.resolve(true);
    return this.serial.run(channel, () => this.answer(channel, user));
  }

  /**
   * How public `channel` is (conversations.info, the same call that counts its members).
   * @throws {MembersUnknownError} `busy` while Slack rate limits the reads; Slack's errors as thrown.
   */
  async visibilityOf(channel: string): Promise<Visibility> {
    return (await this.info(channel)).visibility;
  }

  private async answer(channel: string, user: string): Promise<boolean> {
    let list = this.lists.get(channel);
    if (list?.known.has(user)) return true;
    if (list?.verdict === 'too_large') throw new MembersUnknownError(channel, 'too_large');
    if (list?.verdict === 'complete') return false;
    if (!list) {
      const { members } = await this.info(channel);
      list = { known: new Set(), pages: 0, ...(members !== undefined && members > MEMBER_LIST_CAP ? { verdict: 'too_large' as const } : {}) };
      this.lists.set(channel, list);
      if (list.verdict) throw new MembersUnknownError(channel, 'too_large');
    }
    while (!list.verdict) {
      await this.takePage(channel);
      const cursor = list.next;
      const res = await this.call(channel, 'conversations.members', () => this.o.slack.conversations.members({ channel, limit: this.o.pageSize ?? MEMBER_PAGE_SIZE, ...(cursor ? { cursor } : {}) })).catch((err: unknown) => {
        // A cursor Slack no longer takes: the next question reads the list from its start.
        if (slackErrorCode(err) === 'invalid_cursor') this.lists.delete(channel);
        throw err;
      });
      for (const id of res.members ?? []) list.known.add(id);
      list.pages += 1;
      const next = res.response_metadata?.next_cursor || undefined;
      if (next) list.next = next;
      else delete list.next;
      if (!next) list.verdict = 'complete';
      else if (list.pages >= MEMBER_PAGE_CAP) list.verdict = 'too_large';
      this.lists.set(channel, list); // re-sized, and kept for the TTL from the last page
      if (list.known.has(user)) return true;
    }
    if (list.verdict === 'too_large') throw new MembersUnknownError(channel, 'too_large');
    return false;
  }

  /** conversations.info with the member count, kept for the TTL; a failure is not kept. */
  private info(channel: string): Promise<ConversationInfo> {
    const hit = this.infos.get(channel);
    if (hit) return hit;
    const p = this.call(channel, 'conversations.info', () => this.o.slack.conversations.info({ channel, include_num_members: true })).then((res): ConversationInfo => {
      const c = res.channel;
      const visibility: Visibility = c?.is_im ? 'im' : c?.is_private || c?.is_mpim ? 'private' : 'public';
      return { visibility, ...(typeof c?.num_members === 'number' ? { members: c.num_members } : {}) };
    });
    this.infos.set(channel, p);
    p.catch(() => this.infos.delete(channel));
    return p;
  }

  /** One page from both budgets. @throws {MembersUnknownError} `busy` when either is spent; the limiters' store errors. */
  private async takePage(channel: string): Promise<void> {
    try {
      await this.limits.perConversation.consume(channel, 1);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw new MembersUnknownError(channel, 'busy');
      throw err;
    }
    try {
      await this.limits.all.consume('all', 1);
    } catch (err) {
      await this.limits.perConversation.reward(channel, 1);
      if (err instanceof RateLimiterRes) throw new MembersUnknownError(channel, 'busy');
      throw err;
    }
  }

  /** A call of `method`, unless its 429 is being waited out; a 429 starts that wait. @throws {MembersUnknownError} `busy`; Slack's errors. */
  private async call<T>(channel: string, method: string, fn: () => Promise<T>): Promise<T> {
    if (this.now() < (this.pausedUntil.get(method) ?? 0)) throw new MembersUnknownError(channel, 'busy');
    try {
      return await fn();
    } catch (err) {
      if ((err as { code?: unknown }).code !== ErrorCode.RateLimitedError) throw err;
      const retryAfterS = Number((err as { retryAfter?: unknown }).retryAfter) || 60;
      this.pausedUntil.set(method, Math.max(this.pausedUntil.get(method) ?? 0, this.now() + retryAfterS * 1000));
      this.o.logger?.warn({ retryAfterS, slackMethod: method }, 'Slack is rate limiting membership reads; membership is unknown meanwhile (the client that posts is not paused)');
      throw new MembersUnknownError(channel, 'busy');
    }
  }
}
