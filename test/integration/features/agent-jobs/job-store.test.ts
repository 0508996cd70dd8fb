import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobStore } from '../../../../src/features/agent-jobs/store.js';
import { jobRecord } from '../../../helpers/job-record.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

const redis = testRedis();
let prefix: string;
let store: JobStore;

const rec = jobRecord();

beforeEach(() => {
  prefix = randomPrefix();
  store = new JobStore(redis, prefix);
});
afterEach(async () => {
  await dropPrefix(redis, prefix);
});

describe('JobStore on real Redis', () => {
  it('round-trips a record with its types, and finds it by thread', async () => {
    await store.create(rec);
    expect(await store.get('job_1')).toEqual(rec);
    expect(await store.findByThread('C1', '1700000000.000100')).toBe('job_1');
    await store.update('job_1', { state: 'completed', prLink: 'https://github.com/a/b/pull/1', endedAt: 5_000 });
    expect(await store.get('job_1')).toMatchObject({
      state: 'completed',
      prLink: 'https://github.com/a/b/pull/1',
      endedAt: 5_000,
      cycle: 0,
    });
    expect(await store.get('nope')).toBeUndefined();
  });

  it('a thread belongs to its first job: a second job in it (or a start that raced it) never re-points the index; a pending mark is taken over', async () => {
    await store.markThreadsPending('C1', ['1700000000.000100']);
    await store.create(jobRecord({ jobId: 'job_first', threadTs: '1700000000.000100', statusTs: '1700000000.000200' }));
    expect(await store.findByThread('C1', '1700000000.000100')).toBe('job_first');
    await store.create(
      jobRecord({ jobId: 'job_second', threadTs: '1700000000.000100', statusTs: '1700000000.000300' }),
    );
    expect(await store.findByThread('C1', '1700000000.000100')).toBe('job_first');
    expect(await store.findByThread('C1', '1700000000.000300')).toBe('job_second'); // its own status message is its own
    await store.create(jobRecord({ jobId: 'job_first', threadTs: '1700000000.000100', statusTs: '1700000000.000200' })); // a retried create
    expect(await redis.ttl(`${prefix}:thread:C1:1700000000.000100`)).toBeGreaterThan(3600);
  });

  it("keeps a 200-character instruction out of the record's hash, so the hash stays compact (listpack)", async () => {
    const long = 'Document the retry policy of the webhooks API. '.repeat(5).slice(0, 200);
    await store.create(jobRecord({ instruction: long, permalink: '' }));
    expect(await redis.object('ENCODING', `${prefix}:agent-job:job_1`)).toBe('listpack');
    expect((await store.get('job_1'))?.instruction).toBe(long);
    await store.update('job_1', { state: 'completed' });
    expect(await redis.object('ENCODING', `${prefix}:agent-job:job_1`)).toBe('listpack');
    // A record written before the instruction had its own key still reads whole.
    await redis.hset(`${prefix}:agent-job:job_old`, {
      ...(await redis.hgetall(`${prefix}:agent-job:job_1`)),
      jobId: 'job_old',
      instruction: 'old style',
    });
    expect((await store.get('job_old'))?.instruction).toBe('old style');
  });

  it('keeps every key under the prefix, with a TTL', async () => {
    await store.create(rec);
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(await redis.ttl(k)).toBeGreaterThan(0);
    const other = new JobStore(redis, randomPrefix());
    expect(await other.get('job_1')).toBeUndefined();
  });

  it('lets exactly one of many concurrent claimants announce a cycle', async () => {
    const replicas = Array.from({ length: 10 }, () => new JobStore(redis, prefix));
    const wins = await Promise.all(replicas.map((s) => s.claimAnnouncement('job_1', 0)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    // A new cycle is a new announcement.
    expect(await store.claimAnnouncement('job_1', 1)).toBe(true);
  });

  it('after a failed post the claim is released; after a post it is never released', async () => {
    expect(await store.claimAnnouncement('job_1', 0)).toBe(true);
    await store.releaseAnnouncement('job_1', 0);
    expect(await store.claimAnnouncement('job_1', 0)).toBe(true);
    await store.markAnnounced('job_1', 0);
    await store.releaseAnnouncement('job_1', 0);
    expect(await store.wasAnnounced('job_1', 0)).toBe(true);
    expect(await store.claimAnnouncement('job_1', 0)).toBe(false);
  });

  it("a crashed claimant's claim lapses so the end is not lost", async () => {
    expect(await store.claimAnnouncement('job_1', 0)).toBe(true);
    const key = `${prefix}:announced:job_1:0`;
    expect(await redis.pttl(key)).toBeGreaterThan(0);
    await redis.pexpire(key, 1); // fast-forward the lease
    await expect.poll(() => redis.exists(key), { timeout: 2_000 }).toBe(0);
    expect(await store.claimAnnouncement('job_1', 0)).toBe(true);
  });

  it('a record Redis answers with an error (a key of the wrong type) is thrown, not taken for "no such job"', async () => {
    await store.create(rec);
    // The instruction's own key holds a hash: GET answers WRONGTYPE inside the pipeline.
    const textKey = `${prefix}:agent-job-text:job_1`;
    await redis.del(textKey);
    await redis.hset(textKey, 'x', '1');
    await expect(store.get('job_1')).rejects.toThrow(/WRONGTYPE/);
  });

  it('a "Start it again" record that is not JSON reads as unknown (the person is told it is no longer kept)', async () => {
    await redis.set(`${prefix}:restart:req-9`, '{not json');
    expect(await store.getRestart('req-9')).toBeUndefined();
  });
});
