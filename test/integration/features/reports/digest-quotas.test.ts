import type { Queue } from 'bullmq';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDigestQueue } from '../../../../src/features/reports/digests/worker.js';
import type { DigestJobData } from '../../../../src/features/reports/digests/store.js';
import { createServer } from 'node:http';
import { createDigestQuotas } from '../../../../src/features/reports/digests/quotas.js';
import { digestSubcommands, type DigestCommandDeps } from '../../../../src/features/reports/digests/subcommands.js';
import {
  registerHandlers,
  RETRY_ELSEWHERE_TEXT,
  RETRY_UNVERIFIED_TEXT,
} from '../../../../src/features/reports/digests/handlers.js';
import type { DigestRetryIntake } from '../../../../src/features/reports/intake.js';
import { encodeDigestRetry } from '../../../../src/features/reports/digests/retry.js';
import { OPEN_GATE } from '../../../../src/platform/access.js';
import type { IntakeContext } from '../../../../src/platform/intake.js';
import { ConversationDirectory, memoryReadLimits } from '../../../../src/platform/slack/conversations.js';
import { NOT_A_MEMBER_TEXT } from '../../../../src/platform/slack/member-check.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { subscribeChannel } from '../../../../src/features/reports/digests/store.js';
import { AnalyticsBudget, AnalyticsBudgetError } from '../../../../src/features/reports/budget.js';
import { analyticsErrorText } from '../../../../src/features/reports/error-text.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { Quota } from '../../../../src/platform/quota.js';
import type { ResponseUrlMessage } from '../../../../src/platform/slack/respond.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../../../helpers/redis.js';

/** Per-person and per-channel shares of shared quotas (one person cannot spend everyone's), on the real Redis. */

const redis = testRedis();
let prefix: string;
let queue: Queue<DigestJobData>;

beforeEach(() => {
  prefix = randomPrefix();
  queue = createDigestQueue({ connection: { url: TEST_REDIS_URL }, prefix, logger: createLogger('silent') });
});
afterEach(async () => {
  await queue.close();
  await dropPrefix(redis, prefix);
});
afterAll(() => redis.disconnect());

// The quotas' windows run on Redis' and the process's real clock (rate-limiter-flexible); the
// answers add the time left to this clock, so the minute shown may be one earlier.
const NOW = Date.UTC(2026, 10, 24, 14, 25);

/** Who is in which channel (what each person's users.conversations lists). */
const CHANNELS_OF: Record<string, string[]> = { U0ALICE: ['C0DOCS', 'C0SMALL'], U0BOB: ['C0DOCS'] };

function subcommands(over: Partial<DigestCommandDeps> = {}) {
  const reads: { method: string; args: unknown }[] = [];
  const conversations = new ConversationDirectory({
    slack: {
      users: {
        conversations: async (args: { user: string }) => {
          reads.push({ method: 'users.conversations', args });
          return { ok: true, channels: (CHANNELS_OF[args.user] ?? []).map((id) => ({ id })) };
        },
      },
      conversations: {
        info: async (args: unknown) => {
          reads.push({ method: 'conversations.info', args });
          return { ok: true, channel: { is_private: false } };
        },
      },
    } as never,
    limits: memoryReadLimits(),
  });
  const deps: DigestCommandDeps = {
    digestQueue: queue,
    // The client that posts: the list must never read members through it.
    slack: { chat: { postMessage: async () => ({ ok: true }) } } as never,
    conversations,
    defaultSchedule: { pattern: '0 9 * * 1', tz: 'UTC' },
    quotas: createDigestQuotas(redis, prefix),
    logger: createLogger('silent'),
    now: () => NOW,
    ...over,
  };
  return { sub: digestSubcommands(deps), reads };
}

async function run(
  sub: ReturnType<typeof subcommands>['sub'],
  name: string,
  caller = { teamId: 'T1', channel: 'C0DOCS', user: 'U0ALICE' },
): Promise<ResponseUrlMessage[]> {
  const said: ResponseUrlMessage[] = [];
  const prepared = sub.prepare(name, []);
  if (!prepared.ok) throw new Error(prepared.message);
  await prepared.run(caller, async (m) => void said.push(m));
  return said;
}

describe('/docs-visitors digest: at most one on request per channel per hour', () => {
  it('the second in the hour is refused ephemerally with the next free slot; other channels are not affected', async () => {
    const { sub } = subcommands();
    expect((await run(sub, 'digest'))[0]?.text).toContain("Sending this channel's digest now");
    const [refusal] = await run(sub, 'digest', { teamId: 'T1', channel: 'C0DOCS', user: 'U0BOB' });
    expect(refusal).toMatchObject({ response_type: 'ephemeral' });
    expect(refusal?.text).toContain("This channel's digest was already sent on request in the last hour");
    expect(refusal?.text).toMatch(/Next free slot: <!date\^\d+\^\{time\}\|15:2[45] UTC> \(in (59m \d+s|1h)\)\.$/);
    expect((await queue.getJobs(['delayed', 'waiting'])).filter((j) => j.data.channel === 'C0DOCS')).toHaveLength(1);
    expect((await run(sub, 'digest', { teamId: 'T1', channel: 'C0OTHER', user: 'U0BOB' }))[0]?.text).toContain(
      "Sending this channel's digest now",
    );
  });

  it('a digest that could not be queued gives its slot back', async () => {
    const closed = createDigestQueue({ connection: { url: TEST_REDIS_URL }, prefix, logger: createLogger('silent') });
    await closed.close();
    const { sub } = subcommands({ digestQueue: closed });
    expect((await run(sub, 'digest'))[0]?.text).toContain("I couldn't queue the digest");
    const { sub: working } = subcommands();
    expect((await run(working, 'digest'))[0]?.text).toContain("Sending this channel's digest now");
  });
});

describe("/docs-visitors subscriptions: a per-person cooldown, and membership from the person's own list", () => {
  it('a second list within the cooldown is refused with the next free slot; another person is not affected', async () => {
    const { sub } = subcommands();
    expect((await run(sub, 'subscriptions'))[0]?.text).toContain('None of your channels');
    const [again] = await run(sub, 'subscriptions');
    expect(again?.text).toMatch(
      /^You asked for the list moments ago \(one list a person every 60 seconds\)\. Next free slot: <!date\^\d+\^\{time\}\|14:2[56] UTC> \(in \d+s\)\.$/,
    );
    expect((await run(sub, 'subscriptions', { teamId: 'T1', channel: 'C0DOCS', user: 'U0BOB' }))[0]?.text).toContain(
      'None of your channels',
    );
  });

  it("lists the channels the person is in from their own conversation list: one read, whatever the channels' sizes", async () => {
    for (const channel of ['C0HUGE1', 'C0HUGE2', 'C0HUGE3', 'C0HUGE4', 'C0HUGE5', 'C0SMALL', 'C0DOCS']) {
      await subscribeChannel(queue, {
        teamId: 'T1',
        channel,
        requestedBy: 'U0BOB',
        schedule: { pattern: '0 9 * * 1', tz: 'UTC' },
      });
    }
    const { sub, reads } = subcommands();
    const [list] = await run(sub, 'subscriptions');
    expect(reads).toEqual([
      { method: 'users.conversations', args: expect.objectContaining({ user: 'U0ALICE' }) as unknown },
    ]);
    expect(list?.text).toContain('*Weekly docs digests in your channels* (2)');
    expect(list?.text).toContain('<#C0SMALL>');
    expect(list?.text).not.toContain('C0HUGE');
    expect(list?.text).not.toContain('not checked');
  });

  it('a list Slack is rate limiting: the channels it could not check are counted, never shown', async () => {
    await subscribeChannel(queue, {
      teamId: 'T1',
      channel: 'C0SMALL',
      requestedBy: 'U0BOB',
      schedule: { pattern: '0 9 * * 1', tz: 'UTC' },
    });
    const limited = new ConversationDirectory({
      slack: {
        users: {
          conversations: async () => {
            throw Object.assign(new Error('rate limited'), { code: 'slack_webapi_rate_limited_error', retryAfter: 30 });
          },
        },
        conversations: { info: async () => ({ ok: true, channel: {} }) },
      } as never,
    });
    const { sub } = subcommands({ conversations: limited });
    const [list] = await run(sub, 'subscriptions');
    expect(list?.text).toContain('None of your channels gets the weekly docs digest yet');
    expect(list?.text).toContain("1 more subscribed channel not checked (I couldn't read your channel list");
  });
});

describe('Retry on a failed digest: signed, bound to its channel, the clicker a member, one slot an hour', () => {
  let said: string[];
  let hook: ReturnType<typeof createServer>;
  let url: string;
  beforeEach(async () => {
    said = [];
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        said.push((JSON.parse(body) as { text?: string }).text ?? '');
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;
  });
  afterEach(async () => {
    await new Promise<void>((r) => hook.close(() => r()));
  });

  function retryHandler(
    o: {
      digestQueue?: Queue<DigestJobData>;
      update?: () => Promise<unknown>;
      quotas?: ReturnType<typeof createDigestQuotas>;
    } = {},
  ) {
    let handler: ((p: DigestRetryIntake, ctx: IntakeContext) => Promise<void>) | undefined;
    const update = vi.fn(o.update ?? (async () => ({ ok: true })));
    const { logger, lines } = arrayLogger('warn');
    registerHandlers({ on: (_kind: unknown, h: typeof handler) => void (handler = h) } as never, {
      digestQueue: o.digestQueue ?? queue,
      defaultSchedule: { pattern: '0 9 * * 1', tz: 'UTC' },
      now: () => NOW,
      slack: { chat: { update: update as never } },
      access: OPEN_GATE,
      conversations: { isMember: async (channel, user) => (CHANNELS_OF[user] ?? []).includes(channel) },
      signer: TEST_SIGNER,
      quotas: o.quotas ?? createDigestQuotas(redis, prefix),
      logger,
    });
    /** One run of the click's intake; pass the same `progress` for the attempts of one click. */
    const click = async (
      over: Partial<DigestRetryIntake>,
      attempt: { finalAttempt?: boolean; progress?: Record<string, unknown> } = {},
    ) => {
      const progress = attempt.progress ?? {};
      const ctx = {
        progress,
        save: async (patch: Record<string, unknown>) => void Object.assign(progress, patch),
        finalAttempt: attempt.finalAttempt ?? false,
        log: createLogger('silent'),
      } as unknown as IntakeContext;
      const value = encodeDigestRetry({ teamId: 'T0TEAM', channel: 'C0DOCS' }, TEST_SIGNER);
      await handler!(
        { value, teamId: 'T0TEAM', channel: 'C0DOCS', user: 'U0ALICE', ts: '1.2', responseUrl: url, ...over },
        ctx,
      );
    };
    const warns = () => lines.filter((l) => l.level === 40).map((l) => l.msg);
    const queued = async () => (await queue.getJobs(['delayed', 'waiting'])).length;
    return { click, update, queued, warns };
  }

  it("queues the channel's digest once an hour, sharing the slot of /docs-visitors digest", async () => {
    const { click, update, queued } = retryHandler();
    await click({});
    expect(await queued()).toBe(1);
    expect(update).toHaveBeenCalledOnce();
    await click({ user: 'U0BOB' });
    expect(said).toEqual([
      expect.stringContaining("This channel's digest was already sent on request in the last hour"),
    ]);
    const { sub } = subcommands();
    const caller = { teamId: 'T0TEAM', channel: 'C0DOCS', user: 'U0BOB' };
    expect((await run(sub, 'digest', caller))[0]?.text).toContain('already sent on request in the last hour');
    expect(await queued()).toBe(1);
  });

  it('a value the bot did not sign, one for another channel, or a clicker not in the channel: refused, nothing queued', async () => {
    const { click, update, queued } = retryHandler();
    await click({ value: 'retry' });
    await click({ value: undefined });
    await click({ value: encodeDigestRetry({ teamId: 'T0TEAM', channel: 'C0LEADS' }, TEST_SIGNER) });
    await click({ user: 'U0CAROL' });
    expect(said).toEqual([RETRY_UNVERIFIED_TEXT, RETRY_UNVERIFIED_TEXT, RETRY_ELSEWHERE_TEXT, NOT_A_MEMBER_TEXT]);
    expect(await queued()).toBe(0);
    expect(update).not.toHaveBeenCalled();
    // None of them spent the channel's slot.
    await click({});
    expect(await queued()).toBe(1);
  });

  it('the digest cannot be queued: earlier attempts throw (retried) keeping the slot; the last gives it back and tells the clicker', async () => {
    const closed = createDigestQueue({ connection: { url: TEST_REDIS_URL }, prefix, logger: createLogger('silent') });
    await closed.close();
    const { click, update, warns } = retryHandler({ digestQueue: closed });
    const progress: Record<string, unknown> = {};
    await expect(click({}, { progress })).rejects.toThrow();
    expect(progress).toEqual({ slotTaken: true });
    expect(said).toEqual([]);
    await click({}, { progress, finalAttempt: true });
    expect(said).toEqual(["I couldn't queue the digest (the bot's storage did not answer); try again in a moment."]);
    expect(update).not.toHaveBeenCalled(); // the notice does not claim the digest is on its way
    expect(warns()).toEqual(['could not queue a digest retry']);
    // The slot was given back: the channel can still ask for its digest this hour.
    const { sub } = subcommands();
    const caller = { teamId: 'T0TEAM', channel: 'C0DOCS', user: 'U0BOB' };
    expect((await run(sub, 'digest', caller))[0]?.text).toContain("Sending this channel's digest now");
  });

  it('on the last attempt, when the slot cannot be given back either, the clicker is still told, with a second warning', async () => {
    const closed = createDigestQueue({ connection: { url: TEST_REDIS_URL }, prefix, logger: createLogger('silent') });
    await closed.close();
    const quotas = createDigestQuotas(redis, prefix);
    quotas.manualDigest.give = async () => Promise.reject(new Error('Connection is closed.'));
    const { click, warns } = retryHandler({ digestQueue: closed, quotas });
    await click({}, { finalAttempt: true });
    expect(said).toEqual(["I couldn't queue the digest (the bot's storage did not answer); try again in a moment."]);
    expect(warns()).toEqual(['could not queue a digest retry', 'could not give back a manual digest slot']);
  });

  it('the failed-digest notice cannot be edited (deleted meanwhile): the digest is still queued and a warning says so', async () => {
    const slackError = Object.assign(new Error('An API error occurred: message_not_found'), {
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: 'message_not_found' },
    });
    const { click, queued, warns } = retryHandler({ update: async () => Promise.reject(slackError) });
    await expect(click({})).resolves.toBeUndefined();
    expect(await queued()).toBe(1);
    expect(warns()).toEqual(['could not edit the digest notice']);
  });
});

describe('the analytics budget: a per-person hourly share (ANALYTICS_CALLS_PER_USER_PER_HOUR)', () => {
  it("a person's requests past their share are refused (nothing sent) with the next free slot; others and digests still get theirs", async () => {
    const budget = new AnalyticsBudget(redis, `${prefix}:visitors`, () => NOW, 3);
    for (let i = 0; i < 3; i++) await budget.reserve('interactive', 1, 'U0ALICE');
    const refused = await budget.reserve('interactive', 1, 'U0ALICE').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AnalyticsBudgetError);
    expect((refused as AnalyticsBudgetError).reason).toBe('user_share');
    expect(await budget.used()).toBe(3); // the refusal counted nothing against the organization
    const text = analyticsErrorText(refused, () => NOW, 'Europe/Berlin');
    expect(text).toMatch(
      /^You've used your hourly share of docs analytics requests \(3 requests\/hour; the organization's 100 are shared by everyone\)\./,
    );
    expect(text).toMatch(/Next free slot: <!date\^\d+\^\{time\}\|16:2[45]> \(in (59m \d+s|1h)\)\.$/);
    await budget.reserve('interactive', 1, 'U0BOB');
    await budget.reserve('digest');
    expect(await budget.used()).toBe(5);
  });

  it("a request the shared budget refuses does not use the person's share", async () => {
    const budget = new AnalyticsBudget(redis, `${prefix}:visitors`, () => NOW, 2);
    await budget.record(85);
    for (let i = 0; i < 3; i++)
      await expect(budget.reserve('interactive', 1, 'U0ALICE')).rejects.toMatchObject({ reason: 'budget' });
    await redis.del(`${prefix}:visitors:budget:calls`);
    await budget.reserve('interactive', 1, 'U0ALICE');
    await budget.reserve('interactive', 1, 'U0ALICE');
    await expect(budget.reserve('interactive', 1, 'U0ALICE')).rejects.toMatchObject({ reason: 'user_share' });
  });

  it('Quota: a refused take costs nothing and says when the next slot frees', async () => {
    const q = new Quota(redis, { keyPrefix: `${prefix}:q`, points: 2, durationS: 60 });
    expect(await q.take('k')).toEqual({ ok: true });
    expect(await q.take('k')).toEqual({ ok: true });
    const refused = await q.take('k');
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.msBeforeNext).toBeGreaterThan(55_000);
    expect(await q.remaining('k')).toBe(0);
    await q.give('k');
    expect(await q.remaining('k')).toBe(1);
  });
});
