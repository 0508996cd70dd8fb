import type { Redis } from 'ioredis';

/**
 * The questions asked through the bot that the docs did not answer (the assistant found no page,
 * someone rated the answer 👎, or the docs team was asked), for the weekly digest's "Asked in Slack,
 * not answered by the docs": per channel where each was asked, a Redis sorted set
 * `{prefix}:ask:unanswered:{channel}` of the answer's id and the question's first
 * {@link SLACK_QUESTION_CHARS} characters, scored by when it was noted, kept
 * {@link SLACK_QUESTIONS_KEPT_MS} (older entries dropped at every note, the key expiring with them).
 * Nothing else of the conversation is kept here. The base of the ask feature's stores.
 */

/** How long a noted question is kept: 8 days (a digest's week and a day's margin), in ms. */
export const SLACK_QUESTIONS_KEPT_MS = 8 * 24 * 3_600_000;
/** Characters of a question kept. */
export const SLACK_QUESTION_CHARS = 300;

/** Questions of a week that read the same (case, punctuation and spacing aside), and how many answers asked them. */
export interface SlackQuestionGroup {
  /** The first one noted, as asked (cut to {@link SLACK_QUESTION_CHARS}). */
  question: string;
  count: number;
}

/** What makes two questions "the same" for grouping: lower case, letters and digits, single spaces. */
export function slackQuestionKey(q: string): string {
  return q
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The ask feature's log of unanswered questions (see the module comment). */
export class UnansweredLog {
  constructor(
    protected readonly redis: Redis,
    protected readonly prefix: string,
  ) {}

  private unansweredKey(channel: string): string {
    return `${this.prefix}:ask:unanswered:${channel}`;
  }

  /**
   * Notes that answer `answerId` to `question`, asked in `channel`, was not answered by the docs, at
   * `nowMs` (epoch ms). The same answer noted again (a 👎 after "no page", the docs team asked, a
   * retry) keeps its first note. @throws the Redis error.
   */
  async noteUnanswered(channel: string, answerId: string, question: string, nowMs: number): Promise<void> {
    const key = this.unansweredKey(channel);
    const member = `${answerId}\n${question.slice(0, SLACK_QUESTION_CHARS)}`;
    await this.redis
      .multi()
      .zadd(key, 'NX', nowMs, member)
      .zremrangebyscore(key, '-inf', nowMs - SLACK_QUESTIONS_KEPT_MS)
      .pexpire(key, SLACK_QUESTIONS_KEPT_MS)
      .exec();
  }

  /**
   * The questions noted in `channel` from `fromMs` up to (not including) `toMs`, grouped by
   * {@link slackQuestionKey}, most asked first (ties: the earliest first), at most `limit`.
   * @throws the Redis error.
   */
  async unansweredIn(channel: string, fromMs: number, toMs: number, limit: number): Promise<SlackQuestionGroup[]> {
    const members = await this.redis.zrangebyscore(this.unansweredKey(channel), fromMs, `(${toMs}`);
    const groups = new Map<string, SlackQuestionGroup>();
    for (const m of members) {
      const question = m.slice(m.indexOf('\n') + 1);
      const key = slackQuestionKey(question);
      if (!key) continue;
      const g = groups.get(key);
      if (g) g.count += 1;
      else groups.set(key, { question, count: 1 });
    }
    return [...groups.values()].sort((a, b) => b.count - a.count).slice(0, limit);
  }
}
