/**
 * What the bot keeps of a job's preview in Redis: one record per job (its message lives across
 * follow-ups), the exactly-once guard of each run's request, the message's posting steps, and the
 * projects whose plan has no previews.
 */
import type { Redis } from 'ioredis';
import { defineScript, type RedisScript } from '../../../platform/scripts.js';
import { stepsOver, type Steps } from '../../../platform/steps.js';
import type { PreviewStage } from '../store.js';
import { RECORD_TTL_S } from '../store.js';
import type { FilesChanged } from './pages.js';

/** A job's preview: the latest run's request and build, and the one message that shows it. Times are epoch ms. */
export interface PreviewRecord {
  jobId: string;
  /** The run (cycle) whose pull request this preview builds. */
  cycle: number;
  stage: PreviewStage;
  branch?: string;
  statusId?: string;
  previewUrl?: string;
  /** When the preview was asked for (the request answered). */
  askedAt?: number;
  /** When this run's job ended: "time to ready" counts from it. */
  completedAt?: number;
  files?: FilesChanged;
  screenshot?: string;
  summary?: string;
  /** The last lines of a failed build's log (kept for "Ask the agent to fix the build"). */
  logs?: string[];
  /** The preview message's ts, once posted. */
  ts?: string;
  /** Fingerprint of what the message last showed. */
  shown?: string;
  /** Whether a build of this job was ever shown ready (a plan change then leaves the message alone). */
  everReady?: boolean;
}

/** How long a request's claim is held before a crashed claimant's lease lapses (its request is then uncertain), in ms: well above the docs API client's 10 s timeout. */
export const ASK_LEASE_MS = 60_000;
/** How long a project stays without previews after the API refused them (401/403/404), in s: a day. */
const PREVIEWS_OFF_TTL_S = 24 * 3600;
/** Log lines kept of a failed build. */
const LOGS_KEPT = 40;

/** What {@link PreviewStore.claimAsk} found: ask now, another run is asking, asked already, or a request lost in a crash. */
type AskClaim = 'go' | 'busy' | 'asked' | 'uncertain';

// KEYS[1] = the request's state ('sending' | 'asked', kept for the record's TTL), KEYS[2] = the
// lease of the run that is sending it; ARGV = state TTL (s), lease (ms).
const CLAIM = `
local state = redis.call('GET', KEYS[1])
if not state then
  redis.call('SET', KEYS[1], 'sending', 'EX', ARGV[1])
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
  return 'go'
end
if state == 'asked' then return 'asked' end
if redis.call('EXISTS', KEYS[2]) == 1 then return 'busy' end
return 'uncertain'
`;

/** Redis-backed preview records and guards; every key is under `prefix`. */
export class PreviewStore {
  private readonly claimScript: RedisScript;
  private readonly releaseClaim: RedisScript;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.claimScript = defineScript(redis, 'PreviewClaimAsk', 2, CLAIM);
    this.releaseClaim = defineScript(
      redis,
      'PreviewReleaseAsk',
      2,
      "if redis.call('GET', KEYS[1]) == 'sending' then return redis.call('DEL', KEYS[1], KEYS[2]) end return 0",
    );
  }

  private key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  /** @returns the job's preview record, or undefined (none, expired, unreadable). @throws Redis errors. */
  async get(jobId: string): Promise<PreviewRecord | undefined> {
    const raw = await this.redis.get(this.key('preview', jobId));
    if (!raw) return undefined;
    try {
      return JSON.parse(raw) as PreviewRecord;
    } catch {
      return undefined;
    }
  }

  /** Writes the record (logs cut to the last {@link LOGS_KEPT} lines), for {@link RECORD_TTL_S}. @throws Redis errors. */
  async save(rec: PreviewRecord): Promise<void> {
    const kept = rec.logs ? { ...rec, logs: rec.logs.slice(-LOGS_KEPT) } : rec;
    await this.redis.set(this.key('preview', rec.jobId), JSON.stringify(kept), 'EX', RECORD_TTL_S);
  }

  private askKeys(jobId: string, cycle: number): [string, string] {
    return [this.key('preview-ask', jobId, String(cycle)), this.key('preview-ask-lease', jobId, String(cycle))];
  }

  /**
   * Claims the request of `(jobId, cycle)`'s preview, atomically, so of any number of replicas and
   * retries one asks, and none asks twice: the first caller gets `go` (the state becomes "sending",
   * with a lease of {@link ASK_LEASE_MS}) and must send the request right away, then
   * {@link markAsked} or {@link releaseAsk}. Another caller gets `busy` while the lease holds,
   * `asked` once the request was answered, and `uncertain` when the sender died inside the request
   * (its lease lapsed with the state still "sending"): the request may have reached the docs API,
   * which has no idempotency key, so it must not be sent again. @throws Redis errors.
   */
  async claimAsk(jobId: string, cycle: number): Promise<AskClaim> {
    return (await this.claimScript.run(this.askKeys(jobId, cycle), [RECORD_TTL_S, ASK_LEASE_MS])) as AskClaim;
  }

  /** Records that `(jobId, cycle)`'s preview was asked for (its record holds the answer). @throws Redis errors. */
  async markAsked(jobId: string, cycle: number): Promise<void> {
    const [state, lease] = this.askKeys(jobId, cycle);
    await this.redis.multi().set(state, 'asked', 'EX', RECORD_TTL_S).del(lease).exec();
  }

  /** @returns whether `(jobId, cycle)`'s preview was asked for. */
  async wasAsked(jobId: string, cycle: number): Promise<boolean> {
    return (await this.redis.get(this.askKeys(jobId, cycle)[0])) === 'asked';
  }

  /** Gives a claim back after a request that did not go through, for sure or as the caller decides (never an "asked" mark). */
  async releaseAsk(jobId: string, cycle: number): Promise<void> {
    await this.releaseClaim.run(this.askKeys(jobId, cycle), []);
  }

  /** The posting steps of the job's preview message (postOnce), kept in Redis. */
  async messageSteps(jobId: string): Promise<Steps> {
    const key = this.key('preview-steps', jobId);
    const progress: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(await this.redis.hgetall(key))) progress[k] = JSON.parse(v) as unknown;
    const write = async (_progress: Record<string, unknown>, patch: Record<string, unknown>) => {
      const flat = Object.entries(patch).map(([k, v]) => [k, JSON.stringify(v ?? null)] as const);
      await this.redis.multi().hset(key, Object.fromEntries(flat)).expire(key, RECORD_TTL_S).exec();
    };
    return stepsOver(progress, write, { finalAttempt: false });
  }

  /** Forgets the posting steps of the job's preview message (it was deleted: a later show posts a new one). */
  async forgetMessage(jobId: string): Promise<void> {
    await this.redis.del(this.key('preview-steps', jobId));
  }

  /** @returns whether the API refused previews for `projectId` within the last day. */
  async isOff(projectId: string): Promise<boolean> {
    return (await this.redis.exists(this.key('previews-off', projectId))) === 1;
  }

  /**
   * Turns previews off for `projectId` for {@link PREVIEWS_OFF_TTL_S} (then one request finds out
   * whether the plan changed). @returns true for the first caller (who logs it once).
   */
  async turnOff(projectId: string, why: string): Promise<boolean> {
    const res = await this.redis.set(this.key('previews-off', projectId), why, 'EX', PREVIEWS_OFF_TTL_S, 'NX');
    return res === 'OK';
  }
}
