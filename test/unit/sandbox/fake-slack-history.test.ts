import { WebClient, type ConversationsHistoryResponse } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { fakeSlackClient, platformErrorCode as platformError } from '../../helpers/fake-slack-client.js';

const TOKEN = 'xoxb-sandbox-token';
const T0 = 1_700_000_000_000; // ms; with the clock standing still, ts goes up by 1 µs per message

let slack: FakeSlack;
let web: WebClient;

/** `n` people's messages in #docs, oldest first; returns their ts. */
function say(n: number, thread_ts?: string): string[] {
  return Array.from(
    { length: n },
    (_, i) =>
      slack.addUserMessage({ channel: 'C0DOCS', user: 'U0BOB', text: `m${i}`, ...(thread_ts ? { thread_ts } : {}) }).ts,
  );
}

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN, now: () => T0 });
  web = fakeSlackClient(slack, TOKEN);
});

afterEach(async () => {
  await slack.close();
});

describe('message metadata', () => {
  it('stores chat.postMessage metadata and returns it only with include_all_metadata', async () => {
    const metadata = { event_type: 'post_once', event_payload: { key: 'job-1:done' } };
    const root = await web.chat.postMessage({ channel: 'C0DOCS', text: 'Done', metadata });
    await web.chat.postMessage({ channel: 'C0DOCS', text: 'reply', thread_ts: root.ts as string, metadata });
    expect(slack.findMessage('C0DOCS', root.ts as string)?.metadata).toEqual(metadata);

    const plain = await web.conversations.history({ channel: 'C0DOCS' });
    expect(plain.messages?.[0]).not.toHaveProperty('metadata');
    const full = await web.conversations.history({ channel: 'C0DOCS', include_all_metadata: true });
    expect(full.messages?.[0]?.metadata).toEqual(metadata);
    const thread = await web.conversations.replies({
      channel: 'C0DOCS',
      ts: root.ts as string,
      include_all_metadata: true,
    });
    expect(thread.messages?.map((m) => m.metadata)).toEqual([metadata, metadata]);
    const bare = await web.conversations.replies({ channel: 'C0DOCS', ts: root.ts as string });
    expect(bare.messages?.every((m) => m.metadata === undefined)).toBe(true);
  });

  it('answers invalid_metadata_format for metadata that is not {event_type, event_payload}', async () => {
    const res = await fetch(`${slack.url}chat.postMessage`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ channel: 'C0DOCS', text: 'x', metadata: { event_type: 'x' } }),
    });
    expect(await res.json()).toEqual({ ok: false, error: 'invalid_metadata_format' });
    expect(slack.messages).toHaveLength(0);
  });
});

describe('conversations.history', () => {
  it('lists top-level messages newest first, page by page with cursors', async () => {
    const ts = say(5);
    const pages: ConversationsHistoryResponse[] = [];
    for await (const page of web.paginate('conversations.history', { channel: 'C0DOCS', limit: 2 }))
      pages.push(page as ConversationsHistoryResponse);
    expect(pages.map((p) => p.messages?.map((m) => m.ts))).toEqual([[ts[4], ts[3]], [ts[2], ts[1]], [ts[0]]]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    expect(Buffer.from(pages[0]?.response_metadata?.next_cursor ?? '', 'base64').toString()).toBe(
      'next_ts:1700000000000002',
    );
    expect(pages[2]?.response_metadata?.next_cursor).toBeUndefined();
    expect(await platformError(web.conversations.history({ channel: 'C0DOCS', cursor: 'bm9wZQ==' }))).toBe(
      'invalid_cursor',
    );
  });

  it('honours oldest/latest, exclusive unless inclusive', async () => {
    const ts = say(5);
    const list = async (args: { oldest?: string; latest?: string; inclusive?: boolean }) =>
      (await web.conversations.history({ channel: 'C0DOCS', ...args })).messages?.map((m) => m.ts);
    expect(await list({ oldest: ts[1], latest: ts[3] })).toEqual([ts[2]]);
    expect(await list({ oldest: ts[1], latest: ts[3], inclusive: true })).toEqual([ts[3], ts[2], ts[1]]);
    expect(await list({ oldest: ts[3] })).toEqual([ts[4]]);
    expect(await list({ latest: ts[1] })).toEqual([ts[0]]);
    const echoed = await web.conversations.history({ channel: 'C0DOCS', latest: ts[1] });
    expect(echoed.latest).toBe(ts[1]);
    expect(await platformError(web.conversations.history({ channel: 'C0DOCS', oldest: 'yesterday' }))).toBe(
      'invalid_ts_oldest',
    );
    expect(await platformError(web.conversations.history({ channel: 'C0DOCS', latest: '1.2.3' }))).toBe(
      'invalid_ts_latest',
    );
  });

  it('returns 100 messages by default and at most 999', async () => {
    say(101);
    const first = await web.conversations.history({ channel: 'C0DOCS' });
    expect(first.messages).toHaveLength(100);
    expect(first.has_more).toBe(true);
    const all = await web.conversations.history({ channel: 'C0DOCS', limit: 5000 });
    expect(all.messages).toHaveLength(101);
    expect(all.has_more).toBe(false);
  });

  it('leaves out replies, ephemerals and deleted messages, and summarises threads on roots', async () => {
    const [root] = say(1);
    say(2, root);
    const botReply = await web.chat.postMessage({ channel: 'C0DOCS', text: 'bot reply', thread_ts: root as string });
    await web.chat.postEphemeral({ channel: 'C0DOCS', user: 'U0ALICE', text: 'psst' });
    const gone = await web.chat.postMessage({ channel: 'C0DOCS', text: 'oops' });
    await web.chat.delete({ channel: 'C0DOCS', ts: gone.ts as string });
    const res = await web.conversations.history({ channel: 'C0DOCS' });
    expect(res.messages).toHaveLength(1);
    expect(res.messages?.[0]).toMatchObject({
      ts: root,
      reply_count: 3,
      reply_users_count: 2,
      reply_users: ['U0BOB', 'U0DOCSBOT'],
      latest_reply: botReply.ts,
    });
  });
});

describe('conversations.replies', () => {
  it('lists a thread root first, oldest first, also when asked with a reply ts, page by page', async () => {
    const [root] = say(1);
    const replies = say(4, root);
    const viaReply = await web.conversations.replies({ channel: 'C0DOCS', ts: replies[2] as string });
    expect(viaReply.messages?.map((m) => m.ts)).toEqual([root, ...replies]);
    expect(viaReply.messages?.[1]).toMatchObject({ thread_ts: root, parent_user_id: 'U0BOB' });

    const pages: string[][] = [];
    for await (const page of web.paginate('conversations.replies', {
      channel: 'C0DOCS',
      ts: root as string,
      limit: 2,
    })) {
      pages.push(((page as ConversationsHistoryResponse).messages ?? []).map((m) => m.ts as string));
    }
    expect(pages).toEqual([[root, replies[0]], [replies[1], replies[2]], [replies[3]]]);

    const window = await web.conversations.replies({
      channel: 'C0DOCS',
      ts: root as string,
      oldest: replies[0],
      latest: replies[3],
    });
    expect(window.messages?.map((m) => m.ts)).toEqual([replies[1], replies[2]]);
  });

  it('returns a message without replies alone and answers thread_not_found for an unknown ts', async () => {
    const [lone] = say(1);
    expect(
      (await web.conversations.replies({ channel: 'C0DOCS', ts: lone as string })).messages?.map((m) => m.ts),
    ).toEqual([lone]);
    expect(await platformError(web.conversations.replies({ channel: 'C0DOCS', ts: '1.000001' }))).toBe(
      'thread_not_found',
    );
  });
});

describe('access to conversations the bot is not in', () => {
  it('answers not_in_channel for a public channel and channel_not_found for a private channel or a DM', async () => {
    slack.channels.push({ id: 'D0BOBCAROL', name: 'bob', botIsMember: false, isIm: true, user: 'U0BOB' });
    for (const method of ['history', 'replies'] as const) {
      const call = (channel: string) =>
        method === 'history'
          ? web.conversations.history({ channel })
          : web.conversations.replies({ channel, ts: '1.000001' });
      expect(await platformError(call('C0RANDOM'))).toBe('not_in_channel');
      expect(await platformError(call('C0LEADS'))).toBe('channel_not_found');
      expect(await platformError(call('D0BOBCAROL'))).toBe('channel_not_found');
    }
    expect(await platformError(web.conversations.info({ channel: 'C0LEADS' }))).toBe('channel_not_found');
    expect(await platformError(web.chat.postMessage({ channel: 'C0LEADS', text: 'x' }))).toBe('channel_not_found');
  });
});

describe("people's files", () => {
  it("lists files on a person's message and serves their bytes to the bot token only", async () => {
    const msg = slack.addUserMessage({
      channel: 'C0DOCS',
      user: 'U0ALICE',
      text: 'see attached',
      files: [{ name: 'notes.md', content: '# Notes', mimetype: 'text/markdown' }],
    });
    const res = await web.conversations.history({ channel: 'C0DOCS' });
    const file = res.messages?.[0]?.files?.[0];
    expect(res.messages?.[0]).toMatchObject({ ts: msg.ts, subtype: 'file_share', user: 'U0ALICE' });
    expect(file).toMatchObject({
      name: 'notes.md',
      title: 'notes.md',
      mimetype: 'text/markdown',
      size: 7,
      user: 'U0ALICE',
    });
    expect(file?.permalink).toBe(`https://sandbox.slack.com/files/U0ALICE/${file?.id}/notes.md`);
    const download = await fetch(file?.url_private_download as string, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('# Notes');
    expect((await fetch(file?.url_private as string)).status).toBe(403);
  });
});
