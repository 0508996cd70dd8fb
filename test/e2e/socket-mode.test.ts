import { describe, expect, it } from 'vitest';
import type { SlackMessage } from '../../sandbox/fake-slack.js';
import { SocketModeDriver } from '../../sandbox/socket-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { until } from '../helpers/redis-topology.js';
import {
  E2E_APP_TOKEN,
  E2E_SECRETS,
  messageText,
  pollerDone,
  sandboxWithBot,
  statusMessage,
  threadReplies,
  type Sandbox,
} from '../helpers/sandbox.js';

const CHANNEL = 'C0DOCS';
const PR_LINK = /https:\/\/github\.com\/acme\/docs\/pull\/\d+/;

/** Waits for the `n`-th bot reply in the thread of `threadTs` (1-based) and returns it. */
function nthReply(sb: Sandbox, threadTs: string, n: number): Promise<SlackMessage> {
  return sb.slack.waitFor(() => threadReplies(sb.slack, CHANNEL, threadTs)[n - 1], 10_000);
}

/** The bot's `docs_bot_socket_mode_connected` (undefined when it serves none). */
async function socketGauge(bot: BotProcess): Promise<number | undefined> {
  const text = await (await fetch(`${bot.url}/metrics`)).text();
  const m = /^docs_bot_socket_mode_connected (\d+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * The bot as a separate process in Socket Mode (SLACK_APP_TOKEN, no signing secret): it opens the
 * fake Slack's WebSocket through apps.connections.open, and every request arrives as an envelope
 * that it must ack on the socket within Slack's 3 s (the driver's default timeout).
 */
describe("Socket Mode end to end (bot as a separate process, the fake Slack's WebSocket)", () => {
  let sb: Sandbox;
  let bot: BotProcess;
  let driver: SocketModeDriver;

  sandboxWithBot({ socketMode: true }, async (s) => {
    ({ sb, bot } = s);
    await sb.slack.socket.waitForConnection({ nth: 1, timeoutMs: 10_000 }); // /healthz may answer before the socket's hello
    driver = new SocketModeDriver({ slack: sb.slack });
  });

  it('connects over the socket and serves no Slack endpoint over HTTP', async () => {
    const conn = await sb.slack.socket.waitForConnection();
    expect(conn).toMatchObject({ id: 1, open: true });
    expect(sb.slack.calls.filter((c) => c.method === 'apps.connections.open')).toHaveLength(1);
    expect((await fetch(`${bot.url}/slack/events`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(`${bot.url}/healthz`)).status).toBe(200);
  });

  it('/docs-edit to its PR link, a thread follow-up, and button clicks, all over the socket', async () => {
    const ack = await driver.slashCommand({
      command: '/docs-edit',
      text: 'Add a quickstart for the Python SDK',
      user: 'U0ALICE',
      channel: CHANNEL,
    });
    expect(ack.connection).toBe(1);
    const create = await sb.docs.waitForRequest(
      (r) => r.method === 'POST' && r.path === '/v2/agent/proj_e2e/job',
      10_000,
    );
    expect(create.body).toEqual({ prompt: 'Add a quickstart for the Python SDK' });
    const jobId = (create.responseBody as { id: string }).id;
    const status = await statusMessage(sb.slack, jobId);
    const done = await nthReply(sb, status.ts, 1);
    expect(done.text).toMatch(new RegExp(`^<@U0ALICE> .*${PR_LINK.source}`));
    await pollerDone(sb.pollQueue, jobId);

    // A reply in the thread is a follow-up to the same job, announced to whoever sent it.
    await driver.message({
      channel: CHANNEL,
      user: 'U0BOB',
      thread_ts: status.ts,
      text: 'also add a Go example, like <https://go.dev/doc|the Go docs> do',
    });
    const followUp = await sb.docs.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/v2/agent/proj_e2e/job/${jobId}/message`,
      10_000,
    );
    expect(JSON.stringify(followUp.body)).toContain('also add a Go example, like the Go docs (https://go.dev/doc) do');
    expect((await nthReply(sb, status.ts, 2)).text).toMatch(new RegExp(`^<@U0BOB> .*${PR_LINK.source}`));
    await pollerDone(sb.pollQueue, jobId, 1);
    expect(threadReplies(sb.slack, CHANNEL, status.ts)).toHaveLength(2);

    // block_actions: the link button is acked (Slack sends a click on it too) and changes nothing ...
    const before = sb.slack.messages.length;
    const linkAck = await driver.blockAction({
      user: 'U0ALICE',
      channel: CHANNEL,
      messageTs: done.ts,
      threadTs: status.ts,
      actionId: 'link.open_pr',
    });
    expect(linkAck.envelope_id).toBeTruthy();
    // ... and Next on a visitors report edits the report in place.
    await driver.slashCommand({ command: '/docs-visitors', text: 'limit=10', user: 'U0ALICE', channel: CHANNEL });
    const report = await sb.slack.waitFor(
      () => sb.slack.messages.find((m) => m.channel === CHANNEL && m.text.startsWith('Docs visitors')),
      10_000,
    );
    expect(sb.slack.messages.length).toBe(before + 2); // the /docs-visitors line and the report: the link click posted nothing
    await driver.blockAction({ user: 'U0BOB', channel: CHANNEL, messageTs: report.ts, actionId: 'visitors.page.next' });
    await sb.slack.waitFor(() => report.text.includes('rows 11–20'), 10_000);
    expect(report.edited).toBe(true);

    // Every envelope was acked on the one socket; nothing was sent twice; no secret was printed.
    expect(sb.slack.socket.acks.map((a) => a.connection)).toEqual(sb.slack.socket.envelopes.map(() => 1));
    expect(sb.slack.messages.filter((m) => m.bot_id && !m.thread_ts && messageText(m).includes(jobId))).toHaveLength(1);
    for (const secret of [E2E_SECRETS.SLACK_BOT_TOKEN, E2E_SECRETS.DOCS_API_KEY, E2E_APP_TOKEN])
      expect(bot.output()).not.toContain(secret);
  });

  // @slack/socket-mode waits clientPingTimeout (5 s by default) before each reconnection, so each takes about 5 s.
  it('reconnects after a disconnect message and after a hard drop, and keeps serving', async () => {
    const opened = () => sb.slack.calls.filter((c) => c.method === 'apps.connections.open').length;
    const first = sb.slack.socket.history.length;
    const before = opened();

    // Slack retires a connection: `disconnect` (refresh_requested), then the app opens a new one.
    sb.slack.socket.disconnect('refresh_requested');
    const second = await sb.slack.socket.waitForConnection({ nth: first + 1, timeoutMs: 10_000 });
    await sb.slack.waitFor(() => sb.slack.socket.history[first - 1]?.open === false, 10_000);
    const usage = await driver.slashCommand({ command: '/docs-edit', text: '', user: 'U0ALICE', channel: CHANNEL });
    expect(usage.connection).toBe(second.id);
    // The empty instruction's usage answer rides on the ack (Socket Mode's accepts_response_payload).
    expect(usage.payload).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('Tell me what to change in the docs'),
    });

    // The network fails: the socket drops without a close handshake (the client sees 1006). The gauge
    // shows the replica cut off until it has reconnected (the client waits about 5 s first).
    expect(await socketGauge(bot)).toBe(1);
    sb.slack.socket.drop();
    await until('the gauge to show the socket down', 5_000, async () => (await socketGauge(bot)) === 0);
    const third = await sb.slack.socket.waitForConnection({ nth: first + 2, timeoutMs: 15_000 });
    await until('the gauge to show the socket up', 5_000, async () => (await socketGauge(bot)) === 1);
    expect(opened()).toBe(before + 2);
    const ack = await driver.slashCommand({
      command: '/docs-edit',
      text: 'Fix the typo on /quickstart',
      user: 'U0CAROL',
      channel: CHANNEL,
    });
    expect(ack.connection).toBe(third.id);
    const create = await sb.docs.waitForRequest(
      (r) =>
        r.method === 'POST' && (r.body as { prompt?: string } | undefined)?.prompt === 'Fix the typo on /quickstart',
      10_000,
    );
    const status = await statusMessage(sb.slack, (create.responseBody as { id: string }).id);
    expect((await nthReply(sb, status.ts, 1)).text).toMatch(new RegExp(`^<@U0CAROL> .*${PR_LINK.source}`));
    expect(sb.slack.socket.connections).toBe(1);
    expect((await fetch(`${bot.url}/healthz`)).status).toBe(200);
  });
});
