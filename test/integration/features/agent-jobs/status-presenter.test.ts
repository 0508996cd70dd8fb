import { LogLevel, WebClient } from '@slack/web-api';
import type { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  RENDER_RETRY_MAX_MS,
  RENDER_RETRY_MS,
  StatusPresenter,
} from '../../../../src/features/agent-jobs/status/presenter.js';
import type { PollJobData, PollStepResult } from '../../../../src/features/agent-jobs/poll/step.js';
import { JobStore } from '../../../../src/features/agent-jobs/store.js';
import { EditBudget } from '../../../../src/features/agent-jobs/status/edit-budget.js';
import {
  createPollQueue,
  pollJobId,
  startPollWorker,
  watchAgentJob,
} from '../../../../src/features/agent-jobs/poll/worker.js';
import { createLogger, type Logger } from '../../../../src/platform/logger.js';
import { startFakeSlack, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { jobRecord } from '../../../helpers/job-record.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../../../helpers/redis.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';

/*
 * The status message's one writer on real Redis, the fake Slack (real HTTP, the real WebClient
 * with rejectRateLimitedCalls, as main.ts builds it) and, for the burst, the real poll worker.
 */

const TOKEN = 'xoxb-presenter-test';
const redis = testRedis();
let slack: FakeSlack;
let prefix: string;
let store: JobStore;
let web: WebClient;
let warnings: Array<{ msg: string; err?: unknown; slackError?: string }>;
let logger: Logger;

beforeAll(async () => {
  slack = await startFakeSlack({ botToken: TOKEN, now: Date.now });
  web = new WebClient(TOKEN, {
    slackApiUrl: slack.url,
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
});
afterAll(async () => {
  await slack.close();
  redis.disconnect();
});
beforeEach(() => {
  prefix = randomPrefix();
  store = new JobStore(redis, prefix);
  warnings = [];
  logger = createLogger('warn', {
    write: (line: string) => void warnings.push(JSON.parse(line) as (typeof warnings)[number]),
  } as unknown as NodeJS.WritableStream);
});
afterEach(() => dropPrefix(redis, prefix));

/** A presenter over this file's Redis, store and fake Slack, edits at least 100 ms apart; `over` replaces any option. */
const presenter = (over: Partial<ConstructorParameters<typeof StatusPresenter>[0]> = {}) =>
  new StatusPresenter({ redis, prefix, store, slack: web, logger, now: Date.now, minIntervalMs: 100, ...over });
const updatesOf = (ts: string) =>
  slack.calls.filter((c) => c.method === 'chat.update' && JSON.stringify(c.args).includes(ts));

/** A job whose status message was posted in #docs and whose end is recorded, not yet shown. */
async function endedJob(jobId: string): Promise<string> {
  const posted = await web.chat.postMessage({
    channel: 'C0DOCS',
    text: `Docs agent job for <@U0ALICE>: Starting… ${jobId}`,
  });
  const ts = posted.ts!;
  const now = Date.now();
  await store.create(
    jobRecord({
      jobId,
      teamId: 'T0SANDBOX',
      channel: 'C0DOCS',
      threadTs: ts,
      statusTs: ts,
      reactionTs: ts,
      cycleStartedAt: now - 60_000,
      createdAt: now - 60_000,
      state: 'completed',
      prLink: 'https://github.com/acme/docs/pull/7',
      endedAt: now,
    }),
  );
  return ts;
}

describe('status presenter: never waits', () => {
  it('a 429 with Retry-After 30 s is returned at once as retryInMs (no sleeping), and the slot holds the next try off', async () => {
    const ts = await endedJob('job_429');
    slack.failNext('chat.update', { status: 429, retryAfterS: 30 });
    const p = presenter();
    const t0 = Date.now();
    const first = await p.show('job_429');
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(first.retryInMs).toBe(30_000);
    // Asked again before Retry-After passed: no call to Slack, the wait that is left.
    const again = await p.show('job_429');
    expect(again.retryInMs).toBeGreaterThan(25_000);
    expect(updatesOf(ts)).toHaveLength(1);
    expect(slack.findMessage('C0DOCS', ts)?.text).toContain('Starting…');
    // Once the slot frees, the final state lands.
    await redis.del(`${prefix}:status-slot:C0DOCS:${ts}`);
    expect(await p.show('job_429')).toEqual({});
    expect(slack.findMessage('C0DOCS', ts)?.text).toContain('Pull request ready');
  });

  it('a render that Redis fails (a failover under way) asks to be tried again, later each time in a row, and the final state lands when it is', async () => {
    const ts = await endedJob('job_redis_down');
    const failing = {
      ...store,
      get: async () => {
        throw new Error('Connection is closed.');
      },
    } as unknown as JobStore;
    const down = presenter({ store: failing });
    expect(await down.show('job_redis_down')).toEqual({ retryInMs: RENDER_RETRY_MS, renderFailed: true });
    expect(await down.show('job_redis_down')).toEqual({ retryInMs: 2 * RENDER_RETRY_MS, renderFailed: true });
    expect(await down.show('job_redis_down')).toEqual({ retryInMs: 4 * RENDER_RETRY_MS, renderFailed: true });
    for (let i = 0; i < 10; i++) await down.show('job_redis_down');
    expect(await down.show('job_redis_down')).toEqual({ retryInMs: RENDER_RETRY_MAX_MS, renderFailed: true });
    expect(warnings).toContainEqual(
      expect.objectContaining({ msg: 'status render failed; asking again', jobId: 'job_redis_down' }),
    );
    expect(slack.findMessage('C0DOCS', ts)?.text).toContain('Starting…');
    // Asked again once Redis answers: the end is shown.
    await redis.del(`${prefix}:status-slot:C0DOCS:${ts}`);
    expect(await presenter().show('job_redis_down')).toEqual({});
    expect(slack.findMessage('C0DOCS', ts)?.text).toContain('Pull request ready');
  });

  it('an unrecorded status message is changed through it; a failure is logged with the error, not swallowed', async () => {
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'Docs agent job for <@U0ALICE>: Starting…' });
    const target = { teamId: 'T0SANDBOX', channel: 'C0DOCS', statusTs: posted.ts! };
    slack.failNext('chat.delete', { error: 'internal_error' });
    expect(await presenter().settleUnrecorded(target, { delete: true })).toEqual({});
    expect(warnings).toContainEqual(
      expect.objectContaining({ msg: 'could not change the status message', slackError: 'internal_error' }),
    );
    expect(slack.findMessage('C0DOCS', posted.ts!)).toBeDefined();

    // The first try holds the message's 100 ms edit slot: free it rather than race it.
    await redis.del(`${prefix}:status-slot:C0DOCS:${posted.ts!}`);
    slack.failNext('chat.delete', { status: 429, retryAfterS: 12 });
    expect(await presenter().settleUnrecorded(target, { delete: true })).toEqual({ retryInMs: 12_000 });
    // The caller's last try forces it through.
    expect(await presenter().settleUnrecorded(target, { delete: true }, { force: true })).toEqual({});
    expect(slack.findMessage('C0DOCS', posted.ts!)).toBeUndefined(); // deleted
  });
});

describe('poll worker: a burst of 429s does not park its slots', () => {
  let queue: Queue<PollJobData>;
  let worker: Worker<PollJobData, PollStepResult>;

  afterEach(async () => {
    await worker?.close(true);
    await queue?.close();
  });

  it('ten jobs whose final edits are rate limited (Retry-After 60 s) are rescheduled; another job is announced meanwhile', async () => {
    const ctx = { connection: { url: TEST_REDIS_URL }, prefix, logger: createLogger('silent') };
    queue = createPollQueue(ctx);
    const status = presenter();
    worker = startPollWorker(
      ctx,
      {
        signer: TEST_SIGNER,
        store,
        docsApi: { forProject: () => ({ getJob: () => Promise.reject(new Error('ended jobs are not polled')) }) },
        slack: web,
        status,
        logger: createLogger('silent'),
        bounds: { minMs: 1_000, maxMs: 5_000 },
        timeoutMs: 3_600_000,
        now: Date.now,
      },
      (_id, fn) => fn(),
    );
    const limited = Array.from({ length: 10 }, (_, i) => `job_burst_${i}`); // as many as the worker's concurrency
    for (const id of limited) await endedJob(id);
    slack.failNext('chat.update', { status: 429, retryAfterS: 60 }, limited.length);
    const callsBefore = slack.calls.length; // the fake Slack is shared with the tests above
    for (const id of limited) await watchAgentJob(queue, id, 0, 0);
    await slack.waitFor(
      () =>
        slack.calls.slice(callsBefore).filter((c) => c.method === 'chat.update' && c.status === 429).length ===
        limited.length,
      60_000,
    );

    const otherTs = await endedJob('job_other');
    const limitedAt = Date.now();
    await watchAgentJob(queue, 'job_other', 0, 0);
    // With the ten worker slots asleep for Retry-After, this would wait 60 s.
    await slack.waitFor(() => slack.findMessage('C0DOCS', otherTs)?.text.includes('Pull request ready'), 40_000);
    expect(Date.now() - limitedAt).toBeLessThan(55_000);
    // Every limited job was announced once and waits, delayed in BullMQ, for its Retry-After.
    for (const id of limited) expect(await queue.getJobState(pollJobId(id, 0))).toBe('delayed');
    const announcements = slack.messages.filter((m) => m.thread_ts && m.text.includes('pull/7'));
    expect(announcements).toHaveLength(limited.length + 1);
  }, 150_000);
});

describe('status presenter: Redis and Slack failures leave the message in a true state', () => {
  /** A client of the same Redis whose every command is refused at once (Redis unreachable). */
  const downRedis = () => {
    // Closed for good (no reconnect): every command rejects with "Connection is closed.".
    const down = new Redis(TEST_REDIS_URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    down.disconnect();
    return down;
  };

  it('an unrecorded status message whose slot Redis cannot take asks to be tried again; the last try changes it anyway', async () => {
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'Docs agent job for <@U0ALICE>: Starting…' });
    const target = { teamId: 'T0SANDBOX', channel: 'C0DOCS', statusTs: posted.ts! };
    const down = downRedis();
    const p = presenter({ redis: down });
    const change = { text: 'Docs agent job for <@U0ALICE>: could not start', blocks: [] };
    // Not the last try: the intake is told to come back (not "done" with the message still saying Starting…).
    expect(await p.settleUnrecorded(target, change)).toEqual({ retryInMs: RENDER_RETRY_MS, renderFailed: true });
    expect(slack.findMessage('C0DOCS', posted.ts!)?.text).toContain('Starting…');
    expect(warnings).toContainEqual(expect.objectContaining({ msg: 'could not change the status message' }));
    // The last try (or a start that could not be recorded because storage fails): sent without slot or lock.
    expect(await p.settleUnrecorded(target, change, { force: true })).toEqual({});
    expect(slack.findMessage('C0DOCS', posted.ts!)?.text).toContain('could not start');
  });

  it('an edit budget Redis cannot read lets the final edit go (the end is shown) and says so in a warn line', async () => {
    const ts = await endedJob('job_budget_down');
    // The workspace's real edit budget, on a Redis that refuses every command: take() throws (no grant, no refusal).
    const down = downRedis();
    const budget = new EditBudget({ redis: down, prefix, perMinute: 40 });
    await expect(budget.take('T0SANDBOX')).rejects.toThrow('Connection is closed.');
    const p = presenter({ budget });
    expect(await p.show('job_budget_down')).toEqual({});
    expect(slack.findMessage('C0DOCS', ts)?.text).toContain('Pull request ready');
    expect(warnings).toContainEqual(
      expect.objectContaining({ msg: 'could not read the edit budget; editing anyway', jobId: 'job_budget_down' }),
    );
  });

  it('a reaction Slack refuses (remove, then add) is logged by its error code and set on the next render', async () => {
    const ts = await endedJob('job_react');
    await store.update('job_react', { reaction: 'hourglass_flowing_sand' });
    slack.failNext('reactions.remove', { error: 'internal_error' });
    expect(await presenter().show('job_react')).toEqual({});
    expect(slack.findMessage('C0DOCS', ts)?.text).toContain('Pull request ready'); // the edit itself went
    expect(warnings).toContainEqual(
      expect.objectContaining({ msg: 'could not set the status reaction', slackError: 'internal_error' }),
    );
    // Not recorded as shown: the next render tries again, and this time add fails.
    expect((await store.get('job_react'))?.reaction).toBe('hourglass_flowing_sand');
    slack.failNext('reactions.add', { error: 'fatal_error' });
    await redis.del(`${prefix}:status-slot:C0DOCS:${ts}`);
    expect(await presenter().show('job_react')).toEqual({});
    expect(warnings).toContainEqual(
      expect.objectContaining({ msg: 'could not set the status reaction', slackError: 'fatal_error' }),
    );
    expect((await store.get('job_react'))?.reaction).toBe('hourglass_flowing_sand');
    // Slack answers again: the end's reaction lands and is recorded.
    await redis.del(`${prefix}:status-slot:C0DOCS:${ts}`);
    expect(await presenter().show('job_react')).toEqual({});
    expect((await store.get('job_react'))?.reaction).toBe('white_check_mark');
    expect(JSON.stringify(warnings)).not.toContain('Pull request ready');
  });
});
