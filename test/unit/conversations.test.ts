import { LogLevel, WebClient } from '@slack/web-api';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../sandbox/fake-slack.js';
import { ConversationDirectory, MEMBER_LIST_CAP, MEMBER_PAGE_CAP, MembersUnknownError } from '../../src/platform/slack/conversations.js';
import { createWebClient } from '../../src/platform/slack/web-client.js';
import { arrayLogger } from '../helpers/logs.js';

/*
 * ConversationDirectory against the fake Slack (issue #22 item 1): membership asked per
 * conversation, the cheap way first (conversations.info's num_members), pages budgeted, and Slack's
 * 429 kept away from the client that posts.
 */

const TOKEN = 'xoxb-conversations';
let slack: FakeSlack;
let web: WebClient;

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(6, '0')}`);
const calls = (method: string, channel?: string) => slack.calls.filter((c) => c.method === method && (!channel || c.args.channel === channel));

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN });
  web = new WebClient(TOKEN, { slackApiUrl: slack.url, logLevel: LogLevel.ERROR, retryConfig: { retries: 0 } });
  slack.channels.push({ id: 'C0BIGA', name: 'all-hands', botIsMember: true, members: ids('UA', 5_000) });
  slack.channels.push({ id: 'C0BIGB', name: 'announcements', botIsMember: true, members: ids('UB', 5_000) });
  slack.channels.push({ id: 'C0MID', name: 'engineering', botIsMember: true, members: ids('UM', 3_000) });
});
afterEach(() => slack.close());

describe('membership, per conversation and the cheap way first', () => {
  it(`a list over ${MEMBER_LIST_CAP} members is "too large" from conversations.info alone, once per conversation, whoever asks`, async () => {
    const dir = new ConversationDirectory({ slack: web });
    for (let i = 0; i < 30; i++) {
      const channel = i % 2 ? 'C0BIGB' : 'C0BIGA';
      await expect(dir.isMember(channel, i < 20 ? 'U0ALICE' : `U0OTHER${i}`)).rejects.toMatchObject({ name: 'MembersUnknownError', reason: 'too_large' });
    }
    expect(calls('conversations.members')).toHaveLength(0);
    expect(calls('conversations.info').map((c) => [c.args.channel, c.args.include_num_members])).toEqual([
      ['C0BIGA', 'true'],
      ['C0BIGB', 'true'],
    ]);
    expect(await dir.visibilityOf('C0BIGA')).toBe('public'); // the same call answered it
    expect(calls('conversations.info')).toHaveLength(2);
  });

  it('a list is read once per conversation, as far as questions need, and answers everyone from what was read', async () => {
    const dir = new ConversationDirectory({ slack: web });
    const members = ids('UM', 3_000);
    expect(await dir.isMember('C0MID', members[10]!)).toBe(true); // on the first page
    expect(calls('conversations.members')).toHaveLength(1);
    expect(await dir.isMember('C0MID', members[150]!)).toBe(true); // already read: no call
    expect(await dir.isMember('C0MID', members[450]!)).toBe(true); // pages 2 and 3
    expect(calls('conversations.members')).toHaveLength(3);
    // 30 people who are not members: the rest of the list is read once, then every answer is "no" from it.
    const outsiders = await Promise.all(Array.from({ length: 30 }, (_, i) => dir.isMember('C0MID', `U0NOT${i}`)));
    expect(outsiders).toEqual(Array(30).fill(false));
    const pages = Math.ceil(3_001 / 200); // 3,000 people and the bot
    expect(calls('conversations.members')).toHaveLength(pages);
    expect(await dir.isMember('C0MID', members[2_999]!)).toBe(true);
    expect(calls('conversations.members')).toHaveLength(pages);
    expect(calls('conversations.info')).toHaveLength(1);
  });

  it(`a list without a member count stops at ${MEMBER_PAGE_CAP} pages: "too large", kept`, async () => {
    const dir = new ConversationDirectory({ slack: { conversations: { info: async () => ({ ok: true, channel: {} }), members: web.conversations.members.bind(web.conversations) } }, pageSize: 100 });
    await expect(dir.isMember('C0MID', 'U0ALICE')).rejects.toMatchObject({ reason: 'too_large' });
    await expect(dir.isMember('C0MID', 'U0BOB')).rejects.toMatchObject({ reason: 'too_large' });
    expect(calls('conversations.members')).toHaveLength(MEMBER_PAGE_CAP);
  });
});

describe('page budgets and rate limits', () => {
  it('pages over the per-conversation or overall budget leave membership unknown for now ("busy"), not "no"; the next ask reads on', async () => {
    const perConversation = new RateLimiterMemory({ points: 3, duration: 300 });
    const all = new RateLimiterMemory({ points: 1_000, duration: 60 });
    const dir = new ConversationDirectory({ slack: web, limits: { perConversation, all } });
    const err = await dir.isMember('C0MID', 'U0NOBODY').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MembersUnknownError);
    expect(err).toMatchObject({ reason: 'busy' });
    expect(calls('conversations.members')).toHaveLength(3);
    await perConversation.delete('C0MID'); // the window passed
    expect(await dir.isMember('C0MID', ids('UM', 3_000)[700]!)).toBe(true);
    expect(calls('conversations.members')[3]?.args.cursor).toEqual(expect.any(String)); // read on from page 4
    const tight = new ConversationDirectory({ slack: web, limits: { perConversation: new RateLimiterMemory({ points: 100, duration: 300 }), all: new RateLimiterMemory({ points: 2, duration: 60 }) } });
    await expect(tight.isMember('C0MID', 'U0NOBODY')).rejects.toMatchObject({ reason: 'busy' });
  });

  it("Slack's 429 on conversations.members (Retry-After 30 s): unknown at once, no call until it has passed, and the client that posts is not paused", async () => {
    const { logger, lines } = arrayLogger();
    const opts = { token: TOKEN, slackApiUrl: slack.url, logger };
    const poster = createWebClient(opts);
    const now = { t: 1_000_000 };
    const dir = new ConversationDirectory({ slack: createWebClient({ ...opts, rejectRateLimitedCalls: true }), logger, now: () => now.t });
    slack.failNext('conversations.members', { status: 429, retryAfterS: 30 });
    const started = Date.now();
    await expect(dir.isMember('C0MID', 'U0ALICE')).rejects.toMatchObject({ reason: 'busy' });
    await expect(dir.isMember('C0MID', 'U0BOB')).rejects.toMatchObject({ reason: 'busy' });
    await poster.chat.postMessage({ channel: 'C0DOCS', text: 'status' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(calls('conversations.members').map((c) => c.status)).toEqual([429]);
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([expect.stringMatching(/^Slack is rate limiting membership reads/)]);
    now.t += 30_001;
    expect(await dir.isMember('C0MID', ids('UM', 3_000)[5]!)).toBe(true);
  });
});
