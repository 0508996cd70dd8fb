import type { Worker } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { NOT_HANDLED_TEXT, UNREADABLE_OLDER_TEXT, UNREADABLE_TEXT } from '../../../src/platform/intake-admission.js';
import { Intake, intakeJobId, intakeKind, type IntakeKind, type ReplyTo } from '../../../src/platform/intake.js';
import { arrayLogger, type LogLine } from '../../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis } from '../../helpers/redis.js';
import { testRedisConnections } from '../../helpers/test-intake.js';

/**
 * A rolling upgrade on one Redis: an old and a new version of the bot's intake worker side by
 * side (each its own connections, as two processes), the new one handling a kind (or a version of
 * a kind) the old one does not. The old one never completes such a record unhandled: it leaves it
 * for a replica that knows it, which handles it exactly once; after 15 minutes with nobody to take
 * it, it is given up and the person told. A payload that does not match its schema is given up at
 * once, not retried.
 */

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Deferral delays small enough for a test (the give-up time is the clock's, not BullMQ's). */
const FAST = { firstDelayMs: 50, maxDelayMs: 100 };

/** One version of the bot's worker: its own connections and intake, what it told people, what it counted, its log. */
function replica(prefix: string, opts: { now?: () => number } = {}) {
  const lines: LogLine[] = [];
  const { logger } = arrayLogger('info', lines);
  const conns = testRedisConnections(logger);
  const told: { to: ReplyTo; text: string }[] = [];
  const counts = { deferred: 0, rejected: [] as string[] };
  const observer = {
    intakeDeferred: () => void counts.deferred++,
    intakeRejected: (r: string) => void counts.rejected.push(r),
  };
  const intake = new Intake(
    { connection: conns.bull('queue'), prefix, logger },
    conns.intake(),
    { replicas: 0, timeoutMs: 0 },
    {
      deferral: FAST,
      observer,
      tell: async (to, text) => {
        told.push({ to, text });
        return true;
      },
      ...(opts.now ? { now: opts.now } : {}),
    },
  );
  let worker: Worker | undefined;
  cleanup.push(async () => {
    await worker?.close();
    await intake.close();
    await conns.close();
  });
  return { intake, lines, told, counts, start: () => (worker = intake.startWorker()) };
}

async function withPrefix(): Promise<string> {
  const prefix = randomPrefix();
  cleanup.push(async () => {
    const redis = testRedis();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  return prefix;
}

async function stateOf(intake: Intake, kind: IntakeKind<never> | { name: string }, id: string): Promise<string> {
  return (await intake.queue.getJobState(intakeJobId(kind.name, id))) as string;
}

const WAIT = { timeout: 15_000, interval: 25 };

// The kind the new version adds ("Ask the docs", say): the old version has never heard of it.
const ASK = intakeKind(
  'ask.question',
  z.object({ user: z.string(), channel: z.string(), question: z.string(), responseUrl: z.string().optional() }),
  { awaited: true },
);
const EXISTING = intakeKind('agent-jobs.home', z.object({ teamId: z.string(), user: z.string() }));

describe('rolling upgrade: intake records of a kind or version a replica does not know', () => {
  it('a record of a new kind taken by an old replica is left for the new one, and handled exactly once when it runs', async () => {
    const prefix = await withPrefix();
    const old = replica(prefix);
    const next = replica(prefix);
    old.intake.on(EXISTING, async () => undefined);
    next.intake.on(EXISTING, async () => undefined);
    const handled: string[] = [];
    next.intake.on(ASK, async (p) => void handled.push(p.question));

    const question = { user: 'U0ALICE', channel: 'C0DOCS', question: 'How do I add a tab?' };
    await next.intake.record(ASK, 'q1', 'req-q1', question);
    old.start();
    // The old replica takes it, again and again, and each time leaves it (never completes it).
    await vi.waitFor(() => expect(old.counts.deferred).toBeGreaterThanOrEqual(3), WAIT);
    expect(await stateOf(old.intake, ASK, 'q1')).not.toMatch(/completed|failed/);
    const left = old.lines.filter((l) =>
      l.msg.startsWith('a request of a kind or version this replica does not handle'),
    );
    expect(left).toMatchObject([{ level: 40, intake: 'ask.question', requestId: 'req-q1', reason: 'unknown_kind' }]);

    next.start();
    await vi.waitFor(async () => expect(await stateOf(old.intake, ASK, 'q1')).toBe('completed'), WAIT);
    expect(handled).toEqual(['How do I add a tab?']);
    expect([...old.told, ...next.told]).toEqual([]);
    expect([...old.lines, ...next.lines].filter((l) => l.level >= 50)).toEqual([]);
  });

  it('a record of a newer version of a kind is left by a replica that knows only the older one', async () => {
    const prefix = await withPrefix();
    const v1 = intakeKind('agent-jobs.home', z.object({ teamId: z.string(), user: z.string() }));
    const withTab = z.object({ teamId: z.string(), user: z.string(), tab: z.enum(['home', 'messages']) });
    const v2 = intakeKind('agent-jobs.home', withTab, { version: 2 });
    const old = replica(prefix);
    const next = replica(prefix);
    const seen: string[] = [];
    old.intake.on(v1, async () => void seen.push('old'));
    next.intake.on(v2, async (p) => void seen.push(`new:${p.tab}`));

    await next.intake.record(v2, 'h1', 'req-h1', { teamId: 'T1', user: 'U1', tab: 'messages' });
    const recorded = (await next.intake.queue.getJob(intakeJobId(v2.name, 'h1')))?.data;
    expect(recorded).toMatchObject({ kind: 'agent-jobs.home', v: 2, replyTo: {} }); // nobody waits on a Home tab
    old.start();
    await vi.waitFor(() => expect(old.counts.deferred).toBeGreaterThanOrEqual(2), WAIT);
    const line = old.lines.find((l) => l.requestId === 'req-h1');
    expect(line).toMatchObject({ reason: 'newer_version', version: 2, knownVersion: 1 });
    next.start();
    await vi.waitFor(async () => expect(await stateOf(next.intake, v2, 'h1')).toBe('completed'), WAIT);
    expect(seen).toEqual(['new:messages']);
  });

  it('nobody handles it within 15 minutes (clock controlled): given up, the person told through its response_url, counted, one error line', async () => {
    const prefix = await withPrefix();
    let now = Date.parse('2026-11-26T10:00:00Z');
    const old = replica(prefix, { now: () => now });
    const next = replica(prefix);
    old.intake.on(EXISTING, async () => undefined);

    const responseUrl = 'https://hooks.slack.test/commands/1';
    await next.intake.record(ASK, 'q2', 'req-q2', {
      user: 'U0ALICE',
      channel: 'C0DOCS',
      question: 'secret words',
      responseUrl,
    });
    old.start();
    await vi.waitFor(() => expect(old.counts.deferred).toBeGreaterThanOrEqual(2), WAIT);
    expect(old.told).toEqual([]);
    now += 14 * 60_000;
    const before = old.counts.deferred;
    await vi.waitFor(() => expect(old.counts.deferred).toBeGreaterThan(before), WAIT);
    expect(old.told).toEqual([]);
    now += 60_000;
    await vi.waitFor(async () => expect(await stateOf(old.intake, ASK, 'q2')).toBe('failed'), WAIT);
    expect(old.told).toEqual([{ to: { responseUrl, user: 'U0ALICE', channel: 'C0DOCS' }, text: NOT_HANDLED_TEXT }]);
    expect(old.counts.rejected).toEqual(['unknown_kind']);
    const errors = old.lines.filter((l) => l.level >= 50);
    expect(errors).toMatchObject([{ intake: 'ask.question', requestId: 'req-q2', reason: 'unknown_kind', told: true }]);
    expect(JSON.stringify(old.lines)).not.toContain('secret words');
  });

  it('a payload that does not match its schema (recorded before a field became required): given up at once, never retried, the person told', async () => {
    const prefix = await withPrefix();
    const r = replica(prefix);
    let calls = 0;
    r.intake.on(ASK, async () => void calls++);
    // As an older version recorded it: no schema version, no reply-to in the envelope, no `question`.
    const jobId = intakeJobId(ASK.name, 'q3');
    const payload = { user: 'U0BOB', channel: 'C0DOCS', text: 'private' };
    await r.intake.queue.add(
      ASK.name,
      { kind: ASK.name, requestId: 'req-q3', payload, receivedAt: Date.now() },
      { jobId },
    );
    r.start();
    await vi.waitFor(async () => expect(await stateOf(r.intake, ASK, 'q3')).toBe('failed'), WAIT);
    expect(calls).toBe(0);
    expect((await r.intake.queue.getJob(jobId))?.attemptsMade).toBe(1);
    expect(r.told).toEqual([{ to: { user: 'U0BOB', channel: 'C0DOCS' }, text: UNREADABLE_TEXT }]);
    expect(r.counts.rejected).toEqual(['invalid']);
    const errors = r.lines.filter((l) => l.level >= 50);
    expect(errors).toMatchObject([
      { intake: 'ask.question', requestId: 'req-q3', reason: 'invalid', detail: 'question: invalid_type' },
    ]);
    expect(JSON.stringify(r.lines)).not.toContain('private');
  });

  it('a payload an older version recorded, that the current schema refuses: the person hears it was an older version; the same version: no such claim', async () => {
    const prefix = await withPrefix();
    const r = replica(prefix);
    const v2 = intakeKind(
      'ask.question',
      z.object({ user: z.string(), channel: z.string(), question: z.string(), lang: z.string() }),
      { version: 2, awaited: true },
    );
    r.intake.on(v2, async () => undefined);
    const payload = { user: 'U0BOB', channel: 'C0DOCS', question: 'How?' };
    await r.intake.queue.add(
      v2.name,
      {
        kind: v2.name,
        v: 1,
        requestId: 'req-old',
        payload,
        replyTo: { user: 'U0BOB', channel: 'C0DOCS' },
        receivedAt: Date.now(),
      },
      { jobId: intakeJobId(v2.name, 'old') },
    );
    await r.intake.queue.add(
      v2.name,
      {
        kind: v2.name,
        v: 2,
        requestId: 'req-same',
        payload,
        replyTo: { user: 'U0BOB', channel: 'C0DOCS' },
        receivedAt: Date.now(),
      },
      { jobId: intakeJobId(v2.name, 'same') },
    );
    r.start();
    await vi.waitFor(async () => expect(await stateOf(r.intake, v2, 'same')).toBe('failed'), WAIT);
    await vi.waitFor(async () => expect(await stateOf(r.intake, v2, 'old')).toBe('failed'), WAIT);
    const to = { user: 'U0BOB', channel: 'C0DOCS' };
    expect(r.told).toEqual(
      expect.arrayContaining([
        { to, text: UNREADABLE_OLDER_TEXT },
        { to, text: UNREADABLE_TEXT },
      ]),
    );
    expect(r.told).toHaveLength(2);
    expect(UNREADABLE_TEXT).not.toMatch(/version/);
  });

  it('records of a kind nobody waits on (a Home tab opened) are given up quietly: unreadable, or left unhandled for 15 minutes', async () => {
    const prefix = await withPrefix();
    let now = Date.parse('2026-11-26T10:00:00Z');
    const old = replica(prefix, { now: () => now });
    const next = replica(prefix);
    const TAB = intakeKind(
      'agent-view.prompts',
      z.object({ teamId: z.string(), user: z.string(), channel: z.string() }),
    );
    old.intake.on(EXISTING, async () => undefined);
    // A new kind the old replica doesn't know, nobody waiting on it: its envelope names nowhere to tell.
    await next.intake.record(TAB, 'p1', 'req-p1', { teamId: 'T1', user: 'U0ALICE', channel: 'D0ALICE' });
    expect((await next.intake.queue.getJob(intakeJobId(TAB.name, 'p1')))?.data.replyTo).toEqual({});
    // A kind the replica knows, nobody waiting on it, whose payload fails its schema.
    await old.intake.queue.add(
      EXISTING.name,
      {
        kind: EXISTING.name,
        v: 1,
        requestId: 'req-h9',
        payload: { user: 'U0ALICE', channel: 'D0ALICE' },
        replyTo: { user: 'U0ALICE', channel: 'D0ALICE' },
        receivedAt: Date.now(),
      },
      { jobId: intakeJobId(EXISTING.name, 'h9') },
    );
    old.start();
    await vi.waitFor(async () => expect(await stateOf(old.intake, EXISTING, 'h9')).toBe('failed'), WAIT);
    await vi.waitFor(() => expect(old.counts.deferred).toBeGreaterThanOrEqual(1), WAIT);
    now += 15 * 60_000;
    await vi.waitFor(async () => expect(await stateOf(old.intake, TAB, 'p1')).toBe('failed'), WAIT);
    expect(old.counts.rejected.sort()).toEqual(['invalid', 'unknown_kind']);
    expect(old.told).toEqual([]);
    expect(old.lines.filter((l) => l.level >= 50).map((l) => l.told)).toEqual([false, false]);
  });
});
