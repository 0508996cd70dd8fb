import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAnnouncement, buildHomeView } from '../../src/features/agent-jobs/blocks.js';
import { ACTION_FEEDBACK, FEEDBACK_UNKNOWN_TEXT, handleFeedback, parseFeedbackValue, type FeedbackDeps } from '../../src/features/agent-jobs/feedback.js';
import { JobStore } from '../../src/features/agent-jobs/store.js';
import { OPEN_GATE } from '../../src/platform/access.js';
import { BotMetrics } from '../../src/platform/metrics.js';
import { memorySteps } from '../../src/platform/slack/post-once.js';
import { jobRecord } from '../helpers/job-record.js';
import { arrayLogger } from '../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis } from '../helpers/redis.js';

/* The feedback buttons: what the announcement carries, and a click's handling on real Redis. */

let redis: Redis;
const prefix = randomPrefix();
beforeAll(() => void (redis = testRedis()));
afterAll(async () => {
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

function harness(access: FeedbackDeps['access'] = OPEN_GATE) {
  const store = new JobStore(redis, prefix, 'proj_a');
  const metrics = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
  const { logger, lines } = arrayLogger();
  const told: string[] = [];
  const deps: FeedbackDeps = { store, redis, prefix, access, metrics, logger };
  const click = (value: string, user = 'U0BOB') => handleFeedback(deps, { value, user, channel: 'C1' }, memorySteps(), async (t) => void told.push(t));
  const count = async (rating: string, project = 'proj_a') => (await metrics.agentFeedbackTotal.get()).values.find((v) => v.labels.rating === rating && v.labels.project === project)?.value ?? 0;
  return { store, metrics, lines, told, click, count };
}

describe('feedback buttons', () => {
  it('every end the agent reached carries them (in a context_actions block); a timeout does not', () => {
    for (const outcome of [{ kind: 'completed', prLink: 'https://github.com/acme/docs/pull/1' }, { kind: 'completed', prLink: null }, { kind: 'failed' }, { kind: 'archived' }] as const) {
      const { blocks } = buildAnnouncement({ mention: 'U1', jobId: 'job_9', outcome });
      const last = blocks.at(-1) as { type: string; elements: Array<Record<string, unknown>> };
      expect(last.type).toBe('context_actions');
      expect(last.elements[0]).toMatchObject({ type: 'feedback_buttons', action_id: ACTION_FEEDBACK, positive_button: { value: 'positive:job_9' }, negative_button: { value: 'negative:job_9' } });
    }
    expect(JSON.stringify(buildAnnouncement({ mention: 'U1', jobId: 'job_9', outcome: { kind: 'timeout', watchedMs: 1 } }).blocks)).not.toContain('feedback_buttons');
  });

  it('reads back only what it sends', () => {
    expect(parseFeedbackValue('positive:job_9')).toEqual({ rating: 'positive', jobId: 'job_9' });
    for (const v of ['', 'positive', 'neutral:job_9', 'positive:', 'positive:a:b', 'positive:../x', 42, null, `positive:${'x'.repeat(300)}`]) expect(parseFeedbackValue(v)).toBeUndefined();
  });

  it('a click is recorded, audited (who, job, project, rating), counted and thanked once; a change of mind is recorded and shown, not counted or thanked again (clicking in turn cannot inflate the share)', async () => {
    const h = harness();
    await h.store.create(jobRecord({ jobId: 'job_fb1', projectId: 'proj_b' }));
    await h.click('positive:job_fb1');
    expect(h.told).toEqual([expect.stringContaining('Thanks for rating job `job_fb1` 👍')]);
    expect(await h.count('positive', 'proj_b')).toBe(1);
    expect(h.lines.find((l) => l.audit)).toMatchObject({ actor: 'U0BOB', action: 'job.feedback', outcome: 'ok', jobId: 'job_fb1', projectId: 'proj_b', rating: 'positive' });
    expect((await h.store.get('job_fb1'))?.rating).toBe('positive');

    await h.click('positive:job_fb1'); // the same rating again: nothing new to count or say
    expect(await h.count('positive', 'proj_b')).toBe(1);
    await h.click('negative:job_fb1');
    await h.click('positive:job_fb1');
    await h.click('negative:job_fb1');
    expect(await h.count('negative', 'proj_b')).toBe(0);
    expect(await h.count('positive', 'proj_b')).toBe(1);
    expect(h.told).toHaveLength(1);
    expect((await h.store.get('job_fb1'))?.rating).toBe('negative');
    // Another person's rating is their own.
    await h.click('positive:job_fb1', 'U0CAROL');
    expect(await h.count('positive', 'proj_b')).toBe(2);
    expect(h.told).toHaveLength(2);
    const home = JSON.stringify(buildHomeView([{ jobId: 'job_fb1', instruction: 'x', state: 'completed', prLink: null, createdAt: 0, followups: 0, rating: 'positive' }], { followupPolicy: 'anyone', ignorePrefix: '!aside', digestCron: '0 9 * * 1', digestTz: 'UTC' }, 1000));
    expect(home).toContain('rated 👍');
  });

  it('a value it did not send, or an unknown job: a private answer and a warning, nothing counted', async () => {
    const h = harness();
    await h.click('positive:job_nope');
    await h.click('<!channel>');
    expect(h.told).toEqual([FEEDBACK_UNKNOWN_TEXT, FEEDBACK_UNKNOWN_TEXT]);
    expect(h.lines.filter((l) => l.level === 40)).toHaveLength(2);
    expect(await h.count('positive')).toBe(0);
  });

  it('goes through the access policy: a refused person hears why, nothing is recorded', async () => {
    const h = harness({ ...OPEN_GATE, authorize: async () => ({ allowed: false, reason: 'guest', text: 'Guests cannot use the docs agent.' }) });
    await h.store.create(jobRecord({ jobId: 'job_fb2' }));
    await h.click('negative:job_fb2');
    expect(h.told).toEqual(['Guests cannot use the docs agent.']);
    expect(await h.count('negative')).toBe(0);
    expect((await h.store.get('job_fb2'))?.rating).toBeUndefined();
  });
});
