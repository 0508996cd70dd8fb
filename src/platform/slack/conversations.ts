import { ErrorCode, type WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import { KeyedSerial } from '../keyed-serial.js';
import { currentRequestContext } from '../request-context.js';
import type { Logger } from '../logger.js';
import { classifySlackError, slackErrorCode } from './errors.js';
import { memoryReadLimits, MembersUnknownError, takeRead, type MembershipReadLimits } from './membership-reads.js';

export {
  MembersUnknownError,
  memoryReadLimits,
  redisReadLimits,
  type MembersUnknownReason,
  type MembershipReadLimits,
} from './membership-reads.js';
import { hasCode, PlatformErrorCode } from '../errors.js';

/**
 * Who is in a conversation, and how public it is, asked of Slack sparingly:
 * - "is U a member of C" is answered from U's own conversation list (`users.conversations` with
 *   `user`: Slack lists a person's public channels, and their private channels, group DMs and DMs
 *   where the bot is a member too), read once per person and kept {@link CONVERSATION_CACHE_TTL_MS}
 *   on this replica. Its cost is per person (usually one call), whatever the size of the channel;
 * - a conversation missing from the list is asked `conversations.info` once (kept per conversation,
 *   for everyone): Slack's `channel_not_found` there means the bot can't see it (a private channel
 *   it is not in), which the person should hear instead of "you're not a member";
 * - every read is budgeted per person and in all ({@link MembershipReadLimits}: shared in Redis by
 *   the composition root, so replicas count together); a question the budget can't answer now is
 *   "busy", never "no";
 * - meant for a Web API client of its own that rejects a 429 at once (`rejectRateLimitedCalls`):
 *   Slack's rate limit then never pauses the client that posts and edits, and the method Slack
 *   limited is not called again until the `Retry-After` it gave has passed ("busy" meanwhile).
 * The lists stay in process, not in Redis: a list is one call to read again, and who is in which
 * private conversation is not worth copying into a shared store. With N replicas a person costs at
 * most N reads per TTL.
 */

/** The Web API methods used (scopes: channels:read, groups:read, im:read, mpim:read). */
interface ConversationsSlack {
  users: Pick<WebClient['users'], 'conversations'>;
  conversations: Pick<WebClient['conversations'], 'info'>;
}

/** The conversation types a person's list is read with (users.conversations `types`). */
const CONVERSATION_TYPES = 'public_channel,private_channel,mpim,im';
/** `limit` of each users.conversations page (Slack: "Must be an integer with a max value of 999"). */
const PERSON_PAGE_SIZE = 999;
/** Pages of one person's list read at most (× {@link PERSON_PAGE_SIZE}: 9,990 conversations). */
const PERSON_PAGE_CAP = 10;
/** How long a person's list or a conversation's description is kept, in ms (5 min). */
const CONVERSATION_CACHE_TTL_MS = 5 * 60_000;
/** A "no" from a list read longer ago than this (ms) reads the list again first (they may just have joined). */
const REREAD_NO_AFTER_MS = 60_000;
/** How long Slack's "the bot can't see this conversation" (a `gone` error of conversations.info) is kept, in ms. */
const UNSEEN_TTL_MS = 60_000;

/** How public a conversation is (Slack: conversations.info `is_private`, `is_im`, `is_mpim`). */
export type Visibility = 'public' | 'private' | 'im';

/** Options of {@link ConversationDirectory}. */
interface ConversationDirectoryOptions {
  /** A client used for nothing else, rejecting 429s (`createWebClient({ …, rejectRateLimitedCalls: true })`). */
  slack: ConversationsSlack;
  /** Cache lifetime in ms. @defaultValue {@link CONVERSATION_CACHE_TTL_MS} */
  ttlMs?: number;
  /** `limit` per users.conversations page. @defaultValue {@link PERSON_PAGE_SIZE} */
  pageSize?: number;
  /** @defaultValue {@link memoryReadLimits} */
  limits?: MembershipReadLimits;
  /** Clock in epoch ms (the caches' ages, the 429 pause). @defaultValue Date.now */
  now?: () => number;
  /** Told (warn) when Slack rate limits the reads. */
  logger?: Logger;
}

/**
 * The key of what is kept of `id` (a person's list, a conversation's info, a method's 429 pause):
 * `id` after the request's workspace when it names one. An org-wide token's users.conversations
 * lists one workspace's conversations, per its `team_id`; and a Slack Connect channel is the same
 * id for each organization in it while converting it to public or private applies only to the
 * workspace where it was made (Slack help: "Slack Connect: Manage channel invitation settings and
 * permissions"), so two installations see it as each sees it. Slack's rate limits are per method
 * and workspace.
 */
function teamKey(id: string): string {
  const team = currentRequestContext()?.teamId;
  return team ? `${team}/${id}` : id;
}

/** What is known of one person's conversations. */
interface PersonList {
  channels: Set<string>;
  /** Cursor of the next page; none once the list was read to its end. */
  next?: string;
  pages: number;
  /** Epoch ms of the last page read. */
  readAt: number;
  verdict?: 'complete' | 'too_large';
}

/** What conversations.info said, as kept. */
interface ConversationInfo {
  visibility: Visibility;
}

/**
 * Membership and visibility of conversations, from people's conversation lists (see the module's
 * comment). Slack's transient errors are not kept (the next ask tries Slack again).
 */
export class ConversationDirectory {
  private readonly lists: LRUCache<string, PersonList>;
  private readonly infos: LRUCache<string, Promise<ConversationInfo>>;
  private readonly serial = new KeyedSerial();
  private readonly limits: MembershipReadLimits;
  private readonly now: () => number;
  /** Per method and workspace (Slack's rate limits are; {@link teamKey}): epoch ms until which it is not called. */
  private readonly pausedUntil = new Map<string, number>();

  constructor(private readonly o: ConversationDirectoryOptions) {
    const ttl = o.ttlMs ?? CONVERSATION_CACHE_TTL_MS;
    this.now = o.now ?? Date.now;
    // The injected clock, read on every check (ttlResolution 0: lru-cache would otherwise reuse a reading for 1 ms).
    const perf = { now: () => this.now() };
    // Sized by the conversations held (about 60 bytes each): 250,000 ids at most.
    this.lists = new LRUCache({
      maxSize: 250_000,
      sizeCalculation: (l) => l.channels.size + 1,
      ttl,
      perf,
      ttlResolution: 0,
    });
    this.infos = new LRUCache({ max: 5_000, ttl, perf, ttlResolution: 0 });
    this.limits = o.limits ?? memoryReadLimits();
  }

  /**
   * Whether `user` is a member of `channel`, from `user`'s conversation list (read as far as the
   * question needs). Questions about one person are answered one at a time, so concurrent ones
   * share the reads.
   * @throws {MembersUnknownError} `busy` or `too_large` (see there); Slack's errors as thrown
   *   (`channel_not_found` when the bot can't see the conversation; `user_not_found`).
   */
  isMember(channel: string, user: string): Promise<boolean> {
    if (this.lists.get(teamKey(user))?.channels.has(channel)) return Promise.resolve(true);
    return this.serial.run(teamKey(user), () => this.answer(channel, user));
  }

  /**
   * Which of `channels` `user` is a member of, from `user`'s conversation list alone (read as far as
   * the question needs, like {@link isMember}, but never `conversations.info`: a conversation the
   * bot can't see counts as one they are not in). For listing things a person may see, where a
   * "no" needs no reason.
   * @returns each channel's answer: true, false, or `unknown` when the list could not be read far
   *   enough (the budgets or Slack's rate limit stopped it, or it is longer than the bot reads).
   * @throws Slack's errors other than a rate limit (`user_not_found`, …).
   */
  membershipsOf(user: string, channels: readonly string[]): Promise<Map<string, boolean | 'unknown'>> {
    return this.serial.run(teamKey(user), async () => {
      const known = this.lists.get(teamKey(user));
      const probe = channels.find((c) => !known?.channels.has(c));
      const answers = new Map<string, boolean | 'unknown'>(channels.map((c) => [c, true]));
      if (probe === undefined) return answers;
      let list: PersonList | undefined;
      try {
        list = await this.listFor(probe, user);
        while (channels.some((c) => !list!.channels.has(c)) && !list.verdict) await this.readPage(list, probe, user);
      } catch (err) {
        if (!hasCode(err, PlatformErrorCode.MembersUnknown)) throw err;
      }
      const complete = list?.verdict === 'complete';
      for (const c of channels)
        answers.set(c, list?.channels.has(c) || known?.channels.has(c) ? true : complete ? false : 'unknown');
      return answers;
    });
  }

  /**
   * How public `channel` is (conversations.info, kept per conversation and workspace: {@link teamKey}).
   * @throws {MembersUnknownError} `busy` while the budget is spent or Slack rate limits the reads;
   *   Slack's errors as thrown.
   */
  async visibilityOf(channel: string): Promise<Visibility> {
    return (await this.info(channel, undefined)).visibility;
  }

  private async answer(channel: string, user: string): Promise<boolean> {
    const list = await this.listFor(channel, user);
    while (!list.channels.has(channel) && !list.verdict) await this.readPage(list, channel, user);
    if (list.channels.has(channel)) return true;
    if (list.verdict === 'too_large') throw new MembersUnknownError(channel, 'too_large');
    // Not in their list: does the bot see the conversation at all? (channel_not_found when not.)
    await this.info(channel, user);
    return false;
  }

  /**
   * The person's list as known; a complete one that says "no" and was read over
   * {@link REREAD_NO_AFTER_MS} ago is read again from its start, unless the budget can't pay for
   * that now (then the older list answers).
   */
  private async listFor(channel: string, user: string): Promise<PersonList> {
    const known = this.lists.get(teamKey(user));
    if (
      known &&
      (known.channels.has(channel) || known.verdict !== 'complete' || this.now() - known.readAt < REREAD_NO_AFTER_MS)
    ) {
      return known;
    }
    const fresh: PersonList = { channels: new Set(), pages: 0, readAt: this.now() };
    if (!known) return fresh;
    try {
      await this.readPage(fresh, channel, user);
      return fresh;
    } catch (err) {
      if (hasCode(err, PlatformErrorCode.MembersUnknown)) return known;
      throw err;
    }
  }

  /** Reads the next page of `list` (one read from the budgets) and keeps it. @throws see {@link isMember}. */
  private async readPage(list: PersonList, channel: string, user: string): Promise<void> {
    await takeRead(this.limits, channel, user);
    const cursor = list.next;
    const args = {
      user,
      types: CONVERSATION_TYPES,
      limit: this.o.pageSize ?? PERSON_PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    };
    const res = await this.call('users.conversations', channel, () => this.o.slack.users.conversations(args)).catch(
      (err: unknown) => {
        // A cursor Slack no longer takes: the next question reads the list from its start.
        if (slackErrorCode(err) === 'invalid_cursor') this.lists.delete(teamKey(user));
        throw err;
      },
    );
    for (const c of res.channels ?? []) if (typeof c.id === 'string') list.channels.add(c.id);
    list.pages += 1;
    list.readAt = this.now();
    const next = res.response_metadata?.next_cursor || undefined;
    if (next) list.next = next;
    else delete list.next;
    if (!next) list.verdict = 'complete';
    else if (list.pages >= PERSON_PAGE_CAP) list.verdict = 'too_large';
    this.lists.set(teamKey(user), list); // re-sized, and kept for the TTL from the last page
  }

  /**
   * conversations.info, kept for the TTL (one read from `user`'s budget, when a person asks); a
   * `gone` error (the bot can't see it) is kept {@link UNSEEN_TTL_MS}, other failures not at all.
   */
  private info(channel: string, user: string | undefined): Promise<ConversationInfo> {
    const key = teamKey(channel);
    const hit = this.infos.get(key);
    if (hit) return hit;
    const p = takeRead(this.limits, channel, user)
      .then(() => this.call('conversations.info', channel, () => this.o.slack.conversations.info({ channel })))
      .then((res): ConversationInfo => {
        const c = res.channel;
        return { visibility: c?.is_im ? 'im' : c?.is_private || c?.is_mpim ? 'private' : 'public' };
      });
    this.infos.set(key, p);
    p.catch((err: unknown) => {
      if (classifySlackError(err).kind === 'gone') this.infos.set(key, p, { ttl: UNSEEN_TTL_MS });
      else this.infos.delete(key);
    });
    return p;
  }

  /** A call of `method`, unless its 429 is being waited out; a 429 starts that wait. @throws {MembersUnknownError} `busy`; Slack's errors. */
  private async call<T>(method: string, channel: string, fn: () => Promise<T>): Promise<T> {
    const paused = teamKey(method);
    if (this.now() < (this.pausedUntil.get(paused) ?? 0)) throw new MembersUnknownError(channel, 'busy');
    try {
      return await fn();
    } catch (err) {
      if ((err as { code?: unknown }).code !== ErrorCode.RateLimitedError) throw err;
      const retryAfterS = Number((err as { retryAfter?: unknown }).retryAfter) || 60;
      this.pausedUntil.set(paused, Math.max(this.pausedUntil.get(paused) ?? 0, this.now() + retryAfterS * 1000));
      const msg =
        'Slack is rate limiting membership reads; membership is unknown meanwhile (the client that posts is not paused)';
      this.o.logger?.warn({ retryAfterS, slackMethod: method }, msg);
      throw new MembersUnknownError(channel, 'busy');
    }
  }
}
