import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/platform/logger.js';
import { BotMetrics, type QueueDepthSource } from '../../../src/platform/metrics.js';
import { bearerTokenMatches, metricsHandler, warnOpenMetrics } from '../../../src/platform/metrics-route.js';
import { socketModeObserver } from '../../../src/platform/socket-mode-gauge.js';
import { arrayLogger } from '../../helpers/logs.js';
import { Scrape } from '../../helpers/prometheus.js';

const TOKEN = 'metrics-token-0123456789abcdef';

async function scrape(m: BotMetrics): Promise<Scrape> {
  return new Scrape(await m.registry.metrics());
}

function queue(name: string, counts: Record<string, number> | Error | 'hang'): QueueDepthSource {
  return {
    name,
    getJobCounts: () =>
      counts === 'hang'
        ? new Promise(() => undefined)
        : counts instanceof Error
          ? Promise.reject(counts)
          : Promise.resolve(counts),
  };
}

describe('bearerTokenMatches (METRICS_TOKEN)', () => {
  it.each([
    [`Bearer ${TOKEN}`, true],
    [`bearer ${TOKEN}`, true], // the scheme is case-insensitive (RFC 7235)
    [`Bearer   ${TOKEN}  `, true],
    [undefined, false],
    ['', false],
    ['Bearer', false],
    ['Bearer ', false],
    [TOKEN, false],
    [`Basic ${TOKEN}`, false],
    [`Bearer ${TOKEN.slice(0, -1)}`, false],
    [`Bearer ${TOKEN}x`, false],
    [`Bearer ${TOKEN.toUpperCase()}`, false],
    [`Bearer ${TOKEN} ${TOKEN}`, false],
  ])('%j → %s', (header, ok) => {
    expect(bearerTokenMatches(header, TOKEN)).toBe(ok);
  });
});

describe('an open /metrics on the public Slack port (METRICS_TOKEN unset)', () => {
  it('HTTP mode without METRICS_TOKEN: one warn line at start-up; none with the token or in Socket Mode', () => {
    const { logger, lines } = arrayLogger('info');
    expect(warnOpenMetrics({}, logger)).toBe(true);
    expect(warnOpenMetrics({ METRICS_TOKEN: 'b2f1c0ffee5e1f9a7d3c4b5a69788e0f' }, logger)).toBe(false);
    expect(warnOpenMetrics({ SLACK_APP_TOKEN: 'xapp-1-A-1-x' }, logger)).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe(40);
    expect(lines[0]!.msg).toMatch(
      /^\/metrics is served on the public Slack port .* without a token: set METRICS_TOKEN/,
    );
  });
});

describe('docs_bot_socket_mode_connected (Socket Mode)', () => {
  it('is served in Socket Mode only: 0 until the socket opens, then follows it; requests are still counted', async () => {
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    expect(await m.registry.metrics()).not.toContain('docs_bot_socket_mode_connected');
    const observer = socketModeObserver(m);
    const gauge = async () => new Scrape(await m.registry.metrics()).value('docs_bot_socket_mode_connected');
    expect(await gauge()).toBe(0);
    observer.onSocketState?.(true);
    expect(await gauge()).toBe(1);
    observer.onSocketState?.(false);
    expect(await gauge()).toBe(0);
    observer.onReply('command', 'acked', 0.01);
    expect(
      new Scrape(await m.registry.metrics()).value('docs_bot_slack_requests_total', {
        type: 'command',
        outcome: 'acked',
      }),
    ).toBe(1);
  });
});

describe('GET /metrics handler', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function serve(token: string | undefined, registry = new Registry()): Promise<{ url: string; logs: string[] }> {
    const logs: string[] = [];
    const logger = createLogger('info', {
      write: (s: string) => void logs.push(s),
    } as unknown as NodeJS.WritableStream);
    const m = new BotMetrics({ registry, defaultMetrics: false });
    m.agentJobStarted('new');
    const handler = metricsHandler({ registry, logger, ...(token ? { token } : {}) });
    server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, logs };
  }

  it('without METRICS_TOKEN anyone may scrape: 200, text format 0.0.4', async () => {
    const { url } = await serve(undefined);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(new Scrape(await res.text()).value('docs_bot_agent_jobs_started_total', { kind: 'new' })).toBe(1);
  });

  it('with METRICS_TOKEN, a scrape without the right bearer token gets 401 and a warning that never holds the token', async () => {
    const { url, logs } = await serve(TOKEN);
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-wrong-token' },
      { authorization: `Basic ${TOKEN}` },
    ] as Array<Record<string, string>>) {
      const res = await fetch(url, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.text()).not.toContain('docs_bot');
    }
    expect(logs.filter((l) => l.includes('refused a /metrics scrape'))).toHaveLength(3);
    expect(logs.join('\n')).not.toContain('wrong-token');
    expect(logs.join('\n')).not.toContain(TOKEN);

    const ok = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('docs_bot_agent_jobs_started_total{kind="new"} 1');
  });

  it('a registry that fails to collect answers 500 and logs why', async () => {
    const registry = new Registry();
    const { url, logs } = await serve(undefined, registry);
    registry.registerMetric({
      name: 'broken',
      help: 'x',
      type: 'gauge',
      get: () => Promise.reject(new Error('boom')),
      reset: () => undefined,
      aggregator: 'sum',
    } as never);
    const res = await fetch(url);
    expect(res.status).toBe(500);
    expect(logs.join('\n')).toContain('could not collect metrics');
  });
});

describe('BotMetrics (the registry-backed recorder)', () => {
  it('counts Slack requests by type and outcome, and times each answer', async () => {
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    m.onReply('command', 'acked', 0.004);
    m.onReply('command', 'acked', 0.2);
    m.onReply('event', 'busy', 2.6);
    m.onReply(undefined, 'rejected', 0.001);
    const s = await scrape(m);
    expect(s.value('docs_bot_slack_requests_total', { type: 'command', outcome: 'acked' })).toBe(2);
    expect(s.value('docs_bot_slack_requests_total', { type: 'event', outcome: 'busy' })).toBe(1);
    expect(s.value('docs_bot_slack_requests_total', { type: 'unknown', outcome: 'rejected' })).toBe(1);
    const ack = s.histogram('docs_bot_ack_seconds', { type: 'command' })!;
    expect(ack.count).toBe(2);
    expect(ack.buckets.get(0.005)).toBe(1);
    expect(ack.buckets.get(3)).toBe(2);
    expect(s.histogram('docs_bot_ack_seconds', { type: 'event' })!.buckets.get(2)).toBe(0);
  });

  it('starts every job status at 0, and counts ends with their lateness (a timeout has none)', async () => {
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    let s = await scrape(m);
    expect(s.series('docs_bot_agent_jobs_finished_total').map((l) => l.status)).toEqual([
      'completed',
      'no_change',
      'failed',
      'archived',
      'timed_out',
    ]);
    expect(s.sum('docs_bot_agent_jobs_finished_total')).toBe(0);
    m.agentJobStarted('new');
    m.agentJobStarted('follow_up');
    m.agentJobFinished('completed', 12);
    m.agentJobFinished('failed', 31);
    m.agentJobFinished('timed_out');
    s = await scrape(m);
    expect(s.value('docs_bot_agent_jobs_started_total', { kind: 'new' })).toBe(1);
    expect(s.value('docs_bot_agent_jobs_started_total', { kind: 'follow_up' })).toBe(1);
    expect(s.value('docs_bot_agent_jobs_finished_total', { status: 'completed' })).toBe(1);
    expect(s.value('docs_bot_agent_jobs_finished_total', { status: 'timed_out' })).toBe(1);
    const late = s.histogram('docs_bot_announcement_lateness_seconds')!;
    expect(late).toMatchObject({ count: 2, sum: 43 });
    expect(late.buckets.get(20)).toBe(1);
    expect(late.buckets.get(45)).toBe(2);
  });

  it('docs API requests by operation and status; no response counts as network_error', async () => {
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    m.docsApiRequest('create_job', 201, 0.12);
    m.docsApiRequest('get_job', 500, 0.03);
    m.docsApiRequest('get_job', undefined, 10);
    const s = await scrape(m);
    expect(s.value('docs_bot_docs_api_requests_total', { operation: 'create_job', status_code: '201' })).toBe(1);
    expect(s.value('docs_bot_docs_api_requests_total', { operation: 'get_job', status_code: '500' })).toBe(1);
    expect(s.value('docs_bot_docs_api_requests_total', { operation: 'get_job', status_code: 'network_error' })).toBe(1);
    expect(s.histogram('docs_bot_docs_api_request_seconds', { operation: 'get_job' })!.count).toBe(2);
  });

  it('before any call, the series the key and token alerts read are at 0 (so increase() sees the first refusal after a restart); few of them', async () => {
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    let s = await scrape(m);
    const docs = s.series('docs_bot_docs_api_requests_total');
    expect(docs).toHaveLength(14 * 2);
    for (const operation of ['create_job', 'send_message', 'assistant_message', 'get_update_status'])
      for (const status_code of ['401', '403'])
        expect(s.value('docs_bot_docs_api_requests_total', { operation, status_code })).toBe(0);
    const auth = ['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive', 'missing_scope'];
    expect(s.series('docs_bot_slack_auth_errors_total').map((l) => l.error)).toEqual(auth);
    for (const error of auth) expect(s.value('docs_bot_slack_auth_errors_total', { error })).toBe(0);
    expect(s.series('docs_bot_slack_api_errors_total')).toHaveLength(0);

    m.docsApiRequest('create_job', 401, 0.1);
    m.slackApiError({ method: 'chat.postMessage', code: 'token_revoked' });
    m.slackApiError({ method: 'chat.postMessage', code: 'not_in_channel' });
    s = await scrape(m);
    expect(s.value('docs_bot_docs_api_requests_total', { operation: 'create_job', status_code: '401' })).toBe(1);
    expect(s.value('docs_bot_slack_auth_errors_total', { error: 'token_revoked' })).toBe(1);
    expect(s.value('docs_bot_slack_api_errors_total', { method: 'chat.postMessage', error: 'token_revoked' })).toBe(1);
    expect(s.series('docs_bot_slack_auth_errors_total')).toHaveLength(6);
  });

  it('Slack API errors keep their series few: odd codes become other, and so does anything past the cap', async () => {
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false, maxSlackErrorSeries: 3 });
    m.slackApiError({ method: 'chat.postMessage', code: 'not_in_channel' });
    m.slackApiError({ method: 'chat.postMessage', code: 'not_in_channel' });
    m.slackApiError({ method: 'chat.update', code: 'ratelimited' });
    m.slackApiError({ method: 'chat.update', code: 'Weird <b>error</b> from a proxy' });
    m.slackApiError({ method: 'reactions.add', code: 'already_reacted' }); // past the cap of 3 pairs
    const s = await scrape(m);
    expect(s.value('docs_bot_slack_api_errors_total', { method: 'chat.postMessage', error: 'not_in_channel' })).toBe(2);
    expect(s.value('docs_bot_slack_api_errors_total', { method: 'chat.update', error: 'ratelimited' })).toBe(1);
    expect(s.value('docs_bot_slack_api_errors_total', { method: 'chat.update', error: 'other' })).toBe(1);
    expect(s.value('docs_bot_slack_api_errors_total', { method: 'other', error: 'other' })).toBe(1);
    expect(s.series('docs_bot_slack_api_errors_total')).toHaveLength(4);
  });

  it('reads queue depths at scrape time; a queue that fails or hangs is left out of that scrape, without delaying it', async () => {
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false, queueTimeoutMs: 100 });
    m.watchQueues([
      queue('poll-agent-job', { waiting: 1, active: 2, delayed: 30, failed: 0 }),
      queue('intake', new Error('Redis down')),
      queue('send-digest', 'hang'),
    ]);
    const started = Date.now();
    const s = await scrape(m);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(s.type('docs_bot_queue_jobs')).toBe('GAUGE');
    expect(s.value('docs_bot_queue_jobs', { queue: 'poll-agent-job', state: 'delayed' })).toBe(30);
    expect(s.value('docs_bot_queue_jobs', { queue: 'poll-agent-job', state: 'active' })).toBe(2);
    expect(s.series('docs_bot_queue_jobs').map((l) => l.queue)).toEqual([
      'poll-agent-job',
      'poll-agent-job',
      'poll-agent-job',
      'poll-agent-job',
    ]);
  });

  it('the agent budget gauge is set per project, for the budget code to call', async () => {
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    m.agentBudgetRemaining.set({ project: 'proj_1' }, 87);
    expect((await scrape(m)).value('docs_bot_agent_budget_remaining', { project: 'proj_1' })).toBe(87);
  });

  it('the agent budget gauge: project only in single-token mode; project and installation in OAuth mode, at most maxBudgetInstallations of them', async () => {
    const plain = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    plain.agentBudget('proj_1', 87);
    expect((await scrape(plain)).series('docs_bot_agent_budget_remaining')).toEqual([{ project: 'proj_1' }]);
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false, maxBudgetInstallations: 2 });
    m.agentBudget('proj_1', 3, 'team:T0ALPHA');
    m.agentBudget('proj_1', 2, 'enterprise:E0GRID');
    m.agentBudget('proj_1', 1, 'team:T0THIRD'); // past the bound
    m.agentBudget('proj_1', 0, 'team:t0 "odd"'); // not a slot
    m.agentBudget('proj_1', 1, 'team:T0ALPHA'); // a known one keeps its own series
    const s = await scrape(m);
    expect(s.series('docs_bot_agent_budget_remaining')).toEqual([
      { project: 'proj_1', installation: 'team:T0ALPHA' },
      { project: 'proj_1', installation: 'enterprise:E0GRID' },
    ]);
    expect(s.value('docs_bot_agent_budget_remaining', { installation: 'team:T0ALPHA' })).toBe(1);
    expect(s.value('docs_bot_agent_budget_remaining', { installation: 'enterprise:E0GRID' })).toBe(2);
    // The HELP line says what happens past the bound: no series (not a shared `other` one).
    const help = s.families.get('docs_bot_agent_budget_remaining')?.help;
    expect(help).toContain('later ones get no series');
    expect(help).not.toContain('other');
  });

  it('the agent budget gauge is read again at each scrape (past budgetCacheMs), for exactly the label sets that have a series', async () => {
    let now = 1_000_000;
    const m = new BotMetrics({
      registry: new Registry(),
      defaultMetrics: false,
      maxBudgetInstallations: 1,
      now: () => now,
    });
    const asked: string[] = [];
    let left = 100;
    m.watchBudget(async (project, installation) => {
      asked.push(`${project} ${installation}`);
      return left;
    });
    expect((await scrape(m)).series('docs_bot_agent_budget_remaining')).toEqual([]); // none seen yet: nothing read
    expect(asked).toEqual([]);
    m.agentBudget('proj_1', 3, 'team:T0ALPHA');
    m.agentBudget('proj_2', 5, 'team:T0ALPHA');
    m.agentBudget('proj_1', 4, 'team:T0BETA'); // past the bound: no series, never read
    const s = await scrape(m);
    expect(s.value('docs_bot_agent_budget_remaining', { project: 'proj_1', installation: 'team:T0ALPHA' })).toBe(100);
    expect(s.value('docs_bot_agent_budget_remaining', { project: 'proj_2', installation: 'team:T0ALPHA' })).toBe(100);
    expect(asked.sort()).toEqual(['proj_1 team:T0ALPHA', 'proj_2 team:T0ALPHA']);
    left = 7;
    now += 5_000;
    expect((await scrape(m)).value('docs_bot_agent_budget_remaining', { project: 'proj_2' })).toBe(7);
  });

  it('scrapes share one budget read: concurrent ones wait for the read under way, later ones within budgetCacheMs read nothing', async () => {
    let now = 1_000_000;
    const m = new BotMetrics({ registry: new Registry(), defaultMetrics: false, now: () => now });
    let reads = 0;
    let left = 50;
    const pending: (() => void)[] = [];
    m.watchBudget(
      () =>
        new Promise<number>((resolve) => {
          reads++;
          const value = left;
          pending.push(() => resolve(value));
        }),
    );
    m.agentBudget('proj_1', 10, 'team:T0ALPHA');
    m.agentBudget('proj_1', 20, 'team:T0BETA');
    const scrapes = [scrape(m), scrape(m), scrape(m)];
    await vi.waitFor(() => expect(pending).toHaveLength(2));
    expect(reads).toBe(2); // one read of each label set, not one per scrape
    pending.splice(0).forEach((release) => release());
    for (const s of await Promise.all(scrapes))
      expect(s.value('docs_bot_agent_budget_remaining', { installation: 'team:T0BETA' })).toBe(50);

    // Within the cache time: no read; the gauge keeps the read's values, and what a request set since.
    left = 40;
    now += 4_999;
    m.agentBudget('proj_1', 49, 'team:T0ALPHA');
    let s = await scrape(m);
    expect(reads).toBe(2);
    expect(s.value('docs_bot_agent_budget_remaining', { installation: 'team:T0ALPHA' })).toBe(49);
    expect(s.value('docs_bot_agent_budget_remaining', { installation: 'team:T0BETA' })).toBe(50);

    // 5 s after the read started: read again.
    now += 1;
    const next = scrape(m);
    await vi.waitFor(() => expect(pending).toHaveLength(2));
    pending.splice(0).forEach((release) => release());
    s = await next;
    expect(reads).toBe(4);
    expect(s.value('docs_bot_agent_budget_remaining', { installation: 'team:T0ALPHA' })).toBe(40);
  });

  it('a budget Redis cannot read (error or no answer) keeps its last value, never fails the scrape, and is warned of at most once a minute', async () => {
    const { logger, lines } = arrayLogger('warn');
    let now = 1_000_000;
    const m = new BotMetrics({
      registry: new Registry(),
      defaultMetrics: false,
      queueTimeoutMs: 100,
      logger,
      now: () => now,
    });
    let mode: 'ok' | 'error' | 'hang' = 'ok';
    m.watchBudget((project) =>
      mode === 'hang'
        ? new Promise<number>(() => undefined)
        : mode === 'error'
          ? Promise.reject(new Error('Connection is closed.'))
          : Promise.resolve(project === 'proj_1' ? 60 : 80),
    );
    m.agentBudget('proj_1', 10);
    m.agentBudget('proj_2', 20);
    expect((await scrape(m)).value('docs_bot_agent_budget_remaining', { project: 'proj_1' })).toBe(60);
    mode = 'error';
    now += 5_000; // past the budgets' cache time
    for (let i = 0; i < 4; i++) {
      const s = await scrape(m);
      expect(s.value('docs_bot_agent_budget_remaining', { project: 'proj_1' })).toBe(60);
      expect(s.value('docs_bot_agent_budget_remaining', { project: 'proj_2' })).toBe(80);
      now += 20_000;
    }
    expect(lines.map((l) => l.msg)).toEqual([
      'could not read the agent budget for /metrics; docs_bot_agent_budget_remaining keeps its last value',
      'could not read the agent budget for /metrics; docs_bot_agent_budget_remaining keeps its last value',
    ]); // at 0 s and 60 s, not at 20 s or 40 s
    expect(lines[0]).toMatchObject({ series: 2, err: { message: 'Connection is closed.' } });
    mode = 'hang';
    now += 40_000; // 60 s after the last warning
    const started = Date.now();
    const s = await scrape(m);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(s.value('docs_bot_agent_budget_remaining', { project: 'proj_2' })).toBe(80);
    expect(lines).toHaveLength(3);
    expect(lines[2]!.err).toMatchObject({ message: 'no answer from Redis within 100 ms' });
  });

  it('two bots in one process keep apart (one registry each), each with the default process metrics', async () => {
    const a = new BotMetrics({ registry: new Registry() });
    const b = new BotMetrics({ registry: new Registry() });
    a.agentJobStarted('new');
    const [sa, sb] = [await scrape(a), await scrape(b)];
    expect(sa.value('docs_bot_agent_jobs_started_total', { kind: 'new' })).toBe(1);
    expect(sb.value('docs_bot_agent_jobs_started_total', { kind: 'new' })).toBe(0);
    expect(sa.type('process_cpu_seconds_total')).toBe('COUNTER');
    expect(sb.type('nodejs_heap_size_used_bytes')).toBe('GAUGE');
  });
});
