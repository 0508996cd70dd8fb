import { createHash } from 'node:crypto';
import { z } from 'zod';
import { readStoredJson } from '../../platform/stored-json.js';
import { ASK_TTL_S, TeamAnswerStore } from './team-answer-store.js';

export { ASK_TTL_S, RECORD_REPLY_CHARS, type ReplyRecord } from './team-answer-store.js';

/**
 * The assistant conversation of a Slack thread: the discovery API's `threadId` and its secret
 * `threadKey` (X-Thread-Id / X-Thread-Key of the first answer; every follow-up sends both), who
 * began it, and how many questions it holds. The key is never logged: logging a conversation
 * leaves it out (not enumerable), and no log line of this feature names it.
 */
export interface AskConversation {
  threadId: string;
  readonly threadKey: string;
  asker: string;
  teamId: string;
  turns: number;
  /** The conversation's questions so far, oldest first (the last {@link EARLIER_KEPT}, each cut to {@link EARLIER_CHARS}). */
  questions: string[];
}

/** Earlier questions a conversation keeps (for Document this), and the characters kept of each. */
const EARLIER_KEPT = 5;
const EARLIER_CHARS = 300;

/**
 * A thread the bot answers in and takes replies from (see {@link AskStore.claimThread}): `anyone`
 * in the bot's own thread, `asker` in the asker's own top-level message or DM.
 */
interface ThreadClaim {
  asker: string;
  teamId: string;
  follow: 'anyone' | 'asker';
}

/** What an answer's buttons need later (Make this a docs change, Document this, 👍/👎): no secret in it. */
export interface AnswerRecord {
  answerId: string;
  teamId: string;
  channel: string;
  threadTs: string;
  asker: string;
  question: string;
  /**
   * The answer's text as shown (cut to {@link RECORD_ANSWER_CHARS}), kept only when the docs had
   * nothing on it (Document this quotes it); '' otherwise.
   */
  answer: string;
  /** True when the docs had nothing on it. */
  unanswered: boolean;
  /** The earlier questions of the same conversation, oldest first (cut, at most 5). */
  earlier: string[];
}

/** Most characters of an answer kept in its record (the "Document this" instruction quotes it). */
export const RECORD_ANSWER_CHARS = 1_500;

const answerSchema = z.object({
  answerId: z.string(),
  teamId: z.string(),
  channel: z.string(),
  threadTs: z.string(),
  asker: z.string(),
  question: z.string(),
  answer: z.string(),
  unanswered: z.boolean(),
  earlier: z.array(z.string()),
});

/** Answers one person may have being written at once. */
const ANSWERS_PER_PERSON = 3;
/** How long a held answer slot lasts at most (an answer a crash left unreleased frees itself), in ms. */
const ANSWER_SLOT_MS = 10 * 60_000;

/**
 * Holds a slot for answer `ARGV[1]` in the person's set `KEYS[1]` (scores: when each slot lapses)
 * when fewer than `ARGV[2]` are held (lapsed ones dropped first), or when it holds one already.
 * Returns 1 when held, 0 when the person has the most.
 */
const HOLD_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/** A conversation's stored questions, or none when the field is missing or not a list of strings. */
function questionsOf(raw: string | undefined): string[] {
  try {
    const parsed: unknown = JSON.parse(raw ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((q): q is string => typeof q === 'string') : [];
  } catch {
    return [];
  }
}

/** An answer's id: derived from the request that asked it, so a retry names the same answer (16 hex chars). */
export function answerIdOf(requestKey: string): string {
  return createHash('sha256').update(requestKey).digest('hex').slice(0, 16);
}

/** One answer's state in Redis ({@link AskStore.answerKeep}); each call @throws the Redis error. */
export interface AnswerKeep {
  answerId: string;
  conversation(): Promise<AskConversation | undefined>;
  saveConversation(c: AskConversation): Promise<void>;
  forgetConversation(): Promise<void>;
  saveAnswer(rec: Pick<AnswerRecord, 'question' | 'answer' | 'unanswered' | 'earlier'>): Promise<void>;
  noteUnanswered(question: string, nowMs: number): Promise<void>;
  releaseSlot(): Promise<void>;
}

/**
 * The ask feature's Redis records: `{prefix}:ask:thread:{channel}:{threadTs}` (a hash: the
 * conversation and who may continue it without a mention, 7 days from its last question), `{prefix}:ask:answer:{answerId}` (JSON, 7 days) and
 * `{prefix}:ask:feedback:{answerId}` (a hash of people's ratings, 7 days); the docs team's answers'
 * records are its base's ({@link TeamAnswerStore}).
 */
export class AskStore extends TeamAnswerStore {
  /** The key of the hash of the thread rooted at `(channel, threadTs)`. */
  protected threadKey(channel: string, threadTs: string): string {
    return `${this.prefix}:ask:thread:${channel}:${threadTs}`;
  }

  /**
   * Whether a reply by `user` in the thread rooted at `(channel, threadTs)` that mentions no one
   * continues its conversation: in a thread the bot claimed for `anyone` (the bot's own `/docs-ask`
   * question), yes; in one claimed for its `asker` (the asker's own top-level message or DM), only
   * the asker's; in any other thread (unclaimed: a mention answered in someone else's thread, or no
   * answer at all), no. @throws the Redis error.
   */
  async takesReplyFrom(channel: string, threadTs: string, user: string): Promise<boolean> {
    const [follow, asker] = await this.redis.hmget(this.threadKey(channel, threadTs), 'follow', 'asker');
    return follow === 'anyone' || (follow === 'asker' && asker === user);
  }

  /** The thread's conversation, or undefined. @throws the Redis error. */
  async conversation(channel: string, threadTs: string): Promise<AskConversation | undefined> {
    const h = await this.redis.hgetall(this.threadKey(channel, threadTs));
    if (!h.threadId || !h.threadKey) return undefined;
    const c = {
      threadId: h.threadId,
      threadKey: '',
      asker: h.asker ?? '',
      teamId: h.teamId ?? '',
      turns: Number(h.turns ?? 0),
      questions: questionsOf(h.questions),
    };
    return Object.defineProperty(c, 'threadKey', { value: h.threadKey, enumerable: false }) as AskConversation;
  }

  /**
   * Keeps the thread's conversation (a new one, or one more question of it) for {@link ASK_TTL_S}.
   * Its first asker and any claim stay as they were. @throws the Redis error.
   */
  async saveConversation(channel: string, threadTs: string, c: AskConversation): Promise<void> {
    const key = this.threadKey(channel, threadTs);
    const questions = JSON.stringify(c.questions.slice(-EARLIER_KEPT).map((q) => q.slice(0, EARLIER_CHARS)));
    const fields = { threadId: c.threadId, threadKey: c.threadKey, turns: String(c.turns), questions };
    // Who asked first stays: a later question by someone else never makes the thread theirs.
    await this.redis
      .multi()
      .hset(key, fields)
      .hsetnx(key, 'asker', c.asker)
      .hsetnx(key, 'teamId', c.teamId)
      .expire(key, ASK_TTL_S)
      .exec();
  }

  /**
   * Claims the thread for the answer about to be written, before its conversation exists, so that
   * replies that mention no one reach the bot: from `anyone` (a thread the bot started: its
   * `/docs-ask` question) or from the `asker` alone (the asker's own top-level message or DM). A
   * thread claimed before keeps its first claim. Never call it for someone else's thread.
   * @throws the Redis error.
   */
  async claimThread(channel: string, threadTs: string, claim: ThreadClaim): Promise<void> {
    const key = this.threadKey(channel, threadTs);
    await this.redis
      .multi()
      .hsetnx(key, 'asker', claim.asker)
      .hsetnx(key, 'teamId', claim.teamId)
      .hsetnx(key, 'follow', claim.follow)
      .expire(key, ASK_TTL_S)
      .exec();
  }

  /** Forgets the thread's conversation (the assistant no longer knows it). @throws the Redis error. */
  async forgetConversation(channel: string, threadTs: string): Promise<void> {
    await this.redis.hdel(this.threadKey(channel, threadTs), 'threadId', 'threadKey');
  }

  /**
   * Holds one of the person's {@link ANSWERS_PER_PERSON} answer slots for answer `key` (the same
   * key again holds the same slot), across replicas; a slot lapses after {@link ANSWER_SLOT_MS}.
   * @returns false when the person has that many answers being written. @throws the Redis error.
   */
  async holdAnswerSlot(teamId: string, user: string, key: string, now: number): Promise<boolean> {
    const slots = `${this.prefix}:ask:writing:${teamId}:${user}`;
    const args = [key, ANSWERS_PER_PERSON, now + ANSWER_SLOT_MS, now, ANSWER_SLOT_MS];
    return (await this.redis.eval(HOLD_SLOT, 1, slots, ...args)) === 1;
  }

  /** Frees the slot of answer `key` (its answer is written, or was never asked). @throws the Redis error. */
  async releaseAnswerSlot(teamId: string, user: string, key: string): Promise<void> {
    await this.redis.zrem(`${this.prefix}:ask:writing:${teamId}:${user}`, key);
  }

  /**
   * Notes that `user` was told a refusal of kind `what` (SET NX with a TTL of `ttlS` seconds, on
   * Redis' clock, shared by every replica). @returns true the first time within the TTL (tell
   * them), false while the note lasts. @throws the Redis error.
   */
  async markTold(teamId: string, user: string, what: string, ttlS: number): Promise<boolean> {
    const key = `${this.prefix}:ask:told:${what}:${teamId}:${user}`;
    return (await this.redis.set(key, '1', 'EX', ttlS, 'NX')) === 'OK';
  }

  /**
   * Claims "Ask the docs team" on answer `answerId` for the click recorded as `key` (SET NX, kept
   * {@link ASK_TTL_S}, shared by every replica). @returns true for the first claim and for that same
   * click again (a retry), false for any other click. @throws the Redis error.
   */
  async claimExperts(answerId: string, key: string): Promise<boolean> {
    return this.claim(`${this.prefix}:ask:experts:${answerId}`, key);
  }

  /** Gives a claim back (the docs team could not be reached), when it is still `key`'s. @throws the Redis error. */
  async releaseExperts(answerId: string, key: string): Promise<void> {
    const k = `${this.prefix}:ask:experts:${answerId}`;
    if ((await this.redis.get(k)) === key) await this.redis.del(k);
  }

  /**
   * What the answer to question `q` keeps in Redis, in the order the answer uses it: the thread's
   * conversation (read before the assistant is asked, saved once it answers, forgotten when it lost
   * the thread), the answer's record and the digest's note (before the buttons that read them), and
   * the asker's answer slot (freed once written). No Redis call is made here: each is the AskStore
   * method of that name (`noteUnanswered`: UnansweredLog's; the slot: `releaseAnswerSlot`).
   */
  answerKeep(q: { teamId: string; channel: string; threadTs: string; asker: string; key: string }): AnswerKeep {
    const { channel, threadTs } = q;
    const answerId = answerIdOf(q.key);
    return {
      answerId,
      conversation: () => this.conversation(channel, threadTs),
      saveConversation: (c) => this.saveConversation(channel, threadTs, c),
      forgetConversation: () => this.forgetConversation(channel, threadTs),
      saveAnswer: (rec) => this.saveAnswer({ answerId, teamId: q.teamId, channel, threadTs, asker: q.asker, ...rec }),
      noteUnanswered: (question, nowMs) => this.noteUnanswered(channel, answerId, question, nowMs),
      releaseSlot: () => this.releaseAnswerSlot(q.teamId, q.asker, q.key),
    };
  }

  /** Keeps an answer's record for {@link ASK_TTL_S}. @throws the Redis error. */
  async saveAnswer(rec: AnswerRecord): Promise<void> {
    await this.redis.set(`${this.prefix}:ask:answer:${rec.answerId}`, JSON.stringify(rec), 'EX', ASK_TTL_S);
  }

  /** An answer's record, or undefined (unknown, expired, or unreadable). @throws the Redis error. */
  async answer(answerId: string): Promise<AnswerRecord | undefined> {
    if (!/^[0-9a-f]{16}$/.test(answerId)) return undefined;
    return readStoredJson(this.redis, `${this.prefix}:ask:answer:${answerId}`, answerSchema);
  }

  /**
   * Keeps `user`'s rating of an answer. @returns the previous rating ('' when none).
   * @throws the Redis error.
   */
  async rate(answerId: string, user: string, rating: string): Promise<string> {
    const key = `${this.prefix}:ask:feedback:${answerId}`;
    const res = await this.redis.multi().hget(key, user).hset(key, user, rating).expire(key, ASK_TTL_S).exec();
    const previous = res?.[0]?.[1];
    return typeof previous === 'string' ? previous : '';
  }
}
