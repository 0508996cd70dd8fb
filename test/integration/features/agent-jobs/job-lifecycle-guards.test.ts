import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../../../src/platform/config.js';
import { decide } from '../../../../src/features/agent-jobs/messages.js';
import { withJobLock } from '../../../../src/features/agent-jobs/follow-up/index.js';
import { JobStore, PENDING_THREAD } from '../../../../src/features/agent-jobs/store.js';
import { jobRecord } from '../../../helpers/job-record.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

const redis = testRedis();
let prefix: string;
let store: JobStore;
const config = readConfig({
  SLACK_BOT_TOKEN: 'xoxb-1',
  SLACK_SIGNING_SECRET: 's',
  DOCS_API_KEY: 'mint_k',
  DOCS_PROJECT_ID: 'p',
});

const rec = jobRecord({
  jobId: 'job_g',
  channel: 'C1',
  threadTs: '100.000100',
  statusTs: '100.000100',
  reactionTs: '100.000100',
  instruction: 'x',
  createdAt: 1,
  cycleStartedAt: 1,
});

beforeEach(() => {
  prefix = randomPrefix();
  store = new JobStore(redis, prefix);
});
afterEach(() => dropPrefix(redis, prefix));
afterAll(() => redis.disconnect());

describe('lifecycle guards on real Redis', () => {
  it('the end of an older run cannot overwrite a follow-up that began meanwhile', async () => {
    await store.create(rec);
    const cycle = await store.beginCycle('job_g', 'U2', 5, '', 'U1');
    expect(cycle).toBe(1);
    expect(await store.updateIfCycle('job_g', 0, { state: 'completed', endedAt: 9 })).toBe(false);
    expect(await store.get('job_g')).toMatchObject({
      state: 'active',
      cycle: 1,
      cycleRequester: 'U2',
      alsoMention: 'U1',
    });
    expect(await store.updateIfCycle('job_g', 1, { state: 'completed', endedAt: 9 })).toBe(true);
    expect(await store.get('job_g')).toMatchObject({ state: 'completed', endedAt: 9 });
  });

  it('a thread whose job is still being created answers "starting"; the real record replaces the mark; a failed start clears it', async () => {
    await store.markThreadsPending('C1', ['100.000100']);
    const reply = {
      teamId: 'T1',
      channel: 'C1',
      user: 'U2',
      text: 'more please',
      ts: '101.000100',
      thread_ts: '100.000100',
      viaMention: false,
    };
    expect(await store.findByThread('C1', '100.000100')).toBe(PENDING_THREAD);
    expect(await decide({ store, ignorePrefix: config.FOLLOWUP_IGNORE_PREFIX }, reply, 'UBOT')).toEqual({
      action: 'starting',
    });
    await store.create(rec);
    expect(await decide({ store, ignorePrefix: config.FOLLOWUP_IGNORE_PREFIX }, reply, 'UBOT')).toEqual({
      action: 'followup',
      jobId: 'job_g',
    });
    await store.clearPendingThreads('C1', ['100.000100']); // never removes a real job's index
    expect(await store.findByThread('C1', '100.000100')).toBe('job_g');
    await store.markThreadsPending('C1', ['200.000100']);
    await store.clearPendingThreads('C1', ['200.000100']);
    expect(await store.findByThread('C1', '200.000100')).toBeUndefined();
  });

  it('the per-job lock lets one follow-up through at a time, across clients', async () => {
    const other = testRedis();
    const order: string[] = [];
    let inside = 0;
    let maxInside = 0;
    const task = (name: string) => async () => {
      inside++;
      maxInside = Math.max(maxInside, inside);
      order.push(`${name}:in`);
      await new Promise((r) => setImmediate(r));
      order.push(`${name}:out`);
      inside--;
    };
    await Promise.all([
      withJobLock(redis, prefix, 'job_g', task('a')),
      withJobLock(other, prefix, 'job_g', task('b')),
      withJobLock(redis, prefix, 'job_g', task('c')),
    ]);
    other.disconnect();
    expect(maxInside).toBe(1);
    expect(order).toHaveLength(6);
    expect(await redis.exists(`${prefix}:job-lock:job_g`)).toBe(0);
  });
});
