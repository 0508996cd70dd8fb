import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { anyKind } from '../../../helpers/intake-kinds.js';
import { INTAKE } from '../../../../src/features/conversations/intake.js';
import {
  MESSAGE_DEDUPE_WINDOW_MS,
  messageEvent,
  type ConversationListenerDeps,
} from '../../../../src/features/conversations/listeners.js';
import { JobStore } from '../../../../src/features/agent-jobs/store.js';
import { Intake, intakeJobId } from '../../../../src/platform/intake.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { RedisConnections } from '../../../../src/platform/redis.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';
import { closeTestIntake, testIntake } from '../../../helpers/test-intake.js';

/**
 * What people's messages cost in Redis (bounded, whoever writes them): a reply in a thread that is no job's is dropped
 * before anything is written; a recorded message carries at most AGENT_PROMPT_MAX_CHARS of text
 * and its record is deleted once handled, a small deduplication key keeping Slack's redeliveries out.
 */

const PROMPT_MAX = 12_000;
let prefix: string;
let redis: Redis;
let intake: Intake;
let conns: RedisConnections;
let worker: Worker | undefined;

beforeEach(() => {
  prefix = randomPrefix();
  redis = testRedis();
  const logger = createLogger('silent');
  ({ conns, intake } = testIntake(prefix, logger));
});

afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await closeTestIntake({ conns, intake });
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

function deps(over: Partial<ConversationListenerDeps> = {}): ConversationListenerDeps {
  return {
    intake,
    slack: { chat: { postEphemeral: vi.fn() } },
    logger: createLogger('silent'),
    promptMaxChars: PROMPT_MAX,
    threads: new JobStore(redis, prefix),
    ...over,
  };
}

/** Bytes Redis uses for the keys under the test's prefix (MEMORY USAGE, every value sampled). */
async function bytesUnderPrefix(): Promise<number> {
  let cursor = '0';
  let total = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) total += Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
  } while (cursor !== '0');
  return total;
}

const reply = (i: number, threadTs: string, text: string) => ({
  event: {
    type: 'message',
    channel: 'C0DOCS',
    channel_type: 'channel',
    user: 'U0ALICE',
    ts: `1700000100.${String(i).padStart(6, '0')}`,
    thread_ts: threadTs,
    text,
  },
  body: { team_id: 'T0SANDBOX', event_id: `Ev${i}` },
  context: { botUserId: 'U0DOCSBOT' },
});

describe('message intake in Redis', () => {
  it("40 replies of 40 KB in a thread that is no job's grow Redis by less than 200 KB; the same in a job's thread are recorded, cut to AGENT_PROMPT_MAX_CHARS", async () => {
    await intake.queue.waitUntilReady();
    const before = await bytesUnderPrefix();
    const listener = messageEvent(deps());
    for (let i = 0; i < 40; i++) await listener(reply(i, '1700000000.000100', 'x'.repeat(40_000)) as never);
    const growth = (await bytesUnderPrefix()) - before;
    expect(growth).toBeLessThan(200_000);
    expect(await intake.queue.getJobCounts('wait', 'active', 'completed')).toEqual({
      wait: 0,
      active: 0,
      completed: 0,
    });

    // A job's thread (here one still being created): every reply is recorded, each at most PROMPT_MAX chars.
    await new JobStore(redis, prefix).markThreadsPending('C0DOCS', ['1700000000.000200']);
    for (let i = 100; i < 140; i++) await listener(reply(i, '1700000000.000200', 'x'.repeat(40_000)) as never);
    const jobs = await intake.queue.getJobs(['wait']);
    expect(jobs).toHaveLength(40);
    for (const job of jobs)
      expect((job.data.payload as { msg: { text: string; textChars: number } }).msg).toMatchObject({
        text: 'x'.repeat(PROMPT_MAX),
        textChars: 40_000,
      });
  });

  it("a message's record is deleted once handled; a redelivery within the window is still ignored; other kinds' records stay", async () => {
    const handled: string[] = [];
    intake.on(INTAKE.message, async (p) => void handled.push(p.msg.ts));
    intake.on(anyKind('test.other'), async () => undefined);
    await intake.record(anyKind('test.other'), 'o1', 'req-o1', {});
    await new JobStore(redis, prefix).markThreadsPending('C0DOCS', ['1700000000.000300']);
    const listener = messageEvent(deps());
    await listener(reply(1, '1700000000.000300', 'also add Go') as never);
    worker = intake.startWorker();
    const id = intakeJobId(INTAKE.message.name, 'msg-C0DOCS-1700000100.000001');
    await vi.waitFor(async () => expect(await intake.queue.getJob(id)).toBeUndefined(), {
      timeout: 15_000,
      interval: 50,
    });
    await vi.waitFor(
      async () => expect(await intake.queue.getJobState(intakeJobId('test.other', 'o1'))).toBe('completed'),
      { timeout: 15_000, interval: 50 },
    );

    await listener({
      ...reply(1, '1700000000.000300', 'also add Go'),
      body: { team_id: 'T0SANDBOX', event_id: 'Ev-redelivered' },
    } as never);
    expect(await intake.queue.getJob(id)).toBeUndefined();
    expect(handled).toEqual(['1700000100.000001']);
    const ttl = await redis.pttl(`${prefix}:intake:de:${id}`);
    expect(ttl).toBeGreaterThan(MESSAGE_DEDUPE_WINDOW_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(MESSAGE_DEDUPE_WINDOW_MS);
    expect(await intake.queue.getJobState(intakeJobId('test.other', 'o1'))).toBe('completed');
  });
});

describe('question channels at the edge', () => {
  const top = (i: number, over: Record<string, unknown> = {}) => ({
    event: {
      type: 'message',
      channel: 'C0ASK',
      channel_type: 'channel',
      user: 'U0ALICE',
      ts: `1700000200.${String(i).padStart(6, '0')}`,
      text: 'how do I rotate an API key?',
      ...over,
    },
    body: { team_id: 'T0SANDBOX', event_id: `EvQ${i}` },
    context: { botUserId: 'U0DOCSBOT' },
  });

  it("a person's new message in a question channel is recorded once under its own kind; bots, edits, replies and other channels are not", async () => {
    await intake.queue.waitUntilReady();
    const answersAllIn = vi.fn(async (channel: string) => channel === 'C0ASK');
    const listener = messageEvent(deps({ questionChannels: { enabled: true, answersAllIn } }));
    await listener(top(1) as never);
    await listener({ ...top(1), body: { team_id: 'T0SANDBOX', event_id: 'EvQ1-again' } } as never);
    await listener(top(2, { bot_id: 'B0OTHER' }) as never);
    await listener(top(3, { subtype: 'message_changed', hidden: true, message: { text: 'edited' } }) as never);
    await listener(top(4, { thread_ts: '1700000000.000001' }) as never);
    await listener(top(5, { channel: 'C0GENERAL' }) as never);
    await listener(top(6, { text: '<https://docs.acme.test/sso>' }) as never);
    const jobs = await intake.queue.getJobs(['wait']);
    expect(jobs.map((j) => j.id)).toEqual([intakeJobId(INTAKE.questionChannel.name, 'msg-C0ASK-1700000200.000001')]);
    expect(jobs[0]!.data.payload).toMatchObject({
      msg: { channel: 'C0ASK', user: 'U0ALICE', text: 'how do I rotate an API key?', viaMention: false },
      botUserId: 'U0DOCSBOT',
    });
    // One Redis read per message the rule takes (the redelivery too), none for the rest.
    expect(answersAllIn.mock.calls.map(([c]) => c)).toEqual(['C0ASK', 'C0ASK', 'C0GENERAL']);
  });

  it('is not acked when the setting cannot be read (Slack redelivers it), and nothing is recorded while asking is off', async () => {
    await intake.queue.waitUntilReady();
    const down = vi.fn(async () => Promise.reject(new Error('Connection is closed.')));
    await expect(
      messageEvent(deps({ questionChannels: { enabled: true, answersAllIn: down } }))(top(1) as never),
    ).rejects.toMatchObject({ name: 'EventNotRecordedError' });
    const off = vi.fn(async () => true);
    await messageEvent(deps({ questionChannels: { enabled: false, answersAllIn: off } }))(top(2) as never);
    expect(off).not.toHaveBeenCalled();
    expect(await intake.queue.getJobs(['wait'])).toHaveLength(0);
  });
});
