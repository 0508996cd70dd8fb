import type { Redis } from 'ioredis';

/**
 * The questions asked through the bot that the docs did not answer (the assistant found no page,
 * someone rated the answer 👎, or the docs team was asked), for the weekly digest's "Asked in Slack,
 * not answered by the docs": per channel where each was asked, a Redis sorted set
 * `{prefix}:ask:unanswered:{channel}` of the answer's id and the question's first
 * {@link SLACK_QUESTION_CHARS} characters, scored by when it was noted, kept
 * {@link SLACK_QUESTIONS_KEPT_MS} (older entries dropped at every note, the key expiring with them).
 * A question asked in a public channel is also noted in its workspace's
 * `{prefix}:ask:unanswered:public:{teamId}` (the answer's id, the channel and the question; kept
 * alike), so the digests of the workspace's other channels may show it where every member can see
 * a public channel (no guest; see `unanswered-reach`). A private channel's, a group DM's or a DM's question stays in its own key, shown
 * only in that conversation's digest; no question crosses workspaces.
 * Nothing else of the conversation is kept here. The base of the ask feature's stores.
 */

/** How long a noted question is kept: 8 days (a digest's week and a day's margin), in ms. */
export const SLACK_QUESTIONS_KEPT_MS = 8 * 24 * 3_600_000;
/** Characters of a question kept. */
const SLACK_QUESTION_CHARS = 300;

/** Questions of a week that read the same (case, punctuation and spacing aside), and how many answers asked them. */
export interface SlackQuestionGroup {
  /** The first one noted, as asked (cut to {@link SLACK_QUESTION_CHARS}). */
  question: string;
  count: number;
  /** The channels it was asked in (Slack ids), the first noted first. */
  channels: string[];
}

/**
 * The workspace (team id) whose other channels may see a question asked in `channel` for answer
 * `answerId`: set when the channel is public, undefined otherwise. Must not throw: a visibility it
 * can't read is "not public" (fails closed).
 */
export type PublicWorkspaceOf = (channel: string, answerId: string) => Promise<string | undefined>;

/** Where a digest is posted: its workspace, its channel, and whether the workspace's public questions may be shown there. */
export interface DigestAudience {
  teamId: string;
  channel: string;
  /**
   * False for a channel shared with another organization, one with a guest, one whose kind or
   * members could not be read (see `unanswered-reach`).
   */
  seesPublic: boolean;
}

/** Questions of one key read at most per digest (the workspace's budgets bound them well below). */
const READ_AT_MOST = 2_000;

/** What makes two questions "the same" for grouping: lower case, letters and digits, single spaces. */
function slackQuestionKey(q: string): string {
  return q
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The ask feature's log of unanswered questions (see the module comment). */
export class UnansweredLog {
  /** @param publicIn - where a question may be shown beyond its channel; absent: nowhere. */
  constructor(
    protected readonly redis: Redis,
    protected readonly prefix: string,
    private readonly publicIn?: PublicWorkspaceOf,
  ) {}

  private unansweredKey(channel: string): string {
    return `${this.prefix}:ask:unanswered:${channel}`;
  }

  private publicKey(teamId: string): string {
    return `${this.prefix}:ask:unanswered:public:${teamId}`;
  }

  /**
   * Notes that answer `answerId` to `question`, asked in `channel`, was not answered by the docs, at
   * `nowMs` (epoch ms). The same answer noted again (a 👎 after "no page", the docs team asked, a
   * retry) keeps its first note. A public channel's question is noted for its workspace too
   * (`publicIn`). @throws the Redis error.
   */
  async noteUnanswered(channel: string, answerId: string, question: string, nowMs: number): Promise<void> {
    const cut = question.slice(0, SLACK_QUESTION_CHARS);
    const teamId = await this.publicIn?.(channel, answerId);
    const multi = this.redis.multi();
    const add = (key: string, member: string) =>
      multi
        .zadd(key, 'NX', nowMs, member)
        .zremrangebyscore(key, '-inf', nowMs - SLACK_QUESTIONS_KEPT_MS)
        .pexpire(key, SLACK_QUESTIONS_KEPT_MS);
    add(this.unansweredKey(channel), `${answerId}\n${cut}`);
    if (teamId) add(this.publicKey(teamId), `${answerId}\n${channel}\n${cut}`);
    await multi.exec();
  }

  /**
   * The questions noted in `channel` from `fromMs` up to (not including) `toMs`, grouped by
   * {@link slackQuestionKey}, most asked first (ties: the earliest first), at most `limit`.
   * @throws the Redis error.
   */
  async unansweredIn(channel: string, fromMs: number, toMs: number, limit: number): Promise<SlackQuestionGroup[]> {
    return this.unansweredSeenIn({ teamId: '', channel, seesPublic: false }, fromMs, toMs, limit);
  }

  /**
   * What the digest posted to `to` may show of the questions noted from `fromMs` up to (not
   * including) `toMs`: its own channel's, and, when `to.seesPublic`, those of its workspace's public
   * channels; each answer once, grouped by {@link slackQuestionKey}, most asked first (ties: the
   * earliest first), at most `limit`. @throws the Redis error.
   */
  async unansweredSeenIn(
    to: DigestAudience,
    fromMs: number,
    toMs: number,
    limit: number,
  ): Promise<SlackQuestionGroup[]> {
    const range = (key: string) =>
      this.redis.zrangebyscore(key, fromMs, `(${toMs}`, 'WITHSCORES', 'LIMIT', 0, READ_AT_MOST);
    const own = (await range(this.unansweredKey(to.channel))).map((m) => `${m}`);
    const notes: { answerId: string; channel: string; question: string; at: number }[] = [];
    for (let i = 0; i < own.length; i += 2) {
      const m = own[i]!;
      const cut = m.indexOf('\n');
      notes.push({
        answerId: m.slice(0, cut),
        channel: to.channel,
        question: m.slice(cut + 1),
        at: Number(own[i + 1]),
      });
    }
    if (to.seesPublic && to.teamId) {
      const pub = await range(this.publicKey(to.teamId));
      for (let i = 0; i < pub.length; i += 2) {
        const m = pub[i]!;
        const a = m.indexOf('\n');
        const b = m.indexOf('\n', a + 1);
        if (a < 0 || b < 0) continue;
        notes.push({
          answerId: m.slice(0, a),
          channel: m.slice(a + 1, b),
          question: m.slice(b + 1),
          at: Number(pub[i + 1]),
        });
      }
    }
    return groupNotes(notes, limit);
  }
}

/** Notes grouped by {@link slackQuestionKey}, each answer once, most asked first (ties: the earliest first), at most `limit`. */
function groupNotes(
  notes: { answerId: string; channel: string; question: string; at: number }[],
  limit: number,
): SlackQuestionGroup[] {
  const seen = new Set<string>();
  const groups = new Map<string, SlackQuestionGroup>();
  for (const n of notes.sort((x, y) => x.at - y.at)) {
    const key = slackQuestionKey(n.question);
    if (!key || seen.has(n.answerId)) continue;
    seen.add(n.answerId);
    const g = groups.get(key);
    if (!g) groups.set(key, { question: n.question, count: 1, channels: [n.channel] });
    else {
      g.count += 1;
      if (!g.channels.includes(n.channel)) g.channels.push(n.channel);
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count).slice(0, limit);
}
