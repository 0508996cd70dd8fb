import { describe, expect, it } from 'vitest';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { Scrape } from '../helpers/prometheus.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { TcpProxy } from '../helpers/redis-topology.js';
import {
  docsEdit,
  E2E_SECRETS,
  malloryDocsEditBody,
  ephemeralsTo,
  pollerDone,
  sandboxWithBot,
  statusMessage,
  threadReplies,
  type Sandbox,
} from '../helpers/sandbox.js';

const METRICS_TOKEN = 'e2e-metrics-token-3333-abcdef';

/*
 * What an operator's Prometheus sees: the bot as a separate process with METRICS_TOKEN, driven over
 * signed HTTP through a completed job, a failed job, a docs API 500 (retried), a forged request and
 * a channel the bot is not in; then `GET /metrics` is scraped and parsed with a Prometheus text
 * parser, and the counters must have moved by exactly what happened.
 */
describe('GET /metrics end to end (bot process, METRICS_TOKEN, fakes of Slack and the docs API)', () => {
  let sb: Sandbox;
  let bot: BotProcess;
  let driver: SlackDriver;

  sandboxWithBot({ env: { METRICS_TOKEN } }, (s) => ({ sb, bot, driver } = s));

  const scrape = (authorization?: string) =>
    fetch(`${bot.url}/metrics`, { headers: authorization ? { authorization } : {} });

  it('refuses a scrape without the token (401), and serves one with it', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('Bearer not-the-metrics-token-at-all')).status).toBe(401);
    const res = await scrape(`Bearer ${METRICS_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    await expect.poll(() => bot.output(), { timeout: 5_000 }).toContain('refused a /metrics scrape');
    expect(bot.output()).not.toContain(METRICS_TOKEN);
    // With the token, no start-up warning about an open /metrics.
    expect(bot.output()).not.toContain('/metrics is served on the public Slack port');
  });

  it('counts requests, jobs by outcome, docs API calls, Slack errors, lateness and queue depth', async () => {
    sb.docs.failNext(/^\/v2\/agent\/proj_e2e\/job\/[^/]+$/, 500); // the first poll's GET fails once; the client retries it
    const completed = await docsEdit(sb, driver, 'Add a quickstart for the Python SDK');
    const failed = await docsEdit(sb, driver, 'Rewrite everything [fail]');
    for (const jobId of [completed, failed]) {
      const status = await statusMessage(sb.slack, jobId);
      await sb.slack.waitFor(() => threadReplies(sb.slack, 'C0DOCS', status.ts).length > 0, 10_000);
      await pollerDone(sb.pollQueue, jobId);
    }
    // A forged request, and a command in a channel the bot is not in (chat.postMessage: not_in_channel).
    const body = malloryDocsEditBody(sb);
    expect(
      (
        await driver.raw(body.replace('Delete', 'Remove'), {
          ...driver.sign(body),
          'content-type': 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(401);
    await driver.slashCommand({ command: '/docs-edit', text: 'Fix the FAQ', user: 'U0BOB', channel: 'C0RANDOM' });
    await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'U0BOB').length > 0, 10_000);

    const text = await (await scrape(`Bearer ${METRICS_TOKEN}`)).text();
    const s = new Scrape(text);

    expect(s.value('docs_bot_slack_requests_total', { type: 'command', outcome: 'acked' })).toBe(3);
    expect(s.value('docs_bot_slack_requests_total', { type: 'unknown', outcome: 'rejected' })).toBe(1);
    expect(s.histogram('docs_bot_ack_seconds', { type: 'command' })!.buckets.get(3)).toBe(3); // all within Slack's 3 s

    expect(s.value('docs_bot_agent_jobs_started_total', { kind: 'new' })).toBe(2);
    // Two jobs took two of the project's 100 requests; the one in C0RANDOM (bot not a member) was given back.
    expect(s.value('docs_bot_agent_budget_remaining', { project: 'proj_e2e' })).toBe(98);
    expect(
      Object.fromEntries(
        s
          .series('docs_bot_agent_jobs_finished_total')
          .map((l) => [l.status, s.value('docs_bot_agent_jobs_finished_total', l)]),
      ),
    ).toEqual({
      completed: 1,
      no_change: 0,
      failed: 1,
      archived: 0,
      timed_out: 0,
    });
    // Polls at most 600 ms apart: both ends announced well within 5 s of the poll before.
    const lateness = s.histogram('docs_bot_announcement_lateness_seconds')!;
    expect(lateness.count).toBe(2);
    expect(lateness.buckets.get(5)).toBe(2);

    expect(s.value('docs_bot_docs_api_requests_total', { operation: 'create_job', status_code: '201' })).toBe(2);
    expect(s.value('docs_bot_docs_api_requests_total', { operation: 'get_job', status_code: '500' })).toBe(1);
    const gets = sb.docs.requests.filter((r) => r.method === 'GET' && r.status === 200).length;
    expect(s.value('docs_bot_docs_api_requests_total', { operation: 'get_job', status_code: '200' })).toBe(gets);
    expect(s.histogram('docs_bot_docs_api_request_seconds', { operation: 'get_job' })!.count).toBe(gets + 1);

    expect(s.value('docs_bot_slack_api_errors_total', { method: 'chat.postMessage', error: 'not_in_channel' })).toBe(1);

    for (const state of ['waiting', 'active', 'delayed', 'failed'])
      expect(s.value('docs_bot_queue_jobs', { queue: 'poll-agent-job', state })).toBe(0);
    expect(s.series('docs_bot_queue_jobs').map((l) => l.queue)).toEqual(
      expect.arrayContaining(['intake', 'poll-agent-job', 'send-digest']),
    );
    // The hourly clean of finished jobs runs in the bot: a series per queue and state, from 0.
    expect(s.series('docs_bot_queue_jobs_cleaned_total').map((l) => `${l.queue} ${l.state}`)).toEqual(
      expect.arrayContaining(['intake completed', 'intake failed', 'poll-agent-job failed', 'send-digest failed']),
    );
    expect(s.sum('docs_bot_queue_jobs_cleaned_total')).toBe(0);
    expect(s.type('process_cpu_seconds_total')).toBe('COUNTER');
    expect(s.type('nodejs_eventloop_lag_seconds')).toBe('GAUGE');

    // Bounded labels: no job, user or channel ids, and no secrets.
    for (const id of [
      completed,
      failed,
      'U0ALICE',
      'U0BOB',
      'C0DOCS',
      'C0RANDOM',
      ...Object.values(E2E_SECRETS),
      METRICS_TOKEN,
    ])
      expect(text).not.toContain(id);
  });

  it(
    'with previews on (the default): the preview queue has its depth series, and one Redis outage counts 17 reconnects',
    { timeout: 60_000 },
    async () => {
      // A second bot (previews on) on the same sandbox, the first one's jobs done, its Redis behind a
      // proxy whose connections the test cuts: an outage of this bot's Redis only.
      const proxy = await TcpProxy.start(Number(new URL(TEST_REDIS_URL).port || 6379));
      const { bot: withPreviews } = await sb.startBot({
        DOCS_PREVIEWS: 'auto',
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      });
      const metrics = async () =>
        new Scrape(
          await (
            await fetch(`${withPreviews.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
          ).text(),
        );
      try {
        const s = await metrics();
        for (const state of ['waiting', 'active', 'delayed', 'failed'])
          expect(s.value('docs_bot_queue_jobs', { queue: 'preview-deployment', state })).toBe(0);
        expect(new Set(s.series('docs_bot_queue_jobs').map((l) => l.queue))).toEqual(
          new Set(['intake', 'poll-agent-job', 'preview-deployment', 'send-digest', 'ask-answer']),
        );
        // Every connection open (five queues, five workers with their blocking connections), then all cut.
        await expect.poll(() => proxy.sockets.size / 2, { timeout: 10_000 }).toBe(17);
        // docs/operations.md ("Alert rules", DocsBotRedisReconnecting): what one outage counts.
        const perOutage = { state: 1, intake: 1, queue: 5, worker: 10 };
        const reconnects = (scraped: Scrape) =>
          Object.fromEntries(
            Object.keys(perOutage).map((c) => [c, scraped.value('docs_bot_redis_reconnects_total', { connection: c })]),
          );
        const before = reconnects(await metrics());
        for (const socket of proxy.sockets) socket.destroy();
        await expect
          .poll(
            async () => {
              const after = reconnects(await metrics());
              return Object.fromEntries(Object.keys(perOutage).map((c) => [c, (after[c] ?? NaN) - (before[c] ?? NaN)]));
            },
            { timeout: 20_000 },
          )
          .toEqual(perOutage);
      } finally {
        await withPreviews.kill9();
        await proxy.close();
      }
    },
  );
});
