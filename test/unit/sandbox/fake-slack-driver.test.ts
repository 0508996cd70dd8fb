import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel as BoltLogLevel, isValidSlackRequest, verifySlackRequest } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { startRecordingBot, type RecordedRequest, type RecordingBot } from '../../../sandbox/recording-bot.js';
import { SlackDriver } from '../../../sandbox/slack-driver.js';
import { fakeSlackClient } from '../../helpers/fake-slack-client.js';

const TOKEN = 'xoxb-sandbox-token';
const SECRET = 'sandbox-signing-secret';
const T0 = 1_700_000_000_000; // ms

let slack: FakeSlack;

function client(): WebClient {
  return fakeSlackClient(slack, TOKEN);
}

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN, now: () => T0 });
});

afterEach(async () => {
  await slack.close();
});

function verifyOptions(req: RecordedRequest, body = req.body) {
  return {
    signingSecret: SECRET,
    body,
    headers: {
      'x-slack-signature': String(req.headers['x-slack-signature']),
      'x-slack-request-timestamp': Number(req.headers['x-slack-request-timestamp']),
    },
  };
}

let bot: RecordingBot;
let driver: SlackDriver;

beforeEach(async () => {
  bot = await startRecordingBot();
  driver = new SlackDriver({ botUrl: bot.url, signingSecret: SECRET, slack });
});

afterEach(async () => {
  await bot.close();
});

describe('SlackDriver: signing, commands and events', () => {
  it('signs requests so that Bolt verifies them, and a tampered body fails', async () => {
    await driver.slashCommand({
      command: '/docs-edit',
      text: 'fix the typo in quickstart',
      user: 'U0ALICE',
      channel: 'C0DOCS',
    });
    const req = bot.requests[0];
    if (!req) throw new Error('no request');
    expect(() => verifySlackRequest(verifyOptions(req))).not.toThrow();
    expect(isValidSlackRequest(verifyOptions(req, req.body.replace('typo', 'tpyo')))).toBe(false);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.headers['x-slack-signature']).toMatch(/^v0=[0-9a-f]{64}$/);
  });

  it("sends slash commands with Slack's form fields and records the typed command", async () => {
    await driver.slashCommand({ command: '/docs-edit', text: 'fix the typo', user: 'U0ALICE', channel: 'C0DOCS' });
    const form = Object.fromEntries(new URLSearchParams(bot.requests[0]?.body ?? ''));
    expect(form).toMatchObject({
      team_id: 'T0SANDBOX',
      team_domain: 'sandbox',
      channel_id: 'C0DOCS',
      channel_name: 'docs',
      user_id: 'U0ALICE',
      user_name: 'alice',
      command: '/docs-edit',
      text: 'fix the typo',
      api_app_id: 'A0DOCSAPP',
    });
    expect(form.response_url).toMatch(new RegExp(`^${slack.origin}/response/`));
    expect(form.trigger_id).toBeTruthy();
    expect(slack.messages[0]).toMatchObject({ user: 'U0ALICE', text: '/docs-edit fix the typo', source: 'command' });

    // The response_url behaves like Slack's: ephemeral by default, in_channel on request.
    const url = form.response_url ?? '';
    await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'On it' }),
    });
    await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'Everyone: on it', response_type: 'in_channel' }),
    });
    expect(slack.messages.slice(1).map((m) => [m.text, m.ephemeralTo])).toEqual([
      ['On it', 'U0ALICE'],
      ['Everyone: on it', undefined],
    ]);
  });
});

describe('SlackDriver: Events API deliveries', () => {
  it('delivers event_callback envelopes, app_mention plus its message twin, and retry headers', async () => {
    const mention = await driver.appMention({ channel: 'C0DOCS', user: 'U0BOB', text: '<@U0DOCSBOT> update the FAQ' });
    expect(bot.requests).toHaveLength(2);
    const [first, second] = bot.requests.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(first).toMatchObject({
      type: 'event_callback',
      team_id: 'T0SANDBOX',
      api_app_id: 'A0DOCSAPP',
      event_id: mention.eventId,
      authorizations: [{ team_id: 'T0SANDBOX', user_id: 'U0DOCSBOT', is_bot: true }],
      event: { type: 'app_mention', user: 'U0BOB', channel: 'C0DOCS', ts: mention.ts, event_ts: mention.ts },
    });
    expect(typeof first?.event_time).toBe('number');
    expect(second).toMatchObject({ event: { type: 'message', ts: mention.ts, channel_type: 'channel' } });
    expect(second?.event_id).not.toBe(mention.eventId);
    expect(slack.messages.filter((m) => m.ts === mention.ts)).toHaveLength(1);

    const redelivery = await driver.message(
      { channel: 'C0DOCS', user: 'U0BOB', text: 'x' },
      { ts: mention.ts, eventId: mention.eventId, retryNum: 1 },
    );
    expect(redelivery.ts).toBe(mention.ts);
    expect(bot.requests[2]?.headers).toMatchObject({
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_timeout',
    });
    expect(slack.messages).toHaveLength(1); // a redelivery does not post again
  });

  it("sends tokens_revoked as Slack documents it (the bot user's id under tokens.bot) and revokes the workspace's tokens", async () => {
    await slack.close();
    const oauth = { clientId: '1.2', clientSecret: 'driver-test-secret' };
    slack = await startFakeSlack({ botToken: TOKEN, now: () => T0, oauth });
    driver = new SlackDriver({ botUrl: bot.url, signingSecret: SECRET, slack });
    const code = slack.installs.authorize({ teamId: 'T0SANDBOX' });
    const body = new URLSearchParams({ client_id: oauth.clientId, client_secret: oauth.clientSecret, code });
    const { access_token } = (await (await fetch(`${slack.url}oauth.v2.access`, { method: 'POST', body })).json()) as {
      access_token: string;
    };
    expect((await driver.tokensRevoked()).status).toBe(200);
    expect(JSON.parse(bot.requests.at(-1)?.body ?? '{}')).toMatchObject({
      type: 'event_callback',
      team_id: 'T0SANDBOX',
      event: { type: 'tokens_revoked', tokens: { bot: ['U0DOCSBOT'] } },
    });
    const auth = await fetch(`${slack.url}auth.test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(await auth.json()).toEqual({ ok: false, error: 'token_revoked' });
  });
});

describe('SlackDriver: other events and interactivity', () => {
  it('sends bot echoes, edits, deletions, home openings and view submissions like Slack', async () => {
    const web = client();
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'bot says hi' });
    const own = slack.findMessage('C0DOCS', posted.ts as string);
    if (!own) throw new Error('bot message not recorded');
    await driver.botMessageEcho(own);
    const said = await driver.message({ channel: 'C0DOCS', user: 'U0BOB', text: 'typo' });
    await driver.messageChanged({ channel: 'C0DOCS', ts: said.ts, text: 'fixed' });
    await driver.messageDeleted({ channel: 'C0DOCS', ts: said.ts });
    await web.views.publish({ user_id: 'U0ALICE', view: { type: 'home', blocks: [] } });
    await driver.appHomeOpened('U0ALICE');
    const modal = {
      type: 'modal' as const,
      callback_id: 'edit_request',
      title: { type: 'plain_text' as const, text: 'Edit' },
      blocks: [],
    };
    const opened = await web.views.open({ trigger_id: slack.triggerId('U0ALICE'), view: modal });
    const values = { page: { path: { type: 'plain_text_input', value: 'quickstart.mdx' } } };
    await driver.viewSubmission({ user: 'U0ALICE', view: { callback_id: 'edit_request', state: { values } } });

    const events = bot.requests.map((r) => r.body);
    const echo = JSON.parse(events[0] ?? '{}') as { event: Record<string, unknown> };
    expect(echo.event).toMatchObject({
      type: 'message',
      user: 'U0DOCSBOT',
      bot_id: 'B0DOCSBOT',
      ts: posted.ts,
      text: 'bot says hi',
    });
    expect(echo.event.subtype).toBeUndefined();
    expect(JSON.parse(events[2] ?? '{}')).toMatchObject({
      event: {
        subtype: 'message_changed',
        hidden: true,
        message: { ts: said.ts, text: 'fixed' },
        previous_message: { text: 'typo' },
      },
    });
    expect(JSON.parse(events[3] ?? '{}')).toMatchObject({
      event: { subtype: 'message_deleted', deleted_ts: said.ts, previous_message: { text: 'fixed' } },
    });
    expect(slack.findMessage('C0DOCS', said.ts)).toBeUndefined();
    expect(JSON.parse(events[4] ?? '{}')).toMatchObject({
      event: { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'home', view: { type: 'home' } },
    });
    const submission = JSON.parse(new URLSearchParams(events[5]).get('payload') ?? '{}') as Record<string, unknown>;
    expect(submission).toMatchObject({
      type: 'view_submission',
      user: { id: 'U0ALICE' },
      view: { id: opened.view?.id, callback_id: 'edit_request', state: { values } },
    });
  });
});

describe('SlackDriver: files and block actions', () => {
  it("delivers a person's message with files as a file_share message event", async () => {
    const sent = await driver.message({
      channel: 'C0DOCS',
      user: 'U0ALICE',
      text: 'context',
      files: [{ name: 'spec.md', content: '# Spec' }],
    });
    const event = (JSON.parse(bot.requests[0]?.body ?? '{}') as { event: Record<string, unknown> }).event;
    expect(event).toMatchObject({
      type: 'message',
      subtype: 'file_share',
      ts: sent.ts,
      files: [{ name: 'spec.md', size: 6, user: 'U0ALICE' }],
    });
    expect(slack.findMessage('C0DOCS', sent.ts)?.files?.[0]?.bytes.toString()).toBe('# Spec');
  });

  it('sends block_actions with container, message and a response_url that can replace the original', async () => {
    const blocks = [
      {
        type: 'actions',
        block_id: 'pr',
        elements: [
          { type: 'button', action_id: 'cancel_job', text: { type: 'plain_text', text: 'Cancel' }, value: 'job-1' },
        ],
      },
    ];
    const posted = await client().chat.postMessage({ channel: 'C0DOCS', text: 'Running', blocks });
    await driver.blockAction({
      user: 'U0ALICE',
      channel: 'C0DOCS',
      messageTs: posted.ts as string,
      actionId: 'cancel_job',
    });
    const body = new URLSearchParams(bot.requests[0]?.body ?? '').get('payload') ?? '{}';
    const payload = JSON.parse(body) as Record<string, unknown>;
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0ALICE', username: 'alice' },
      container: { type: 'message', message_ts: posted.ts, channel_id: 'C0DOCS', is_ephemeral: false },
      channel: { id: 'C0DOCS', name: 'docs' },
      message: { ts: posted.ts, bot_id: 'B0DOCSBOT', blocks },
      actions: [{ type: 'button', action_id: 'cancel_job', block_id: 'pr', value: 'job-1', text: { text: 'Cancel' } }],
    });
    const res = await fetch(String(payload.response_url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ replace_original: true, text: 'Cancelled', blocks: [] }),
    });
    expect(res.status).toBe(200);
    expect(slack.findMessage('C0DOCS', posted.ts as string)).toMatchObject({ text: 'Cancelled', edited: true });
    expect(slack.findMessage('C0DOCS', posted.ts as string)?.blocks).toBeUndefined();
  });
});

describe('fake Slack against a real Bolt app', () => {
  it('runs auth.test, slash command + respond, mention + threaded say, and rejects forged signatures', async () => {
    const app = new App({
      token: TOKEN,
      signingSecret: SECRET,
      logLevel: BoltLogLevel.ERROR,
      clientOptions: { slackApiUrl: slack.url },
    });
    app.command('/docs-edit', async ({ ack, respond, command }) => {
      await ack();
      await respond({ text: `Queued: ${command.text}` });
    });
    app.event('app_mention', async ({ event, say }) => {
      await say({ text: `Hi <@${event.user}>`, thread_ts: event.ts });
    });
    const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
    try {
      const { port } = server.address() as AddressInfo;
      const driver = new SlackDriver({ botUrl: `http://127.0.0.1:${port}/slack/events`, signingSecret: SECRET, slack });

      expect((await driver.urlVerification('abc')).body).toContain('abc');

      const ack = await driver.slashCommand({
        command: '/docs-edit',
        text: 'fix typo',
        user: 'U0ALICE',
        channel: 'C0DOCS',
      });
      expect(ack.status).toBe(200);
      const queued = await slack.waitFor(() => slack.messages.find((m) => m.text === 'Queued: fix typo'));
      expect(queued.ephemeralTo).toBe('U0ALICE');

      const mention = await driver.appMention(
        { channel: 'C0DOCS', user: 'U0BOB', text: '<@U0DOCSBOT> hello' },
        { alsoMessageEvent: false },
      );
      const hi = await slack.waitFor(() => slack.messages.find((m) => m.text === 'Hi <@U0BOB>'));
      expect(hi.thread_ts).toBe(mention.ts);
      expect(slack.calls.some((c) => c.method === 'auth.test')).toBe(true);

      const body = JSON.stringify({ type: 'event_callback', event: { type: 'app_mention' } });
      const forged = await driver.raw(body, { 'Content-Type': 'application/json', ...driver.sign(`${body} `) });
      expect(forged.status).toBe(401);
      const stale = await driver.raw(body, {
        'Content-Type': 'application/json',
        ...driver.sign(body, Math.floor(Date.now() / 1000) - 600),
      });
      expect(stale.status).toBe(401);
    } finally {
      await app.stop();
    }
  });
});
