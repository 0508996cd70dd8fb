import { Worker, type Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createAnswerQueue } from '../../../src/features/ask/answer/worker.js';
import { createPollQueue } from '../../../src/features/agent-jobs/poll/index.js';
import { startStepJobWorker } from '../../../src/features/agent-jobs/work-of.js';
import { createDigestQueue } from '../../../src/features/reports/digests/worker.js';
import { Intake, INTAKE_QUEUE } from '../../../src/platform/intake.js';
import { cleanTargets, QueueCleaner } from '../../../src/platform/queue-clean.js';
import { createQueue, type QueueContext } from '../../../src/platform/queues.js';
import { arrayLogger, type LogLine } from '../../helpers/logs.js';
import { Scrape } from '../../helpers/prometheus.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../../helpers/redis.js';

/*
 * BullMQ deletes a finished job past its queue's `age` only when a later job of the queue finishes
 * the same way, so a failed intake record (someone's words) stayed as long as nothing else failed.
 * The QueueCleaner deletes every queue's finished jobs past the ages the queue declares, with no
 * other job finishing. Real Redis and BullMQ; a job is made old by moving its finish time back
 * (`finishedOn`, and its score in the state's sorted set, which is what BullMQ's clean reads).
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const redis = testRedis();
const closers: (() => Promise<unknown>)[] = [];
let prefix = randomPrefix();
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await dropPrefix(redis, prefix);
  prefix = randomPrefix();
});
afterAll(() => redis.quit());

function context(): { ctx: QueueContext; lines: LogLine[] } {
  const { logger, lines } = arrayLogger<LogLine>('info');
  return { ctx: { connection: { url: TEST_REDIS_URL }, prefix, logger }, lines };
}

/** The intake's queue as the composition root builds it (its own options, on the queue connection). */
function intakeQueue(ctx: QueueContext): Queue {
  const writer = new Redis(TEST_REDIS_URL);
  const intake = new Intake(ctx, writer);
  const queue = createQueue(ctx, INTAKE_QUEUE, intake.queue.defaultJobOptions);
  closers.push(
    () => intake.close().then(() => writer.quit()),
    () => queue.close(),
  );
  return queue;
}

/** A worker that fails jobs named `fail` (each try) and completes the others. */
function runJobs(ctx: QueueContext, name: string): void {
  const worker = new Worker(
    name,
    async (job) => {
      if (job.name === 'fail') throw new Error('the handler failed');
    },
    { connection: ctx.connection, prefix },
  );
  closers.push(() => worker.close());
}

async function addAndWait(queue: Queue, name: 'fail' | 'ok', id: string): Promise<void> {
  // The text someone typed, as an intake record or an answer job holds it.
  await queue.add(name, { payload: { text: 'rename the billing page' } }, { jobId: id, attempts: 1 });
  await expect.poll(() => queue.getJobState(id)).toBe(name === 'fail' ? 'failed' : 'completed');
}

/** Moves job `id`'s finish time `ago` ms back. */
async function finishedAgo(queue: Queue, state: 'completed' | 'failed', id: string, ago: number): Promise<void> {
  const at = Date.now() - ago;
  await redis.zadd(queue.keys[state]!, 'XX', at, id);
  await redis.hset(queue.toKey(id), 'finishedOn', at);
}

/** A worker of the poll queue `name` as the agent jobs start it (its finished-job ages), doing nothing; closed after the test. */
function pollWorkerOf(ctx: Parameters<typeof startStepJobWorker>[0], name: string) {
  const worker = startStepJobWorker(
    ctx,
    name,
    async () => undefined,
    (_id, fn) => fn(),
    10,
  );
  closers.push(() => worker.close());
  return worker;
}

describe('the queue clean (real Redis)', () => {
  it('deletes a failed intake record past its 7 days though no later record failed; one of 6 days stays', async () => {
    const { ctx, lines } = context();
    const queue = intakeQueue(ctx);
    runJobs(ctx, INTAKE_QUEUE);
    await addAndWait(queue, 'fail', 'old');
    await addAndWait(queue, 'fail', 'young');
    await finishedAgo(queue, 'failed', 'old', 8 * DAY);
    await finishedAgo(queue, 'failed', 'young', 6 * DAY);
    // What the audit saw: later records handled, the 8-day-old failed one still there.
    await addAndWait(queue, 'ok', 'later-1');
    await addAndWait(queue, 'ok', 'later-2');
    expect(await queue.getJobState('old')).toBe('failed');

    const registry = new Registry();
    const cleaner = new QueueCleaner(cleanTargets([queue], []), { logger: ctx.logger, registry });
    await cleaner.clean();

    expect(await queue.getJobState('old')).toBe('unknown');
    expect(await redis.exists(queue.toKey('old'))).toBe(0);
    expect(await queue.getJobState('young')).toBe('failed');
    expect(await queue.getJobState('later-1')).toBe('completed');
    const s = new Scrape(await registry.metrics());
    expect(s.value('docs_bot_queue_jobs_cleaned_total', { queue: 'intake', state: 'failed' })).toBe(1);
    expect(s.value('docs_bot_queue_jobs_cleaned_total', { queue: 'intake', state: 'completed' })).toBe(0);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 30, deleted: { intake: { failed: 1 } }, more: false }),
    );
    expect(JSON.stringify(lines)).not.toContain('billing');
  });

  it('deletes a completed answer past its day, and a poll step past the day its worker declares; younger ones stay', async () => {
    const { ctx } = context();
    const answers = createAnswerQueue(ctx);
    const polls = createPollQueue(ctx);
    closers.push(
      () => answers.close(),
      () => polls.close(),
    );
    runJobs(ctx, answers.name);
    const pollWorker = pollWorkerOf(ctx, polls.name);
    await addAndWait(answers as Queue, 'ok', 'old');
    await addAndWait(answers as Queue, 'ok', 'young');
    await polls.add('poll', { agentJobId: 'j1' } as never, { jobId: 'old' });
    await polls.add('poll', { agentJobId: 'j2' } as never, { jobId: 'young' });
    await expect
      .poll(async () => [await polls.getJobState('old'), await polls.getJobState('young')])
      .toEqual(['completed', 'completed']);
    for (const q of [answers, polls] as Queue[]) {
      await finishedAgo(q, 'completed', 'old', 2 * DAY);
      await finishedAgo(q, 'completed', 'young', 12 * HOUR);
    }

    await new QueueCleaner(cleanTargets([answers, polls], [pollWorker]), { logger: ctx.logger }).clean();

    for (const q of [answers, polls] as Queue[]) {
      expect(await q.getJobState('old'), q.name).toBe('unknown');
      expect(await q.getJobState('young'), q.name).toBe('completed');
    }
  });

  it("cleans each of the bot's queues at the ages it declares (the step queues' from their worker)", () => {
    const { ctx } = context();
    const polls = createPollQueue(ctx);
    const digests = createDigestQueue(ctx);
    const answers = createAnswerQueue(ctx);
    const queue = intakeQueue(ctx);
    closers.push(
      () => polls.close(),
      () => digests.close(),
      () => answers.close(),
    );
    const pollWorker = pollWorkerOf(ctx, polls.name);
    const ages = cleanTargets([queue, polls, digests, answers], [pollWorker]).map((t) => [t.queue.name, t.ages]);
    expect(ages).toEqual([
      ['intake', { completed: DAY, failed: 7 * DAY }],
      ['poll-agent-job', { completed: DAY, failed: 7 * DAY }],
      ['send-digest', { completed: 7 * DAY, failed: 30 * DAY }],
      ['ask-answer', { completed: DAY, failed: 7 * DAY }],
    ]);
  });

  it('a Redis error during a clean is one warn line and no throw; the other queues are cleaned; the next run tries again', async () => {
    const { ctx, lines } = context();
    const queue = intakeQueue(ctx);
    const answers = createAnswerQueue(ctx);
    closers.push(() => answers.close());
    runJobs(ctx, answers.name);
    await addAndWait(answers as Queue, 'ok', 'old');
    await finishedAgo(answers as Queue, 'completed', 'old', 2 * DAY);
    // The intake's failed set is not a sorted set: Redis answers WRONGTYPE to the clean's script.
    await redis.set(queue.keys.failed!, 'not a sorted set');
    const cleaner = new QueueCleaner(cleanTargets([queue, answers], []), { logger: ctx.logger });

    await expect(cleaner.clean()).resolves.toBeUndefined();
    const warns = lines.filter((l) => l.level === 40);
    expect(warns).toEqual([
      expect.objectContaining({
        queue: 'intake',
        state: 'failed',
        msg: 'could not delete finished queue jobs past their age; the next run (within the hour) tries again',
      }),
    ]);
    expect((warns[0]!.err as { message: string }).message).toMatch(/WRONGTYPE/);
    expect(await answers.getJobState('old')).toBe('unknown'); // the intake's failure did not stop the answers' clean

    await redis.del(queue.keys.failed!);
    lines.length = 0;
    await cleaner.clean();
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });
});
