import { ErrorCode, WebClient, WebClientEvent, type WebAPIRateLimitedError } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type SlackCall } from '../../../sandbox/fake-slack.js';
import { renderCall, renderTranscript } from '../../../sandbox/transcript.js';
import { fakeSlackClient, platformError } from '../../helpers/fake-slack-client.js';

const TOKEN = 'xoxb-sandbox-token';
const T0 = 1_700_000_000_000; // ms

let slack: FakeSlack;
let clock: number;

const client = (options: ConstructorParameters<typeof WebClient>[1] = {}, token = TOKEN): WebClient =>
  fakeSlackClient(slack, token, options);

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
    expect(res).toMatchObject({
      ok: true,
      team_id: 'T0SANDBOX',
      user_id: 'U0DOCSBOT',
      bot_id: 'B0DOCSBOT',
      url: 'https://sandbox.slack.com/',
    });
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
    expect(link.permalink).toBe(
      'https://sandbox.slack.com/archives/C0DOCS/p1700000000000001?thread_ts=1700000000.000000&cid=C0DOCS',
    );

    await web.reactions.add({ channel: 'C0DOCS', timestamp: ts, name: 'eyes' });
    await web.reactions.add({ channel: 'C0DOCS', timestamp: ts, name: 'white_check_mark' });
    expect(
      (await platformError(web.reactions.add({ channel: 'C0DOCS', timestamp: ts, name: 'eyes' }))).data.error,
    ).toBe('already_reacted');
    await web.reactions.remove({ channel: 'C0DOCS', timestamp: ts, name: 'eyes' });
    expect(
      (await platformError(web.reactions.remove({ channel: 'C0DOCS', timestamp: ts, name: 'eyes' }))).data.error,
    ).toBe('no_reaction');
    expect(slack.findMessage('C0DOCS', ts)?.reactions).toEqual(['white_check_mark']);

    const missing = await platformError(web.chat.update({ channel: 'C0DOCS', ts: '1.000001', text: 'x' }));
    expect(missing.code).toBe(ErrorCode.PlatformError);
    expect(missing.data.error).toBe('message_not_found');
  });
});

describe('fake Slack Web API: ephemerals, directory, views and files', () => {
  it('posts ephemerals visible to one user', async () => {
    const res = await client().chat.postEphemeral({ channel: 'C0DOCS', user: 'U0ALICE', text: 'only you' });
    expect(res.message_ts).toBeTruthy();
    expect(slack.messages.at(-1)).toMatchObject({ ephemeralTo: 'U0ALICE', text: 'only you', ts: res.message_ts });
  });

  it('refuses an ephemeral to someone who is not in the channel (Slack: user_not_in_channel)', async () => {
    const web = client();
    const before = slack.messages.length;
    // #docs-connect's members are alice, an external user and the bot; bob is not one of them.
    const refused = platformError(web.chat.postEphemeral({ channel: 'C0CONNECT', user: 'U0BOB', text: 'psst' }));
    expect((await refused).data.error).toBe('user_not_in_channel');
    expect(slack.messages.length).toBe(before);
    const told = await web.chat.postEphemeral({ channel: 'C0CONNECT', user: 'U0ALICE', text: 'psst' });
    expect(told.ok).toBe(true);
  });

  it('refuses a post in an archived channel, even one the bot is in (Slack: chat.postMessage is_archived)', async () => {
    slack.channels.push({ id: 'C0OLD', name: 'old', botIsMember: true, isArchived: true, members: ['U0ALICE'] });
    const before = slack.messages.length;
    const refused = platformError(client().chat.postMessage({ channel: 'C0OLD', text: 'x' }));
    expect((await refused).data.error).toBe('is_archived');
    expect(slack.messages.length).toBe(before);
  });

  it('answers users.info and conversations.info', async () => {
    const web = client();
    const { user } = await web.users.info({ user: 'U0ALICE' });
    expect(user).toMatchObject({
      id: 'U0ALICE',
      name: 'alice',
      tz: 'Europe/Berlin',
      tz_offset: 3600,
      is_bot: false,
      profile: { display_name: 'alice' },
    });
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

    const modal = {
      type: 'modal' as const,
      callback_id: 'edit',
      title: { type: 'plain_text' as const, text: 'Edit' },
      blocks: [],
    };
    expect((await platformError(web.views.open({ trigger_id: 'made.up.trigger', view: modal }))).data.error).toBe(
      'invalid_trigger_id',
    );
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
    expect(slack.calls.map((c) => c.method)).toEqual([
      'chat.postMessage',
      'files.getUploadURLExternal',
      'file_upload',
      'files.completeUploadExternal',
    ]);
    const shared = slack.messages.at(-1);
    expect(shared).toMatchObject({
      channel: 'C0DOCS',
      thread_ts: root.ts,
      text: 'Here is the diff',
      source: 'file_share',
    });
    expect(shared?.files?.[0]).toMatchObject({ name: 'diff.md', title: 'Diff', size: Buffer.byteLength(content) });
    expect(shared?.files?.[0]?.bytes.toString('utf8')).toBe(content);
  });
});

describe('fake Slack Web API: auth, bodies and injected failures', () => {
  it('answers not_in_channel, channel_not_found, not_authed and invalid_auth', async () => {
    expect((await platformError(client().chat.postMessage({ channel: 'C0RANDOM', text: 'x' }))).data.error).toBe(
      'not_in_channel',
    );
    expect((await platformError(client().chat.postMessage({ channel: 'C0NOPE', text: 'x' }))).data.error).toBe(
      'channel_not_found',
    );
    expect(
      (await platformError(client({}, 'xoxb-wrong').chat.postMessage({ channel: 'C0DOCS', text: 'x' }))).data.error,
    ).toBe('invalid_auth');
    const res = await fetch(`${slack.url}auth.test`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: false, error: 'not_authed' });
    // Slack's auth.test page, "Standard failure response when used with an invalid token": HTTP 200 and exactly this body.
    const wrong = await fetch(`${slack.url}auth.test`, {
      method: 'POST',
      headers: { Authorization: 'Bearer xoxb-wrong' },
    });
    expect(wrong.status).toBe(200);
    expect(await wrong.json()).toEqual({ ok: false, error: 'invalid_auth' });
    const unknown = await fetch(`${slack.url}chat.nope`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
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
});

describe('fake Slack Web API: rate limits, injected errors and waiting', () => {
  it('gives a rate-limit error with rejectRateLimitedCalls', async () => {
    slack.failNext('chat.update', { status: 429, retryAfterS: 7 });
    const err = (await platformError(
      client({ rejectRateLimitedCalls: true }).chat.update({ channel: 'C0DOCS', ts: '1.0', text: 'x' }),
    )) as unknown as WebAPIRateLimitedError;
    expect(err.code).toBe(ErrorCode.RateLimitedError);
    expect(err.retryAfter).toBe(7);
    expect(slack.calls).toHaveLength(1);
  });

  it('injects platform errors for the next N calls only', async () => {
    slack.failNext('chat.postMessage', { error: 'channel_not_found' }, 2);
    const web = client();
    expect((await platformError(web.chat.postMessage({ channel: 'C0DOCS', text: '1' }))).data.error).toBe(
      'channel_not_found',
    );
    expect((await platformError(web.chat.postMessage({ channel: 'C0DOCS', text: '2' }))).data.error).toBe(
      'channel_not_found',
    );
    expect((await web.chat.postMessage({ channel: 'C0DOCS', text: '3' })).ok).toBe(true);
  });

  it('holds the next call to a method until released: the caller waits, other methods do not', async () => {
    const held = slack.hold('chat.postMessage');
    const web = client();
    let answered = false;
    const post = web.chat.postMessage({ channel: 'C0DOCS', text: 'slow' }).then((r) => ((answered = true), r));
    await held.reached;
    expect((await web.auth.test()).ok).toBe(true);
    expect(answered).toBe(false);
    expect(slack.messages).toEqual([]);
    held.release();
    expect((await post).ok).toBe(true);
    expect((await web.chat.postMessage({ channel: 'C0DOCS', text: 'next' })).ok).toBe(true); // only one was held
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
    await expect(slack.waitFor(() => slack.messages.length > 5, 100)).rejects.toThrow(
      /timed out after 100 ms[\s\S]*auth\.test/,
    );
  });
});

describe('transcript', () => {
  it('renders threads under their roots with names, blocks, edits, reactions and ephemerals', async () => {
    const web = client();
    const ask = slack.addUserMessage({
      channel: 'C0DOCS',
      user: 'U0ALICE',
      text: '<@U0DOCSBOT> please fix the typo in <#C0DOCS|docs>',
    });
    await slack.addUserMessage({ channel: 'C0RANDOM', user: 'U0BOB', text: 'lunch?' });
    const status = await web.chat.postMessage({ channel: 'C0DOCS', thread_ts: ask.ts, text: 'Working…' });
    await web.chat.update({
      channel: 'C0DOCS',
      ts: status.ts as string,
      text: 'Opened a pull request',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Pull request ready' } },
        { type: 'section', text: { type: 'mrkdwn', text: 'Fixed for <@U0ALICE>' } },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: 'View pull request' },
              url: 'https://github.com/acme/docs/pull/12',
            },
          ],
        },
        {
          type: 'table',
          rows: [
            [
              { type: 'raw_text', text: 'File' },
              { type: 'raw_text', text: 'Lines' },
            ],
            [
              { type: 'raw_text', text: 'quickstart.mdx' },
              { type: 'raw_text', text: '3' },
            ],
          ],
        },
      ],
    });
    await web.reactions.add({ channel: 'C0DOCS', timestamp: ask.ts, name: 'white_check_mark' });
    await web.chat.postEphemeral({
      channel: 'C0DOCS',
      user: 'U0ALICE',
      text: 'Only you can see this',
      thread_ts: ask.ts,
    });
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
