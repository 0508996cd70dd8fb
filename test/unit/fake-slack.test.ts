import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel as BoltLogLevel, isValidSlackRequest, verifySlackRequest } from '@slack/bolt';
import { ErrorCode, LogLevel, WebClient, WebClientEvent, type WebAPIPlatformError, type WebAPIRateLimitedError } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type SlackCall } from '../../src/sandbox/fake-slack.js';
import { SlackDriver } from '../../src/sandbox/slack-driver.js';
import { renderCall, renderTranscript } from '../../src/sandbox/transcript.js';

const TOKEN = 'xoxb-sandbox-token';
const SECRET = 'sandbox-signing-secret';
const T0 = 1_700_000_000_000; // ms

let slack: FakeSlack;
let clock: number;

function client(options: ConstructorParameters<typeof WebClient>[1] = {}, token = TOKEN): WebClient {
  return new WebClient(token, { slackApiUrl: slack.url, logLevel: LogLevel.ERROR, retryConfig: { retries: 0 }, ...options });
}

async function platformError(p: Promise<unknown>): Promise<WebAPIPlatformError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as WebAPIPlatformError;
}

beforeEach(async () => {
  clock = T0;
  slack = await startFakeSlack({ botToken: TOKEN, now: () => clock });
});

afterEach(async () => {
  await slack.close();
});

describe('fake Slack Web API with the real WebClient', () => {
  it('answers auth.test like Slack for a bot token', async () => {
    const res = await client().auth.test();
    expect(res).toMatchObject({ ok: true, team_id: 'T0SANDBOX', user_id: 'U0DOCSBOT', bot_id: 'B0DOCSBOT', url: 'https://sandbox.slack.com/' });
  });

  it('posts, updates, links and reacts to messages; blocks arrive decoded', async () => {
    const web = client();
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'Working on it…' } }];
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'Working on it', blocks });
    expect(posted.ok).toBe(true);
    expect(posted.channel).toBe('C0DOCS');
    expect(posted.ts).toBe('1700000000.000000');
    expect(posted.message).toMatchObject({ bot_id: 'B0DOCSBOT', user: 'U0DOCSBOT', text: 'Working on it' });
    expect(slack.calls[0]?.args.blocks).toEqual(blocks); // WebClient JSON-encodes arrays in the form body

    const ts = posted.ts as string;
    const reply = await web.chat.postMessage({ channel: 'C0DOCS', thread_ts: ts, text: 'step 1 done' });
    expect(reply.ts).toBe('1700000000.000001'); // unique and increasing while the clock stands still

    const updated = await web.chat.update({ channel: 'C0DOCS', ts, text: 'Done' });
    expect(updated).toMatchObject({ ok: true, ts, text: 'Done' });
    expect(slack.findMessage('C0DOCS', ts)).toMatchObject({ text: 'Done', edited: true, blocks }); // omitted blocks are retained

    const link = await web.chat.getPermalink({ channel: 'C0DOCS', message_ts: reply.ts as string });
    expect(link.permalink).toBe('https://sandbox.slack.com/archives/C0DOCS/p1700000000000001?thread_ts=1700000000.000000&cid=C0DOCS');

    await web.reactions.add({ channel: 'C0DOCS', timestamp: ts, name: 'eyes' });
    await web.reactions.add({ channel: 'C0DOCS', timestamp: ts, name: 'white_check_mark' });
    expect((await platformError(web.reactions.add({ channel: 'C0DOCS', timestamp: ts, name: 'eyes' }))).data.error).toBe('already_reacted');
    await web.reactions.remove({ channel: 'C0DOCS', timestamp: ts, name: 'eyes' });
    expect((await platformError(web.reactions.remove({ channel: 'C0DOCS', timestamp: ts, name: 'eyes' }))).data.error).toBe('no_reaction');
    expect(slack.findMessage('C0DOCS', ts)?.reactions).toEqual(['white_check_mark']);

    const missing = await platformError(web.chat.update({ channel: 'C0DOCS', ts: '1.000001', text: 'x' }));
    expect(missing.code).toBe(ErrorCode.PlatformError);
    expect(missing.data.error).toBe('message_not_found');
  });

  it('posts ephemerals visible to one user', async () => {
    const res = await client().chat.postEphemeral({ channel: 'C0DOCS', user: 'U0ALICE', text: 'only you' });
    expect(res.message_ts).toBeTruthy();
    expect(slack.messages.at(-1)).toMatchObject({ ephemeralTo: 'U0ALICE', text: 'only you', ts: res.message_ts });
  });

  it('answers users.info and conversations.info', async () => {
    const web = client();
    const { user } = await web.users.info({ user: 'U0ALICE' });
    expect(user).toMatchObject({ id: 'U0ALICE', name: 'alice', tz: 'Europe/Berlin', tz_offset: 3600, is_bot: false, profile: { display_name: 'alice' } });
    expect((await platformError(web.users.info({ user: 'U0NOBODY' }))).data.error).toBe('user_not_found');
    const info = await web.conversations.info({ channel: 'C0RANDOM' });
    expect(info.channel).toMatchObject({ id: 'C0RANDOM', name: 'random', is_member: false });
  });

  it('records views.publish and only opens modals for minted trigger ids', async () => {
    const web = client();
    const home = { type: 'home' as const, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Hi' } }] };
    const res = await web.views.publish({ user_id: 'U0ALICE', view: home });
    expect(res.view).toMatchObject({ type: 'home', team_id: 'T0SANDBOX' });
    expect(slack.views[0]).toMatchObject({ kind: 'home', userId: 'U0ALICE', view: home });

    const modal = { type: 'modal' as const, callback_id: 'edit', title: { type: 'plain_text' as const, text: 'Edit' }, blocks: [] };
    expect((await platformError(web.views.open({ trigger_id: 'made.up.trigger', view: modal }))).data.error).toBe('invalid_trigger_id');
    await web.views.open({ trigger_id: slack.triggerId('U0BOB'), view: modal });
    expect(slack.views.at(-1)).toMatchObject({ kind: 'modal', userId: 'U0BOB' });
  });

  it('supports files.uploadV2 (getUploadURLExternal → upload bytes → completeUploadExternal)', async () => {
    const root = await client().chat.postMessage({ channel: 'C0DOCS', text: 'root' });
    const content = '# Changes\n- fixed typo ✓\n';
    const res = await client().files.uploadV2({
      channel_id: 'C0DOCS',
      thread_ts: root.ts as string,
      content,
      filename: 'diff.md',
      title: 'Diff',
      initial_comment: 'Here is the diff',
    });
    expect(res.ok).toBe(true);
    expect(slack.calls.map((c) => c.method)).toEqual(['chat.postMessage', 'files.getUploadURLExternal', 'file_upload', 'files.completeUploadExternal']);
    const shared = slack.messages.at(-1);
    expect(shared).toMatchObject({ channel: 'C0DOCS', thread_ts: root.ts, text: 'Here is the diff', source: 'file_share' });
    expect(shared?.files?.[0]).toMatchObject({ name: 'diff.md', title: 'Diff', size: Buffer.byteLength(content) });
    expect(shared?.files?.[0]?.bytes.toString('utf8')).toBe(content);
  });

  it('answers not_in_channel, channel_not_found, not_authed and invalid_auth', async () => {
    expect((await platformError(client().chat.postMessage({ channel: 'C0RANDOM', text: 'x' }))).data.error).toBe('not_in_channel');
    expect((await platformError(client().chat.postMessage({ channel: 'C0NOPE', text: 'x' }))).data.error).toBe('channel_not_found');
    expect((await platformError(client({}, 'xoxb-wrong').chat.postMessage({ channel: 'C0DOCS', text: 'x' }))).data.error).toBe('invalid_auth');
    const res = await fetch(`${slack.url}auth.test`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: false, error: 'not_authed' });
    const unknown = await fetch(`${slack.url}chat.nope`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(await unknown.json()).toEqual({ ok: false, error: 'unknown_method' });
    expect(slack.messages).toHaveLength(0);
  });

  it('accepts JSON bodies and the token as a form field', async () => {
    const json = await fetch(`${slack.url}chat.postMessage`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: 'C0DOCS', text: 'json' }),
    });
    expect(await json.json()).toMatchObject({ ok: true, channel: 'C0DOCS' });
    const form = await fetch(`${slack.url}chat.postMessage`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, channel: '#docs', text: 'form' }).toString(),
    });
    expect(await form.json()).toMatchObject({ ok: true, channel: 'C0DOCS' });
    expect(slack.calls.every((c) => !('token' in c.args))).toBe(true);
  });

  it('injects HTTP 429 with Retry-After, which WebClient honours before retrying', async () => {
    slack.failNext('chat.postMessage', { status: 429, retryAfterS: 1 });
    const web = client({ retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 0 } });
    const rateLimited: number[] = [];
    web.on(WebClientEvent.RATE_LIMITED, (retryAfterS: number) => rateLimited.push(retryAfterS));
    const started = Date.now();
    const res = await web.chat.postMessage({ channel: 'C0DOCS', text: 'after the storm' });
    expect(res.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950); // waited Retry-After: 1 s
    expect(rateLimited).toEqual([1]);
    expect(slack.calls.map((c) => [c.method, c.status])).toEqual([
      ['chat.postMessage', 429],
      ['chat.postMessage', 200],
    ]);
    expect(slack.calls[0]?.retryAfterS).toBe(1);
    expect(slack.messages).toHaveLength(1);
  });

  it('gives a rate-limit error with rejectRateLimitedCalls', async () => {
    slack.failNext('chat.update', { status: 429, retryAfterS: 7 });
    const err = (await platformError(client({ rejectRateLimitedCalls: true }).chat.update({ channel: 'C0DOCS', ts: '1.0', text: 'x' }))) as unknown as WebAPIRateLimitedError;
    expect(err.code).toBe(ErrorCode.RateLimitedError);
    expect(err.retryAfter).toBe(7);
    expect(slack.calls).toHaveLength(1);
  });

  it('injects platform errors for the next N calls only', async () => {
    slack.failNext('chat.postMessage', { error: 'channel_not_found' }, 2);
    const web = client();
    expect((await platformError(web.chat.postMessage({ channel: 'C0DOCS', text: '1' }))).data.error).toBe('channel_not_found');
    expect((await platformError(web.chat.postMessage({ channel: 'C0DOCS', text: '2' }))).data.error).toBe('channel_not_found');
    expect((await web.chat.postMessage({ channel: 'C0DOCS', text: '3' })).ok).toBe(true);
  });

  it('notifies onCall listeners and waitFor resolves on state or rejects helpfully', async () => {
    const seen: SlackCall[] = [];
    const off = slack.onCall((c) => seen.push(c));
    const pending = slack.waitFor(() => slack.messages.find((m) => m.text === 'later'));
    await client().chat.postMessage({ channel: 'C0DOCS', text: 'later' });
    expect((await pending).text).toBe('later');
    off();
    await client().auth.test();
    expect(seen.map((c) => c.method)).toEqual(['chat.postMessage']);
    await expect(slack.waitFor(() => slack.messages.length > 5, 100)).rejects.toThrow(/timed out after 100 ms[\s\S]*auth\.test/);
  });
});

/** A stand-in bot endpoint that records what it receives. */
async function recordingBot(): Promise<{ url: string; requests: Array<{ headers: IncomingMessage['headers']; body: string }>; server: Server }> {
  const requests: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/slack/events`, requests, server };
}

function verifyOptions(req: { headers: IncomingMessage['headers']; body: string }, body = req.body) {
  return {
    signingSecret: SECRET,
    body,
    headers: {
      'x-slack-signature': String(req.headers['x-slack-signature']),
      'x-slack-request-timestamp': Number(req.headers['x-slack-request-timestamp']),
    },
  };
}

describe('SlackDriver', () => {
  let bot: Awaited<ReturnType<typeof recordingBot>>;
  let driver: SlackDriver;

  beforeEach(async () => {
    bot = await recordingBot();
    driver = new SlackDriver({ botUrl: bot.url, signingSecret: SECRET, slack });
  });

  afterEach(async () => {
    bot.server.closeAllConnections();
    await new Promise<void>((resolve) => bot.server.close(() => resolve()));
  });

  it('signs requests so that Bolt verifies them, and a tampered body fails', async () => {
    await driver.slashCommand({ command: '/docs-edit', text: 'fix the typo in quickstart', user: 'U0ALICE', channel: 'C0DOCS' });
    const req = bot.requests[0];
    if (!req) throw new Error('no request');
    expect(() => verifySlackRequest(verifyOptions(req))).not.toThrow();
    expect(isValidSlackRequest(verifyOptions(req, req.body.replace('typo', 'tpyo')))).toBe(false);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.headers['x-slack-signature']).toMatch(/^v0=[0-9a-f]{64}$/);
  });

  it('sends slash commands with Slack\'s form fields and records the typed command', async () => {
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
    await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'On it' }) });
    await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'Everyone: on it', response_type: 'in_channel' }) });
    expect(slack.messages.slice(1).map((m) => [m.text, m.ephemeralTo])).toEqual([
      ['On it', 'U0ALICE'],
      ['Everyone: on it', undefined],
    ]);
  });

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

    const redelivery = await driver.message({ channel: 'C0DOCS', user: 'U0BOB', text: 'x' }, { ts: mention.ts, eventId: mention.eventId, retryNum: 1 });
    expect(redelivery.ts).toBe(mention.ts);
    expect(bot.requests[2]?.headers).toMatchObject({ 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
    expect(slack.messages).toHaveLength(1); // a redelivery does not post again
  });

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
    const modal = { type: 'modal' as const, callback_id: 'edit_request', title: { type: 'plain_text' as const, text: 'Edit' }, blocks: [] };
    const opened = await web.views.open({ trigger_id: slack.triggerId('U0ALICE'), view: modal });
    const values = { page: { path: { type: 'plain_text_input', value: 'quickstart.mdx' } } };
    await driver.viewSubmission({ user: 'U0ALICE', view: { callback_id: 'edit_request', state: { values } } });

    const events = bot.requests.map((r) => r.body);
    const echo = JSON.parse(events[0] ?? '{}') as { event: Record<string, unknown> };
    expect(echo.event).toMatchObject({ type: 'message', user: 'U0DOCSBOT', bot_id: 'B0DOCSBOT', ts: posted.ts, text: 'bot says hi' });
    expect(echo.event.subtype).toBeUndefined();
    expect(JSON.parse(events[2] ?? '{}')).toMatchObject({
      event: { subtype: 'message_changed', hidden: true, message: { ts: said.ts, text: 'fixed' }, previous_message: { text: 'typo' } },
    });
    expect(JSON.parse(events[3] ?? '{}')).toMatchObject({ event: { subtype: 'message_deleted', deleted_ts: said.ts, previous_message: { text: 'fixed' } } });
    expect(slack.findMessage('C0DOCS', said.ts)).toBeUndefined();
    expect(JSON.parse(events[4] ?? '{}')).toMatchObject({ event: { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'home', view: { type: 'home' } } });
    const submission = JSON.parse(new URLSearchParams(events[5]).get('payload') ?? '{}') as Record<string, unknown>;
    expect(submission).toMatchObject({
      type: 'view_submission',
      user: { id: 'U0ALICE' },
      view: { id: opened.view?.id, callback_id: 'edit_request', state: { values } },
    });
  });

  it('sends block_actions with container, message and a response_url that can replace the original', async () => {
    const blocks = [{ type: 'actions', block_id: 'pr', elements: [{ type: 'button', action_id: 'cancel_job', text: { type: 'plain_text', text: 'Cancel' }, value: 'job-1' }] }];
    const posted = await client().chat.postMessage({ channel: 'C0DOCS', text: 'Running', blocks });
    await driver.blockAction({ user: 'U0ALICE', channel: 'C0DOCS', messageTs: posted.ts as string, actionId: 'cancel_job' });
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
    const app = new App({ token: TOKEN, signingSecret: SECRET, logLevel: BoltLogLevel.ERROR, clientOptions: { slackApiUrl: slack.url } });
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

      const ack = await driver.slashCommand({ command: '/docs-edit', text: 'fix typo', user: 'U0ALICE', channel: 'C0DOCS' });
      expect(ack.status).toBe(200);
      const queued = await slack.waitFor(() => slack.messages.find((m) => m.text === 'Queued: fix typo'));
      expect(queued.ephemeralTo).toBe('U0ALICE');

      const mention = await driver.appMention({ channel: 'C0DOCS', user: 'U0BOB', text: '<@U0DOCSBOT> hello' }, { alsoMessageEvent: false });
      const hi = await slack.waitFor(() => slack.messages.find((m) => m.text === 'Hi <@U0BOB>'));
      expect(hi.thread_ts).toBe(mention.ts);
      expect(slack.calls.some((c) => c.method === 'auth.test')).toBe(true);

      const body = JSON.stringify({ type: 'event_callback', event: { type: 'app_mention' } });
      const forged = await driver.raw(body, { 'Content-Type': 'application/json', ...driver.sign(`${body} `) });
      expect(forged.status).toBe(401);
      const stale = await driver.raw(body, { 'Content-Type': 'application/json', ...driver.sign(body, Math.floor(Date.now() / 1000) - 600) });
      expect(stale.status).toBe(401);
    } finally {
      await app.stop();
    }
  });
});

describe('transcript', () => {
  it('renders threads under their roots with names, blocks, edits, reactions and ephemerals', async () => {
    const web = client();
    const ask = slack.addUserMessage({ channel: 'C0DOCS', user: 'U0ALICE', text: '<@U0DOCSBOT> please fix the typo in <#C0DOCS|docs>' });
    await slack.addUserMessage({ channel: 'C0RANDOM', user: 'U0BOB', text: 'lunch?' });
    const status = await web.chat.postMessage({ channel: 'C0DOCS', thread_ts: ask.ts, text: 'Working…' });
    await web.chat.update({
      channel: 'C0DOCS',
      ts: status.ts as string,
      text: 'Opened a pull request',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Pull request ready' } },
        { type: 'section', text: { type: 'mrkdwn', text: 'Fixed for <@U0ALICE>' } },
        { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'View pull request' }, url: 'https://github.com/acme/docs/pull/12' }] },
        { type: 'table', rows: [[{ type: 'raw_text', text: 'File' }, { type: 'raw_text', text: 'Lines' }], [{ type: 'raw_text', text: 'quickstart.mdx' }, { type: 'raw_text', text: '3' }]] },
      ],
    });
    await web.reactions.add({ channel: 'C0DOCS', timestamp: ask.ts, name: 'white_check_mark' });
    await web.chat.postEphemeral({ channel: 'C0DOCS', user: 'U0ALICE', text: 'Only you can see this', thread_ts: ask.ts });
    await web.chat.postMessage({ channel: 'C0DOCS', text: 'A new top-level message' });

    const out = renderTranscript(slack, { channel: 'C0DOCS' });
    expect(out).toBe(
      [
        '── #docs ──',
        'alice: @Docs Agent please fix the typo in #docs',
        '  :white_check_mark:',
        '  └ Docs Agent: == Pull request ready ==',
        '      Fixed for @alice',
        '      [1: View pull request ↗ https://github.com/acme/docs/pull/12]',
        '      File           | Lines',
        '      ---------------+------',
        '      quickstart.mdx | 3 (edited)',
        '  └ (only visible to @alice) Docs Agent: Only you can see this',
        'Docs Agent: A new top-level message',
      ].join('\n'),
    );
    expect(renderTranscript(slack)).toContain('── #random ──\nbob: lunch?');
    expect(renderTranscript(slack, { channel: 'C0DOCS', color: true })).toContain('\u001b[');
    expect(out).not.toContain('\u001b[');
  });

  it('renders one-line call logs', async () => {
    const web = client({ rejectRateLimitedCalls: true });
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'Hello there' });
    await web.chat.update({ channel: 'C0DOCS', ts: posted.ts as string, text: 'x'.repeat(100) });
    slack.failNext('reactions.add', { status: 429, retryAfterS: 3 });
    await web.reactions.add({ channel: 'C0DOCS', timestamp: posted.ts as string, name: 'eyes' }).catch(() => undefined);
    await web.chat.postMessage({ channel: 'C0RANDOM', text: 'nope' }).catch(() => undefined);
    const lines = slack.calls.map(renderCall);
    expect(lines[0]).toBe('chat.postMessage C0DOCS 1700000000.000000 "Hello there"');
    expect(lines[1]).toBe(`chat.update C0DOCS 1700000000.000000 "${'x'.repeat(59)}…"`);
    expect(lines[2]).toBe('reactions.add C0DOCS 1700000000.000000 :eyes: → HTTP 429 retry-after 3s');
    expect(lines[3]).toBe('chat.postMessage C0RANDOM "nope" → not_in_channel');
  });
});
