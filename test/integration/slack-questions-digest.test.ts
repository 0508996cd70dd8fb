import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CHANNELS, startFakeSlack, type FakeSlack } from '../../sandbox/fake-slack.js';
import { AskStore } from '../../src/features/ask/store.js';
import { SLACK_QUESTIONS_KEPT_MS } from '../../src/features/ask/unanswered-log.js';
import { digestAudience, publicWorkspaceOf } from '../../src/features/ask/unanswered-reach.js';
import { loadDigestParts } from '../../src/features/reports/digests/load.js';
import { readerBlocks, readerSummary } from '../../src/features/reports/digests/reader-blocks.js';
import type { SlackQuestions } from '../../src/features/reports/digests/reader-content.js';
import { createLogger } from '../../src/platform/logger.js';
import { ConversationDirectory } from '../../src/platform/slack/conversations.js';
import { dropPrefix, randomPrefix, testRedis } from '../helpers/redis.js';
import { TEST_SIGNER } from '../helpers/signer.js';

/*
 * "Asked in Slack, not answered by the docs" on real Redis and the fake Slack: what the ask feature
 * notes (no page, 👎, the docs team asked), kept 8 days per channel, grouped when it recurs, and
 * shown in the digests of the channels whose members could see it: a public channel's in every
 * channel of its workspace (not one shared with another organization), a private channel's only in
 * its own; never in another workspace's. Each with Improve with agent, its text inert.
 */

const TOKEN = 'xoxb-slack-questions';
const TEAM = 'T0TEST';
const redis = testRedis();
const logger = createLogger('silent');
let slack: FakeSlack;
let web: WebClient;
let prefix: string;
let store: AskStore;
beforeAll(async () => {
  const channels = [
    ...DEFAULT_CHANNELS,
    { id: 'C0ASK', name: 'ask-docs', botIsMember: true, members: ['U0ALICE', '@bot'] },
    { id: 'G0PRIVATE', name: 'roadmap', botIsMember: true, isPrivate: true, members: ['U0ALICE', '@bot'] },
  ];
  slack = await startFakeSlack({ botToken: TOKEN, channels });
  web = new WebClient(TOKEN, { slackApiUrl: slack.url, logLevel: LogLevel.ERROR, retryConfig: { retries: 0 } });
});
beforeEach(() => {
  prefix = randomPrefix();
  const conversations = new ConversationDirectory({ slack: web });
  store = new AskStore(redis, prefix, publicWorkspaceOf({ answer: (id) => store.answer(id), conversations, logger }));
});
afterEach(() => dropPrefix(redis, prefix));
afterAll(async () => {
  await slack.close();
  redis.disconnect();
});

/** Notes an unanswered answer (its record saved first, as the ask feature does) in `channel` of `teamId`. */
async function asked(answerId: string, channel: string, question: string, atMs: number, teamId = TEAM) {
  await store.saveAnswer({
    answerId,
    teamId,
    channel,
    threadTs: '1700000000.000100',
    asker: 'U0ALICE',
    question,
    answer: "I couldn't find anything about that in the docs.",
    unanswered: true,
    earlier: [],
  });
  await store.noteUnanswered(channel, answerId, question, atMs);
}

// Monday 2026-11-23 09:00 UTC: the digest's week is Nov 16 (00:00) up to Nov 23 (00:00), UTC.
const NOW = Date.parse('2026-11-23T09:00:00Z');
const DAY = 86_400_000;
const inWeek = Date.parse('2026-11-18T12:00:00Z');

/** An analytics cache that fails every call: the API's parts fail, the Slack part still shows. */
const downCache = new Proxy(
  {},
  {
    get: (_t, prop) =>
      prop === 'defaultProjectId' ? undefined : async () => Promise.reject(new Error('analytics down')),
  },
) as never;

/** As the ask feature hands it to the digests: who the digest's channel is, asked of Slack, then the log. */
const slackQuestions =
  (s: AskStore): SlackQuestions =>
  async (where, f, t, l) =>
    s.unansweredSeenIn(await digestAudience(web, where, logger), f, t, l);
const run = (channel: string, teamId = TEAM) => ({
  nowMs: NOW,
  zone: 'UTC',
  teamId,
  channel,
  sections: ['questions'] as const,
});

describe('Asked in Slack, not answered by the docs', () => {
  it('groups the week’s questions per channel (once per answer however often noted), keeps them 8 days, and leaves out other weeks', async () => {
    await store.noteUnanswered('C0DOCS', 'a'.repeat(16), 'How do I set up SCIM?', inWeek);
    await store.noteUnanswered('C0DOCS', 'a'.repeat(16), 'How do I set up SCIM?', inWeek + 1000); // 👎 on the same answer
    await store.noteUnanswered('C0DOCS', 'b'.repeat(16), 'how do I set up  SCIM', inWeek + 2000);
    await store.noteUnanswered('C0DOCS', 'c'.repeat(16), 'Where are audit logs?', inWeek + 3000);
    await store.noteUnanswered('C0DOCS', 'd'.repeat(16), 'Asked last week?', NOW - 8 * DAY + 1000);
    await store.noteUnanswered('C0DOCS', 'e'.repeat(16), 'Asked today', NOW - 1000);
    await store.noteUnanswered('C0PRIVATE', 'f'.repeat(16), 'Our secret <!channel> roadmap?', inWeek);
    const from = Date.parse('2026-11-16T00:00:00Z');
    const to = Date.parse('2026-11-23T00:00:00Z');
    expect(await store.unansweredIn('C0DOCS', from, to, 5)).toEqual([
      { question: 'How do I set up SCIM?', count: 2, channels: ['C0DOCS'] },
      { question: 'Where are audit logs?', count: 1, channels: ['C0DOCS'] },
    ]);
    const key = `${prefix}:ask:unanswered:C0DOCS`;
    expect(await redis.pttl(key)).toBeLessThanOrEqual(SLACK_QUESTIONS_KEPT_MS);
    expect(await redis.pttl(key)).toBeGreaterThan(SLACK_QUESTIONS_KEPT_MS - 60_000);
    // Nine days on, a new note drops what is older than 8 days.
    await store.noteUnanswered('C0DOCS', '1'.repeat(16), 'Later', NOW + 9 * DAY);
    expect(await redis.zcard(key)).toBe(1);
  });

  it('a public channel’s question shows in its workspace’s digests (not a Slack Connect channel’s, not another workspace’s); a private channel’s only in its own', async () => {
    const scim = 'How do I set up <https://evil.example|SCIM> for <!channel>?';
    await asked('a'.repeat(16), 'C0DOCS', scim, inWeek);
    await asked('b'.repeat(16), 'C0ASK', 'how do I set up https evil example SCIM for channel', inWeek + 1000);
    await asked('c'.repeat(16), 'G0PRIVATE', 'What is the secret roadmap?', inWeek);
    await asked('d'.repeat(16), 'C0GONE', 'Asked where the bot can no longer see', inWeek); // kind unknown: private
    await asked('e'.repeat(16), 'C0RANDOM', 'Another workspace’s question', inWeek, 'T0ELSE');
    const showing = async (channel: string, teamId = TEAM) =>
      (await loadDigestParts({ cache: downCache }, run(channel, teamId), slackQuestions(store))).readers?.signals;

    // #ask-docs (public): its own question, grouped with #docs' one (public, same workspace).
    const ask = (await showing('C0ASK'))!;
    expect(ask.slack).toEqual([{ question: scim, count: 2, channels: ['C0DOCS', 'C0ASK'] }]);
    expect(ask.failures.map((f) => f.section)).toEqual(['questions']); // the API's part failed, said so
    const json = JSON.stringify(readerBlocks(ask, { channel: 'C0ASK', week: 'Nov 16 – Nov 22', signer: TEST_SIGNER }));
    expect(json).toContain('Asked in Slack, not answered by the docs');
    expect(json).toContain('asked 2× in <#C0DOCS>, here');
    expect(json).not.toMatch(/<!channel>|<https:/);
    expect(json).toContain('visitors.signal.improve.');
    expect(json).not.toMatch(/secret roadmap|no longer see|Another workspace/);
    expect(readerSummary(ask)).toContain('1 question from Slack not answered');

    // The private channel's digest: its own question, and the workspace's public ones (its members see them).
    expect((await showing('G0PRIVATE'))!.slack).toEqual([
      { question: scim, count: 2, channels: ['C0DOCS', 'C0ASK'] },
      { question: 'What is the secret roadmap?', count: 1, channels: ['G0PRIVATE'] },
    ]);
    // A channel whose kind Slack could not tell keeps its question to itself.
    expect((await showing('C0GONE'))!.slack!.map((q) => q.question)).toEqual(['Asked where the bot can no longer see']);
    // A Slack Connect channel's digest: none of the workspace's questions (the other organization can't see its channels).
    const week = [Date.parse('2026-11-16T00:00:00Z'), Date.parse('2026-11-23T00:00:00Z'), 5] as const;
    const seen = (channel: string, teamId = TEAM) => slackQuestions(store)({ teamId, channel }, ...week);
    expect(await seen('C0CONNECT')).toEqual([]);
    // Another workspace's digest: its own question only.
    expect((await showing('C0RANDOM', 'T0ELSE'))!.slack).toEqual([
      { question: 'Another workspace’s question', count: 1, channels: ['C0RANDOM'] },
    ]);
    expect(await seen('C0LEADS', 'T0ELSE')).toEqual([]);

    // Without the questions part chosen, nothing is read or shown.
    const none = await loadDigestParts(
      { cache: downCache },
      { ...run('C0DOCS'), sections: ['searches'] },
      slackQuestions(store),
    ).catch(() => undefined);
    expect(none?.readers?.signals.slack).toBeUndefined();
  });
});
