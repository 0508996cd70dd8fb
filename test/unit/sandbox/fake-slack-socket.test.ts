import { LogLevel, SocketModeClient } from '@slack/socket-mode';
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { SocketModeDriver } from '../../../sandbox/socket-driver.js';
import { platformError } from '../../helpers/fake-slack-client.js';

const TOKEN = 'xoxb-sandbox-token';
const APP_TOKEN = 'xapp-1-A0DOCSAPP-sandbox';

let slack: FakeSlack;
let clients: SocketModeClient[];

/** Client log lines (a dropped connection makes the client log errors; tests read them instead). */
let logged: string[];
const logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (...msg: unknown[]) => logged.push(`warn ${msg.join(' ')}`),
  error: (...msg: unknown[]) => logged.push(`error ${msg.join(' ')}`),
  setLevel: () => undefined,
  getLevel: () => LogLevel.WARN,
  setName: () => undefined,
};

/** A real @slack/socket-mode client pointed at the fake; reconnects 300 ms after a lost connection. `connected` counts its hellos. */
function socketClient(appToken = APP_TOKEN, clientPingTimeout = 300): SocketModeClient & { connected: number } {
  const client = new SocketModeClient({
    appToken,
    logger,
    clientPingTimeout,
    clientOptions: { slackApiUrl: slack.url, retryConfig: { retries: 0 } },
  }) as SocketModeClient & { connected: number };
  client.connected = 0;
  client.on('connected', () => (client.connected += 1));
  clients.push(client);
  return client;
}

beforeEach(async () => {
  clients = [];
  logged = [];
  slack = await startFakeSlack({ botToken: TOKEN, appToken: APP_TOKEN });
});

afterEach(async () => {
  for (const c of clients) await c.disconnect().catch(() => undefined);
  await slack.close();
});

describe('apps.connections.open', () => {
  it('hands out single-use ws:// URLs for the app-level token only', async () => {
    const app = new WebClient(APP_TOKEN, { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
    const res = await app.apps.connections.open();
    expect(res.url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/socket\\?ticket=[0-9a-f-]+&app_id=A0DOCSAPP$`));

    const bot = new WebClient(TOKEN, { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
    expect((await platformError(bot.apps.connections.open())).data.error).toBe('not_allowed_token_type');
    expect((await platformError(app.chat.postMessage({ channel: 'C0DOCS', text: 'x' }))).data.error).toBe(
      'not_allowed_token_type',
    );
    const other = new WebClient('xapp-1-other', { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
    expect((await platformError(other.apps.connections.open())).data.error).toBe('invalid_auth');
    // Slack docs: the app-level token must come in the Authorization header, not as a POST parameter.
    const form = await fetch(`${slack.url}apps.connections.open`, {
      method: 'POST',
      body: new URLSearchParams({ token: APP_TOKEN }),
    });
    expect(await form.json()).toEqual({ ok: false, error: 'not_authed' });
  });

  it('refuses a WebSocket without a valid ticket, and a ticket twice', async () => {
    const status = (url: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          resolve(101);
          ws.close();
        });
        ws.on('error', () => undefined);
      });
    expect(await status(`${slack.origin.replace('http', 'ws')}/socket?ticket=made-up`)).toBe(401);
    const { url } = await new WebClient(APP_TOKEN, { slackApiUrl: slack.url }).apps.connections.open();
    expect(await status(url as string)).toBe(101);
    expect(await status(url as string)).toBe(401);
  });
});

describe('Socket Mode with the real SocketModeClient', () => {
  it('connects, says hello, delivers an events_api envelope and records the ack', async () => {
    const client = socketClient();
    const frames: unknown[] = [];
    client.on('ws_message', (data: string) => frames.push(JSON.parse(data)));
    await client.start();
    const conn = await slack.socket.waitForConnection();
    expect(conn).toMatchObject({ id: 1, open: true });
    expect(slack.socket.connections).toBe(1);
    expect(client.connected).toBe(1); // start() resolves on Slack's hello
    expect(frames[0]).toEqual({
      type: 'hello',
      num_connections: 1,
      debug_info: { host: 'applink-fake-1', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: 'A0DOCSAPP' },
    });

    const seen: Array<{ event: unknown; retry_num: unknown; accepts: unknown }> = [];
    client.on('app_mention', async ({ ack, event, retry_num, accepts_response_payload }) => {
      seen.push({ event, retry_num, accepts: accepts_response_payload });
      await ack();
    });
    const driver = new SocketModeDriver({ slack });
    const delivery = await driver.appMention(
      { channel: 'C0DOCS', user: 'U0BOB', text: '<@U0DOCSBOT> hi' },
      { alsoMessageEvent: false },
    );
    expect(delivery).toMatchObject({ connection: 1, payload: {} });
    expect(seen).toEqual([
      {
        event: expect.objectContaining({ type: 'app_mention', user: 'U0BOB', ts: delivery.ts }),
        retry_num: 0,
        accepts: false,
      },
    ]);
    expect(slack.socket.envelopes[0]).toMatchObject({
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: '',
      payload: { type: 'event_callback', event_id: delivery.eventId, api_app_id: 'A0DOCSAPP' },
    });
    expect(slack.socket.acks).toHaveLength(1);
  });
});

describe('Socket Mode slash commands and retries', () => {
  it('acks a slash command with a response payload and carries retries of events', async () => {
    const client = socketClient();
    client.on('slash_commands', async ({ ack, body, accepts_response_payload }) => {
      expect(accepts_response_payload).toBe(true);
      await ack({ text: `Queued: ${(body as { text: string }).text}` });
    });
    const retries: unknown[] = [];
    client.on('message', async ({ ack, retry_num, retry_reason }) => {
      retries.push([retry_num, retry_reason]);
      await ack();
    });
    await client.start();
    const driver = new SocketModeDriver({ slack });
    const ack = await driver.slashCommand({
      command: '/docs-edit',
      text: 'fix the typo',
      user: 'U0ALICE',
      channel: 'C0DOCS',
    });
    expect(ack.payload).toEqual({ text: 'Queued: fix the typo' });
    expect(slack.socket.envelopes[0]?.payload).toMatchObject({
      command: '/docs-edit',
      text: 'fix the typo',
      user_id: 'U0ALICE',
      channel_name: 'docs',
    });
    expect(slack.messages[0]).toMatchObject({ text: '/docs-edit fix the typo', source: 'command' });

    const first = await driver.message({ channel: 'C0DOCS', user: 'U0BOB', text: 'hello' });
    await driver.message(
      { channel: 'C0DOCS', user: 'U0BOB', text: 'hello' },
      { ts: first.ts, eventId: first.eventId, retryNum: 1, retryReason: 'timeout' },
    );
    expect(retries).toEqual([
      [0, ''],
      [1, 'timeout'],
    ]);
    expect(slack.messages.filter((m) => m.text === 'hello')).toHaveLength(1);
  });
});

describe('Socket Mode interactivity', () => {
  it('sends interactive envelopes; view_submission accepts a response_action in the ack', async () => {
    const client = socketClient();
    client.on('interactive', async ({ ack, body, accepts_response_payload }) => {
      const type = (body as { type: string }).type;
      if (type === 'view_submission') await ack({ response_action: 'errors', errors: { page: 'Unknown page' } });
      else await ack();
      expect(accepts_response_payload).toBe(type === 'view_submission');
    });
    await client.start();
    const web = new WebClient(TOKEN, { slackApiUrl: slack.url });
    const blocks = [
      {
        type: 'actions',
        block_id: 'b',
        elements: [{ type: 'button', action_id: 'cancel', text: { type: 'plain_text', text: 'Cancel' } }],
      },
    ];
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'Running', blocks });
    const driver = new SocketModeDriver({ slack });
    await driver.blockAction({
      user: 'U0ALICE',
      channel: 'C0DOCS',
      messageTs: posted.ts as string,
      actionId: 'cancel',
    });
    await driver.messageShortcut({
      user: 'U0ALICE',
      channel: 'C0DOCS',
      messageTs: posted.ts as string,
      callbackId: 'improve',
    });
    const submitted = await driver.viewSubmission({
      user: 'U0ALICE',
      view: { callback_id: 'edit', state: { values: {} } },
    });
    expect(submitted.payload).toEqual({ response_action: 'errors', errors: { page: 'Unknown page' } });
    expect(
      slack.socket.envelopes.map((e) => [(e.payload as { type: string }).type, e.accepts_response_payload]),
    ).toEqual([
      ['block_actions', false],
      ['message_action', false],
      ['view_submission', true],
    ]);
  });
});

describe('Socket Mode reconnects and timeouts', () => {
  it('reconnects with a new apps.connections.open after a disconnect message', async () => {
    const client = socketClient();
    client.on('app_home_opened', async ({ ack }) => ack());
    await client.start();
    await slack.socket.waitForConnection({ nth: 1 });
    const frames: unknown[] = [];
    client.on('ws_message', (data: string) => frames.push(JSON.parse(data)));
    slack.socket.disconnect('refresh_requested');
    const second = await slack.socket.waitForConnection({ nth: 2 });
    expect(second.open).toBe(true);
    expect(frames[0]).toEqual({
      type: 'disconnect',
      reason: 'refresh_requested',
      debug_info: { host: 'applink-fake-1' },
    });
    await slack.waitFor(() => client.connected === 2);
    await slack.waitFor(() => slack.socket.history[0]?.open === false);
    expect(slack.calls.filter((c) => c.method === 'apps.connections.open')).toHaveLength(2);
    const ack = await new SocketModeDriver({ slack }).appHomeOpened('U0ALICE');
    expect(ack.connection).toBe(2);
  });

  it('reconnects after the connection drops without a close handshake', async () => {
    const client = socketClient();
    await client.start();
    await slack.socket.waitForConnection({ nth: 1 });
    slack.socket.drop();
    const second = await slack.socket.waitForConnection({ nth: 2 });
    expect(second.id).toBe(2);
    await slack.waitFor(() => client.connected === 2); // the client saw hello on the new socket
    expect(slack.socket.connections).toBe(1);
    expect(slack.calls.filter((c) => c.method === 'apps.connections.open')).toHaveLength(2);
    expect(logged.some((l) => l.startsWith('error WebSocket error'))).toBe(true);
  });

  it('rejects send() when no ack comes in time, and when no socket is open', async () => {
    const client = socketClient();
    client.on('app_home_opened', () => undefined); // never acks
    await client.start();
    const driver = new SocketModeDriver({ slack });
    await expect(driver.appHomeOpened('U0ALICE', { timeoutMs: 150 })).rejects.toThrow(
      /timed out after \d+ ms waiting for the app's ack of events_api envelope/,
    );
    await client.disconnect();
    await slack.waitFor(() => slack.socket.connections === 0);
    await expect(slack.socket.send('events_api', {}, { timeoutMs: 50 })).rejects.toThrow(/open Socket Mode connection/);
  });
});

describe('Socket Mode connections', () => {
  it("answers the client's pings so it keeps the connection, and counts connections in hello", async () => {
    const first = socketClient(APP_TOKEN, 600);
    await first.start();
    // clientPingTimeout 600 ms: the client pings every 200 ms and drops the socket after 4 pings without a pong.
    await slack.waitFor(() => (slack.socket.history[0]?.pingsReceived ?? 0) >= 6);
    expect(slack.socket.history).toHaveLength(1);
    expect(slack.socket.history[0]?.open).toBe(true);

    const second = socketClient();
    const frames: Array<{ type: string; num_connections?: number }> = [];
    second.on('ws_message', (data: string) => frames.push(JSON.parse(data) as { type: string }));
    await second.start();
    expect(frames[0]).toMatchObject({ type: 'hello', num_connections: 2 });
    second.on('app_home_opened', async ({ ack }) => ack());
    expect((await new SocketModeDriver({ slack }).appHomeOpened('U0ALICE')).connection).toBe(2); // the newest socket
  });

  it('closes sockets itself after a disconnect warning when asked, and the client comes back', async () => {
    const client = socketClient();
    await client.start();
    slack.socket.disconnect('warning', { close: true });
    await slack.socket.waitForConnection({ nth: 2 });
    await slack.waitFor(() => client.connected === 2);
    expect(slack.socket.history.map((c) => c.open)).toEqual([false, true]);
  });
});
