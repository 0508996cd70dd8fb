import type { Redis } from 'ioredis';
import { defineScript, type RedisScript } from '../../platform/scripts.js';
import { stepsOver, type PinnedStepGuard, type Steps } from '../../platform/steps.js';
import { BEGIN_CYCLE, CLAIM_THREAD, CREATE_IF_ABSENT, fromHash, toHash, type JobRecord } from './job-record.js';

export type { JobRecord, PreviewStage, StatusState } from './job-record.js';

/** What "Start it again" needs to start a job whose first start was uncertain. */
interface RestartRecord {
  teamId: string;
  channel: string;
  requester: string;
  instruction: string;
  /** The prompt with its Slack context, when it was more than the instruction. */
  prompt?: string;
  /** The thread the first attempt used (its status message or the person's message). */
  threadTs?: string;
  reactOnStatusMessage?: boolean;
  /** The conversations whose messages are in `prompt`. */
  contextFrom?: string[];
  /** The docs project named with `project=<id>` (absent: the channel's). */
  project?: string;
  /** What the quoted text in `prompt` is about (the job's About line), when it had one. */
  about?: string;
}

/** Value of a thread index key while its job is being created (replies get "still starting"). */
export const PENDING_THREAD = 'pending';

/** How long records and announcement marks live in Redis after their last write, in s (30 days). */
export const RECORD_TTL_S = 30 * 24 * 3600;

/** How long an announcement claim is held before a crashed claimant's claim lapses, in ms. */
export const ANNOUNCE_LEASE_MS = 60_000;

/**
 * Redis-backed job records and the exactly-once announcement guard. Every key is under `prefix`.
 */
export class JobStore {
  /** The store's Lua scripts, each on one key (cluster-safe), sent once and then run by SHA. */
  private readonly scripts: Record<
    'createIfAbsent' | 'claimThread' | 'beginCycle' | 'updateIfCycle' | 'deleteIfValue' | 'releaseClaim',
    RedisScript
  >;

  /**
   * @param defaultProjectId - DOCS_PROJECT_ID: the project of records written before each job kept
   *   its own.
   */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly defaultProjectId = '',
  ) {
    this.scripts = {
      createIfAbsent: defineScript(redis, 'CreateIfAbsent', 1, CREATE_IF_ABSENT),
      claimThread: defineScript(redis, 'ClaimThread', 1, CLAIM_THREAD),
      beginCycle: defineScript(redis, 'BeginCycle', 1, BEGIN_CYCLE),
      updateIfCycle: defineScript(
        redis,
        'UpdateIfCycle',
        1,
        "if redis.call('HGET', KEYS[1], 'cycle') ~= ARGV[1] then return 0 end redis.call('HSET', KEYS[1], unpack(ARGV, 2)) return 1",
      ),
      deleteIfValue: defineScript(
        redis,
        'DeleteIfValue',
        1,
        "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
      ),
      releaseClaim: defineScript(
        redis,
        'ReleaseClaim',
        1,
        "if redis.call('GET', KEYS[1]) == 'claimed' then return redis.call('DEL', KEYS[1]) end return 0",
      ),
    };
  }

  private key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  /**
   * The instruction's own string key. Kept out of the record's hash so that the hash keeps Redis'
   * compact listpack encoding, which ends once any value passes 64 bytes (`hash-max-listpack-value`):
   * a 200-character instruction in the hash costs about 1.3 KB more per job.
   */
  private textKey(jobId: string): string {
    return this.key('agent-job-text', jobId);
  }

  /**
   * Stores a new record (hash `{prefix}:agent-job:{jobId}`, instruction in
   * `{prefix}:agent-job-text:{jobId}`) and indexes its thread (`{prefix}:thread:{channel}:{threadTs}` → jobId).
   * Idempotent: a record that exists already is left as it is (a retried start must not reset a
   * job that has moved on), and its indexes are refreshed. A thread belongs to its first job: an
   * index that names another job is never re-pointed (a second job in a digest's thread, or a
   * start that raced the first), so replies there keep going to the first.
   */
  async create(rec: JobRecord): Promise<void> {
    const k = this.key('agent-job', rec.jobId);
    const userJobs = this.key('user-jobs', rec.teamId, rec.requester);
    const { instruction, ...fields } = rec;
    // Empty fields (no PR yet, no note, …) and a reaction target that is the thread root are left
    // out: reading fills them in, and each field kept costs bytes per tracked job.
    const stored = Object.entries(toHash(fields)).filter(
      ([f, v]) => v !== '' && !(f === 'reactionTs' && v === rec.threadTs),
    );
    const m = this.scripts.createIfAbsent
      .queue(this.redis.multi(), [k], [String(RECORD_TTL_S), ...stored.flat()])
      .set(this.textKey(rec.jobId), instruction, 'EX', RECORD_TTL_S, 'NX');
    for (const ts of [rec.threadTs, rec.statusTs])
      this.scripts.claimThread.queue(
        m,
        [this.key('thread', rec.channel, ts)],
        [rec.jobId, String(RECORD_TTL_S), PENDING_THREAD],
      );
    await m
      .zadd(userJobs, rec.createdAt, rec.jobId)
      .zremrangebyrank(userJobs, 0, -51)
      .expire(userJobs, RECORD_TTL_S)
      .exec();
  }

  /** @returns the record, or undefined when unknown (or expired). */
  async get(jobId: string): Promise<JobRecord | undefined> {
    const res = await this.redis.pipeline().hgetall(this.key('agent-job', jobId)).get(this.textKey(jobId)).exec();
    const [[hashErr, h], [textErr, text]] = res as [
      [Error | null, Record<string, string>],
      [Error | null, string | null],
    ];
    if (hashErr ?? textErr) throw hashErr ?? textErr;
    if (!h.jobId) return undefined;
    // Records written before the instruction had its own key still hold it in the hash.
    return fromHash(text === null ? h : { ...h, instruction: text }, this.defaultProjectId);
  }

  /** Updates some fields of an existing record (no-op for unknown jobs). */
  async update(jobId: string, fields: Partial<JobRecord>): Promise<void> {
    const k = this.key('agent-job', jobId);
    if (!(await this.redis.exists(k))) return;
    const { instruction, ...rest } = fields;
    const m = this.redis.multi();
    if (Object.keys(rest).length) m.hset(k, toHash(rest));
    if (instruction !== undefined) m.set(this.textKey(jobId), instruction);
    await m.expire(k, RECORD_TTL_S).expire(this.textKey(jobId), RECORD_TTL_S).exec();
  }

  /**
   * Starts follow-up cycle `cycle + 1` atomically, so concurrent follow-ups get distinct numbers.
   * Marks the record active again with `author` as the person to mention at the end. With
   * `fromCycle` (a retry of the same follow-up after a crash) it begins a cycle only while the
   * record is still on `fromCycle`, else returns the current one: a follow-up never counts twice.
   * @returns the cycle number, or undefined for an unknown job.
   */
  async beginCycle(
    jobId: string,
    author: string,
    nowMs: number,
    note: string,
    alsoMention = '',
    fromCycle?: number,
  ): Promise<number | undefined> {
    const fields = [
      ...Object.entries(
        toHash({ cycleRequester: author, cycleStartedAt: nowMs, state: 'active', endedAt: 0, note, alsoMention }),
      ).flat(),
      // A new run has no preview yet: the plan's preview step goes until this run's pull request has one.
      'preview',
      '',
    ];
    const res = await this.scripts.beginCycle.run(
      [this.key('agent-job', jobId)],
      [fromCycle === undefined ? '' : String(fromCycle), String(RECORD_TTL_S), ...fields],
    );
    await this.redis.expire(this.textKey(jobId), RECORD_TTL_S);
    return res === null || res === undefined ? undefined : Number(res);
  }

  /** Keeps what is needed to start a job again ("Start it again" after an uncertain start), for {@link RECORD_TTL_S}. */
  async saveRestart(id: string, req: RestartRecord): Promise<void> {
    await this.redis.set(this.key('restart', id), JSON.stringify(req), 'EX', RECORD_TTL_S);
  }

  /** @returns what {@link saveRestart} kept, or undefined when unknown, expired or unreadable. */
  async getRestart(id: string): Promise<RestartRecord | undefined> {
    const raw = await this.redis.get(this.key('restart', id));
    if (!raw) return undefined;
    try {
      return JSON.parse(raw) as RestartRecord;
    } catch {
      return undefined;
    }
  }

  /** @returns the person's most recent jobs, newest first, at most `limit` (records that expired are skipped). */
  async listUserJobs(teamId: string, userId: string, limit: number): Promise<JobRecord[]> {
    const ids = await this.redis.zrevrange(this.key('user-jobs', teamId, userId), 0, limit - 1);
    const recs = await Promise.all(ids.map((id) => this.get(id)));
    return recs.filter((r): r is JobRecord => r !== undefined);
  }

  /**
   * Updates fields only while the record is still on `cycle` (atomic, Lua), so the end of an
   * older run cannot overwrite a follow-up that started meanwhile.
   * @returns false when the record moved on to another cycle (or is unknown).
   */
  async updateIfCycle(jobId: string, cycle: number, fields: Partial<JobRecord>): Promise<boolean> {
    const flat = Object.entries(toHash(fields)).flat();
    const res = await this.scripts.updateIfCycle.run([this.key('agent-job', jobId)], [String(cycle), ...flat]);
    return res === 1;
  }

  /**
   * Marks threads as belonging to a job that is being created (for `ttlS` seconds, unless
   * {@link create} replaces the marks first), so replies meanwhile are answered, not lost.
   */
  async markThreadsPending(channel: string, tss: string[], ttlS = 120): Promise<void> {
    const m = this.redis.multi();
    for (const ts of tss) m.set(this.key('thread', channel, ts), PENDING_THREAD, 'EX', ttlS, 'NX');
    await m.exec();
  }

  /** Removes pending marks left by a start that failed (never a real job's index). */
  async clearPendingThreads(channel: string, tss: string[]): Promise<void> {
    for (const ts of tss) {
      await this.scripts.deleteIfValue.run([this.key('thread', channel, ts)], [PENDING_THREAD]);
    }
  }

  /**
   * @returns the job whose thread root (or status message) is `(channel, ts)`, {@link PENDING_THREAD}
   *   while that job is being created, or undefined.
   */
  async findByThread(channel: string, ts: string): Promise<string | undefined> {
    return (await this.redis.get(this.key('thread', channel, ts))) ?? undefined;
  }

  /**
   * Claims the right to announce the end of `(jobId, cycle)`: an atomic `SET NX PX` lease, so of
   * any number of replicas and retries only one posts. A claimant that crashes before
   * {@link markAnnounced} loses the claim after {@link ANNOUNCE_LEASE_MS}, so the end is not lost.
   *
   * @returns true when this caller must post the announcement.
   */
  async claimAnnouncement(jobId: string, cycle: number): Promise<boolean> {
    const res = await this.redis.set(
      this.key('announced', jobId, String(cycle)),
      'claimed',
      'PX',
      ANNOUNCE_LEASE_MS,
      'NX',
    );
    return res === 'OK';
  }

  /** Records that the announcement of `(jobId, cycle)` was posted (kept for {@link RECORD_TTL_S}). */
  async markAnnounced(jobId: string, cycle: number): Promise<void> {
    await this.redis.set(this.key('announced', jobId, String(cycle)), 'posted', 'EX', RECORD_TTL_S);
  }

  /** Gives a claim back after a failed post, so a retry may announce. */
  async releaseAnnouncement(jobId: string, cycle: number): Promise<void> {
    const k = this.key('announced', jobId, String(cycle));
    // Only drop our claim, never a finished mark.
    await this.scripts.releaseClaim.run([k], []);
  }

  /**
   * The steps of announcing `(jobId, cycle)`, kept in Redis (hash `{prefix}:announce-steps:…`),
   * so that posting the announcement survives a crash between "posted" and "recorded": a retry
   * finds the message instead of posting it twice (see postOnce). With `guard` (replica
   * acknowledgement, its mark taken before the claim: `guardSince`), their `confirm` runs before
   * the post: the claim and the posting mark are on the replicas.
   */
  async announcementSteps(jobId: string, cycle: number, guard?: PinnedStepGuard): Promise<Steps> {
    const key = this.key('announce-steps', jobId, String(cycle));
    const progress: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(await this.redis.hgetall(key))) progress[k] = JSON.parse(v) as unknown;
    const write = async (_all: unknown, patch: Record<string, unknown>) => {
      const flat = Object.entries(patch).map(([k, v]) => [k, JSON.stringify(v ?? null)] as const);
      await this.redis.multi().hset(key, Object.fromEntries(flat)).expire(key, RECORD_TTL_S).exec();
    };
    return stepsOver(progress, write, { finalAttempt: false, guard });
  }

  /** @returns whether the end of `(jobId, cycle)` was already posted. */
  async wasAnnounced(jobId: string, cycle: number): Promise<boolean> {
    return (await this.redis.get(this.key('announced', jobId, String(cycle)))) === 'posted';
  }
}
