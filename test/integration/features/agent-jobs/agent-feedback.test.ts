import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAnnouncement } from '../../../../src/features/agent-jobs/poll/blocks.js';
import { buildHomeView } from '../../../../src/features/agent-jobs/home/index.js';
import {
  ACTION_FEEDBACK,
  FEEDBACK_PURPOSE,
  FEEDBACK_UNKNOWN_TEXT,
  FEEDBACK_UNVERIFIED_TEXT,
  feedbackBlock,
  handleFeedback,
  parseFeedbackValue,
  type FeedbackDeps,
} from '../../../../src/features/agent-jobs/feedback.js';
import { JobStore } from '../../../../src/features/agent-jobs/store.js';
import { OPEN_GATE } from '../../../../src/platform/access.js';
import { BotMetrics } from '../../../../src/platform/metrics.js';
import { NOT_A_MEMBER_TEXT } from '../../../../src/platform/slack/member-check.js';
import { memorySteps } from '../../../../src/platform/steps.js';
import { jobRecord } from '../../../helpers/job-record.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';

/* The feedback buttons: what the announcement carries, and a click's handling on real Redis. */

let redis: Redis;
const prefix = randomPrefix();
beforeAll(() => void (redis = testRedis()));
afterAll(async () => {
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

/** The value of the 👍 or 👎 button the bot puts under job `jobId`'s announcement. */
function buttonValue(jobId: string, rating: 'positive' | 'negative'): string {
  const element = feedbackBlock(jobId, TEST_SIGNER).elements[0] as {
    positive_button: { value: string };
    negative_button: { value: string };
  };
  return element[`${rating}_button`].value;
}

/** Members of each channel, as conversations.members would list them. */
const MEMBERS: Record<string, string[]> = { C1: ['U0BOB', 'U0CAROL'], C2: ['U0BOB', 'U0CAROL'] };

function harness(access: FeedbackDeps['access'] = OPEN_GATE) {
  const store = new JobStore(redis, prefix, 'proj_a');
  const metrics = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
  const { logger, lines } = arrayLogger();
  const told: string[] = [];
  const conversations = { isMember: async (channel: string, user: string) => (MEMBERS[channel] ?? []).includes(user) };
  const deps: FeedbackDeps = { store, redis, prefix, access, conversations, signer: TEST_SIGNER, metrics, logger };
  /** A click on the button the bot sent for `jobId` (or on a raw `value`), by `user`, in `channel`. */
  const clickValue = (value: string, user = 'U0BOB', channel = 'C1') =>
    handleFeedback(deps, { value, user, channel }, memorySteps(), async (t) => void told.push(t));
  const click = (rating: 'positive' | 'negative', jobId: string, user = 'U0BOB', channel = 'C1') =>
    clickValue(buttonValue(jobId, rating), user, channel);
  const count = async (rating: string, project = 'proj_a') =>
    (await metrics.agentFeedbackTotal.get()).values.find(
      (v) => v.labels.rating === rating && v.labels.project === project,
    )?.value ?? 0;
  return { store, metrics, lines, told, click, clickValue, count };
}

describe('feedback buttons', () => {
  it('every end the agent reached carries them (in a context_actions block), their values signed; a timeout does not', () => {
    for (const outcome of [
      { kind: 'completed', prLink: 'https://github.com/acme/docs/pull/1' },
      { kind: 'completed', prLink: null },
      { kind: 'failed' },
      { kind: 'archived' },
    ] as const) {
      const { blocks } = buildAnnouncement({ mention: 'U1', jobId: 'job_9', outcome }, TEST_SIGNER);
      const last = blocks.at(-1) as { type: string; elements: Array<Record<string, unknown>> };
      expect(last.type).toBe('context_actions');
      const positive = TEST_SIGNER.sign(FEEDBACK_PURPOSE, 'positive:job_9');
      const negative = TEST_SIGNER.sign(FEEDBACK_PURPOSE, 'negative:job_9');
      expect(last.elements[0]).toMatchObject({
        type: 'feedback_buttons',
        action_id: ACTION_FEEDBACK,
        positive_button: { value: positive },
        negative_button: { value: negative },
      });
    }
    const timeout = buildAnnouncement(
      { mention: 'U1', jobId: 'job_9', outcome: { kind: 'timeout', watchedMs: 1 } },
      TEST_SIGNER,
    );
    expect(JSON.stringify(timeout.blocks)).not.toContain('feedback_buttons');
  });

  it('reads back only what it sends', () => {
    expect(parseFeedbackValue('positive:job_9')).toEqual({ rating: 'positive', jobId: 'job_9' });
    for (const v of [
      '',
      'positive',
      'neutral:job_9',
      'positive:',
      'positive:a:b',
      'positive:../x',
      42,
      null,
      `positive:${'x'.repeat(300)}`,
    ])
      expect(parseFeedbackValue(v)).toBeUndefined();
  });

  it('a click is recorded, audited (who, job, project, rating), counted and thanked once; a change of mind is recorded and shown, not counted or thanked again (clicking in turn cannot inflate the share)', async () => {
    const h = harness();
    await h.store.create(jobRecord({ jobId: 'job_fb1', projectId: 'proj_b' }));
    await h.click('positive', 'job_fb1');
    expect(h.told).toEqual([expect.stringContaining('Thanks for rating job `job_fb1` 👍')]);
    expect(await h.count('positive', 'proj_b')).toBe(1);
    expect(h.lines.find((l) => l.audit)).toMatchObject({
      actor: 'U0BOB',
      action: 'job.feedback',
      outcome: 'ok',
      jobId: 'job_fb1',
      projectId: 'proj_b',
      rating: 'positive',
    });
    expect((await h.store.get('job_fb1'))?.rating).toBe('positive');

    await h.click('positive', 'job_fb1'); // the same rating again: nothing new to count or say
    expect(await h.count('positive', 'proj_b')).toBe(1);
    await h.click('negative', 'job_fb1');
    await h.click('positive', 'job_fb1');
    await h.click('negative', 'job_fb1');
    expect(await h.count('negative', 'proj_b')).toBe(0);
    expect(await h.count('positive', 'proj_b')).toBe(1);
    expect(h.told).toHaveLength(1);
    expect((await h.store.get('job_fb1'))?.rating).toBe('negative');
    // Another person's rating is their own.
    await h.click('positive', 'job_fb1', 'U0CAROL');
    expect(await h.count('positive', 'proj_b')).toBe(2);
    expect(h.told).toHaveLength(2);
    const home = JSON.stringify(
      buildHomeView(
        [
          {
            jobId: 'job_fb1',
            instruction: 'x',
            state: 'completed',
            prLink: null,
            createdAt: 0,
            followups: 0,
            rating: 'positive',
          },
        ],
        { followupPolicy: 'anyone', ignorePrefix: '!aside', digestCron: '0 9 * * 1', digestTz: 'UTC' },
        1000,
      ),
    );
    expect(home).toContain('rated 👍');
  });

  it('five concurrent clicks by one person count once: one metric increment, one stored rating, one thanks', async () => {
    const h = harness();
    await h.store.create(jobRecord({ jobId: 'job_fb5', projectId: 'proj_c' }));
    await Promise.all(Array.from({ length: 5 }, () => h.click('positive', 'job_fb5')));
    expect(await h.count('positive', 'proj_c')).toBe(1);
    expect(await redis.hgetall(`${prefix}:agent-feedback:job_fb5`)).toEqual({ U0BOB: 'positive' });
    expect((await h.store.get('job_fb5'))?.rating).toBe('positive');
    expect(h.told.filter((t) => t.startsWith('Thanks'))).toHaveLength(1);
    expect(h.lines.filter((l) => l.audit && l.jobId === 'job_fb5' && l.previous === undefined)).toHaveLength(1);
  });

  it("a rating Redis answers with an error inside the transaction: thrown for the intake's retry; nothing counted, shown or thanked", async () => {
    const h = harness();
    await h.store.create(jobRecord({ jobId: 'job_fb6', projectId: 'proj_d' }));
    // The ratings' key holds a string: HGET answers WRONGTYPE within the MULTI.
    await redis.set(`${prefix}:agent-feedback:job_fb6`, 'x');
    await expect(h.click('positive', 'job_fb6')).rejects.toThrow(/WRONGTYPE/);
    expect(await h.count('positive', 'proj_d')).toBe(0);
    expect((await h.store.get('job_fb6'))?.rating ?? '').toBe('');
    expect(h.told).toEqual([]);
    expect(h.lines.filter((l) => l.audit && l.jobId === 'job_fb6')).toEqual([]);
  });

  it("a job of another conversation: nothing changes, and the answer is the unknown job's (nobody learns the id exists)", async () => {
    const h = harness();
    await h.store.create(jobRecord({ jobId: 'job_c1', channel: 'C1' }));
    await h.click('positive', 'job_c1', 'U0BOB', 'C2'); // a value naming C1's job, clicked in C2
    await h.click('positive', 'job_gone', 'U0BOB', 'C2'); // a job no one knows
    expect(h.told).toEqual([FEEDBACK_UNKNOWN_TEXT, FEEDBACK_UNKNOWN_TEXT]);
    expect(await h.count('positive')).toBe(0);
    expect(await redis.exists(`${prefix}:agent-feedback:job_c1`)).toBe(0);
    expect((await h.store.get('job_c1'))?.rating).toBeUndefined();
    expect(h.lines.filter((l) => l.audit)).toEqual([]);
  });

  it('a value the bot did not sign (forged, tampered, or from before signing): a private answer and a warning, nothing counted', async () => {
    const h = harness();
    await h.store.create(jobRecord({ jobId: 'job_fb3' }));
    const signed = buttonValue('job_fb3', 'positive');
    await h.clickValue('positive:job_fb3'); // an announcement from before signing, or forged
    await h.clickValue(signed.replace('positive:job_fb3', 'negative:job_fb3')); // the rating changed on the way
    await h.clickValue('<!channel>');
    expect(h.told).toEqual([FEEDBACK_UNVERIFIED_TEXT, FEEDBACK_UNVERIFIED_TEXT, FEEDBACK_UNVERIFIED_TEXT]);
    expect(h.lines.filter((l) => l.level === 40).map((l) => l.reason)).toEqual(['unsigned', 'tampered', 'unsigned']);
    expect(await h.count('positive')).toBe(0);
    expect((await h.store.get('job_fb3'))?.rating).toBeUndefined();
  });

  it("goes through the access policy and membership of the job's conversation: a refused person hears why, nothing is recorded", async () => {
    const h = harness({
      ...OPEN_GATE,
      authorize: async () => ({ allowed: false, reason: 'guest', text: 'Guests cannot use the docs agent.' }),
    });
    await h.store.create(jobRecord({ jobId: 'job_fb2' }));
    await h.click('negative', 'job_fb2');
    expect(h.told).toEqual(['Guests cannot use the docs agent.']);
    const outsider = harness();
    await outsider.click('negative', 'job_fb2', 'U0DAVE'); // not in C1 (any more)
    expect(outsider.told).toEqual([NOT_A_MEMBER_TEXT]);
    expect(outsider.lines.find((l) => l.audit)).toMatchObject({
      actor: 'U0DAVE',
      action: 'job.feedback',
      outcome: 'refused',
      reason: 'not_a_member',
    });
    expect(await h.count('negative')).toBe(0);
    expect((await h.store.get('job_fb2'))?.rating).toBeUndefined();
  });
});
