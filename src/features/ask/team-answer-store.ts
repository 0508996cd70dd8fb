import { z } from 'zod';
import { currentInstallationSlot } from '../../platform/request-context.js';
import { readStoredJson } from '../../platform/stored-json.js';
import { UnansweredLog } from './unanswered-log.js';

/** How long an answer's conversation and its record are kept after their last use: 7 days, in s. */
export const ASK_TTL_S = 7 * 24 * 3600;

/**
 * The reply "Document this answer" quotes: the first reply, by someone other than the asker, in a
 * question's thread after its docs team was asked. Only its text (as text, cut to
 * {@link RECORD_REPLY_CHARS}), who wrote it and where are kept, for {@link ASK_TTL_S}.
 */
export interface ReplyRecord {
  replyId: string;
  /** The answer whose docs team was asked (its record gives the question). */
  answerId: string;
  channel: string;
  threadTs: string;
  /** Who replied, and the reply's ts. */
  user: string;
  ts: string;
  text: string;
}

/** Most characters of a reply kept in its record. */
export const RECORD_REPLY_CHARS = 1_500;

const replySchema = z.object({
  replyId: z.string(),
  answerId: z.string(),
  channel: z.string(),
  threadTs: z.string(),
  user: z.string(),
  ts: z.string(),
  text: z.string(),
});

/**
 * The ask feature's records of the docs team's answers (the base of `AskStore`, which keeps the rest
 * of the feature's records; its own base is the log of unanswered questions): on the question's thread hash `{prefix}:ask:thread:{channel}:{threadTs}`
 * the fields `experts` and `expertsAsker` (Ask the docs team was used), then
 * `{prefix}:ask:answer-offer:{channel}:{threadTs}` (the thread's one Document this answer offer) and
 * `{prefix}:ask:reply:{replyId}` (the reply it quotes), {@link ASK_TTL_S} each;
 * `{prefix}:ask:expert-reply:{channel}:{threadTs}` (the first reply there by one of the docs team);
 * and `{prefix}:ask:experts-broken:{channel}` (its docs team's breakage was reported, a day).
 */
export abstract class TeamAnswerStore extends UnansweredLog {
  /** The key of the Document this answer offer of the thread rooted at `(channel, threadTs)`. */
  private answerOfferKey(channel: string, threadTs: string): string {
    return `${this.prefix}:ask:answer-offer:${channel}:${threadTs}`;
  }

  /** The key of the question's thread hash, which `AskStore` keeps (the thread's conversation). */
  protected abstract threadKey(channel: string, threadTs: string): string;

  /**
   * Notes on the question's thread that its docs team was asked about answer `answerId`, asked by
   * `asker` (the thread hash's `experts` and `expertsAsker` fields, kept {@link ASK_TTL_S}): from
   * then on a reply there by someone other than that asker may be the answer ({@link answerAskedIn}).
   * @throws the Redis error.
   */
  async markExpertsAsked(channel: string, threadTs: string, answerId: string, asker: string): Promise<void> {
    const key = this.threadKey(channel, threadTs);
    await this.redis.multi().hset(key, 'experts', answerId, 'expertsAsker', asker).expire(key, ASK_TTL_S).exec();
  }

  /**
   * Takes back {@link markExpertsAsked} when the team could not be asked after all, with the thread's
   * Document this answer claim a reply may have taken meanwhile (the next ask offers again).
   * @throws the Redis error.
   */
  async unmarkExpertsAsked(channel: string, threadTs: string): Promise<void> {
    await this.redis
      .multi()
      .hdel(this.threadKey(channel, threadTs), 'experts', 'expertsAsker')
      .del(this.answerOfferKey(channel, threadTs), this.expertReplyKey(channel, threadTs))
      .exec();
  }

  private expertReplyKey(channel: string, threadTs: string): string {
    return `${this.prefix}:ask:expert-reply:${channel}:${threadTs}`;
  }

  /**
   * Notes kept reply `replyId` as the thread's expert answer (a reply by one of the docs team), the
   * first one only (SET NX, kept {@link ASK_TTL_S}): Document this answer quotes it rather than an
   * earlier reply by someone else. @throws the Redis error.
   */
  async noteExpertReply(channel: string, threadTs: string, replyId: string): Promise<void> {
    await this.redis.set(this.expertReplyKey(channel, threadTs), replyId, 'EX', ASK_TTL_S, 'NX');
  }

  /** The thread's expert answer ({@link noteExpertReply}), or undefined. @throws the Redis error. */
  async expertReplyIn(channel: string, threadTs: string): Promise<string | undefined> {
    return (await this.redis.get(this.expertReplyKey(channel, threadTs))) ?? undefined;
  }

  /**
   * The answer whose docs team was asked in the thread rooted at `(channel, threadTs)`, when `user`
   * is not its asker (their reply may be the team's answer); else undefined. @throws the Redis error.
   */
  async answerAskedIn(channel: string, threadTs: string, user: string): Promise<string | undefined> {
    const [experts, asker] = await this.redis.hmget(this.threadKey(channel, threadTs), 'experts', 'expertsAsker');
    return experts && asker && asker !== user ? experts : undefined;
  }

  /**
   * Claims the thread's one "Document this answer" offer for the reply recorded as `key` (SET NX,
   * kept {@link ASK_TTL_S}). @returns true for the first claim and for that same reply again (a
   * retry), false for any later reply. @throws the Redis error.
   */
  async claimAnswerOffer(channel: string, threadTs: string, key: string): Promise<boolean> {
    return this.claim(this.answerOfferKey(channel, threadTs), key);
  }

  /**
   * Claims Redis key `k` for `key` (SET NX, kept {@link ASK_TTL_S}): true for the first claim and for
   * the same `key` again (a retry), false while another holds it. @throws the Redis error.
   */
  protected async claim(k: string, key: string): Promise<boolean> {
    if ((await this.redis.set(k, key, 'EX', ASK_TTL_S, 'NX')) === 'OK') return true;
    return (await this.redis.get(k)) === key;
  }

  /**
   * Notes that the people who look after `channel`'s settings were told its docs team can't be
   * reached: true the first time per `ttlS` seconds (SET NX EX on
   * `{prefix}:ask:experts-broken:{channel}`, shared by every replica), false while the note lasts.
   * OAuth mode: per installation too (`…:experts-broken:{installation}:{channel}`, the current one:
   * request-context's currentInstallationSlot), as the settings and their owner are; a Slack Connect
   * channel has both sides' settings.
   * @throws the Redis error.
   */
  async markExpertsBrokenTold(channel: string, ttlS: number): Promise<boolean> {
    const slot = currentInstallationSlot();
    const key = `${this.prefix}:ask:experts-broken:${slot ? `${slot}:` : ''}${channel}`;
    return (await this.redis.set(key, '1', 'EX', ttlS, 'NX')) === 'OK';
  }

  /** Keeps the reply that "Document this answer" quotes for {@link ASK_TTL_S}. @throws the Redis error. */
  async saveReply(rec: ReplyRecord): Promise<void> {
    await this.redis.set(`${this.prefix}:ask:reply:${rec.replyId}`, JSON.stringify(rec), 'EX', ASK_TTL_S);
  }

  /** A kept reply, or undefined (unknown, expired, or unreadable). @throws the Redis error. */
  async reply(replyId: string): Promise<ReplyRecord | undefined> {
    if (!/^[0-9a-f]{16}$/.test(replyId)) return undefined;
    return readStoredJson(this.redis, `${this.prefix}:ask:reply:${replyId}`, replySchema);
  }
}
