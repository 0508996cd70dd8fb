import { WebClient } from '@slack/web-api';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { HOSTILE_TEXT, type FakeDocsApi } from '../../../../sandbox/fake-docs-api.js';
import type { FakeSlack, SlackMessage } from '../../../../sandbox/fake-slack.js';
import { SlackDirectory } from '../../../../src/features/access/directory.js';
import { AskStore } from '../../../../src/features/ask/store.js';
import { digestAudience } from '../../../../src/features/ask/unanswered-reach.js';
import type { SlackQuestions } from '../../../../src/features/reports/digests/reader-content.js';
import { runDigest, type DigestDeps, type DigestRun } from '../../../../src/features/reports/digests/service.js';
import {
  getSubscription,
  subscribeChannel,
  type DigestJobData,
} from '../../../../src/features/reports/digests/store.js';
import { queueDigestNow } from '../../../../src/features/reports/digests/subcommands.js';
import type { ReportServices } from '../../../../src/features/reports/service.js';
import { ACTION_SIGNAL_IMPROVE_PREFIX, decodeSignalImprove } from '../../../../src/features/reports/signals/improve.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { testRedis, TEST_REDIS_URL } from '../../../helpers/redis.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { useDigestRig } from '../../../helpers/digest-rig.js';
import { shownText } from '../../../helpers/block-kit.js';

/**
 * The weekly digest's "What readers couldn't find" over real Redis, the fake Slack and the fake docs
 * API: present with every section in at most 6 analytics calls, absent when not chosen (and the
 * calls it would cost not made), a part the API fails left out with a line, the channel's choice of
 * sections kept by its subscription and by a digest sent now.
 */

const TOKEN = 'xoxb-reader-digest';
const redis = testRedis();
let slack: FakeSlack;
let docs: FakeDocsApi;
let client: WebClient;
let deps: DigestDeps;
let digestQueue: Queue<DigestJobData>;
let prefix: string;
const clock = Date.parse('2026-11-23T09:00:00Z');
let runs = 0;

const analyticsCalls = () => docs.requests.filter((r) => r.path.includes('/v1/analytics/'));
const run = (sections?: DigestJobData['sections']): DigestRun => ({
  runKey: `run-${++runs}`,
  data: {
    teamId: slack.teamId,
    channel: 'C0DOCS',
    requestedBy: 'U0ALICE',
    tz: 'UTC',
    trigger: 'manual',
    ...(sections ? { sections } : {}),
  },
  finalAttempt: false,
  nowMs: clock,
});
const latest = (): SlackMessage =>
  slack.messages.filter((m) => m.bot_id && !m.thread_ts && m.text.startsWith('Weekly docs digest')).at(-1)!;
const improveValues = (m: SlackMessage): string[] =>
  ((m.blocks ?? []) as { accessory?: { action_id?: string; value?: string } }[])
    .filter((b) => b.accessory?.action_id?.startsWith(ACTION_SIGNAL_IMPROVE_PREFIX))
    .map((b) => b.accessory!.value!);

useDigestRig(
  { token: TOKEN, apiKey: 'mint_reader_digest', projectId: 'proj_digest', redis, now: () => clock },
  (t) => ({ slack, docs, web: client, prefix, digestQueue, deps } = t),
);

describe('the digest\'s "What readers couldn\'t find"', () => {
  it('every section: the three parts, Improve on each item, 6 analytics calls; reader text escaped', async () => {
    const outcome = await runDigest(deps, run());
    expect(outcome).toMatchObject({ status: 'posted' });
    const m = latest();
    const text = shownText(m);
    expect(text).toContain("*What readers couldn't find*");
    expect(text).toContain('*Searched often, nothing clicked*');
    expect(text).toContain('“sso saml”');
    expect(text).toContain('*Pages with the most 👎 this week*');
    expect(text).toContain('*Asked the docs assistant again and again, unanswered*');
    expect(text).toMatch(/vs the week before \(\d+\)/);
    expect(m.text).toMatch(/· readers: 5 searches with no click, 5 pages with 👎, \d recurring unanswered questions$/);
    expect(text.replace(/<@U0ALICE>/g, '')).not.toMatch(/<[@!#]|<https?:|https?:\/\/evil/);
    // Nor in the button values: readers' words travel quoted, never raw.
    expect(JSON.stringify(m).replace(/<@U0ALICE>/g, '')).not.toMatch(/<[@!#]|<https?:|https?:\/\/evil/);
    const kinds = improveValues(m)
      .map((v) => decodeSignalImprove(v, TEST_SIGNER))
      .map((d) => (d.ok ? d.improve.signal.kind : 'bad'));
    expect(new Set(kinds)).toEqual(new Set(['search', 'feedback', 'question']));
    expect(analyticsCalls().length).toBeLessThanOrEqual(6);
    expect(analyticsCalls().map((r) => r.path.replace('/v1/analytics/proj_digest', ''))).toEqual([
      '/visitors',
      '/visitors',
      '/searches',
      '/feedback/by-page',
      '/feedback',
      '/assistant',
    ]);
    expect(analyticsCalls().at(-1)!.query).toMatchObject({
      dateFrom: '2026-11-09',
      dateTo: '2026-11-23',
      limit: '1000',
    });
    expect(HOSTILE_TEXT.mentions).toContain('<!channel>');
  });

  it('not chosen: the section is absent and its calls are not made; alone, the chart is not either', async () => {
    await runDigest(deps, run(['visitors']));
    expect(shownText(latest())).not.toContain('What readers couldn');
    expect(analyticsCalls().map((r) => r.path.split('/').at(-1))).toEqual(['visitors', 'visitors']);
    docs.requests.length = 0;
    const outcome = await runDigest(deps, run(['questions']));
    expect(outcome).toMatchObject({ status: 'posted', chart: 'none' });
    const text = shownText(latest());
    expect(text).toContain('*Asked the docs assistant again and again, unanswered*');
    expect(text).not.toContain('*Top 10 pages*');
    expect(text).not.toContain('Searched often');
    expect(analyticsCalls().map((r) => r.path.split('/').at(-1))).toEqual(['assistant']);
  });

  it('a part the API fails is left out with a line saying why; the others still go', async () => {
    docs.failNext(/\/feedback\/by-page$/, 500, 2);
    await runDigest(deps, run(['searches', 'feedback']));
    const text = shownText(latest());
    expect(text).toContain('*Searched often, nothing clicked*');
    expect(text).toContain(
      'Pages with the most 👎 this week: not shown (The docs service failed; the next digest tries again, ' +
        'or `/docs-visitors digest` sends one now.)',
    );
    expect(text).not.toContain('try again in');
  });

  it.each([
    [401, "The bot's API key was rejected by the docs service; tell the admin who installed this bot."],
    [403, "The docs service refused the bot's API key (missing scope or IP allowlist); tell the admin"],
  ])('a part refused with %i names the key problem and who fixes it', async (status, words) => {
    docs.failNext(/\/searches$/, status, 1);
    await runDigest(deps, run(['searches', 'feedback']));
    const text = shownText(latest());
    expect(text).toContain(`not shown (${words}`);
    expect(text).not.toContain('try again in');
  });

  it('questions asked in Slack show in their channel’s digest; Redis failing to read them leaves that part out with a line saying why, the rest still goes', async () => {
    const silent = createLogger('silent');
    const questionsOf =
      (store: AskStore): SlackQuestions =>
      async (where, f, t, l) =>
        store.unansweredSeenIn(await digestAudience(client, new SlackDirectory(client), where, silent), f, t, l);
    const store = new AskStore(redis, prefix);
    await store.noteUnanswered('C0DOCS', 'a'.repeat(16), 'Where is the <!channel> SCIM guide?', clock - 3 * 86_400_000);
    await runDigest({ ...deps, slackQuestions: questionsOf(store) }, run(['searches', 'questions']));
    expect(shownText(latest())).toContain('“Where is the &lt;!channel&gt; SCIM guide?” · asked 1× here');
    // Redis refuses every command of the questions' reads (a client that is not connected).
    const down = new Redis(TEST_REDIS_URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    const outcome = await runDigest(
      { ...deps, slackQuestions: questionsOf(new AskStore(down, prefix)) },
      run(['searches', 'questions']),
    );
    expect(outcome).toMatchObject({ status: 'posted' });
    const text = shownText(latest());
    expect(text).toContain('*Searched often, nothing clicked*');
    expect(text).toContain('*Asked the docs assistant again and again, unanswered*');
    expect(text).toContain(
      'Asked in Slack, not answered by the docs: not shown (Something went wrong on my side; the next digest tries ' +
        'again, or `/docs-visitors digest` sends one now.)',
    );
    expect(text).not.toContain('SCIM guide');
    down.disconnect();
  });

  it('every chosen part failing (and no visitors section): the run throws, to be retried like any digest', async () => {
    docs.failNext(/\/searches$/, 500, 2);
    await expect(runDigest(deps, run(['searches']))).rejects.toThrow(/docs API failed/);
  });
});

describe('who pays for a digest', () => {
  it("on request: the person who asked (their hourly share, the reports' ceiling); on schedule: the digests' budget", async () => {
    const budget = (deps.visitors as ReportServices).budget;
    // Alice has used all but 1 of her hourly share: her digest on request can't make its 6 calls.
    for (let i = 0; i < budget.perUser - 1; i++) await budget.reserve('interactive', 1, 'U0ALICE');
    docs.requests.length = 0;
    await expect(runDigest(deps, run())).rejects.toMatchObject({ reason: 'user_share' });
    expect(analyticsCalls()).toHaveLength(1);
    // The same digest on its schedule is paid by the digests' budget, whoever subscribed.
    const scheduled = run();
    scheduled.data = { ...scheduled.data, trigger: 'scheduled' };
    expect(await runDigest(deps, scheduled)).toMatchObject({ status: 'posted' });
  });
});

describe('the channel chooses its sections', () => {
  it('the subscription keeps them, and a digest sent now takes them from it', async () => {
    const sub = await subscribeChannel(digestQueue, {
      teamId: 'T1',
      channel: 'C1',
      requestedBy: 'U1',
      schedule: { pattern: '0 9 * * 1', tz: 'UTC' },
      sections: ['questions', 'visitors'],
    });
    expect(sub.sections).toEqual(['visitors', 'questions']);
    expect((await getSubscription(digestQueue, 'T1', 'C1'))?.sections).toEqual(['visitors', 'questions']);
    const all = await subscribeChannel(digestQueue, {
      teamId: 'T1',
      channel: 'C2',
      requestedBy: 'U1',
      schedule: { pattern: '0 9 * * 1', tz: 'UTC' },
    });
    expect(all.sections).toEqual(['visitors', 'searches', 'feedback', 'questions']);
    await queueDigestNow(
      { digestQueue, defaultSchedule: { pattern: '0 9 * * 1', tz: 'UTC' }, now: () => clock },
      { teamId: 'T1', channel: 'C1', requestedBy: 'U1' },
    );
    const [job] = await digestQueue.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(job?.data).toMatchObject({ channel: 'C1', trigger: 'manual', sections: ['visitors', 'questions'] });
  });
});
