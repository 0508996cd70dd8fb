import { Queue, type Worker } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Intake, intakeJobId, intakeKind } from '../../../src/platform/intake.js';
import { anyKind } from '../../helpers/intake-kinds.js';
import { RedisConnections } from '../../../src/platform/redis.js';
import { UnreplicatedStepError } from '../../../src/platform/replica-guard.js';
import { HELD_TOO_LONG_TEXT, HOLD_LIMIT_MS } from '../../../src/platform/intake-admission.js';
import { ResponseUrlError } from '../../../src/platform/slack/respond.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../../helpers/redis.js';
import { arrayLogger } from '../../helpers/logs.js';
import { closeTestIntake, testIntake } from '../../helpers/test-intake.js';

/**
 * The durable intake on real Redis: what is recorded is handled once, by whichever worker, and a
 * handler's failure is retried only when a retry can help (Slack errors by kind; response_urls).
 */

interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

let prefix: string;
let intake: Intake;
let conns: RedisConnections;
let worker: Worker | undefined;
const logs: LogLine[] = [];

beforeEach(() => {
  prefix = randomPrefix();
  logs.length = 0;
  const { logger } = arrayLogger('info', logs);
  ({ conns, intake } = testIntake(prefix, logger));
});

afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await closeTestIntake({ conns, intake });
  const redis = testRedis();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

const slackError = (code: string, method = 'chat.postMessage') =>
  Object.assign(new Error(`An API error occurred: ${code}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: code },
    slackMethod: method,
  });

/** Waits until the intake job of `(kind, id)` is completed or failed; returns its state. */
async function settled(kind: string, id: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const job = await intake.queue.getJob(intakeJobId(kind, id));
    const state = job ? await job.getState() : 'missing';
    if (job && (state === 'completed' || state === 'failed')) return state;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`intake ${kind}/${id} did not settle`);
}

describe('durable intake', () => {
  it('a request recorded twice (Slack redelivered it) is handled once, with its request id on every line', async () => {
    const seen: unknown[] = [];
    const ECHO = intakeKind('test.echo', z.object({ n: z.number() }));
    intake.on(ECHO, async (p, ctx) => {
      seen.push(p);
      ctx.log.info('handled');
    });
    await intake.record(ECHO, 'trig-1', 'trig-1', { n: 1 });
    await intake.record(ECHO, 'trig-1', 'trig-1', { n: 2 });
    worker = intake.startWorker();
    expect(await settled('test.echo', 'trig-1')).toBe('completed');
    expect(seen).toEqual([{ n: 1 }]);
    expect(logs.find((l) => l.msg === 'handled')).toMatchObject({ requestId: 'trig-1', intake: 'test.echo' });
    expect((await intake.queue.getJobCounts()).completed).toBe(1);
  });

  it('saved steps survive a retry: the handler resumes instead of repeating', async () => {
    const steps: string[] = [];
    intake.on(anyKind('test.steps'), async (_p, ctx) => {
      if (!ctx.progress.posted) {
        steps.push('post');
        await ctx.save({ posted: true });
        throw new Error('the process died here');
      }
      steps.push('finish');
    });
    await intake.record(anyKind('test.steps'), 'a', 'a', {});
    worker = intake.startWorker();
    expect(await settled('test.steps', 'a')).toBe('completed');
    expect(steps).toEqual(['post', 'finish']);
  });

  it.each([
    [
      'channel_not_found (gone)',
      slackError('channel_not_found'),
      40,
      'the conversation or user is gone or closed to the bot; not retried',
    ],
    [
      'user_not_found (gone)',
      slackError('user_not_found', 'views.publish'),
      40,
      'the conversation or user is gone or closed to the bot; not retried',
    ],
    ['token_revoked (permanent)', slackError('token_revoked'), 50, 'Slack refused this for good; not retried'],
    ['invalid_blocks (permanent)', slackError('invalid_blocks'), 50, 'Slack refused this for good; not retried'],
    [
      'a response_url that answers 404',
      new ResponseUrlError(404),
      40,
      'the response_url is no longer taken; not retried',
    ],
  ])('%s: one attempt, one line, no retries', async (_name, err, level, msg) => {
    let calls = 0;
    intake.on(anyKind('test.fail'), async () => {
      calls++;
      throw err;
    });
    await intake.record(anyKind('test.fail'), 'x', 'req-x', {});
    worker = intake.startWorker();
    expect(await settled('test.fail', 'x')).toBe('failed');
    expect(calls).toBe(1);
    const line = logs.find((l) => l.msg === msg);
    expect(line).toMatchObject({ level, requestId: 'req-x' });
    expect(logs.filter((l) => l.level >= 50).length).toBe(level >= 50 ? 1 : 0);
  });

  it('a transient Slack error (ratelimited) is retried, and the retry succeeds', async () => {
    let calls = 0;
    intake.on(anyKind('test.transient'), async () => {
      if (++calls === 1) throw slackError('ratelimited');
    });
    await intake.record(anyKind('test.transient'), 'y', 'y', {});
    worker = intake.startWorker();
    expect(await settled('test.transient', 'y')).toBe('completed');
    expect(calls).toBe(2);
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('a saved step not yet on the Redis replicas (a failover under way): run again shortly without spending an attempt', async () => {
    let runs = 0;
    intake.on(anyKind('test.held'), async () => {
      if (++runs === 1)
        throw new UnreplicatedStepError(
          'the primary has fewer replicas than a moment ago (a failover may be under way)',
        );
    });
    await intake.record(anyKind('test.held'), 'h', 'req-h', {});
    worker = intake.startWorker();
    expect(await settled('test.held', 'h')).toBe('completed');
    expect(runs).toBe(2);
    // BullMQ counts the attempt that completed; the held run is not one (a thrown error would make it 2).
    expect((await intake.queue.getJob(intakeJobId('test.held', 'h')))?.attemptsMade).toBe(1);
    const held = logs.find((l) => l.msg.startsWith('a saved step is not on the Redis replicas yet'));
    expect(held).toMatchObject({ level: 30, requestId: 'req-h' });
  });

  it('held for 2 minutes in all (a lasting "can\'t confirm", clock controlled): given up, the person told, counted, one error line; not one info line per loop', async () => {
    let now = Date.parse('2026-11-26T10:00:00Z');
    const told: unknown[] = [];
    const rejected: string[] = [];
    const observer = { intakeDeferred: () => undefined, intakeRejected: (r: string) => void rejected.push(r) };
    const tell = async (to: unknown, text: string) => (told.push({ to, text }), true);
    const { logger } = arrayLogger('debug', logs);
    const held = new Intake({ connection: conns.bull('queue'), prefix, logger }, conns.intake(), undefined, {
      now: () => now,
      tell,
      observer,
    });
    const kind = intakeKind('test.stuck', z.looseObject({ user: z.string(), channel: z.string() }), { awaited: true });
    let runs = 0;
    held.on(kind, async () => {
      runs += 1;
      throw new UnreplicatedStepError('the server is no primary');
    });
    await held.record(kind, 's', 'req-s', { user: 'U0ALICE', channel: 'C0DOCS' });
    const stuck = held.startWorker();
    try {
      await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(3), { timeout: 15_000, interval: 25 });
      expect(await held.queue.getJobState(intakeJobId(kind.name, 's'))).not.toBe('failed');
      now += HOLD_LIMIT_MS;
      await vi.waitFor(async () => expect(await held.queue.getJobState(intakeJobId(kind.name, 's'))).toBe('failed'), {
        timeout: 15_000,
        interval: 25,
      });
      expect(told).toEqual([{ to: { user: 'U0ALICE', channel: 'C0DOCS' }, text: HELD_TOO_LONG_TEXT }]);
      expect(rejected).toEqual(['unreplicated']);
      expect(logs.filter((l) => l.level >= 50)).toMatchObject([
        { intake: 'test.stuck', requestId: 'req-s', reason: 'unreplicated', told: true },
      ]);
      expect(
        logs.filter((l) => l.level === 30 && l.msg.startsWith('a saved step is not on the Redis replicas yet')),
      ).toHaveLength(1);
    } finally {
      await stuck.close();
      await held.close();
    }
  });

  it('a recorded request waits in the BullMQ queue "intake", where the docs and the queue metrics look for it', async () => {
    // Read the way an operator's tools do (docs/operations.md: docs_bot_queue_jobs{queue="intake"}):
    // a Queue of that name under the prefix, not the Intake's own handle.
    const seen = new Queue('intake', { connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: 1 }, prefix });
    try {
      await intake.record(anyKind('test.named'), 'n', 'req-n', { n: 1 });
      expect(await seen.getJobCounts('waiting')).toEqual({ waiting: 1 });
      expect((await seen.getJob(intakeJobId('test.named', 'n')))?.data).toMatchObject({ payload: { n: 1 } });
    } finally {
      await seen.close();
    }
  });
});
