import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { createServer as createHttpServer } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CURSOR_REJECTED_DETAIL,
  FAKE_RECURRING_UNANSWERED,
  HOSTILE_TEXT,
  type FakeDocsApi,
} from '../../../../sandbox/fake-docs-api.js';
import { INTERACTIVE_CEILING } from '../../../../src/features/reports/budget.js';
import {
  loadReport,
  createReportServices,
  type LoadedReport,
  type ReportServices,
} from '../../../../src/features/reports/service.js';
import { buildSignalErrorMessage, loadSignalReport } from '../../../../src/features/reports/signals/load.js';
import {
  openSignalState,
  SIGNAL_ACTIONS,
  signSignalState,
  type SignalAction,
  type SignalState,
} from '../../../../src/features/reports/signals/state.js';
import { registerHandlers } from '../../../../src/features/reports/handlers.js';
import {
  CANNOT_EDIT,
  OTHER_CONVERSATION_BUTTON,
  REPORT_CLICKS_PER_MINUTE,
  STALE_BUTTON,
  UNVERIFIED_BUTTON,
} from '../../../../src/features/reports/handler-kit.js';
import { Quota } from '../../../../src/platform/quota.js';
import { PAGE_ACTIONS, signPageState, type PageState } from '../../../../src/features/reports/paging-value.js';
import { OPEN_GATE } from '../../../../src/platform/access.js';
import { NOT_A_MEMBER_TEXT } from '../../../../src/platform/slack/member-check.js';
import { DocsApiClient } from '../../../../src/platform/docs-api/client.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { validateRequest, validateResponse } from '../../../helpers/openapi.js';
import { testRedis, TEST_REDIS_URL } from '../../../helpers/redis.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { useFakeDocsApiOnRedis } from '../../../helpers/fakes-on-redis.js';
import { signalState } from '../../../helpers/signal-state.js';
import { shownText } from '../../../helpers/block-kit.js';

/**
 * The searches, feedback and questions reports over real Redis and the fake docs API (requests and
 * answers checked against the vendor's spec): what each page costs in analytics calls, paging in
 * windows and across API pages by cursor both ways, a cursor the API no longer accepts, and every
 * error a person can meet (400 with details, 401, 403, 429 and the shared budget, 5xx and timeouts
 * retried once, Redis down) as one sentence, with Retry only where trying again can help.
 */

const redis = testRedis();
let fake: FakeDocsApi;
let docsApi: DocsApiClient;
let prefix: string;
let svc: ReportServices;
let docsClock = 0;
const WEEK = { dateFrom: '2026-11-15', dateTo: '2026-11-22' };

const analyticsCalls = () => fake.requests.filter((r) => r.path.includes('/v1/analytics/'));
const services = (api: DocsApiClient, r: Redis = redis) =>
  createReportServices({
    redis: r,
    prefix,
    docsApi: api,
    projectId: 'proj_signals',
    logger: createLogger('silent'),
    now: () => Date.parse('2026-11-22T20:00:00Z'),
    signer: TEST_SIGNER,
  });
const state = (over: Partial<SignalState>): SignalState => signalState({ projectId: 'proj_signals', ...over });
const load = (s: SignalState) => loadSignalReport(svc, s, { user: 'U0ALICE', channel: 'C0DOCS' });
const text = (l: LoadedReport) => (l.ok ? shownText(l.message) : '');
function buttonState(l: LoadedReport, actionId: string): SignalState | undefined {
  if (!l.ok) return undefined;
  for (const b of l.message.blocks as { elements?: { action_id?: string; value?: string }[] }[]) {
    const el = b.elements?.find((e) => e.action_id === actionId);
    if (el) {
      const opened = openSignalState(el.value, actionId as SignalAction, TEST_SIGNER);
      return opened.ok ? opened.state : undefined;
    }
  }
  return undefined;
}

useFakeDocsApiOnRedis(
  {
    fake: {
      apiKey: 'mint_signals',
      projectId: 'proj_signals',
      now: () => Date.parse('2026-11-22T20:00:00Z') + docsClock,
    },
    client: { retryMinDelayMs: 1 },
    redis,
  },
  (s) => ({ fake, client: docsApi, prefix } = s),
);
beforeEach(() => {
  docsClock = 0;
  svc = services(docsApi);
});

describe('what a report costs', () => {
  it('searches: a page of 10 rows costs 1 call; the other windows of the 100 terms and going back: none', async () => {
    const first = await load(state({}));
    expect(first.ok).toBe(true);
    expect(analyticsCalls().map((r) => [r.path, r.query])).toEqual([
      ['/v1/analytics/proj_signals/searches', { ...WEEK, limit: '100' }],
    ]);
    let next = buttonState(first, SIGNAL_ACTIONS.next);
    while (next) {
      const page = await load(next);
      next = buttonState(page, SIGNAL_ACTIONS.next);
    }
    expect(analyticsCalls()).toHaveLength(1);
    expect(await svc.budget.used()).toBe(1);
    for (const r of analyticsCalls()) {
      expect(validateRequest(r)).toEqual([]);
      expect(validateResponse({ method: r.method, path: r.path, status: r.status, body: r.responseBody })).toEqual([]);
    }
  });

  it('questions: 1 call a page of 1000 conversations; Next past it by its cursor, Previous back free', async () => {
    const ninety = { dateFrom: '2026-08-24', dateTo: '2026-11-22' };
    let page = await load(state({ report: 'questions', ...ninety }));
    expect(text(page)).toMatch(/how do i set up sso with okta/i);
    expect(text(page)).toContain('Grouped within one page of 1,000 conversations');
    expect(text(page)).toContain('*Rows 1–10* (conversations 1–1,000)');
    let next = buttonState(page, SIGNAL_ACTIONS.next);
    while (next && next.cursors.length === 0) {
      page = await load(next);
      next = buttonState(page, SIGNAL_ACTIONS.next);
    }
    expect(next?.cursors).toHaveLength(1);
    const second = await load(next!);
    expect(second.ok).toBe(true);
    expect(analyticsCalls().map((r) => r.query.cursor)).toEqual([undefined, next!.cursors[0]]);
    const back = await load({ ...next!, cursors: [], skip: -1 });
    expect(back.ok).toBe(true);
    expect(analyticsCalls()).toHaveLength(2);
  });

  it('feedback: 2 calls for the whole report; a visitor report: 1 a page, and 1 for its views', async () => {
    await load(state({ report: 'feedback' }));
    await load(state({ report: 'feedback', rows: 3, skip: 3 }));
    expect(analyticsCalls().map((r) => r.path)).toEqual([
      '/v1/analytics/proj_signals/feedback/by-page',
      '/v1/analytics/proj_signals/feedback',
    ]);
    fake.requests.length = 0;
    const where = { channel: 'C0DOCS', projectId: 'proj_signals' };
    await loadReport(svc, { ...WEEK, ...where, limit: 10, offset: 0, skip: 0 }, 'U0ALICE');
    await loadReport(svc, { ...WEEK, ...where, limit: 10, offset: 10, skip: 0 }, 'U0ALICE');
    expect(analyticsCalls().map((r) => `${r.path} ${r.query.offset}`)).toEqual([
      '/v1/analytics/proj_signals/visitors 0',
      '/v1/analytics/proj_signals/views 0',
      '/v1/analytics/proj_signals/visitors 10',
    ]);
  });
});

describe('reader text and refusals', () => {
  it('the seeded hostile comments, questions and terms reach Slack escaped', async () => {
    for (const report of ['searches', 'feedback', 'questions'] as const) {
      const l = await load(state({ report, rows: 20 }));
      const json = text(l);
      expect(json.replace('<@U0ALICE>', '')).not.toMatch(/<[@!#]|<https?:/);
      // A made-up page path is shown in inline code (Slack links nothing there), on one line.
      expect(json.replace(/`[^`]*`/g, '``')).not.toMatch(/https?:\/\/evil|www\.evil/);
      expect(json).not.toMatch(/\\n\s*https?:\/\/evil/);
    }
    const q = await load(state({ report: 'questions', rows: 20 }));
    expect(text(q)).toContain('&lt;!channel&gt;');
    expect(FAKE_RECURRING_UNANSWERED.length).toBeGreaterThan(0);
    expect(HOSTILE_TEXT.mentions).toContain('<!channel>');
  });

  it('a cursor the API no longer accepts: "this page expired, run the report again", no Retry', async () => {
    const ninety = { dateFrom: '2026-08-24', dateTo: '2026-11-22' };
    const page = await load(state({ report: 'questions', ...ninety, skip: -1 }));
    // The last window of the first API page: Next carries the cursor of the second.
    const next = buttonState(page, SIGNAL_ACTIONS.next)!;
    expect(next.cursors).toHaveLength(1);
    docsClock = 16 * 60_000; // the fake forgets cursors after 15 minutes
    const expired = await load(next);
    expect(expired).toMatchObject({
      ok: false,
      text: expect.stringMatching(/^This page of the report expired; run the report again\.\nThe docs service said: /),
      retryable: false,
    });
    expect((expired as { text: string }).text).toContain(CURSOR_REJECTED_DETAIL);
    const failed = analyticsCalls().at(-1)!;
    expect(failed.status).toBe(400);
    expect(JSON.stringify(failed.responseBody)).toContain(CURSOR_REJECTED_DETAIL);
    const msg = buildSignalErrorMessage(
      'This page of the report expired; run the report again.',
      next,
      false,
      TEST_SIGNER,
    );
    expect(JSON.stringify(msg.blocks)).not.toContain(SIGNAL_ACTIONS.retry);
  });

  it.each([
    [
      400,
      { error: 'Invalid query parameters', details: [{ message: 'limit <@U0X> must be <= 100' }] },
      'The docs service rejected the request: Invalid query parameters: limit &lt;@U0X&gt; must be &lt;= 100.',
      false,
    ],
    [
      401,
      { error: 'Unauthorized' },
      "The bot's API key was rejected by the docs service; tell the admin who installed this bot.",
      false,
    ],
    [
      403,
      { error: 'Forbidden' },
      "The docs service refused the bot's API key (missing scope or IP allowlist); " +
        'tell the admin who installed this bot.',
      false,
    ],
  ])('%i: one plain sentence, Retry only when it may help', async (status, body, sentence, retryable) => {
    fake.failNext(/\/searches$/, status, 1, body);
    const l = await load(state({}));
    expect(l).toMatchObject({ ok: false, text: sentence, retryable });
    expect(analyticsCalls()).toHaveLength(1);
  });

  it('429: the organization-wide limit and when to retry; then nobody calls for the back-off', async () => {
    fake.failNext(/\/feedback\/by-page$/, 429, 1);
    const l = await load(state({ report: 'feedback' }));
    expect(l).toMatchObject({
      ok: false,
      retryable: true,
      text:
        'The docs analytics API is rate limiting us ' +
        '(it allows 100 requests per hour for the whole organization); try again in 1m.',
    });
    const again = await load(state({ report: 'questions' }));
    expect(again.ok).toBe(false);
    expect(analyticsCalls()).toHaveLength(1);
  });

  it('the shared budget spent: said plainly with when it frees, no call', async () => {
    await svc.budget.record(INTERACTIVE_CEILING);
    const l = await load(state({ report: 'questions' }));
    expect(l).toMatchObject({ ok: false, retryable: true });
    expect((l as { text: string }).text).toMatch(
      /^This bot has used 85 of the 100 analytics requests .* new ones will in 1h\.$/,
    );
    expect(analyticsCalls()).toHaveLength(0);
  });

  it('a 5xx is retried once (both attempts counted); two in a row: "the docs service failed", Retry', async () => {
    fake.failNext(/\/searches$/, 500, 1);
    expect((await load(state({}))).ok).toBe(true);
    expect(analyticsCalls()).toHaveLength(2);
    expect(await svc.budget.used()).toBe(2);
    fake.failNext(/\/assistant$/, 503, 2);
    const l = await load(state({ report: 'questions' }));
    expect(l).toMatchObject({ ok: false, text: 'The docs service failed; try again in a minute.', retryable: true });
    expect(analyticsCalls()).toHaveLength(4);
  });
});

describe('a click re-checks the clicker and the channel', () => {
  /** Who is in which channel: Mallory is in #docs, not in #leads. */
  const MEMBERS: Record<string, string[]> = { C0DOCS: ['U0ALICE', 'U0MALLORY'], C0LEADS: ['U0ALICE'] };
  let hook: ReturnType<typeof createHttpServer>;
  let said: string[];
  let handlers: Map<string, (p: unknown) => Promise<void>>;
  let chat: {
    postMessage: ReturnType<typeof vi.fn>;
    update: ReturnType<typeof vi.fn>;
    postEphemeral: ReturnType<typeof vi.fn>;
  };
  let url: string;
  let deps: Record<string, unknown>;
  let intake: { on: (kind: { name: string }, h: (p: unknown) => Promise<void>) => void };
  /** Registers the handlers again over the same rig, with `over` replacing some of their dependencies. */
  const rewire = (over: Record<string, unknown>) => {
    handlers = new Map();
    registerHandlers(intake as never, { ...deps, ...over } as never);
  };
  beforeEach(async () => {
    said = [];
    hook = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        said.push((JSON.parse(body) as { text?: string }).text ?? '(no text)');
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;
    handlers = new Map();
    intake = {
      on: (kind: { name: string }, h: (p: unknown) => Promise<void>) => void handlers.set(kind.name, h),
    };
    chat = { postMessage: vi.fn(async () => ({ ok: true, ts: '1.2' })), update: vi.fn(), postEphemeral: vi.fn() };
    deps = {
      services: svc,
      slack: { chat, users: { info: vi.fn() } },
      redis,
      prefix,
      now: () => Date.now(),
      access: OPEN_GATE,
      conversations: { isMember: async (channel: string, user: string) => (MEMBERS[channel] ?? []).includes(user) },
      clicks: new Quota(redis, {
        keyPrefix: `${prefix}:visitors:clicks`,
        points: REPORT_CLICKS_PER_MINUTE,
        durationS: 60,
      }),
      projectFor: async () => 'proj_signals',
      projects: ['proj_signals'],
    };
    registerHandlers(intake as never, deps as never);
  });
  afterEach(async () => {
    await new Promise<void>((r) => hook.close(() => r()));
  });
  /** A page of the visitor report in `channel`, as its buttons carry it. */
  const report = (channel: string): PageState => ({
    ...WEEK,
    limit: 10,
    offset: 0,
    skip: 0,
    requester: 'U0ALICE',
    channel,
    projectId: 'proj_signals',
  });
  const click = (over: Record<string, unknown>) => ({
    user: 'U0MALLORY',
    channel: 'C0DOCS',
    messageTs: '1700000000.000100',
    responseUrl: url,
    ...over,
  });

  it('someone not (or no longer) in the channel: told privately, nothing read, nothing edited', async () => {
    const value = signSignalState(state({ projectId: 'proj_signals' }), SIGNAL_ACTIONS.next, TEST_SIGNER);
    const signals = click({ actionId: SIGNAL_ACTIONS.next, value, channel: 'C0LEADS' });
    const visitors = click({
      actionId: PAGE_ACTIONS.next,
      value: signPageState(report('C0LEADS'), PAGE_ACTIONS.next, TEST_SIGNER),
      channel: 'C0LEADS',
    });
    const retry = {
      ...visitors,
      actionId: PAGE_ACTIONS.retry,
      value: signPageState(report('C0LEADS'), PAGE_ACTIONS.retry, TEST_SIGNER),
    };
    await handlers.get('visitors.signals-page')!(signals);
    await handlers.get('visitors.menu')!({ ...signals, blockId: 'x', report: 'feedback' });
    await handlers.get('visitors.page')!(visitors);
    await handlers.get('visitors.retry')!(retry);
    expect(said).toEqual([NOT_A_MEMBER_TEXT, NOT_A_MEMBER_TEXT, NOT_A_MEMBER_TEXT, NOT_A_MEMBER_TEXT]);
    expect(chat.update).not.toHaveBeenCalled();
    expect(chat.postMessage).not.toHaveBeenCalled();
    expect(analyticsCalls()).toHaveLength(0);
    await handlers.get('visitors.signals-page')!({ ...signals, channel: 'C0DOCS', user: 'U0ALICE' });
    expect(chat.update).toHaveBeenCalledOnce();
  });

  it("a Retry made for another channel's report, clicked where the clicker is a member: refused, nothing posted", async () => {
    // Alice's report in #leads failed; its Retry value is replayed by Mallory in #docs.
    const visitors = signPageState({ ...report('C0LEADS'), messageTs: undefined }, PAGE_ACTIONS.retry, TEST_SIGNER);
    await handlers.get('visitors.retry')!(
      click({ actionId: PAGE_ACTIONS.retry, value: visitors, messageTs: undefined }),
    );
    const signals = signSignalState(state({ channel: 'C0LEADS' }), SIGNAL_ACTIONS.retry, TEST_SIGNER);
    await handlers.get('visitors.signals-retry')!(click({ actionId: SIGNAL_ACTIONS.retry, value: signals }));
    expect(said).toEqual([OTHER_CONVERSATION_BUTTON, OTHER_CONVERSATION_BUTTON]);
    expect(chat.postMessage).not.toHaveBeenCalled();
    expect(chat.update).not.toHaveBeenCalled();
    expect(analyticsCalls()).toHaveLength(0);
  });

  it('a Previous or Next value sent as a Retry (and the other way round) is not followed', async () => {
    const next = signPageState(report('C0DOCS'), PAGE_ACTIONS.next, TEST_SIGNER);
    await handlers.get('visitors.retry')!(click({ actionId: PAGE_ACTIONS.retry, value: next, messageTs: undefined }));
    const retry = signPageState(report('C0DOCS'), PAGE_ACTIONS.retry, TEST_SIGNER);
    await handlers.get('visitors.page')!(click({ actionId: PAGE_ACTIONS.next, value: retry }));
    // A Retry recorded as a page click (the intake kind and the action disagree): stale.
    await handlers.get('visitors.page')!(click({ actionId: PAGE_ACTIONS.retry, value: retry }));
    expect(said).toEqual([UNVERIFIED_BUTTON, UNVERIFIED_BUTTON, STALE_BUTTON]);
    expect(chat.postMessage).not.toHaveBeenCalled();
    expect(chat.update).not.toHaveBeenCalled();
    expect(analyticsCalls()).toHaveLength(0);
  });

  it(`a person past ${REPORT_CLICKS_PER_MINUTE} reports and clicks a minute: told when to go on, nothing edited`, async () => {
    const next = signPageState(report('C0DOCS'), PAGE_ACTIONS.next, TEST_SIGNER);
    for (let i = 0; i < REPORT_CLICKS_PER_MINUTE; i++)
      await handlers.get('visitors.page')!(click({ actionId: PAGE_ACTIONS.next, value: next, user: 'U0ALICE' }));
    expect(chat.update).toHaveBeenCalledTimes(REPORT_CLICKS_PER_MINUTE);
    await handlers.get('visitors.page')!(click({ actionId: PAGE_ACTIONS.next, value: next, user: 'U0ALICE' }));
    await handlers.get('visitors.menu')!(click({ blockId: 'x', report: 'feedback', user: 'U0ALICE' }));
    const caller = { teamId: 'T0TEAM', channel: 'C0DOCS', user: 'U0ALICE' };
    const command = { caller, range: { type: 'default' }, limit: 10, responseUrl: url };
    await handlers.get('visitors.signals-report')!({ ...command, report: 'searches' });
    expect(chat.update).toHaveBeenCalledTimes(REPORT_CLICKS_PER_MINUTE);
    expect(chat.postMessage).not.toHaveBeenCalled();
    expect(said).toHaveLength(3);
    for (const text of said)
      expect(text).toMatch(/^You're asking for reports faster than I post them .* Next free slot: /);
    // Someone else still pages.
    await handlers.get('visitors.page')!(click({ actionId: PAGE_ACTIONS.next, value: next }));
    expect(chat.update).toHaveBeenCalledTimes(REPORT_CLICKS_PER_MINUTE + 1);
  });

  it("a member's Retry in the report's channel posts the report, attributed to the clicker", async () => {
    const retry = signPageState(report('C0DOCS'), PAGE_ACTIONS.retry, TEST_SIGNER);
    await handlers.get('visitors.retry')!(click({ actionId: PAGE_ACTIONS.retry, value: retry, messageTs: undefined }));
    expect(chat.postMessage).toHaveBeenCalledOnce();
    const posted = chat.postMessage.mock.calls[0]![0] as { channel: string; blocks: unknown[] };
    expect(posted.channel).toBe('C0DOCS');
    expect(JSON.stringify(posted.blocks)).toContain('Requested by <@U0MALLORY>');
  });

  /** An error as @slack/web-api throws it for a Slack `error` answer. */
  const slackError = (code: string) =>
    Object.assign(new Error(`An API error occurred: ${code}`), {
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: code },
    });
  /** A Redis client that refuses every command at once (as when Redis is down). */
  const downRedis = () =>
    new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  const logged = () => {
    const { logger, lines } = arrayLogger('warn');
    return { logger, warns: () => lines.filter((l) => l.level === 40) };
  };

  it('Redis down when a click is counted: the click is refused (fail closed), the person is told, nothing is read or edited', async () => {
    const down = downRedis();
    const { logger, warns } = logged();
    rewire({
      services: { ...svc, logger },
      clicks: new Quota(down, { keyPrefix: `${prefix}:visitors:clicks`, points: 5, durationS: 60 }),
    });
    const next = signPageState(report('C0DOCS'), PAGE_ACTIONS.next, TEST_SIGNER);
    await handlers.get('visitors.page')!(click({ actionId: PAGE_ACTIONS.next, value: next }));
    expect(said).toEqual(["I couldn't reach my database, so I did nothing; try again in a moment."]);
    expect(chat.update).not.toHaveBeenCalled();
    expect(analyticsCalls()).toHaveLength(0);
    expect(warns().map((l) => l.msg)).toEqual(['could not count a report click; refused']);
    down.disconnect();
  });

  it('a report Slack will not post (command or Retry): the person is told privately why (invite the bot, or try again), with a warning', async () => {
    const { logger, warns } = logged();
    rewire({ services: { ...svc, logger }, slack: { chat, users: { info: async () => ({ ok: true, user: {} }) } } });
    const caller = { teamId: 'T0TEAM', channel: 'C0DOCS', user: 'U0ALICE' };
    const command = { caller, range: { type: 'default' }, limit: 10, responseUrl: url, report: 'searches' };
    chat.postMessage.mockImplementationOnce(async () => Promise.reject(slackError('not_in_channel')));
    await handlers.get('visitors.signals-report')!(command);
    const retry = signPageState(report('C0DOCS'), PAGE_ACTIONS.retry, TEST_SIGNER);
    chat.postMessage.mockImplementationOnce(async () => Promise.reject(slackError('internal_error')));
    await handlers.get('visitors.retry')!(click({ actionId: PAGE_ACTIONS.retry, value: retry, messageTs: undefined }));
    expect(said).toEqual([
      "I can't post in this channel yet. Invite me with `/invite @Docs Agent`, then run the command again.",
      'Slack would not take the report; try again in a moment.',
    ]);
    expect(warns()).toEqual([
      expect.objectContaining({ msg: 'could not post a report', slackError: 'not_in_channel', channel: 'C0DOCS' }),
      expect.objectContaining({ msg: 'could not post a report', slackError: 'internal_error', channel: 'C0DOCS' }),
    ]);
  });

  it('Next on a report Slack will not let the bot edit (deleted meanwhile): the clicker is told privately, with a warning', async () => {
    const { logger, warns } = logged();
    rewire({ services: { ...svc, logger } });
    chat.update.mockImplementationOnce(async () => Promise.reject(slackError('message_not_found')));
    const next = signPageState(report('C0DOCS'), PAGE_ACTIONS.next, TEST_SIGNER);
    await handlers.get('visitors.page')!(click({ actionId: PAGE_ACTIONS.next, value: next }));
    expect(said).toEqual([CANNOT_EDIT]);
    expect(warns()).toEqual([
      expect.objectContaining({ msg: 'could not edit a report', slackError: 'message_not_found', channel: 'C0DOCS' }),
    ]);
  });

  it("the person's time zone: Redis down is not a failure (Slack's zone is used); users.info failing falls back to UTC with a warning", async () => {
    const down = downRedis();
    const clock = () => Date.parse('2026-11-22T20:00:00Z'); // already Nov 23 in Tokyo
    const caller = { teamId: 'T0TEAM', channel: 'C0DOCS', user: 'U0ALICE' };
    const command = { caller, range: { type: 'default' }, limit: 10, responseUrl: url, report: 'searches' };
    const users = { info: vi.fn(async () => ({ ok: true, user: { tz: 'Asia/Tokyo' } })) };
    const { logger, warns } = logged();
    rewire({ services: { ...svc, logger }, redis: down, now: clock, slack: { chat, users } });
    await handlers.get('visitors.signals-report')!(command);
    users.info.mockImplementationOnce(async () => Promise.reject(slackError('ratelimited')));
    await handlers.get('visitors.signals-report')!(command);
    expect(chat.postMessage).toHaveBeenCalledTimes(2);
    const [tokyo, utc] = chat.postMessage.mock.calls.map((c) => (c[0] as { text: string }).text);
    // The last 7 days before today: today is Nov 23 in Tokyo, Nov 22 in UTC.
    expect(tokyo).toBe('Docs searches, Nov 16 – Nov 22, 2026 · rows 1–10');
    expect(utc).toBe('Docs searches, Nov 15 – Nov 21, 2026 · rows 1–10');
    expect(warns()).toEqual([expect.objectContaining({ msg: 'users.info failed; using UTC', user: 'U0ALICE' })]);
    down.disconnect();
  });
});

describe('answers outside the spec', () => {
  it('enum values the spec does not list and fields it does not name never crash a report', async () => {
    const turn = (query: string, resolutionStatus: unknown, extra: object = {}) => ({
      id: '01JD0000000000000000000001',
      timestamp: '2026-11-20T10:00:00Z',
      query,
      response: 'Not covered.',
      responseType: 'handoff_to_human',
      sources: [],
      resolutionStatus,
      queryCategory: null,
      pageUrl: null,
      sentiment: 'angry',
      ...extra,
    });
    const conversations = [
      turn('How do I export analytics?', 'unanswered'),
      turn('How do I export analytics', 'unanswered', { pageUrl: 'https://docs.acme.test/analytics' }),
      turn('What is a seat?', 'escalated'),
      turn('And a workspace?', 42),
    ];
    fake.failNext(/\/assistant$/, 200, 1, { conversations, nextCursor: null, hasMore: false, total: 4 });
    const q = await load(state({ report: 'questions' }));
    expect(q.ok).toBe(true);
    expect(text(q)).toContain('“How do I export analytics?” · asked 2× in 2 wordings');
    expect(text(q)).not.toContain('What is a seat');
    const entry = (over: object) => ({ id: 'f1', path: '/a', comment: 'Broken link', createdAt: null, ...over });
    fake.failNext(/\/feedback\/by-page$/, 200, 1, {
      feedback: [{ path: '/a', thumbsUp: 0, thumbsDown: 2, code: 0, total: 2, votes: 9 }],
      hasMore: false,
    });
    fake.failNext(/\/feedback$/, 200, 1, {
      feedback: [
        entry({ source: 'survey', status: 'archived' }),
        entry({ id: 'f2', source: 'contextual', helpful: false }),
      ],
      nextCursor: null,
      hasMore: false,
    });
    const f = await load(state({ report: 'feedback' }));
    expect(f.ok).toBe(true);
    expect(text(f)).toContain('“Broken link” (2 readers)');
  });
});

describe('failures below the API', () => {
  let hang: Server;
  const sockets: Socket[] = [];
  let requests = 0;
  beforeAll(async () => {
    // Accepts, reads the request, never answers.
    hang = createServer((s) => {
      sockets.push(s);
      s.on('data', (d) => (requests += (d.toString().match(/^GET /gm) ?? []).length));
    });
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => hang.close(() => r()));
  });

  it('a timeout is retried once, then "could not be reached", with Retry; both attempts counted', async () => {
    const port = (hang.address() as { port: number }).port;
    const slow = new DocsApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'mint_signals',
      projectId: 'proj_signals',
      timeoutMs: 150,
      retryMinDelayMs: 1,
    });
    try {
      svc = services(slow);
      const l = await load(state({}));
      expect(l).toMatchObject({
        ok: false,
        text: 'The docs service could not be reached; try again in a minute.',
        retryable: true,
      });
      expect(requests).toBe(2);
      expect(await svc.budget.used()).toBe(2);
    } finally {
      await slow.close();
    }
  });

  it('Redis down: the report says something went wrong, offers Retry, and calls nothing', async () => {
    const down = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    svc = services(docsApi, down);
    const l = await load(state({ report: 'feedback' }));
    expect(l).toMatchObject({ ok: false, text: 'Something went wrong on my side. Please try again.', retryable: true });
    expect(analyticsCalls()).toHaveLength(0);
    down.disconnect();
  });

  it('a visitor report: Redis down says something went wrong, with Retry, and a warning; views failing still shows the visitors, saying why views are missing', async () => {
    const page: PageState = { ...WEEK, limit: 10, offset: 0, skip: 0, projectId: 'proj_signals', channel: 'C0DOCS' };
    const { logger, lines } = arrayLogger('warn');
    const down = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const broken = await loadReport({ ...services(docsApi, down), logger }, page, 'U0ALICE');
    expect(broken).toMatchObject({
      ok: false,
      text: 'Something went wrong on my side. Please try again.',
      retryable: true,
    });
    down.disconnect();

    fake.failNext(/\/views$/, 500, 2);
    const shown = await loadReport({ ...svc, logger }, page, 'U0ALICE');
    expect(shown.ok).toBe(true);
    expect(text(shown)).toContain('Views not shown: The docs service failed; try again in a minute.');
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'could not load a visitors report',
      'could not load the views of a visitors report; shown without them',
    ]);
  });
});
