import type { Redis } from 'ioredis';
import { buildPollPlan, HISTORY_SIZE, type PollPlan } from './schedule.js';
import { RECORD_TTL_S } from '../store.js';

/** How long a replica reuses the plan it learned before reading the history again, in ms. */
export const PLAN_TTL_MS = 60_000;

/**
 * How long the project's jobs take, learned from the ones that finished: the newest
 * {@link HISTORY_SIZE} durations (ms) in a capped Redis list `{prefix}:job-durations:{projectId}`
 * (bounded: about 1 KB; it lapses {@link RECORD_TTL_S} after the last job ended), shared by every replica. The poll schedule is planned from it.
 */
export class DurationHistory {
  private cached: { at: number; plan: PollPlan | undefined } | undefined;
  private loading: Promise<PollPlan | undefined> | undefined;
  private readonly key: string;

  /**
   * @param now - clock in epoch ms (for the plan's cache).
   */
  constructor(
    private readonly redis: Pick<Redis, 'multi' | 'lrange'>,
    prefix: string,
    projectId: string,
    private readonly now: () => number,
  ) {
    this.key = `${prefix}:job-durations:${projectId}`;
  }

  /** Adds the duration (ms) of a job that just finished; keeps the newest {@link HISTORY_SIZE}. */
  async record(durationMs: number): Promise<void> {
    if (!Number.isFinite(durationMs) || durationMs <= 0) return;
    await this.redis
      .multi()
      .lpush(this.key, String(Math.round(durationMs)))
      .ltrim(this.key, 0, HISTORY_SIZE - 1)
      .expire(this.key, RECORD_TTL_S)
      .exec();
  }

  /** @returns the durations kept, newest first, in ms. */
  async list(): Promise<number[]> {
    return (await this.redis.lrange(this.key, 0, HISTORY_SIZE - 1)).map(Number);
  }

  /**
   * The plan learned from the history (undefined while it is too short), read from Redis at most
   * once per {@link PLAN_TTL_MS} per replica.
   * @throws when Redis fails and no plan was cached yet.
   */
  async plan(): Promise<PollPlan | undefined> {
    const c = this.cached;
    if (c && this.now() - c.at < PLAN_TTL_MS) return c.plan;
    this.loading ??= (async () => {
      try {
        const plan = buildPollPlan(await this.list());
        this.cached = { at: this.now(), plan };
        return plan;
      } catch (err) {
        if (c) return c.plan;
        throw err;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }
}
