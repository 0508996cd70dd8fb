import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDigestQueue } from '../../../../src/features/reports/digests/worker.js';
import { describeSchedule } from '../../../../src/platform/calendar.js';
import { nextRunAfter } from '../../../../src/features/reports/digests/schedule.js';
import {
  digestSchedulerId,
  getSubscription,
  listSubscriptions,
  sendDigestNow,
  subscribeChannel,
  unsubscribeChannel,
  type DigestJobData,
} from '../../../../src/features/reports/digests/store.js';
import { slackDateText } from '../../../../src/platform/slack/dates.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../../../helpers/redis.js';

const redis = testRedis();
let prefix: string;
let replicaA: Queue<DigestJobData>;
let replicaB: Queue<DigestJobData>;

beforeEach(() => {
  prefix = randomPrefix();
  const ctx = { connection: { url: TEST_REDIS_URL }, prefix, logger: createLogger('silent') };
  replicaA = createDigestQueue(ctx);
  replicaB = createDigestQueue(ctx);
});
afterEach(async () => {
  await replicaA.close();
  await replicaB.close();
  await dropPrefix(redis, prefix);
});
afterAll(() => redis.disconnect());

describe('digest subscriptions are BullMQ job schedulers', () => {
  it('one scheduler per channel, whichever replica subscribes and however often', async () => {
    const req = {
      teamId: 'T1',
      channel: 'C0DOCS',
      requestedBy: 'U0ALICE',
      schedule: { pattern: '0 9 * * 1', tz: 'UTC' },
    };
    const a = await subscribeChannel(replicaA, req);
    await subscribeChannel(replicaB, req);
    const b = await subscribeChannel(replicaB, {
      ...req,
      requestedBy: 'U0BOB',
      schedule: { pattern: '30 16 * * 5', tz: 'Europe/Berlin' },
    });
    expect(await replicaA.getJobSchedulersCount()).toBe(1);
    expect(a.schedulerId).toBe(digestSchedulerId('T1', 'C0DOCS'));
    expect(b).toMatchObject({
      teamId: 'T1',
      channel: 'C0DOCS',
      requestedBy: 'U0BOB',
      schedule: { pattern: '30 16 * * 5', tz: 'Europe/Berlin' },
    });
    // BullMQ's next run is the cron's next fire time in the schedule's zone: a Friday, 16:30 in Berlin.
    expect(b.nextRunMs).toBe(nextRunAfter(b.schedule, Date.now()));
    const local = new Intl.DateTimeFormat('en-US', {
      timeZone: 'Europe/Berlin',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hour12: false,
    }).format(b.nextRunMs);
    expect(local).toBe('Fri 16:30');
    expect(describeSchedule(b.schedule)).toBe('Fridays at 16:30 Europe/Berlin');
    expect(slackDateText(b.nextRunMs!, 'Europe/Berlin')).toMatch(
      /^<!date\^\d+\^\{date_short_pretty\} at \{time\}\|Fri, [A-Z][a-z]{2} \d{1,2}, \d{4} 16:30 Europe\/Berlin>$/,
    );
    // Exactly one upcoming run is queued.
    expect((await replicaA.getDelayed()).filter((j) => j.repeatJobKey === a.schedulerId)).toHaveLength(1);
  });

  it('lists the workspace subscriptions only, and unsubscribe removes the scheduler with its next run', async () => {
    await subscribeChannel(replicaA, {
      teamId: 'T1',
      channel: 'C1',
      requestedBy: 'U1',
      schedule: { pattern: '0 9 * * 1', tz: 'UTC' },
    });
    await subscribeChannel(replicaA, {
      teamId: 'T1',
      channel: 'C2',
      requestedBy: 'U2',
      schedule: { pattern: '0 7 * * *', tz: 'Asia/Tokyo' },
    });
    await subscribeChannel(replicaA, {
      teamId: 'T2',
      channel: 'C3',
      requestedBy: 'U3',
      schedule: { pattern: '0 9 * * 1', tz: 'UTC' },
    });
    const listed = await listSubscriptions(replicaB, 'T1');
    expect(listed.map((s) => s.channel).sort()).toEqual(['C1', 'C2']);
    expect(listed.find((s) => s.channel === 'C2')).toMatchObject({
      requestedBy: 'U2',
      schedule: { pattern: '0 7 * * *', tz: 'Asia/Tokyo' },
    });
    expect(describeSchedule(listed.find((s) => s.channel === 'C2')!.schedule)).toBe('every day at 07:00 Asia/Tokyo');

    expect(await unsubscribeChannel(replicaB, 'T1', 'C1')).toBe(true);
    expect(await unsubscribeChannel(replicaB, 'T1', 'C1')).toBe(false);
    expect(await getSubscription(replicaA, 'T1', 'C1')).toBeUndefined();
    expect((await replicaA.getDelayed()).filter((j) => j.repeatJobKey === digestSchedulerId('T1', 'C1'))).toHaveLength(
      0,
    );
    expect((await listSubscriptions(replicaA, 'T1')).map((s) => s.channel)).toEqual(['C2']);
  });

  it('"send now" twice within 30 s queues one job', async () => {
    const now = Date.parse('2026-11-22T20:00:00Z');
    const req = { teamId: 'T1', channel: 'C1', requestedBy: 'U1', tz: 'UTC' };
    const first = await sendDigestNow(replicaA, req, now);
    const second = await sendDigestNow(replicaB, req, now + 5_000);
    expect(second).toBe(first);
    expect(await replicaA.getJobCounts('waiting', 'delayed', 'active')).toMatchObject({ waiting: 1 });
    const job = await replicaA.getJob(first);
    expect(job?.data).toEqual({ ...req, trigger: 'manual' });
    expect(job?.opts.attempts).toBe(3);
  });
});
