import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';

/**
 * Who is in a conversation, and how public it is, asked of Slack sparingly: answers are cached
 * in-process per (user, conversation) and per conversation for a few minutes, lookups in flight are
 * shared, and a member list is read for at most {@link MEMBER_PAGE_CAP} pages.
 */

/** The Web API methods used (scopes: channels:read, groups:read, im:read, mpim:read). */
export interface ConversationsSlack {
  conversations: Pick<WebClient['conversations'], 'info'>;
  /** `WebClient.paginate`, over `conversations.members`. */
  paginate: WebClient['paginate'];
}

/** Pages of `conversations.members` read at most per member list (× {@link MEMBER_PAGE_SIZE} = 4,000 members). */
export const MEMBER_PAGE_CAP = 20;
/** `limit` of each conversations.members page (Slack recommends no more than 200). */
export const MEMBER_PAGE_SIZE = 200;
/** How long a membership or privacy answer is kept, in ms (5 min). */
export const CONVERSATION_CACHE_TTL_MS = 5 * 60_000;

/** Thrown when a member list is longer than {@link MEMBER_PAGE_CAP} pages and the person was not on them: unknown, not "no". */
export class MembersUnknownError extends Error {
  constructor(readonly channel: string) {
    super(`more than ${MEMBER_PAGE_CAP * MEMBER_PAGE_SIZE} members: membership not checked`);
    this.name = 'MembersUnknownError';
  }
}

/** How public a conversation is (Slack: conversations.info `is_private`, `is_im`, `is_mpim`). */
export type Visibility = 'public' | 'private' | 'im';

/** Options of {@link ConversationDirectory}. */
export interface ConversationDirectoryOptions {
  slack: ConversationsSlack;
  /** Cache lifetime in ms. @defaultValue {@link CONVERSATION_CACHE_TTL_MS} */
  ttlMs?: number;
  /** `limit` per page. @defaultValue {@link MEMBER_PAGE_SIZE} */
  pageSize?: number;
}

/**
 * Membership and visibility of conversations, cached briefly. Errors are not cached (the next ask
 * tries Slack again).
 */
export class ConversationDirectory {
  private readonly members: LRUCache<string, Promise<boolean>>;
  private readonly visibility: LRUCache<string, Promise<Visibility>>;

  constructor(private readonly o: ConversationDirectoryOptions) {
    const ttl = o.ttlMs ?? CONVERSATION_CACHE_TTL_MS;
    this.members = new LRUCache({ max: 5_000, ttl });
    this.visibility = new LRUCache({ max: 2_000, ttl });
  }

  /**
   * Whether `user` is a member of `channel` (conversations.members, at most {@link MEMBER_PAGE_CAP} pages).
   * @throws {MembersUnknownError} when the list is longer than that and `user` was not on it;
   *   Slack's errors as thrown (`channel_not_found` when the bot can't see the conversation).
   */
  isMember(channel: string, user: string): Promise<boolean> {
    return this.cached(this.members, `${channel}:${user}`, () => this.readMembership(channel, user));
  }

  /**
   * How public `channel` is (conversations.info).
   * @throws Slack's errors as thrown.
   */
  visibilityOf(channel: string): Promise<Visibility> {
    return this.cached(this.visibility, channel, async () => {
      const res = await this.o.slack.conversations.info({ channel });
      const c = res.channel;
      if (c?.is_im) return 'im';
      return c?.is_private || c?.is_mpim ? 'private' : 'public';
    });
  }

  private cached<T>(cache: LRUCache<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit) return hit;
    const p = load();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
    return p;
  }

  private async readMembership(channel: string, user: string): Promise<boolean> {
    let pages = 0;
    for await (const page of this.o.slack.paginate('conversations.members', { channel, limit: this.o.pageSize ?? MEMBER_PAGE_SIZE })) {
      pages += 1;
      const ids = (page as { members?: string[] }).members ?? [];
      // Everyone on this page is known to be a member: answer their questions too.
      for (const id of ids) if (!this.members.has(`${channel}:${id}`)) this.members.set(`${channel}:${id}`, Promise.resolve(true));
      if (ids.includes(user)) return true;
      const next = (page as { response_metadata?: { next_cursor?: string } }).response_metadata?.next_cursor;
      if (next && pages >= MEMBER_PAGE_CAP) throw new MembersUnknownError(channel);
    }
    return false;
  }
}
