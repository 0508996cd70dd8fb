import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW_CEILING_MS, type PreviewJobData } from '../../../../src/features/agent-jobs/preview/context.js';
import { DASHBOARD_URL } from '../../../../src/features/agent-jobs/preview/blocks.js';
import { PreviewSlots, SLOT_MARGIN_MS, SLOT_WINDOW_MS } from '../../../../src/features/agent-jobs/preview/slots.js';
import { BotMetrics } from '../../../../src/platform/metrics.js';
import { slackPlatformError } from '../../../helpers/fake-slack-client.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { previewHarness, type HarnessMessage } from '../../../helpers/preview-harness.js';
import { Scrape } from '../../../helpers/prometheus.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

// The preview step on real Redis, in virtual time, against the fake docs API's previews.
let redis: Redis;
let prefix: string;
beforeAll(() => {
  redis = testRedis();
});
afterEach(async () => {
  await dropPrefix(redis, prefix);
});
afterAll(async () => {
  await redis.quit();
});

const previewMessages = (messages: HarnessMessage[], jobId: string) =>
  messages.filter((m) => m.metadata?.event_payload.key === `preview:${jobId}` && !m.deleted);

type Harness = ReturnType<typeof previewHarness>;

/**
 * Runs a burst of jobs in virtual time: every first run starts at once (the workers of a burst),
 * then each due step runs in time order. @returns each job's result.
 */
async function runBurst(h: Harness, ids: string[]): Promise<Map<string, string>> {
  const results = new Map<string, string>();
  const due: { at: number; data: PreviewJobData }[] = [];
  const first = ids.map((id) => ({ agentJobId: id, cycle: 0, completedAt: h.clock.t, polls: 0, tries: 0 }));
  const outs = await Promise.all(first.map((d) => h.run(d)));
  outs.forEach((out, i) => {
    if ('result' in out) results.set(ids[i]!, out.result);
    else due.push({ at: h.clock.t + out.delayMs, data: first[i]! });
  });
  while (due.length) {
    due.sort((x, y) => x.at - y.at);
    const next = due.shift()!;
    h.clock.t = next.at;
    const out = await h.run(next.data);
    if ('result' in out) results.set(next.data.agentJobId, out.result);
    else due.push({ at: h.clock.t + out.delayMs, data: next.data });
  }
  return results;
}

describe('preview step: exactly once', () => {
  it('a redelivery and a second replica running the same preview at once ask once and post one message', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 60_000 } });
    h.addJob('job_aaaaaaaaaaaa');
    const [a, b] = await Promise.all([h.runToEnd('job_aaaaaaaaaaaa'), h.runToEnd('job_aaaaaaaaaaaa')]);
    expect([a.result, b.result]).toEqual(['ready', 'ready']);
    expect(h.fake.deployments.size).toBe(1);
    expect(previewMessages(h.messages, 'job_aaaaaaaaaaaa')).toHaveLength(1);
    // A redelivery after the end changes nothing.
    expect((await h.runToEnd('job_aaaaaaaaaaaa')).result).toBe('ready');
    expect(h.fake.deployments.size).toBe(1);
    expect(previewMessages(h.messages, 'job_aaaaaaaaaaaa')).toHaveLength(1);
  });

  it('after a Redis loss, the rebuild finds its message by metadata and edits it instead of posting another', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 30_000 } });
    const rec = h.addJob('job_bbbbbbbbbbbb');
    expect((await h.runToEnd('job_bbbbbbbbbbbb')).result).toBe('ready');
    await dropPrefix(redis, prefix);
    rec.cycle = 1;
    h.clock.t += SLOT_WINDOW_MS;
    expect((await h.runToEnd('job_bbbbbbbbbbbb', 1)).result).toBe('ready');
    const messages = previewMessages(h.messages, 'job_bbbbbbbbbbbb');
    expect(messages).toHaveLength(1);
    expect(messages[0]!.text).toBe('Preview ready');
    expect(messages[0]!.edits).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(messages[0]!.blocks)).toContain('rebuilt after the follow-up');
  });

  it('a post whose answer was lost (a crash before its ts was kept) is found again, not posted twice', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 30_000 } });
    h.addJob('job_cccccccccccc');
    const post = h.deps.slack.chat.postMessage;
    let crashed = false;
    h.deps.slack.chat.postMessage = (async (a: never) => {
      await post(a);
      if (!crashed) {
        crashed = true;
        throw new Error('the process died before it kept the ts');
      }
      return post(a);
    }) as never;
    const data = { agentJobId: 'job_cccccccccccc', cycle: 0, completedAt: h.clock.t, polls: 0, tries: 0 };
    // Slack's answer is lost: the step carries on, and the next show finds the message by its metadata.
    expect(await h.run(data)).toEqual({ delayMs: 10_000 });
    expect((await h.runToEnd('job_cccccccccccc')).result).toBe('ready');
    expect(previewMessages(h.messages, 'job_cccccccccccc')).toHaveLength(1);
  });
  it('a message posted before a crash cut off its ts from the record is edited to the latest stage, not left behind', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 30_000 } });
    h.addJob('job_ffffffffffff');
    const data = { agentJobId: 'job_ffffffffffff', cycle: 0, completedAt: h.clock.t, polls: 0, tries: 0 };
    expect(await h.run(data)).toEqual({ delayMs: 10_000 });
    expect(previewMessages(h.messages, 'job_ffffffffffff')[0]!.text).toContain('Building a preview');
    // The process died after Slack took the post (and its steps kept the ts), before the record kept it.
    const { ts: _ts, shown: _shown, ...cut } = (await h.store.get('job_ffffffffffff'))!;
    await h.store.save(cut);
    h.clock.t += 40_000;
    expect((await h.runToEnd('job_ffffffffffff')).result).toBe('ready');
    const [msg, ...more] = previewMessages(h.messages, 'job_ffffffffffff');
    expect(more).toEqual([]);
    expect(msg!.text).toBe('Preview ready');
  });
});

describe('preview step: limits, failures and the ceiling', () => {
  it('20 previews at once go out 5 a window, in the order they asked, and none is refused', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 20_000, windowMs: 60_000 } });
    const ids = Array.from({ length: 20 }, (_, i) => `job_burst${String(i).padStart(5, '0')}`);
    for (const id of ids) h.addJob(id);
    const results = await runBurst(h, ids);
    expect([...results.values()].every((r) => r === 'ready')).toBe(true);
    expect(h.fake.refusals).toBe(0);
    const asked = [...h.fake.deployments.values()].sort((x, y) => x.createdAt - y.createdAt);
    expect(asked.map((d) => d.branch)).toEqual(ids.map((id) => `mintlify/agent-${id.slice(-8)}`));
    const start = asked[0]!.createdAt;
    expect(asked.map((d) => Math.floor((d.createdAt - start) / SLOT_WINDOW_MS))).toEqual(
      ids.map((_, i) => Math.floor(i / 5)),
    );
    // Jobs 6-20 waited their turn and said so; the first 5 went out at once and never did.
    const saidQueued = (id: string) =>
      previewMessages(h.messages, id)[0]!.history.some((t) => t.includes('Preview queued'));
    expect(ids.map(saidQueued)).toEqual(ids.map((_, i) => i >= 5));
  });

  it("slots are decided on Redis' clock, and a request that wakes past its slot's margin takes a new place", async () => {
    prefix = randomPrefix();
    // Without a clock: Redis TIME (one clock for every replica).
    const shared = new PreviewSlots(redis, `${prefix}:shared`);
    const waits = [];
    for (const m of ['a', 'b', 'c', 'd', 'e', 'f']) waits.push(await shared.reserve(m));
    expect(waits.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(waits[5]).toBeGreaterThan(SLOT_WINDOW_MS - 5_000);
    expect(waits[5]).toBeLessThanOrEqual(SLOT_WINDOW_MS);
    // In virtual time: f's slot is one window ahead; it wakes 10 s late.
    const clock = { t: 1_700_000_000_000 };
    const slots = new PreviewSlots(redis, prefix, 5, SLOT_WINDOW_MS, () => clock.t);
    for (const m of ['a', 'b', 'c', 'd', 'e']) expect(await slots.reserve(m)).toBe(0);
    expect(await slots.reserve('f')).toBe(SLOT_WINDOW_MS);
    clock.t += SLOT_WINDOW_MS + 10_000;
    expect(await slots.reserve('f')).toBe(0);
    // f counts from when it really goes out: 4 more fit now, the next waits a whole window from now.
    for (const m of ['g', 'h', 'i', 'j']) expect(await slots.reserve(m)).toBe(0);
    expect(await slots.reserve('k')).toBe(SLOT_WINDOW_MS);
  });

  it('5xx and timeouts are retried with backoff; after the last try the thread says the preview could not be started, the announcement untouched', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix });
    const rec = h.addJob('job_dddddddddddd');
    // The job's own announcement, already in the thread.
    h.messages.push({ ts: '1.000001', thread_ts: rec.threadTs, text: 'Pull request ready', edits: 0, history: [] });
    h.failNext(503, 2);
    h.failNext(0, 1);
    h.failNext(502, 2);
    const start = h.clock.t;
    const end = await h.runToEnd('job_dddddddddddd');
    expect(end.result).toBe('not-started');
    // Five tries, 5 s doubling in between (5 + 10 + 20 + 40 s).
    expect(end.runs).toBe(5);
    expect(end.endedAt - start).toBe(75_000);
    expect(h.fake.deployments.size).toBe(0);
    const [msg] = previewMessages(h.messages, 'job_dddddddddddd');
    expect(msg!.text).toContain('could not be started');
    expect(h.records.get('job_dddddddddddd')!.preview).toBe('not_started');
    expect(h.messages[0]).toMatchObject({ text: 'Pull request ready', edits: 0 });
    expect(h.messages[0]!.deleted).toBeUndefined();
  });

  it('a timeout on a request is retried and the preview still ends ready', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 20_000 } });
    h.addJob('job_tttttttttttt');
    h.failNext(0, 1);
    expect((await h.runToEnd('job_tttttttttttt')).result).toBe('ready');
    expect(h.fake.deployments.size).toBe(1);
  });

  it('429s take a new place in line without using up the tries of 5xx: four 429s then a 503 still end ready', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 20_000 } });
    h.addJob('job_rrrrrrrrrrrr');
    h.failNext(429, 4);
    h.failNext(503, 1);
    const end = await h.runToEnd('job_rrrrrrrrrrrr');
    expect(end.result).toBe('ready');
    expect(h.fake.deployments.size).toBe(1);
    expect(previewMessages(h.messages, 'job_rrrrrrrrrrrr')[0]!.text).toBe('Preview ready');
  });

  it('a build status the docs API fails to answer is read again later, and the preview still ends ready', async () => {
    prefix = randomPrefix();
    const { logger, lines } = arrayLogger('warn');
    const h = previewHarness({ redis, prefix, previews: { buildMs: 20_000 }, logger });
    h.addJob('job_ssssssssssss');
    const data = { agentJobId: 'job_ssssssssssss', cycle: 0, completedAt: h.clock.t, polls: 0, tries: 0 };
    expect(await h.run(data)).toEqual({ delayMs: 10_000 }); // asked; the build is being watched
    h.clock.t += 10_000;
    h.failNext(503, 1);
    h.failNext(0, 1);
    // Each failed read reschedules the watch (a poll counted); nothing is shown as failed meanwhile.
    expect(await h.run(data)).toMatchObject({ delayMs: expect.any(Number) });
    expect(data.polls).toBe(1);
    expect(previewMessages(h.messages, 'job_ssssssssssss')[0]!.text).toContain('Building a preview');
    expect((await h.runToEnd('job_ssssssssssss')).result).toBe('ready');
    expect(previewMessages(h.messages, 'job_ssssssssssss')[0]!.text).toBe('Preview ready');
    expect(lines.filter((l) => l.msg === 'could not read the preview build; will try again')).toHaveLength(2);
  });

  it('build durations Redis cannot read or record: the watch falls back to backoff and the preview still ends ready', async () => {
    prefix = randomPrefix();
    const { logger, lines } = arrayLogger('warn');
    const down = new Error('Connection is closed.');
    const learn = () => ({ plan: () => Promise.reject(down), record: () => Promise.reject(down) });
    const h = previewHarness({ redis, prefix, previews: { buildMs: 30_000 }, logger, learn });
    h.addJob('job_uuuuuuuuuuuu');
    expect((await h.runToEnd('job_uuuuuuuuuuuu')).result).toBe('ready');
    expect(previewMessages(h.messages, 'job_uuuuuuuuuuuu')[0]!.text).toBe('Preview ready');
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        'could not read the build durations; backoff only',
        'could not record the build duration',
      ]),
    );
  });

  it('a build still going at the ceiling is "taking longer than usual" with the dashboard link', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 2 * PREVIEW_CEILING_MS } });
    h.addJob('job_eeeeeeeeeeee');
    const end = await h.runToEnd('job_eeeeeeeeeeee');
    expect(end.result).toBe('slow');
    const [msg] = previewMessages(h.messages, 'job_eeeeeeeeeeee');
    expect(JSON.stringify(msg!.blocks)).toContain(DASHBOARD_URL);
    expect(msg!.text).toContain('taking longer than usual');
    // Polls follow the backoff, not every 2 s: at most one per 10 s at first, far fewer later.
    const reads = [...h.fake.deployments.values()][0]!.reads;
    expect(reads).toBeLessThan(PREVIEW_CEILING_MS / 20_000);
  });

  it('a 403 in a burst of 8 turns previews off: every queued message taken back, no preview step left on the plans', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { plan: 'free' } });
    const ids = Array.from({ length: 8 }, (_, i) => `job_free${String(i).padStart(8, '0')}`);
    for (const id of ids) h.addJob(id);
    const results = await runBurst(h, ids);
    expect([...results.values()]).toEqual(ids.map(() => 'off'));
    // Jobs 6-8 waited in line and showed "Preview queued" before the plan was known...
    const queued = h.messages.filter((m) => m.history.some((t) => t.includes('Preview queued')));
    expect(queued.length).toBeGreaterThanOrEqual(3);
    // ...and nothing about previews stays: no message, no preview step on any plan.
    expect(h.messages.filter((m) => !m.deleted)).toHaveLength(0);
    expect(ids.map((id) => h.records.get(id)!.preview ?? null)).toEqual(ids.map(() => null));
    expect(await h.store.isOff('proj_1')).toBe(true);
    // Only the first window's requests reached the API; a later job asks nothing.
    h.addJob('job_latelatelate');
    expect((await h.runToEnd('job_latelatelate')).result).toBe('off');
    expect(h.messages.filter((m) => !m.deleted)).toHaveLength(0);
  });
});

describe('preview step: Slack failures', () => {
  it('a preview message Slack refuses for good (the channel is archived) ends the step: one error line by code, nothing posted, no retry', async () => {
    prefix = randomPrefix();
    const { logger, lines } = arrayLogger('warn');
    const h = previewHarness({ redis, prefix, previews: { buildMs: 20_000 }, logger });
    h.addJob('job_gggggggggggg');
    h.deps.slack.chat.postMessage = (async () => Promise.reject(slackPlatformError('is_archived'))) as never;
    expect(await h.runToEnd('job_gggggggggggg')).toMatchObject({ result: 'cannot-post', runs: 1 });
    expect(h.messages).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'Slack refused the preview message for good; the preview is not shown',
        slackError: 'is_archived',
      }),
    );
  });

  it('a request answered without a statusId shows its link as ready, with a warning, without watching a build', async () => {
    prefix = randomPrefix();
    const { logger, lines } = arrayLogger('warn');
    const h = previewHarness({ redis, prefix, logger });
    h.addJob('job_nnnnnnnnnnnn');
    const real = h.deps.docsApi.forProject('proj_1');
    h.deps.docsApi.forProject = () => ({
      ...real,
      requestPreview: async () => ({ previewUrl: 'https://acme-preview.example.com' }) as never,
    });
    expect(await h.runToEnd('job_nnnnnnnnnnnn')).toMatchObject({ result: 'ready', runs: 1 });
    const [msg] = previewMessages(h.messages, 'job_nnnnnnnnnnnn');
    expect(msg!.text).toBe('Preview ready');
    expect(JSON.stringify(msg!.blocks)).toContain('https://acme-preview.example.com');
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'the preview request was answered without a statusId; showing its link without watching the build',
      }),
    );
  });

  /** A job whose preview showed "Preview queued" (its message posted) before the plan turned out to have none. */
  async function queuedThenOff(h: Harness, jobId: string): Promise<string> {
    const job = h.addJob(jobId);
    const posted = (await h.deps.slack.chat.postMessage({
      channel: job.channel,
      thread_ts: job.threadTs,
      text: 'Preview queued',
    } as never)) as { ts: string };
    await h.store.save({
      jobId,
      cycle: 0,
      stage: 'queued',
      branch: job.branch!,
      ts: posted.ts,
      completedAt: h.clock.t,
    });
    job.preview = 'queued';
    await h.store.turnOff('proj_1', 'plan');
    return posted.ts;
  }
  const run0 = (h: Harness, jobId: string) =>
    h.run({ agentJobId: jobId, cycle: 0, completedAt: h.clock.t, polls: 0, tries: 0 });

  it('a queued message Slack fails to delete (5xx) is taken back on the retry, not left saying "queued"', async () => {
    prefix = randomPrefix();
    const { logger, lines } = arrayLogger('warn');
    const h = previewHarness({ redis, prefix, logger });
    const ts = await queuedThenOff(h, 'job_hhhhhhhhhhhh');
    const del = h.deps.slack.chat.delete;
    h.deps.slack.chat.delete = (async () => Promise.reject(slackPlatformError('internal_error'))) as never;
    // The step fails, so BullMQ runs it again (its capped backoff).
    await expect(run0(h, 'job_hhhhhhhhhhhh')).rejects.toThrow('internal_error');
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'could not take back the queued preview' }));
    expect(h.messages.find((m) => m.ts === ts)!.deleted).toBeUndefined();
    h.deps.slack.chat.delete = del;
    expect(await run0(h, 'job_hhhhhhhhhhhh')).toEqual({ result: 'off' });
    expect(h.messages.find((m) => m.ts === ts)!.deleted).toBe(true);
    expect(h.records.get('job_hhhhhhhhhhhh')!.preview ?? null).toBeNull();
  });

  it('a queued message that is already gone (message_not_found) is one warning; the plan still loses its preview step and the step ends "off"', async () => {
    prefix = randomPrefix();
    const { logger, lines } = arrayLogger('warn');
    const h = previewHarness({ redis, prefix, logger });
    await queuedThenOff(h, 'job_iiiiiiiiiiii');
    h.deps.slack.chat.delete = (async () => Promise.reject(slackPlatformError('message_not_found'))) as never;
    expect(await run0(h, 'job_iiiiiiiiiiii')).toEqual({ result: 'off' });
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'could not delete the queued preview message', slackError: 'message_not_found' }),
    ]);
    expect(h.records.get('job_iiiiiiiiiiii')!.preview ?? null).toBeNull();
    expect((await h.store.get('job_iiiiiiiiiiii'))?.ts).toBeUndefined();
  });

  it('a queued message deleted just before Redis failed: the retry finds it gone and still clears the plan', async () => {
    prefix = randomPrefix();
    const { logger } = arrayLogger('warn');
    const h = previewHarness({ redis, prefix, logger });
    const ts = await queuedThenOff(h, 'job_kkkkkkkkkkkk');
    const save = h.store.save.bind(h.store);
    h.store.save = async () => Promise.reject(new Error('Connection is closed.'));
    await expect(run0(h, 'job_kkkkkkkkkkkk')).rejects.toThrow('Connection is closed.');
    expect(h.messages.find((m) => m.ts === ts)!.deleted).toBe(true);
    expect(h.records.get('job_kkkkkkkkkkkk')!.preview).toBe('queued');
    // The retry: the message is gone (message_not_found); the plan's step is taken back all the same.
    h.store.save = save;
    expect(await run0(h, 'job_kkkkkkkkkkkk')).toEqual({ result: 'off' });
    expect(h.records.get('job_kkkkkkkkkkkk')!.preview ?? null).toBeNull();
  });

  it('a queued message Slack refuses to delete for good (cant_delete_message) keeps its ts; the plan loses its preview step', async () => {
    prefix = randomPrefix();
    const { logger } = arrayLogger('warn');
    const h = previewHarness({ redis, prefix, logger });
    const ts = await queuedThenOff(h, 'job_llllllllllll');
    h.deps.slack.chat.delete = (async () => Promise.reject(slackPlatformError('cant_delete_message'))) as never;
    expect(await run0(h, 'job_llllllllllll')).toEqual({ result: 'off' });
    expect((await h.store.get('job_llllllllllll'))?.ts).toBe(ts);
    expect(h.records.get('job_llllllllllll')!.preview ?? null).toBeNull();
  });
});

describe('preview step: the rate-limit slot of a run that does not ask', () => {
  // The fake's branch is named after an id's last 8 characters: the tag (4 letters) is in them.
  const ids = (tag: string, n: number) =>
    Array.from({ length: n }, (_, i) => `job_0000${String(i).padStart(4, '0')}${tag}`);
  const run0 = (id: string, h: Harness) =>
    h.run({ agentJobId: id, cycle: 0, completedAt: h.clock.t, polls: 0, tries: 0 });
  /** When each of `jobs` asked the fake (clock ms), in order. */
  const askedAt = (h: Harness, jobs: string[]) =>
    jobs.map(
      (id) => [...h.fake.deployments.values()].find((d) => d.branch === `mintlify/agent-${id.slice(-8)}`)?.createdAt,
    );

  it('runs that waited in line and then end without asking (plan off, superseded, no branch) give their slots back', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 20_000 } });
    const t0 = h.clock.t;
    // Five jobs take the window's five slots; five more (another project, a follow-up, no branch) wait a window.
    const first = ids('frst', 5);
    const waiting = ids('wait', 5);
    const later = ids('late', 5);
    for (const id of [...first, ...waiting, ...later]) h.addJob(id);
    for (const id of first) expect(await run0(id, h)).toEqual({ delayMs: 10_000 });
    for (const id of waiting) expect(await run0(id, h)).toEqual({ delayMs: SLOT_WINDOW_MS });
    // While they wait: two are on a project whose plan turns out to have no previews, two get a
    // follow-up (a newer run), one's record lost its branch.
    for (const id of waiting.slice(0, 2)) h.records.get(id)!.projectId = 'proj_2';
    await h.store.turnOff('proj_2', 'forbidden');
    for (const id of waiting.slice(2, 4)) h.records.get(id)!.cycle = 1;
    delete h.records.get(waiting[4]!)!.branch;
    h.clock.t = t0 + SLOT_WINDOW_MS;
    const ends = [];
    for (const id of waiting) ends.push(await run0(id, h));
    expect(ends).toEqual([
      { result: 'off' },
      { result: 'off' },
      { result: 'superseded' },
      { result: 'superseded' },
      { result: 'no-branch' },
    ]);
    // Their five slots are free again: five jobs that complete now ask at once, none says "queued".
    for (const id of later) expect(await run0(id, h)).toEqual({ delayMs: 10_000 });
    expect(askedAt(h, later)).toEqual(later.map(() => t0 + SLOT_WINDOW_MS));
    expect(later.flatMap((id) => previewMessages(h.messages, id)[0]!.history)).not.toContainEqual(
      expect.stringContaining('queued'),
    );
    expect(h.fake.refusals).toBe(0);
  });

  it('a run that finds another run asking gives its slot back and waits; the request goes out once', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 20_000 } });
    const [id] = ids('busy', 1);
    h.addJob(id!);
    // Another replica holds the request (its claim's lease is live).
    expect(await h.store.claimAsk(id!, 0)).toBe('go');
    expect(await run0(id!, h)).toEqual({ delayMs: 15_000 });
    // Five others still go out at once: the waiting run holds no slot.
    const others = ids('free', 5);
    for (const o of others) h.addJob(o);
    for (const o of others) expect(await run0(o, h)).toEqual({ delayMs: 10_000 });
    expect(h.fake.deployments.size).toBe(5);
    expect(h.fake.refusals).toBe(0);
  });

  it('a slot that was spent on a request is kept: giving back and waking late leave it counted', async () => {
    prefix = randomPrefix();
    const clock = { t: 1_700_000_000_000 };
    const slots = new PreviewSlots(redis, prefix, 5, SLOT_WINDOW_MS, () => clock.t);
    for (const m of ['a', 'b', 'c', 'd', 'e']) expect(await slots.reserve(m)).toBe(0);
    await slots.spend('a');
    await slots.release('a');
    await slots.release('b');
    // b's slot is free again; a's is not: one more fits now, the next waits a window.
    expect(await slots.reserve('f')).toBe(0);
    expect(await slots.reserve('g')).toBe(SLOT_WINDOW_MS);
    // a wakes late (a retry after a crash): its spent slot stays, and it takes a new place in line.
    clock.t += SLOT_MARGIN_MS + 1;
    expect(await slots.reserve('a')).toBe(SLOT_WINDOW_MS - SLOT_MARGIN_MS - 1);
  });
});

describe('preview step: a request cut off by a crash', () => {
  it('is never sent again: the thread says the request was lost, once, with the dashboard link', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 20_000 } });
    h.addJob('job_lostlostlost');
    // A run claimed the request and died inside it: its lease lapsed with the request "sending".
    expect(await h.store.claimAsk('job_lostlostlost', 0)).toBe('go');
    await redis.del(`${prefix}:preview-ask-lease:job_lostlostlost:0`);
    expect((await h.runToEnd('job_lostlostlost')).result).toBe('uncertain');
    expect(h.fake.deployments.size).toBe(0);
    // A redelivery changes nothing.
    expect((await h.runToEnd('job_lostlostlost')).result).toBe('uncertain');
    expect(h.fake.deployments.size).toBe(0);
    const [msg, ...more] = previewMessages(h.messages, 'job_lostlostlost');
    expect(more).toEqual([]);
    expect(msg!.text).toContain("can't tell whether it is building");
    expect(JSON.stringify(msg!.blocks)).toContain(DASHBOARD_URL);
    expect(h.records.get('job_lostlostlost')!.preview).toBe('uncertain');
  });
});

describe('preview step: metrics', () => {
  it('counts previews asked, built, failed, not started and lost once each, and the time from completed to ready', async () => {
    prefix = randomPrefix();
    const h = previewHarness({ redis, prefix, previews: { buildMs: 30_000 } });
    const metrics = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    h.deps.metrics = metrics;
    for (const id of ['job_metricsbuilt', 'job_metricsfaild', 'job_metricsnotst', 'job_metricslostt']) h.addJob(id);
    const start = h.clock.t;
    const built = await h.runToEnd('job_metricsbuilt');
    expect(built.result).toBe('ready');
    h.fake.failNextBuilds(1);
    expect((await h.runToEnd('job_metricsfaild')).result).toBe('failed');
    h.failNext(503, 5);
    expect((await h.runToEnd('job_metricsnotst')).result).toBe('not-started');
    expect(await h.store.claimAsk('job_metricslostt', 0)).toBe('go');
    await redis.del(`${prefix}:preview-ask-lease:job_metricslostt:0`);
    expect((await h.runToEnd('job_metricslostt')).result).toBe('uncertain');
    // Redeliveries after the end count nothing again.
    for (const id of ['job_metricsbuilt', 'job_metricsfaild', 'job_metricsnotst', 'job_metricslostt'])
      await h.runToEnd(id);
    const scrape = new Scrape(await metrics.registry.metrics());
    expect(scrape.value('docs_bot_previews_requested_total')).toBe(2);
    for (const outcome of ['built', 'failed', 'not_started', 'uncertain'])
      expect(scrape.value('docs_bot_previews_finished_total', { outcome })).toBe(1);
    expect(scrape.value('docs_bot_previews_finished_total', { outcome: 'slow' })).toBe(0);
    expect(scrape.value('docs_bot_preview_ready_seconds_count')).toBe(1);
    expect(scrape.value('docs_bot_preview_ready_seconds_sum')).toBe((built.endedAt - start) / 1000);
  });
});
