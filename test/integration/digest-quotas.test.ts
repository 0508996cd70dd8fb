import type { Queue } from 'bullmq';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDigestQueue } from '../../src/features/digests/worker.js';
import type { DigestJobData } from '../../src/features/digests/store.js';
import {
  createDigestQuotas,
  digestSubcommands,
  MEMBER_PAGES_PER_CHANNEL,
  MEMBER_PAGES_PER_LIST,
  type DigestCommandDeps,
} from '../../src/features/digests/subcommands.js';
import { subscribeChannel } from '../../src/features/digests/store.js';
import { AnalyticsBudget, AnalyticsBudgetError } from '../../src/features/visitors/budget.js';
import { visitorsErrorText } from '../../src/features/visitors/error-text.js';
import { createLogger } from '../../src/platform/logger.js';
import { Quota } from '../../src/platform/quota.js';
import type { ResponseUrlMessage } from '../../src/platform/slack/respond.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../helpers/redis.js';

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

function subcommands(over: Partial<DigestCommandDeps> = {}) {
  const members: { channel: string; cursor?: string }[] = [];
  const deps: DigestCommandDeps = {
    digestQueue: queue,
    slack: {
      chat: { postMessage: async () => ({ ok: true }) },
      // Every channel has an endless member list without U0ALICE (a huge channel), except C0SMALL.
      conversations: {
        members: async (args: { channel: string; cursor?: string }) => {
          members.push(args);
          if (args.channel === 'C0SMALL') return { ok: true, members: ['U0ALICE'] };
          return { ok: true, members: ['U0SOMEONE'], response_metadata: { next_cursor: `next-${members.length}` } };
        },
      },
    } as never,
    defaultSchedule: { pattern: '0 9 * * 1', tz: 'UTC' },
    quotas: createDigestQuotas(redis, prefix),
    logger: createLogger('silent'),
    now: () => NOW,
    ...over,
  };
  return { sub: digestSubcommands(deps), members };
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

describe('/docs-visitors subscriptions: a per-person cooldown and capped member-list reads', () => {
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

  it(`reads at most ${MEMBER_PAGES_PER_CHANNEL} member pages a channel and ${MEMBER_PAGES_PER_LIST} in all, and says how many channels it could not check`, async () => {
    for (const channel of ['C0HUGE1', 'C0HUGE2', 'C0HUGE3', 'C0HUGE4', 'C0HUGE5', 'C0SMALL']) {
      await subscribeChannel(queue, {
        teamId: 'T1',
        channel,
        requestedBy: 'U0BOB',
        schedule: { pattern: '0 9 * * 1', tz: 'UTC' },
      });
    }
    const { sub, members } = subcommands();
    const [list] = await run(sub, 'subscriptions');
    expect(members.length).toBeLessThanOrEqual(MEMBER_PAGES_PER_LIST);
    const perChannel = new Map<string, number>();
    for (const m of members) perChannel.set(m.channel, (perChannel.get(m.channel) ?? 0) + 1);
    expect(Math.max(...perChannel.values())).toBeLessThanOrEqual(MEMBER_PAGES_PER_CHANNEL);
    // Four huge channels use up the 20 pages; the fifth and the small one are not read at all.
    expect(list?.text).toContain('None of your channels gets the weekly docs digest yet');
    expect(list?.text).toContain('6 more subscribed channels not checked');
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
    const text = visitorsErrorText(refused, () => NOW, 'Europe/Berlin');
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
