import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel as BoltLogLevel, isValidSlackRequest, type MessageShortcut } from '@slack/bolt';
import { LogLevel, SocketModeClient } from '@slack/socket-mode';
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { startRecordingBot, type RecordingBot } from '../../../sandbox/recording-bot.js';
import { SlackDriver } from '../../../sandbox/slack-driver.js';
import { SocketModeDriver } from '../../../sandbox/socket-driver.js';

const TOKEN = 'xoxb-sandbox-token';
const APP_TOKEN = 'xapp-1-A0DOCSAPP-sandbox';
const SECRET = 'sandbox-signing-secret';

let slack: FakeSlack;
let web: WebClient;

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN, appToken: APP_TOKEN });
  web = new WebClient(TOKEN, { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
});

afterEach(async () => {
  await slack.close();
});

/** A real Bolt app over HTTP against the fake; `stop()` when done. */
async function boltApp(setup: (app: App) => void): Promise<{ driver: SlackDriver; stop: () => Promise<void> }> {
  const app = new App({
    token: TOKEN,
    signingSecret: SECRET,
    logLevel: BoltLogLevel.ERROR,
    clientOptions: { slackApiUrl: slack.url },
  });
  setup(app);
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  const { port } = server.address() as AddressInfo;
  return {
    driver: new SlackDriver({ botUrl: `http://127.0.0.1:${port}/slack/events`, signingSecret: SECRET, slack }),
    stop: () => app.stop() as Promise<void>,
  };
}

describe('SlackDriver.messageShortcut', () => {
  it('sends a signed message_action a Bolt app handles: trigger_id opens a modal, response_url replies in the thread', async () => {
    const received: MessageShortcut[] = [];
    const { driver, stop } = await boltApp((app) => {
      app.shortcut<MessageShortcut>('improve_docs', async ({ ack, shortcut, client, respond }) => {
        await ack();
        received.push(shortcut);
        await client.views.open({
          trigger_id: shortcut.trigger_id,
          view: { type: 'modal', callback_id: 'improve', title: { type: 'plain_text', text: 'Improve' }, blocks: [] },
        });
        await respond({ text: `Improving ${shortcut.message_ts}` });
      });
    });
    try {
      const root = slack.addUserMessage({ channel: 'C0DOCS', user: 'U0BOB', text: 'the quickstart is wrong' });
      const reply = slack.addUserMessage({
        channel: 'C0DOCS',
        user: 'U0BOB',
        text: 'step 3 fails',
        thread_ts: root.ts,
      });
      const res = await driver.messageShortcut({
        user: 'U0ALICE',
        channel: 'C0DOCS',
        messageTs: reply.ts,
        callbackId: 'improve_docs',
      });
      expect(res.status).toBe(200);
      const answer = await slack.waitFor(() => slack.messages.find((m) => m.text === `Improving ${reply.ts}`));
      expect(answer).toMatchObject({ ephemeralTo: 'U0ALICE', thread_ts: root.ts });
      expect(slack.views.at(-1)).toMatchObject({ kind: 'modal', userId: 'U0ALICE', view: { callback_id: 'improve' } });
      expect(received[0]).toMatchObject({
        type: 'message_action',
        callback_id: 'improve_docs',
        message_ts: reply.ts,
        user: { id: 'U0ALICE', name: 'alice', team_id: 'T0SANDBOX' },
        channel: { id: 'C0DOCS', name: 'docs' },
        team: { id: 'T0SANDBOX', domain: 'sandbox' },
        message: { type: 'message', user: 'U0BOB', ts: reply.ts, thread_ts: root.ts, text: 'step 3 fails' },
      });
    } finally {
      await stop();
    }
  });
});

describe('signing with an arbitrary timestamp', () => {
  it('lets tests send stale and future timestamps; Bolt rejects a stale one', async () => {
    const { driver, stop } = await boltApp((app) => app.event('message', async () => undefined));
    try {
      const nowS = Math.floor(Date.now() / 1000);
      expect(
        (await driver.signingAt(nowS - 4 * 60).message({ channel: 'C0DOCS', user: 'U0BOB', text: 'fresh' })).status,
      ).toBe(200);
      expect(
        (await driver.signingAt(nowS - 6 * 60).message({ channel: 'C0DOCS', user: 'U0BOB', text: 'stale' })).status,
      ).toBe(401);
    } finally {
      await stop();
    }
  });

  it('puts the chosen timestamp in X-Slack-Request-Timestamp and signs with it', async () => {
    const bot: RecordingBot = await startRecordingBot();
    try {
      const future = Math.floor(Date.now() / 1000) + 10 * 60;
      const driver = new SlackDriver({
        botUrl: bot.url,
        signingSecret: SECRET,
        slack,
        signatureTimestamp: () => future,
      });
      await driver.slashCommand({ command: '/docs-edit', text: 'x', user: 'U0ALICE', channel: 'C0DOCS' });
      const req = bot.requests[0];
      expect(req?.headers['x-slack-request-timestamp']).toBe(String(future));
      const verify = {
        signingSecret: SECRET,
        body: req?.body ?? '',
        headers: {
          'x-slack-signature': String(req?.headers['x-slack-signature']),
          'x-slack-request-timestamp': future,
        },
      };
      expect(isValidSlackRequest({ ...verify, nowMilliseconds: future * 1000 })).toBe(true);
    } finally {
      await bot.close();
    }
  });
});

describe('SocketModeDriver and SlackDriver share their payloads', () => {
  it('sends the same slash command fields and block_actions payload over both transports', async () => {
    const bot = await startRecordingBot();
    const client = new SocketModeClient({
      appToken: APP_TOKEN,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: slack.url },
    });
    client.on('slack_event', async ({ ack }) => ack());
    try {
      await client.start();
      const http = new SlackDriver({ botUrl: bot.url, signingSecret: SECRET, slack });
      const socket = new SocketModeDriver({ slack });
      const command = { command: '/docs-edit', text: 'fix', user: 'U0ALICE', channel: 'C0DOCS' };
      await http.slashCommand(command);
      await socket.slashCommand(command);
      const form = Object.fromEntries(new URLSearchParams(bot.requests[0]?.body));
      const payload = slack.socket.envelopes[0]?.payload as Record<string, string>;
      const minted = ['response_url', 'trigger_id'];
      const strip = (o: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(o).filter(([k]) => !minted.includes(k)));
      expect(strip(payload)).toEqual(strip(form));

      const posted = await web.chat.postMessage({
        channel: 'C0DOCS',
        text: 'Running',
        blocks: [
          {
            type: 'actions',
            elements: [{ type: 'button', action_id: 'go', text: { type: 'plain_text', text: 'Go' } }],
          },
        ],
      });
      const click = { user: 'U0ALICE', channel: 'C0DOCS', messageTs: posted.ts as string, actionId: 'go' };
      await http.blockAction(click);
      await socket.blockAction(click);
      const viaHttp = JSON.parse(new URLSearchParams(bot.requests[1]?.body).get('payload') ?? '{}') as Record<
        string,
        unknown
      >;
      const viaSocket = slack.socket.envelopes[1]?.payload as Record<string, unknown>;
      expect(Object.keys(viaSocket).sort()).toEqual(Object.keys(viaHttp).sort());
      expect(viaSocket.message).toEqual(viaHttp.message);
      expect(viaSocket.container).toEqual(viaHttp.container);
    } finally {
      await client.disconnect();
      await bot.close();
    }
  });
});
