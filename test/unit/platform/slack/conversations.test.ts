import { ErrorCode, WebClient } from '@slack/web-api';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_USERS, startFakeSlack, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { ConversationDirectory, MembersUnknownError } from '../../../../src/platform/slack/conversations.js';
import {
  checkMembership,
  MEMBERSHIP_BUSY_TEXT,
  MEMBERS_UNKNOWN_TEXT,
} from '../../../../src/platform/slack/member-check.js';
import { createWebClient } from '../../../../src/platform/slack/web-client.js';
import { currentRequestContext, withRequestContext } from '../../../../src/platform/request-context.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { fakeSlackClient } from '../../../helpers/fake-slack-client.js';

/*
 * ConversationDirectory against the fake Slack: "is U a member of C" is answered from U's own
 * conversation list (users.conversations with `user`), read once per person and kept a few minutes,
 * so its cost is per person, not per channel size; reads are budgeted per person and in all; and
 * Slack's 429 is kept away from the client that posts.
 */

const TOKEN = 'xoxb-conversations';
let slack: FakeSlack;
let web: WebClient;

const ids = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(6, '0')}`);
const calls = (method: string) => slack.calls.filter((c) => c.method === method);
const MALLORY = { id: 'U0MALLORY', name: 'mallory' };
const ACTION = 'job.feedback' as const;

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN, users: [...DEFAULT_USERS, MALLORY] });
  web = fakeSlackClient(slack, TOKEN);
  slack.channels.push({
    id: 'C0GENERAL',
    name: 'general',
    botIsMember: true,
    members: [...ids('UG', 5_000), 'U0ALICE', 'U0DOCSBOT'],
  });
  slack.channels.push({
    id: 'C0SMALL',
    name: 'small',
    botIsMember: true,
    members: ['U0BOB', ...ids('US', 300), 'U0DOCSBOT'],
  });
  for (let c = 1; c <= 10; c++) {
    slack.channels.push({
      id: `C0BIG${c}`,
      name: `big-${c}`,
      botIsMember: true,
      members: [...ids(`U${c}X`, 3_900), 'U0DOCSBOT'],
    });
  }
});
afterEach(() => slack.close());

describe("membership from the person's own conversation list", () => {
  it("a member of a 5,000-member channel is a member (one users.conversations call), and the channel's size costs nothing", async () => {
    const dir = new ConversationDirectory({ slack: web });
    const { logger } = arrayLogger();
    expect(await checkMembership(dir, logger, { channel: 'C0GENERAL', user: 'U0ALICE', action: ACTION })).toEqual({
      ok: true,
    });
    expect(await dir.isMember('C0DOCS', 'U0ALICE')).toBe(true); // the same list answers
    expect(calls('users.conversations').map((c) => [c.args.user, c.args.types])).toEqual([
      ['U0ALICE', 'public_channel,private_channel,mpim,im'],
    ]);
    expect(calls('conversations.members')).toHaveLength(0);
  });

  it('a non-member flipping between big channels cannot starve anyone: others are still answered', async () => {
    const dir = new ConversationDirectory({ slack: web });
    const { logger } = arrayLogger();
    for (let i = 0; i < 30; i++) await expect(dir.isMember(`C0BIG${(i % 3) + 1}`, MALLORY.id)).resolves.toBe(false);
    expect(await checkMembership(dir, logger, { channel: 'C0SMALL', user: 'U0BOB', action: ACTION })).toEqual({
      ok: true,
    });
    // Mallory's list once, each channel's conversations.info once ("can the bot see it?"), Bob's list once.
    expect(calls('users.conversations')).toHaveLength(2);
    expect(calls('conversations.info')).toHaveLength(3);
    expect(calls('conversations.members')).toHaveLength(0);
  });

  it('concurrent questions about one person share one read', async () => {
    const dir = new ConversationDirectory({ slack: web });
    const answers = await Promise.all(
      ['C0DOCS', 'C0RANDOM', 'C0GENERAL', 'C0SMALL', 'C0DOCS'].map((c) => dir.isMember(c, 'U0ALICE')),
    );
    expect(answers).toEqual([true, true, true, false, true]);
    expect(calls('users.conversations')).toHaveLength(1);
  });

  it('a conversation the bot can\'t see is Slack\'s channel_not_found (not "no"), kept a minute', async () => {
    const dir = new ConversationDirectory({ slack: web });
    // #leads is private and the bot is not in it: alice's list can't show it, and conversations.info says why.
    await expect(dir.isMember('C0LEADS', 'U0ALICE')).rejects.toMatchObject({ data: { error: 'channel_not_found' } });
    await expect(dir.isMember('C0LEADS', 'U0ADMIN')).rejects.toMatchObject({ data: { error: 'channel_not_found' } });
    expect(calls('conversations.info')).toHaveLength(1);
    expect(await dir.visibilityOf('C0DOCS')).toBe('public');
    expect(await dir.visibilityOf('D0ALICE')).toBe('im');
  });

  it('a list is kept 5 minutes; a "no" from a list older than a minute reads it again (she may just have joined)', async () => {
    const now = { t: 1_000_000 };
    const dir = new ConversationDirectory({ slack: web, now: () => now.t });
    expect(await dir.isMember('C0SMALL', 'U0ALICE')).toBe(false);
    expect(calls('users.conversations')).toHaveLength(1);
    slack.channels.find((c) => c.id === 'C0SMALL')!.members!.push('U0ALICE');
    now.t += 30_000;
    expect(await dir.isMember('C0SMALL', 'U0ALICE')).toBe(false); // within a minute: the list as read
    now.t += 31_000;
    expect(await dir.isMember('C0SMALL', 'U0ALICE')).toBe(true);
    expect(calls('users.conversations')).toHaveLength(2);
    now.t += 4 * 60_000;
    expect(await dir.isMember('C0DOCS', 'U0ALICE')).toBe(true);
    expect(calls('users.conversations')).toHaveLength(2);
    now.t += 61_000;
    expect(await dir.isMember('C0DOCS', 'U0ALICE')).toBe(true);
    expect(calls('users.conversations')).toHaveLength(3);
  });

  it('a person in more conversations than one page pages through theirs, as far as the question needs', async () => {
    for (let i = 0; i < 2_500; i++)
      slack.channels.push({
        id: `C0MANY${String(i).padStart(4, '0')}`,
        name: `many-${i}`,
        botIsMember: false,
        members: ['U0CAROL'],
      });
    const dir = new ConversationDirectory({ slack: web });
    expect(await dir.isMember('C0MANY0100', 'U0CAROL')).toBe(true);
    expect(calls('users.conversations')).toHaveLength(1);
    expect(await dir.isMember('C0MANY2400', 'U0CAROL')).toBe(true);
    expect(calls('users.conversations').map((c) => c.args.limit)).toEqual(['999', '999', '999']);
  });
});

describe('membership when Slack fails or the list is too long', () => {
  it('a person in more conversations than the bot reads through, none of them this one: "I can\'t tell", not "no"', async () => {
    // Pages of 2: ten pages hold 20 of U0CAROL's 25 conversations; the one asked about is not among them.
    for (let i = 0; i < 25; i++)
      slack.channels.push({ id: `C0LONG${i}`, name: `long-${i}`, botIsMember: false, members: ['U0CAROL'] });
    const limits = {
      perPerson: new RateLimiterMemory({ points: 100, duration: 60 }),
      all: new RateLimiterMemory({ points: 100, duration: 60 }),
    };
    const dir = new ConversationDirectory({ slack: web, pageSize: 2, limits });
    const err = await dir.isMember('C0SMALL', 'U0CAROL').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MembersUnknownError);
    expect(err).toMatchObject({ reason: 'too_large' });
    expect(calls('users.conversations')).toHaveLength(10);
    const { logger } = arrayLogger();
    const checked = await checkMembership(dir, logger, { channel: 'C0SMALL', user: 'U0CAROL', action: ACTION });
    expect(checked).toMatchObject({ ok: false, text: MEMBERS_UNKNOWN_TEXT });
    expect(calls('users.conversations')).toHaveLength(10); // the list as read answers again
  });

  it('a list of channels to show: a Slack error other than a rate limit fails the listing (not "not a member")', async () => {
    const dir = new ConversationDirectory({ slack: web });
    slack.failNext('users.conversations', { error: 'internal_error' });
    await expect(dir.membershipsOf('U0ALICE', ['C0DOCS', 'C0SMALL'])).rejects.toMatchObject({
      data: { error: 'internal_error' },
    });
    expect(await dir.membershipsOf('U0ALICE', ['C0DOCS', 'C0SMALL'])).toEqual(
      new Map([
        ['C0DOCS', true],
        ['C0SMALL', false],
      ]),
    );
  });

  it('re-reading an old "no" when Slack fails: the failure is thrown (not the old "no"); the next question reads again', async () => {
    const now = { t: 1_000_000 };
    const dir = new ConversationDirectory({ slack: web, now: () => now.t });
    expect(await dir.isMember('C0SMALL', 'U0ALICE')).toBe(false);
    slack.channels.find((c) => c.id === 'C0SMALL')!.members!.push('U0ALICE');
    now.t += 61_000;
    slack.failNext('users.conversations', { error: 'internal_error' });
    await expect(dir.isMember('C0SMALL', 'U0ALICE')).rejects.toMatchObject({ data: { error: 'internal_error' } });
    expect(await dir.isMember('C0SMALL', 'U0ALICE')).toBe(true);
  });
});

describe('read budgets and rate limits', () => {
  it('one person\'s reads are budgeted: past it, their answers are "busy" (not "no"), and everyone else\'s are not', async () => {
    const dir = new ConversationDirectory({
      slack: web,
      limits: {
        perPerson: new RateLimiterMemory({ points: 3, duration: 60 }),
        all: new RateLimiterMemory({ points: 100, duration: 60 }),
      },
    });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => dir.isMember(`C0BIG${i + 1}`, MALLORY.id).catch((e: unknown) => e)),
    );
    // Her list (1 read) and two conversations.info calls fit her 3 reads; the rest wait for her next minute.
    expect(answers.slice(0, 2)).toEqual([false, false]);
    for (const a of answers.slice(2)) expect(a).toMatchObject({ name: 'MembersUnknownError', reason: 'busy' });
    expect(await dir.isMember('C0SMALL', 'U0BOB')).toBe(true);
    const { logger } = arrayLogger();
    const all = new RateLimiterMemory({ points: 1, duration: 60 });
    await all.consume('all'); // spent by others this minute
    const busy = new ConversationDirectory({
      slack: web,
      limits: { perPerson: new RateLimiterMemory({ points: 5, duration: 60 }), all },
    });
    expect(await checkMembership(busy, logger, { channel: 'C0SMALL', user: 'U0BOB', action: ACTION })).toEqual({
      ok: false,
      reason: 'busy',
      text: MEMBERSHIP_BUSY_TEXT,
    });
  });

  it("Slack's 429 on users.conversations (Retry-After 30 s): busy at once, no call until it has passed, and the client that posts is not paused", async () => {
    const { logger, lines } = arrayLogger();
    const opts = { token: TOKEN, slackApiUrl: slack.url, logger };
    const poster = createWebClient(opts);
    const now = { t: 1_000_000 };
    const dir = new ConversationDirectory({
      slack: createWebClient({ ...opts, rejectRateLimitedCalls: true }),
      logger,
      now: () => now.t,
    });
    slack.failNext('users.conversations', { status: 429, retryAfterS: 30 });
    const started = Date.now();
    await expect(dir.isMember('C0DOCS', 'U0ALICE')).rejects.toBeInstanceOf(MembersUnknownError);
    await expect(dir.isMember('C0DOCS', 'U0BOB')).rejects.toMatchObject({ reason: 'busy' });
    await poster.chat.postMessage({ channel: 'C0DOCS', text: 'status' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(calls('users.conversations').map((c) => c.status)).toEqual([429]);
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      expect.stringMatching(/^Slack is rate limiting membership reads/),
    ]);
    now.t += 30_001;
    expect(await dir.isMember('C0DOCS', 'U0ALICE')).toBe(true);
  });
});

describe('a Slack Connect channel seen by two installations', () => {
  // One channel id, two organizations: each decides whether it is public or private on its side
  // (Slack help: converting a Slack Connect channel applies to the workspace where it was made), and
  // each installation's token answers conversations.info as its side sees it.
  const sides = { T0PUBLIC: false, T0PRIVATE: true } as Record<string, boolean>;
  const infoCalls: string[] = [];
  const twoSided = {
    users: { conversations: async () => ({ ok: true, channels: [] }) },
    conversations: {
      info: async () => {
        const team = currentRequestContext()?.teamId ?? '';
        infoCalls.push(team);
        return { ok: true, channel: { id: 'C0SHARED', is_private: sides[team] } };
      },
    },
  } as unknown as ConstructorParameters<typeof ConversationDirectory>[0]['slack'];
  const as = <T>(teamId: string, fn: () => Promise<T>) => withRequestContext({ requestId: 'r', teamId }, fn);

  it("answers each installation with its own side's visibility, one conversations.info per side", async () => {
    infoCalls.length = 0;
    const dir = new ConversationDirectory({ slack: twoSided });
    expect(await as('T0PRIVATE', () => dir.visibilityOf('C0SHARED'))).toBe('private');
    expect(await as('T0PUBLIC', () => dir.visibilityOf('C0SHARED'))).toBe('public');
    expect(await as('T0PRIVATE', () => dir.visibilityOf('C0SHARED'))).toBe('private');
    expect(infoCalls).toEqual(['T0PRIVATE', 'T0PUBLIC']);
  });

  it("a 429 in one workspace pauses that workspace's reads, not the other's", async () => {
    const limited = {
      ...twoSided,
      conversations: {
        info: async () => {
          if (currentRequestContext()?.teamId === 'T0PRIVATE')
            throw Object.assign(new Error('rate limited'), { code: ErrorCode.RateLimitedError, retryAfter: 30 });
          return { ok: true, channel: { id: 'C0SHARED', is_private: false } };
        },
      },
    } as typeof twoSided;
    const dir = new ConversationDirectory({ slack: limited, logger: arrayLogger().logger });
    await expect(as('T0PRIVATE', () => dir.visibilityOf('C0SHARED'))).rejects.toMatchObject({ reason: 'busy' });
    expect(await as('T0PUBLIC', () => dir.visibilityOf('C0SHARED'))).toBe('public');
  });
});
