import { WebClient } from '@slack/web-api';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CHANNELS, DEFAULT_USERS, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { SlackDirectory } from '../../../../src/features/access/directory.js';
import { AskStore } from '../../../../src/features/ask/store.js';
import { SLACK_QUESTIONS_KEPT_MS } from '../../../../src/features/ask/unanswered-log.js';
import {
  digestAudience,
  DIGEST_MEMBERS_AT_MOST,
  DIGEST_USERS_INFO_AT_MOST,
  publicWorkspaceOf,
} from '../../../../src/features/ask/unanswered-reach.js';
import { loadDigestParts } from '../../../../src/features/reports/digests/load.js';
import { readerBlocks, readerSummary } from '../../../../src/features/reports/digests/reader-blocks.js';
import type { SlackQuestions } from '../../../../src/features/reports/digests/reader-content.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { ConversationDirectory } from '../../../../src/platform/slack/conversations.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { testRedis } from '../../../helpers/redis.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { useFakeSlackOnRedis } from '../../../helpers/fakes-on-redis.js';

/*
 * "Asked in Slack, not answered by the docs" on real Redis and the fake Slack: what the ask feature
 * notes (no page, 👎, the docs team asked), kept 8 days per channel, grouped when it recurs, and
 * shown in the digests of the channels whose members could see it: a public channel's in every
 * channel of its workspace known to have no guest (not one shared with another organization), a
 * private channel's only in its own; never in another workspace's. Each with Improve with agent, its
 * text inert.
 */

const TOKEN = 'xoxb-slack-questions';
const TEAM = 'T0TEST';
const redis = testRedis();
const logger = createLogger('silent');
let slack: FakeSlack;
let web: WebClient;
let prefix: string;
let store: AskStore;
let people: SlackDirectory;
/** Full members of the workspace, enough for a channel over {@link DIGEST_MEMBERS_AT_MOST}. */
const crowd = Array.from({ length: DIGEST_MEMBERS_AT_MOST + 1 }, (_, i) => `U1${String(i).padStart(5, '0')}`);
const channels = [
  ...DEFAULT_CHANNELS,
  { id: 'C0ASK', name: 'ask-docs', botIsMember: true, members: ['U0ALICE', '@bot'] },
  { id: 'G0PRIVATE', name: 'roadmap', botIsMember: true, isPrivate: true, members: ['U0ALICE', '@bot'] },
  // With the bot: one member more than a digest's users.info calls, and exactly as many.
  { id: 'C0CROWD', name: 'crowd', botIsMember: true, members: crowd.slice(0, DIGEST_USERS_INFO_AT_MOST) },
  { id: 'C0FEW', name: 'few', botIsMember: true, members: crowd.slice(1, DIGEST_USERS_INFO_AT_MOST) },
  { id: 'C0ALL', name: 'everyone', botIsMember: true, members: crowd }, // 1,002 with the bot
  { id: 'C0PARTNER', name: 'partner', botIsMember: true, members: ['U0ALICE', 'U0MULTI', '@bot'] },
];
const multi = { id: 'U0MULTI', name: 'max', isRestricted: true }; // a multi-channel guest
const users = [...DEFAULT_USERS, multi, ...crowd.map((id) => ({ id, name: id.toLowerCase() }))];
useFakeSlackOnRedis({ token: TOKEN, redis, slack: { channels, users } }, (s) => ({ slack, web, prefix } = s));
beforeEach(() => {
  const conversations = new ConversationDirectory({ slack: web });
  people = new SlackDirectory(web);
  store = new AskStore(redis, prefix, publicWorkspaceOf({ answer: (id) => store.answer(id), conversations, logger }));
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
  (s: AskStore, log = logger): SlackQuestions =>
  async (where, f, t, l) =>
    s.unansweredSeenIn(await digestAudience(web, people, where, log), f, t, l);
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
    // #docs has a single-channel guest (gus), who can't see #ask-docs: its own question only.
    expect((await showing('C0DOCS'))!.slack).toEqual([{ question: scim, count: 1, channels: ['C0DOCS'] }]);
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

  /** The week's questions the digest of `channel` shows, and the Slack calls it made to tell. */
  const digestOf = async (channel: string, log = logger) => {
    const from = slack.calls.length;
    const week = [Date.parse('2026-11-16T00:00:00Z'), Date.parse('2026-11-23T00:00:00Z'), 5] as const;
    const shown = await slackQuestions(store, log)({ teamId: TEAM, channel }, ...week);
    const calls = slack.calls.slice(from);
    const count = (method: string) => calls.filter((c) => c.method === method).length;
    return {
      shown: shown.map((q) => q.question),
      usersInfo: count('users.info'),
      pages: count('conversations.members'),
    };
  };

  it('a digest channel with a guest shows only its own questions; one known to have none shows the public ones', async () => {
    await asked('a'.repeat(16), 'C0ASK', 'Public question?', inWeek);
    await asked('b'.repeat(16), 'C0PARTNER', 'Partner question?', inWeek + 1000);
    // #partner has a multi-channel guest (is_restricted only): its own question only.
    expect((await digestOf('C0PARTNER')).shown).toEqual(['Partner question?']);
    // #roadmap (private, alice and the bot): #ask-docs' and #partner's public questions too.
    expect((await digestOf('G0PRIVATE')).shown).toEqual(['Public question?', 'Partner question?']);
  });

  it('members are read up to 1,000 and users.info called at most 200 times per digest (cached facts are free); beyond, only the channel’s own questions', async () => {
    await asked('a'.repeat(16), 'C0ASK', 'Public question?', inWeek);
    // 201 members (the bot too), none known: no users.info at all, own questions only (none).
    expect(await digestOf('C0CROWD')).toEqual({ shown: [], usersInfo: 0, pages: 2 });
    // 200 members: each looked up once, all full members.
    expect(await digestOf('C0FEW')).toEqual({
      shown: ['Public question?'],
      usersInfo: DIGEST_USERS_INFO_AT_MOST,
      pages: 1,
    });
    // Now 200 of #crowd's 201 are cached: one call.
    expect(await digestOf('C0CROWD')).toEqual({ shown: ['Public question?'], usersInfo: 1, pages: 2 });
    // 1,002 members: five pages of 200 read, then "too large", no users.info.
    expect(await digestOf('C0ALL')).toEqual({ shown: [], usersInfo: 0, pages: 5 });
  });

  it('a read failing (conversations.members, users.info) leaves the digest its own questions, with a warn line', async () => {
    await asked('a'.repeat(16), 'C0DOCS', 'Public question?', inWeek);
    await asked('b'.repeat(16), 'C0ASK', 'Own question?', inWeek + 1000);
    const { logger: log, lines } = arrayLogger('warn');
    slack.failNext('conversations.members', { error: 'internal_error' });
    expect((await digestOf('C0ASK', log)).shown).toEqual(['Own question?']);
    slack.failNext('users.info', { error: 'fatal_error' });
    expect((await digestOf('C0ASK', log)).shown).toEqual(['Own question?']);
    expect(lines.map((l) => [l.msg, l.channel, l.reason])).toEqual([
      [
        'could not tell whether a digest channel has guests; its digest shows only the questions asked in it',
        'C0ASK',
        'internal_error',
      ],
      [
        'could not tell whether a digest channel has guests; its digest shows only the questions asked in it',
        'C0ASK',
        'fatal_error',
      ],
    ]);
    expect(JSON.stringify(lines)).not.toContain('question?');
    // Slack answering again, the same digest shows the public question.
    expect((await digestOf('C0ASK')).shown).toEqual(['Public question?', 'Own question?']);
  });
});
