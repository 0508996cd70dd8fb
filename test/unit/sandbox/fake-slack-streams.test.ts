import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type SlackMessage } from '../../../sandbox/fake-slack.js';
import { renderCall, renderTranscript } from '../../../sandbox/transcript.js';
import { fakeSlackClient, platformErrorCode as platformError } from '../../helpers/fake-slack-client.js';

// The fake Slack's chat streaming, driven through @slack/web-api 8's WebClient (form-encoded, as
// Bolt sends it) and its chatStream() helper: each rule of Slack's reference pages accepted and
// refused (see sandbox/slack/streams.ts for the rules and their sources).

const TOKEN = 'xoxb-sandbox-token';
let slack: FakeSlack;
let web: WebClient;
let root: SlackMessage;

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN });
  web = fakeSlackClient(slack, TOKEN);
  root = slack.addUserMessage({ channel: 'C0DOCS', user: 'U0ALICE', text: 'How do I rotate a key?' });
});
afterEach(() => slack.close());

const inChannel = () => ({
  channel: 'C0DOCS',
  thread_ts: root.ts,
  recipient_user_id: 'U0ALICE',
  recipient_team_id: 'T0SANDBOX',
});

describe('chat.startStream', () => {
  it('starts a reply in the thread and answers its ts; it is in the channel state like a posted one', async () => {
    const res = await web.chat.startStream({ ...inChannel(), markdown_text: 'To rotate ' });
    expect(res).toMatchObject({ ok: true, channel: 'C0DOCS', ts: expect.stringMatching(/^\d+\.\d{6}$/) });
    const msg = slack.findMessage('C0DOCS', res.ts!);
    expect(msg).toMatchObject({ thread_ts: root.ts, user: slack.botUserId, bot_id: slack.botId, text: 'To rotate ' });
    expect(slack.streams.get('C0DOCS', res.ts!)).toMatchObject({
      state: 'in_progress',
      mode: 'markdown_text',
      recipientUserId: 'U0ALICE',
      recipientTeamId: 'T0SANDBOX',
    });
    const replies = await web.conversations.replies({ channel: 'C0DOCS', ts: root.ts });
    expect(replies.messages?.map((m) => m.text)).toEqual(['How do I rotate a key?', 'To rotate ']);
  });

  it('needs thread_ts, and recipient_user_id and recipient_team_id outside DMs; not in DMs', async () => {
    const { thread_ts: _t, ...noThread } = inChannel();
    expect(await platformError(web.apiCall('chat.startStream', noThread))).toBe('invalid_arguments');
    const { recipient_user_id: _u, ...noUser } = inChannel();
    expect(await platformError(web.chat.startStream(noUser))).toBe('missing_recipient_user_id');
    const { recipient_team_id: _team, ...noTeam } = inChannel();
    expect(await platformError(web.chat.startStream(noTeam))).toBe('missing_recipient_team_id');
    expect(await platformError(web.chat.startStream({ ...inChannel(), recipient_user_id: 'U0NOBODY' }))).toBe(
      'user_not_found',
    );
    const dm = slack.addUserMessage({ channel: 'D0ALICE', user: 'U0ALICE', text: 'hi' });
    await expect(web.chat.startStream({ channel: 'D0ALICE', thread_ts: dm.ts })).resolves.toMatchObject({ ok: true });
  });

  it('needs a channel the bot is in; markdown_text of at most 12,000 characters; valid chunks', async () => {
    expect(await platformError(web.chat.startStream({ ...inChannel(), channel: 'C0RANDOM' }))).toBe('not_in_channel');
    expect(await platformError(web.chat.startStream({ ...inChannel(), channel: 'C0NOPE' }))).toBe('channel_not_found');
    await expect(web.chat.startStream({ ...inChannel(), markdown_text: 'x'.repeat(12_000) })).resolves.toMatchObject({
      ok: true,
    });
    expect(await platformError(web.chat.startStream({ ...inChannel(), markdown_text: 'x'.repeat(12_001) }))).toBe(
      'msg_too_long',
    );
    expect(
      await platformError(
        web.chat.startStream({ ...inChannel(), chunks: [{ type: 'markdown_text', text: 'y'.repeat(12_001) }] }),
      ),
    ).toBe('msg_too_long');
    expect(await platformError(web.chat.startStream({ ...inChannel(), chunks: [{ type: 'sparkles' } as never] }))).toBe(
      'invalid_chunks',
    );
    expect(
      await platformError(
        web.chat.startStream({
          ...inChannel(),
          chunks: [{ type: 'task_update', id: 't', title: 'x', status: 'done' } as never],
        }),
      ),
    ).toBe('invalid_chunks');
    expect(
      await platformError(
        web.chat.startStream({ ...inChannel(), markdown_text: 'a', chunks: [{ type: 'markdown_text', text: 'b' }] }),
      ),
    ).toBe('cannot_provide_both_markdown_text_and_chunks');
  });
});

describe('chat.appendStream and chat.stopStream', () => {
  it('append grows the text; stop adds the last text, blocks after it, metadata; answers the message', async () => {
    const { ts } = await web.chat.startStream({ ...inChannel(), markdown_text: 'Open **Settings**' });
    await web.chat.appendStream({ channel: 'C0DOCS', ts: ts!, markdown_text: ', then API keys.' });
    const blocks = [
      {
        type: 'context_actions',
        elements: [
          {
            type: 'feedback_buttons',
            action_id: 'ask.feedback',
            positive_button: { text: { type: 'plain_text', text: '👍' }, value: 'up' },
            negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'down' },
          },
        ],
      },
    ];
    const res = await web.chat.stopStream({
      channel: 'C0DOCS',
      ts: ts!,
      markdown_text: ' Done.',
      blocks,
      metadata: { event_type: 'docs_answer', event_payload: { n: 1 } },
    });
    expect(res).toMatchObject({
      ok: true,
      channel: 'C0DOCS',
      ts,
      message: { text: 'Open **Settings**, then API keys. Done.' },
    });
    expect(slack.findMessage('C0DOCS', ts!)).toMatchObject({
      text: 'Open **Settings**, then API keys. Done.',
      blocks,
      metadata: { event_type: 'docs_answer' },
    });
    expect(slack.streams.get('C0DOCS', ts!)?.state).toBe('completed');
  });

  it('refuses to append to or stop a stopped stream: message_not_in_streaming_state', async () => {
    const { ts } = await web.chat.startStream({ ...inChannel(), markdown_text: 'a' });
    await web.chat.stopStream({ channel: 'C0DOCS', ts: ts! });
    expect(await platformError(web.chat.appendStream({ channel: 'C0DOCS', ts: ts!, markdown_text: 'b' }))).toBe(
      'message_not_in_streaming_state',
    );
    expect(await platformError(web.chat.stopStream({ channel: 'C0DOCS', ts: ts! }))).toBe(
      'message_not_in_streaming_state',
    );
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'not a stream' });
    expect(await platformError(web.chat.appendStream({ channel: 'C0DOCS', ts: posted.ts!, markdown_text: 'b' }))).toBe(
      'message_not_in_streaming_state',
    );
  });

  it('a stream the reader stopped refuses appends (stopped_by_user); one Slack ended too (not streaming)', async () => {
    const first = await web.chat.startStream({ ...inChannel(), markdown_text: 'a' });
    slack.streams.interrupt('C0DOCS', first.ts!, 'stopped_by_user');
    expect(await platformError(web.chat.appendStream({ channel: 'C0DOCS', ts: first.ts!, markdown_text: 'b' }))).toBe(
      'stopped_by_user',
    );
    expect(await platformError(web.chat.stopStream({ channel: 'C0DOCS', ts: first.ts! }))).toBe(
      'message_not_in_streaming_state',
    );
    const second = await web.chat.startStream({ ...inChannel(), markdown_text: 'a' });
    slack.streams.interrupt('C0DOCS', second.ts!, 'expired');
    expect(await platformError(web.chat.appendStream({ channel: 'C0DOCS', ts: second.ts!, markdown_text: 'b' }))).toBe(
      'message_not_in_streaming_state',
    );
  });

  it('append needs markdown_text or chunks, not both, in the mode the stream began with', async () => {
    const { ts } = await web.chat.startStream({ ...inChannel(), markdown_text: 'a' });
    const at = { channel: 'C0DOCS', ts: ts! };
    expect(await platformError(web.apiCall('chat.appendStream', at))).toBe('markdown_text_or_chunks_required');
    expect(
      await platformError(
        web.chat.appendStream({ ...at, markdown_text: 'b', chunks: [{ type: 'markdown_text', text: 'c' }] }),
      ),
    ).toBe('cannot_provide_both_markdown_text_and_chunks');
    expect(
      await platformError(web.chat.appendStream({ ...at, chunks: [{ type: 'markdown_text', text: 'c' }] } as never)),
    ).toBe('streaming_mode_mismatch');
    expect(await platformError(web.chat.appendStream({ ...at, markdown_text: 'x'.repeat(12_001) }))).toBe(
      'msg_too_long',
    );
    expect(slack.findMessage('C0DOCS', ts!)?.text).toBe('a');
  });

  it("refuses another app's message, an unknown one, and a stop with bad blocks or session status", async () => {
    const { ts } = await web.chat.startStream({ ...inChannel(), markdown_text: 'a' });
    expect(await platformError(web.chat.appendStream({ channel: 'C0DOCS', ts: root.ts, markdown_text: 'b' }))).toBe(
      'message_not_owned_by_app',
    );
    expect(await platformError(web.chat.appendStream({ channel: 'C0DOCS', ts: '1.000001', markdown_text: 'b' }))).toBe(
      'message_not_found',
    );
    const tooMany = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    expect(await platformError(web.chat.stopStream({ channel: 'C0DOCS', ts: ts!, blocks: tooMany }))).toBe(
      'msg_blocks_too_many',
    );
    expect(
      await platformError(
        web.chat.stopStream({
          channel: 'C0DOCS',
          ts: ts!,
          blocks: [{ type: 'context_actions', elements: [] }] as never,
        }),
      ),
    ).toBe('invalid_blocks');
    expect(await platformError(web.chat.stopStream({ channel: 'C0DOCS', ts: ts!, session_status: 'finished' }))).toBe(
      'invalid_arguments',
    );
    expect(slack.streams.get('C0DOCS', ts!)?.state).toBe('in_progress'); // a refused stop stops nothing
  });
});

describe("@slack/web-api 8's chatStream() helper", () => {
  it('buffers 256 characters, starts and appends with markdown_text chunks, stops with the rest', async () => {
    const streamer = web.chatStream({ ...inChannel() });
    await streamer.append({ markdown_text: 'x'.repeat(200) }); // buffered: no call yet
    expect(slack.calls.filter((c) => c.method.startsWith('chat.'))).toEqual([]);
    await streamer.append({ markdown_text: 'y'.repeat(100) }); // 300 ≥ 256: chat.startStream with the buffer as a chunk
    await streamer.append({ markdown_text: 'z'.repeat(300) }); // chat.appendStream
    await streamer.append({ markdown_text: 'tail' }); // buffered
    await streamer.stop({ blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Sources*' } }] });
    const calls = slack.calls.filter((c) => c.method.startsWith('chat.'));
    expect(calls.map((c) => [c.method, (c.response as { ok: boolean }).ok])).toEqual([
      ['chat.startStream', true],
      ['chat.appendStream', true],
      ['chat.stopStream', true],
    ]);
    expect(calls[0]?.args.chunks).toEqual([{ type: 'markdown_text', text: `${'x'.repeat(200)}${'y'.repeat(100)}` }]);
    expect(slack.findMessage('C0DOCS', streamer.ts!)?.text).toBe(
      `${'x'.repeat(200)}${'y'.repeat(100)}${'z'.repeat(300)}tail`,
    );
  });

  it('a stop with nothing appended starts bare and stops with an empty chunks array: accepted', async () => {
    const streamer = web.chatStream({ ...inChannel() });
    await streamer.stop();
    const calls = slack.calls.filter((c) => c.method.startsWith('chat.'));
    expect(calls.map((c) => c.method)).toEqual(['chat.startStream', 'chat.stopStream']);
    expect(calls[1]?.args.chunks).toEqual([]);
    expect(slack.streams.get('C0DOCS', streamer.ts!)?.state).toBe('completed');
  });
});

describe('refusing streaming, for the fallback', () => {
  it('refuseWith refuses every streaming method (unknown_method); refuseIn chat.startStream in a channel', async () => {
    slack.streams.refuseWith = 'unknown_method';
    expect(await platformError(web.chat.startStream(inChannel()))).toBe('unknown_method');
    expect(await platformError(web.chat.appendStream({ channel: 'C0DOCS', ts: root.ts, markdown_text: 'b' }))).toBe(
      'unknown_method',
    );
    slack.streams.refuseWith = undefined;
    slack.streams.refuseIn.set('C0DOCS', 'channel_type_not_supported');
    expect(await platformError(web.chat.startStream(inChannel()))).toBe('channel_type_not_supported');
    await expect(
      web.chat.postMessage({ channel: 'C0DOCS', thread_ts: root.ts, text: 'fallback' }),
    ).resolves.toMatchObject({ ok: true });
  });
});

describe('transcript', () => {
  it('shows a streamed reply in its thread with its text, then its blocks, marked while it streams', async () => {
    const { ts } = await web.chat.startStream({ ...inChannel(), markdown_text: 'Open Settings' });
    expect(renderTranscript(slack)).toContain('  └ Docs Agent: Open Settings\n      (streaming…)');
    await web.chat.stopStream({
      channel: 'C0DOCS',
      ts: ts!,
      markdown_text: ', then API keys.',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Sources*: API keys' } }],
    });
    const text = renderTranscript(slack);
    expect(text).toContain('  └ Docs Agent: Open Settings, then API keys.\n      *Sources*: API keys');
    expect(text).not.toContain('streaming…');
    expect(renderCall(slack.calls.find((c) => c.method === 'chat.stopStream')!)).toBe(
      `chat.stopStream C0DOCS ${ts} ", then API keys."`,
    );
  });
});
