import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DurationHistory, PLAN_TTL_MS } from '../../../../src/features/agent-jobs/poll/durations.js';
import { buildPollPlan, HISTORY_SIZE, MIN_HISTORY } from '../../../../src/features/agent-jobs/poll/schedule.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

const redis = testRedis();
let prefix: string;
let clock: number;
let history: DurationHistory;

beforeEach(() => {
  prefix = randomPrefix();
  clock = 1_700_000_000_000;
  history = new DurationHistory(redis, prefix, 'proj_1', () => clock);
});
afterEach(async () => {
  await dropPrefix(redis, prefix);
});
afterAll(async () => {
  await redis.quit();
});

describe('DurationHistory on real Redis', () => {
  it(`keeps only the newest ${HISTORY_SIZE} durations per project, in one bounded key with a TTL`, async () => {
    for (let i = 1; i <= HISTORY_SIZE + 50; i++) await history.record(i * 1_000);
    const kept = await history.list();
    expect(kept).toHaveLength(HISTORY_SIZE);
    expect(kept[0]).toBe((HISTORY_SIZE + 50) * 1_000);
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys).toEqual([`${prefix}:job-durations:proj_1`]);
    expect(await redis.ttl(keys[0]!)).toBeGreaterThan(0);
    expect(await new DurationHistory(redis, prefix, 'proj_2', () => clock).list()).toEqual([]);
  });

  it('ignores durations that are not a positive number of ms', async () => {
    await history.record(Number.NaN);
    await history.record(-5);
    await history.record(0);
    expect(await history.list()).toEqual([]);
  });

  it(`plans only from ${MIN_HISTORY} jobs on, and each replica re-reads the history once a minute`, async () => {
    for (let i = 0; i < MIN_HISTORY - 1; i++) await history.record(600_000 + i * 1_000);
    expect(await history.plan()).toBeUndefined();
    await history.record(600_000);
    expect(await history.plan()).toBeUndefined(); // cached
    clock += PLAN_TTL_MS;
    // Re-read: the plan learned from the durations now in Redis (not the cached "no plan").
    const durations = await history.list();
    expect(durations).toHaveLength(MIN_HISTORY);
    const plan = await history.plan();
    expect(plan).not.toBeUndefined();
    expect(plan).toEqual(buildPollPlan(durations));
  });

  it('Redis failing at a re-read keeps the plan it had; with none yet, the failure reaches the poller (which backs off)', async () => {
    let down = false;
    const flaky = new Proxy(redis, {
      get(target, prop) {
        if (prop === 'lrange' && down) return () => Promise.reject(new Error('Connection is closed.'));
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const h = new DurationHistory(flaky, prefix, 'proj_1', () => clock);
    down = true;
    await expect(h.plan()).rejects.toThrow('Connection is closed.');
    down = false;
    for (let i = 0; i < MIN_HISTORY; i++) await h.record(600_000 + i * 1_000);
    const plan = await h.plan();
    expect(plan).not.toBeUndefined();
    clock += PLAN_TTL_MS;
    down = true;
    expect(await h.plan()).toEqual(plan);
  });
});
