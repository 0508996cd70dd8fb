import { WebClient } from '@slack/web-api';
import type { ModalView } from '@slack/types';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CHANNELS, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { SlackDirectory } from '../../../../src/features/access/directory.js';
import {
  ALREADY_ASKED_TEXT,
  EXPERTS_ASKS_PER_HOUR,
  handleAskExperts,
  NO_EXPERTS_TEXT,
  type ExpertsDeps,
} from '../../../../src/features/ask/experts.js';
import {
  ANSWER_OFFER_TEXT,
  documentAnswerAction,
  documentAnswerSubmission,
  offerDocumentAnswer,
  REPLY_UNKNOWN_TEXT,
  REPLY_UNREADABLE_TEXT,
} from '../../../../src/features/ask/document-answer.js';
import { ANSWER_UNKNOWN_TEXT } from '../../../../src/features/ask/actions.js';
import { expertCheck } from '../../../../src/features/ask/expert-reply.js';
import { ASK_TTL_S, AskStore } from '../../../../src/features/ask/store.js';
import { expertsProblem, type Experts } from '../../../../src/features/settings/index.js';
import { OPEN_GATE, type AccessGate } from '../../../../src/platform/access.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { Quota } from '../../../../src/platform/quota.js';
import { ConversationDirectory } from '../../../../src/platform/slack/conversations.js';
import { NOT_A_MEMBER_TEXT } from '../../../../src/platform/slack/member-check.js';
import { withRequestContext } from '../../../../src/platform/request-context.js';
import { memorySteps } from '../../../../src/platform/steps.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { testRedis } from '../../../helpers/redis.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { useFakeSlackOnRedis } from '../../../helpers/fakes-on-redis.js';

/*
 * Ask the docs team on real Redis and the fake Slack: the question reaches the experts once,
 * whoever clicks and however often; a team the bot can't reach is said plainly.
 */

const TOKEN = 'xoxb-experts-test';
const BOT = 'U0DOCSBOT';
const redis = testRedis();
let slack: FakeSlack;
let web: WebClient;
let prefix: string;
let store: AskStore;
let told: string[];

/** The fake's channels, and the experts' channels these tests name (an archived, a shared, a private and a group DM one). */
const channels = [
  ...DEFAULT_CHANNELS,
  { id: 'C0EXPERTS', name: 'docs-team', botIsMember: true, members: ['U0ADMIN', '@bot'] },
  { id: 'C0OLDEXP', name: 'docs-team-old', botIsMember: true, isArchived: true, members: ['U0ADMIN', '@bot'] },
  {
    id: 'C0SHAREDEXP',
    name: 'docs-team-connect',
    botIsMember: true,
    isExtShared: true,
    members: ['U0ADMIN', '@bot'],
  },
  { id: 'G0PRIVQ', name: 'payroll', botIsMember: true, isPrivate: true, members: ['U0ALICE', '@bot'] },
  {
    id: 'G0MPIMQ',
    name: 'mpdm-alice--bob-1',
    botIsMember: true,
    isMpim: true,
    members: ['U0ALICE', 'U0BOB', '@bot'],
  },
];
useFakeSlackOnRedis({ token: TOKEN, redis, slack: { channels } }, (s) => ({ slack, web, prefix } = s));
beforeEach(() => {
  store = new AskStore(redis, prefix);
  told = [];
});

function deps(experts: Experts | undefined, access: AccessGate = OPEN_GATE): ExpertsDeps {
  return {
    store,
    signer: TEST_SIGNER,
    access,
    conversations: new ConversationDirectory({ slack: web }),
    expertsFor: async () => experts,
    slack: web as unknown as ExpertsDeps['slack'],
    asks: new Quota(redis, { keyPrefix: `${prefix}:ask:experts-asks`, points: EXPERTS_ASKS_PER_HOUR, durationS: 3600 }),
    logger: createLogger('silent'),
  };
}

let n = 0;
/** An unanswered answer in #docs: its question posted there (the thread root), its record saved. */
async function unanswered(question = 'How do I set up <!channel> SCIM?', channel = 'C0DOCS') {
  n += 1;
  const root = await web.chat.postMessage({ channel, text: question });
  const answerId = `${n}`.padStart(16, 'a');
  await store.saveAnswer({
    answerId,
    teamId: 'T0TEST',
    channel,
    threadTs: root.ts!,
    asker: 'U0ALICE',
    question,
    answer: "I couldn't find anything about that in the docs.",
    unanswered: true,
    earlier: [],
  });
  return { answerId, threadTs: root.ts! };
}

const ctxOf = (jobId: string) => ({
  ...memorySteps(),
  jobId,
  requestId: jobId,
  receivedAt: Date.now(),
  confirm: async () => undefined,
  log: createLogger('silent'),
});
const click = (answerId: string, user = 'U0ALICE', channel = 'C0DOCS') => ({
  value: TEST_SIGNER.sign('ask.experts', answerId),
  user,
  teamId: 'T0TEST',
  channel,
});
const tell = async (t: string) => void told.push(t);
/** The Document this answer form's deps (open gate, a member everywhere) and its spies: views.open and the intake's record. */
function documentAnswerForm(logger = createLogger('silent')) {
  const open = vi.fn(async () => ({ ok: true }));
  const record = vi.fn(async () => undefined);
  const formDeps = {
    intake: { record },
    access: OPEN_GATE,
    conversations: { isMember: async () => true },
    slack: { views: { open } } as never,
    signer: TEST_SIGNER,
    store,
    logger,
  };
  return { open, record, formDeps };
}
/** Bob's click in #docs as an action's body carries it. */
const bobsClick = (trigger_id: string) => ({
  user: { id: 'U0BOB', team_id: 'T0TEST' },
  team: { id: 'T0TEST' },
  trigger_id,
  channel: { id: 'C0DOCS' },
});
const postsIn = (channel: string) => slack.messages.filter((m) => m.channel === channel && m.bot_id && !m.ephemeralTo);

describe('Ask the docs team', () => {
  it('posts the question once in the experts’ channel (quoted, inert, with a link back) and tells the thread, whoever clicks and however often', async () => {
    const { answerId, threadTs } = await unanswered();
    const before = postsIn('C0EXPERTS').length;
    const first = ctxOf('exp-1');
    await handleAskExperts(deps({ kind: 'channel', id: 'C0EXPERTS' }), click(answerId), first, tell);
    await handleAskExperts(deps({ kind: 'channel', id: 'C0EXPERTS' }), click(answerId), first, tell); // a retry
    await handleAskExperts(deps({ kind: 'channel', id: 'C0EXPERTS' }), click(answerId, 'U0BOB'), ctxOf('exp-2'), tell);
    const posted = postsIn('C0EXPERTS').slice(before);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.text).toContain('<@U0ALICE> asked in <#C0DOCS> and the docs had no answer');
    expect(posted[0]!.text).toContain('&lt;!channel&gt;');
    expect(posted[0]!.text).not.toContain('<!channel>');
    expect(posted[0]!.text).toMatch(/<https?:\/\/[^|>]+\|Open the thread>/);
    const inThread = slack.messages.filter((m) => m.thread_ts === threadTs && m.bot_id);
    expect(inThread.map((m) => m.text)).toEqual([
      'I asked the docs team in <#C0EXPERTS>; their answer will come here.',
    ]);
    expect(told).toEqual([ALREADY_ASKED_TEXT]);
    // Noted once for the weekly digest's "Asked in Slack, not answered by the docs".
    const noted = await redis.zrange(`${prefix}:ask:unanswered:C0DOCS`, '0', '-1');
    expect(noted).toEqual([`${answerId}\nHow do I set up <!channel> SCIM?`]);
  });

  it('the question posted to the docs team is data: no live link, domain, mention or formatting, and no unfurl', async () => {
    const question =
      'How do I log in? <!here> *URGENT* see evil.example/login or https://evil.example/reset ```x```\n' +
      '<https://evil.example|docs.example.com> <@U0BOB> <!subteam^S0ALL> &lt;!channel&gt; `code`';
    const { answerId } = await unanswered(question);
    const before = slack.calls.length;
    await handleAskExperts(deps({ kind: 'channel', id: 'C0EXPERTS' }), click(answerId), ctxOf('exp-h1'), tell);
    const post = slack.calls
      .slice(before)
      .find((c) => c.method === 'chat.postMessage' && c.args.channel === 'C0EXPERTS');
    expect(String(post?.args.unfurl_links)).toBe('false');
    expect(String(post?.args.unfurl_media)).toBe('false');
    const text = String(post?.args.text);
    const quoted = text
      .split('\n')
      .filter((l) => l.startsWith('> '))
      .map((l) => l.slice(2));

    expect(quoted).toHaveLength(2);
    for (const line of quoted) {
      expect(line).not.toMatch(/[<>*`]/); // no <link|label>, <!here>, <@U…>, bold or code
      expect(line).not.toMatch(/:\/\//);
      expect(line).not.toMatch(/[\p{L}\p{N}]\.[\p{L}\p{N}]/u); // evil.example is not a domain Slack links
    }
    // The only link is the bot's own, back to the thread.
    expect(text.match(/<https?:[^>]+>/g)).toHaveLength(1);
    expect(text.replaceAll('\u2060', '')).toContain('&lt;!here&gt; ∗URGENT∗ see evil.example/login');
  });

  it('a button carried out of a private channel, or clicked by someone no longer in it: refused, nothing posted, no ask spent, the answer still unclaimed', async () => {
    const { answerId, threadTs } = await unanswered(
      'What is the payroll export password rotation for Acme?',
      'G0PRIVQ',
    );
    const d = deps({ kind: 'channel', id: 'C0EXPERTS' });
    const before = postsIn('C0EXPERTS').length;
    // Bob was never in #payroll: its button replayed from #docs, then as if clicked in #payroll.
    await handleAskExperts(d, click(answerId, 'U0BOB', 'C0DOCS'), ctxOf('exp-replay-1'), tell);
    await handleAskExperts(d, click(answerId, 'U0BOB', 'G0PRIVQ'), ctxOf('exp-replay-2'), tell);
    expect(told).toEqual([ANSWER_UNKNOWN_TEXT, NOT_A_MEMBER_TEXT]);
    expect(postsIn('C0EXPERTS').length).toBe(before);
    expect(slack.messages.filter((m) => m.thread_ts === threadTs && m.bot_id)).toEqual([]);
    expect(await redis.keys(`${prefix}:ask:experts-asks*`)).toEqual([]);
    // Alice, who is in it, still asks the team with one click.
    await handleAskExperts(d, click(answerId, 'U0ALICE', 'G0PRIVQ'), ctxOf('exp-replay-3'), tell);
    expect(postsIn('C0EXPERTS').length).toBe(before + 1);
  });

  it('a retry after the team was claimed finishes the ask even when the membership read fails then: the team is asked once, nobody is told "already asked"', async () => {
    const { answerId } = await unanswered();
    let membershipFails = false;
    const d = {
      ...deps({ kind: 'channel', id: 'C0EXPERTS' }),
      conversations: {
        isMember: async () => {
          if (membershipFails) throw new Error('Slack failed the membership read');
          return true;
        },
      },
    };
    const before = postsIn('C0EXPERTS').length;
    const ctx = ctxOf('exp-retry-1');
    // The first try claims the answer, then Slack fails the team's post (the intake retries).
    slack.failNext('chat.postMessage', { error: 'internal_error' });
    await expect(handleAskExperts(d, click(answerId), ctx, tell)).rejects.toThrow();
    membershipFails = true;
    await handleAskExperts(d, click(answerId), ctx, tell);
    expect(postsIn('C0EXPERTS').length).toBe(before + 1);
    expect(told).toEqual([]);
  });

  it('a docs team removed between a try that claimed and its retry: the claim, the mark and the ask are given back, so the next click can ask again', async () => {
    const { answerId } = await unanswered();
    let team: Experts | undefined = { kind: 'channel', id: 'C0EXPERTS' };
    const d = { ...deps(team), expertsFor: async () => team };
    const ctx = ctxOf('exp-gone-1');
    slack.failNext('chat.postMessage', { error: 'internal_error' });
    await expect(handleAskExperts(d, click(answerId), ctx, tell)).rejects.toThrow();
    team = undefined;
    await handleAskExperts(d, click(answerId), ctx, tell);
    expect(told).toEqual([NO_EXPERTS_TEXT]);
    team = { kind: 'channel', id: 'C0EXPERTS' };
    const before = postsIn('C0EXPERTS').length;
    await handleAskExperts(d, click(answerId), ctxOf('exp-gone-2'), tell);
    expect(postsIn('C0EXPERTS').length).toBe(before + 1);
    expect(told).toEqual([NO_EXPERTS_TEXT]);
  });

  it('the same click recorded again after its record lapsed (same job id, a new record) is a new click: "already asked", the team asked once', async () => {
    const { answerId } = await unanswered();
    const d = deps({ kind: 'channel', id: 'C0EXPERTS' });
    const before = postsIn('C0EXPERTS').length;
    await handleAskExperts(d, click(answerId), { ...ctxOf('exp-same'), receivedAt: 1_000 }, tell);
    await handleAskExperts(d, click(answerId), { ...ctxOf('exp-same'), receivedAt: 1_000 + 25 * 3600_000 }, tell);
    expect(postsIn('C0EXPERTS').length).toBe(before + 1);
    expect(told).toEqual([ALREADY_ASKED_TEXT]);
  });

  it("giving back a retry's ask keeps the thread's mark of an earlier answer whose team was asked", async () => {
    const first = await unanswered();
    const d0 = deps({ kind: 'channel', id: 'C0EXPERTS' });
    await handleAskExperts(d0, click(first.answerId), ctxOf('exp-mark-1'), tell);
    expect(await store.answerAskedIn('C0DOCS', first.threadTs, 'U0BOB')).toBe(first.answerId);
    // A second unanswered answer in the same thread: its first try fails before it marks (Slack fails the check).
    const secondId = 'b'.repeat(16);
    const rec = { teamId: 'T0TEST', channel: 'C0DOCS', threadTs: first.threadTs, asker: 'U0ALICE' };
    await store.saveAnswer({
      answerId: secondId,
      ...rec,
      question: 'And SSO?',
      answer: 'no',
      unanswered: true,
      earlier: [],
    });
    let team: Experts | undefined = { kind: 'channel', id: 'C0EXPERTS' };
    const d = { ...d0, expertsFor: async () => team };
    const ctx = ctxOf('exp-mark-2');
    slack.failNext('conversations.info', { error: 'internal_error' });
    await expect(handleAskExperts(d, click(secondId), ctx, tell)).rejects.toThrow();
    team = undefined;
    await handleAskExperts(d, click(secondId), ctx, tell);
    expect(await store.answerAskedIn('C0DOCS', first.threadTs, 'U0BOB')).toBe(first.answerId);
  });

  it('the question is quoted only from a public channel: a private channel, a group DM or an answer missing a field gets only the link', async () => {
    const secret = 'What is the payroll export password rotation for Acme?';
    const d = deps({ kind: 'channel', id: 'C0EXPERTS' });
    // A conversations.info answer without is_private (a field Slack did not send) must not read as public.
    const partial = {
      ...d,
      slack: {
        ...d.slack,
        conversations: {
          ...d.slack.conversations,
          info: async (a: { channel: string }) => {
            const res = await web.conversations.info(a);
            if (a.channel === 'C0DOCS') delete res.channel?.is_private;
            return res;
          },
        },
      },
    } as ExpertsDeps;
    const cases: [string, ExpertsDeps][] = [
      ['G0PRIVQ', d],
      ['G0MPIMQ', d],
      ['C0DOCS', partial],
    ];
    for (const [i, [channel, dd]] of cases.entries()) {
      const { answerId } = await unanswered(secret, channel);
      const before = postsIn('C0EXPERTS').length;
      await handleAskExperts(dd, click(answerId, 'U0ALICE', channel), ctxOf(`exp-p${i}`), tell);
      const posted = postsIn('C0EXPERTS').slice(before);
      expect(posted, channel).toHaveLength(1);
      expect(posted[0]!.text, channel).not.toContain('payroll');
      expect(posted[0]!.text, channel).toContain("a private channel: open it if you're a member");
      expect(posted[0]!.text, channel).toMatch(/<https?:\/\/[^|>]+\|Open the thread>/);
    }
  });

  it('an experts channel shared with another organization is refused, when set and when used: the question is not posted', async () => {
    const shared: Experts = { kind: 'channel', id: 'C0SHAREDEXP' };
    const why = await expertsProblem(web as unknown as ExpertsDeps['slack'], shared);
    expect(why).toContain('shared with another organization (Slack Connect)');
    expect(why).toContain('name a channel only your organization is in');
    const { answerId } = await unanswered('How do I set up SSO?');
    await handleAskExperts(deps(shared), click(answerId), ctxOf('exp-x1'), tell);
    expect(postsIn('C0SHAREDEXP')).toEqual([]);
    expect(told.at(-1)).toContain("I couldn't ask the docs team: <#C0SHAREDEXP> is shared with another organization");
    expect(told.at(-1)).toContain('`/docs-settings experts`');
  });

  it('one person asks the docs team at most 5 times an hour; the 6th is refused privately and posts nothing; clicks that ask no one do not count', async () => {
    const d = deps({ kind: 'channel', id: 'C0EXPERTS' });
    const first = await unanswered('q0');
    await handleAskExperts(d, click(first.answerId, 'U0ALICE'), ctxOf('exp-q-alice'), tell);
    // Bob's click on an answer Alice already asked about asks no one: it does not count.
    await handleAskExperts(d, click(first.answerId, 'U0BOB'), ctxOf('exp-q-dup'), tell);
    expect(told.at(-1)).toBe(ALREADY_ASKED_TEXT);
    const before = postsIn('C0EXPERTS').length;
    for (let i = 1; i <= EXPERTS_ASKS_PER_HOUR; i++) {
      const { answerId } = await unanswered(`q${i}`);
      const c = ctxOf(`exp-q${i}`);
      await handleAskExperts(d, click(answerId, 'U0BOB'), c, tell);
      await handleAskExperts(d, click(answerId, 'U0BOB'), c, tell); // a retry of the same click takes nothing more
    }
    expect(postsIn('C0EXPERTS').length - before).toBe(EXPERTS_ASKS_PER_HOUR);
    const { answerId } = await unanswered('q6');
    const calls = slack.calls.length;
    await handleAskExperts(d, click(answerId, 'U0BOB'), ctxOf('exp-q6'), tell);
    expect(slack.calls.length).toBe(calls); // no Slack call at all
    expect(told.at(-1)).toMatch(
      /^You have asked the docs team 5 times this hour, the most one person can, so I asked no one\. Try again in (60|59) minutes/,
    );
    // Someone else may still ask about it.
    await handleAskExperts(d, click(answerId, 'U0CAROL'), ctxOf('exp-q6c'), tell);
    expect(postsIn('C0EXPERTS').length - before).toBe(EXPERTS_ASKS_PER_HOUR + 1);
  });

  it('mentions the experts’ user group in the thread, once', async () => {
    const { answerId, threadTs } = await unanswered('How do I rotate the signing secret?');
    const group: Experts = { kind: 'usergroup', id: 'S0DOCSWRITERS' };
    await handleAskExperts(deps(group), click(answerId), ctxOf('exp-g1'), tell);
    await handleAskExperts(deps(group), click(answerId, 'U0BOB'), ctxOf('exp-g2'), tell);
    const inThread = slack.messages.filter((m) => m.thread_ts === threadTs && m.bot_id);
    expect(inThread.map((m) => m.text)).toEqual([
      "<!subteam^S0DOCSWRITERS> the docs had no answer to <@U0ALICE>'s question above: can you answer it here?",
    ]);
  });

  it('a team the bot can’t reach is said plainly and the click can be tried again; no team or no access: nothing posted', async () => {
    const { answerId, threadTs } = await unanswered();
    await handleAskExperts(deps({ kind: 'channel', id: 'C0RANDOM' }), click(answerId), ctxOf('exp-r1'), tell);
    expect(told.at(-1)).toContain("I couldn't ask the docs team: I'm not in <#C0RANDOM>");
    await handleAskExperts(deps({ kind: 'usergroup', id: 'S0GONE' }), click(answerId), ctxOf('exp-r2'), tell);
    expect(told.at(-1)).toContain("That user group doesn't exist any more");
    await handleAskExperts(deps(undefined), click(answerId), ctxOf('exp-r3'), tell);
    expect(told.at(-1)).toBe(NO_EXPERTS_TEXT);
    const refuse: AccessGate = {
      ...OPEN_GATE,
      authorize: async () => ({ allowed: false, reason: 'guest', text: "Guests can't ask the docs here." }),
    };
    await handleAskExperts(deps({ kind: 'channel', id: 'C0EXPERTS' }, refuse), click(answerId), ctxOf('exp-r4'), tell);
    expect(told.at(-1)).toBe("Guests can't ask the docs here.");
    expect(slack.messages.filter((m) => m.thread_ts === threadTs && m.bot_id)).toEqual([]);
    // Once the team is reachable, a new click asks it (the failed claims were given back).
    await handleAskExperts(deps({ kind: 'channel', id: 'C0EXPERTS' }), click(answerId), ctxOf('exp-r5'), tell);
    expect(slack.messages.filter((m) => m.thread_ts === threadTs && m.bot_id)).toHaveLength(1);
  });

  it('the thread takes replies as the team’s answer before its "I asked the docs team" line invites them', async () => {
    const { answerId, threadTs } = await unanswered();
    const seenAtPost: (string | undefined)[] = [];
    const watching = {
      ...web,
      chat: {
        ...web.chat,
        postMessage: async (args: Parameters<typeof web.chat.postMessage>[0]) => {
          if ('thread_ts' in args && args.thread_ts === threadTs)
            seenAtPost.push(await store.answerAskedIn('C0DOCS', threadTs, 'U0ADMIN'));
          return web.chat.postMessage(args);
        },
      },
    };
    const d = { ...deps({ kind: 'channel', id: 'C0EXPERTS' }), slack: watching as unknown as ExpertsDeps['slack'] };
    await handleAskExperts(d, click(answerId), ctxOf('exp-order'), tell);
    expect(seenAtPost).toEqual([answerId]);
  });

  it('a post Slack refuses takes the mark back, with an offer claim a reply took meanwhile', async () => {
    const { answerId, threadTs } = await unanswered();
    const refusing = {
      ...web,
      chat: {
        ...web.chat,
        postMessage: async (args: Parameters<typeof web.chat.postMessage>[0]) => {
          if (args.channel !== 'C0EXPERTS') return web.chat.postMessage(args);
          // A reply lands between the mark and the refused post, and takes the thread's offer.
          expect(await store.claimAnswerOffer('C0DOCS', threadTs, 'reply-1')).toBe(true);
          throw Object.assign(new Error('An API error occurred: not_in_channel'), {
            code: 'slack_webapi_platform_error',
            data: { ok: false, error: 'not_in_channel' },
          });
        },
      },
    };
    const d = { ...deps({ kind: 'channel', id: 'C0EXPERTS' }), slack: refusing as unknown as ExpertsDeps['slack'] };
    await handleAskExperts(d, click(answerId), ctxOf('exp-refused'), tell);
    expect(told.at(-1)).toContain("I couldn't ask the docs team: I'm no longer in <#C0EXPERTS>");
    expect(await store.answerAskedIn('C0DOCS', threadTs, 'U0ADMIN')).toBeUndefined();
    // The next ask offers again: the claim the reply took went with the mark.
    expect(await store.claimAnswerOffer('C0DOCS', threadTs, 'reply-2')).toBe(true);
  });

  it('when set, a channel the bot is not in, one it can’t see, an archived one or a deleted user group is refused with what to do', async () => {
    expect(await expertsProblem(web, { kind: 'channel', id: 'C0RANDOM' })).toBe(
      "I'm not in <#C0RANDOM>: invite me there first (`/invite @Docs Agent`).",
    );
    expect(await expertsProblem(web, { kind: 'channel', id: 'C0NOSUCH' })).toContain("I can't see that channel");
    slack.failNext('conversations.info', { error: 'channel_not_found' });
    expect(await expertsProblem(web, { kind: 'channel', id: 'C0EXPERTS' })).toContain("I can't see that channel");
    expect(await expertsProblem(web, { kind: 'channel', id: 'C0OLDEXP' })).toBe(
      '<#C0OLDEXP> is archived: name another channel.',
    );
    expect(await expertsProblem(web, { kind: 'usergroup', id: 'S0GONE' })).toBe(
      "That user group doesn't exist any more: name another one.",
    );
    expect(await expertsProblem(web, { kind: 'channel', id: 'C0EXPERTS' })).toBeUndefined();
    expect(await expertsProblem(web, { kind: 'usergroup', id: 'S0DOCSWRITERS' })).toBeUndefined();
  });

  it("a docs team that broke, with the owner's DM and the ask's give-back failing too: the asker is still told what to do (without 'I've told'), warn lines by code", async () => {
    const { logger, lines } = arrayLogger('warn');
    const asks = new Quota(redis, {
      keyPrefix: `${prefix}:ask:experts-asks`,
      points: EXPERTS_ASKS_PER_HOUR,
      durationS: 3600,
    });
    asks.give = () => Promise.reject(new Error('Connection is closed.'));
    const d = {
      ...deps({ kind: 'channel', id: 'C0EXPERTS' }),
      asks,
      settingsOwnerOf: async () => 'U0ADMIN',
      logger,
    };
    const { answerId, threadTs } = await unanswered('How do I rotate SAML certificates?');
    slack.failNext('chat.postMessage', { error: 'not_in_channel' }); // the docs team's post
    slack.failNext('chat.postMessage', { error: 'internal_error' }); // the owner's DM
    await handleAskExperts(d, click(answerId), ctxOf('exp-broken-dm'), tell);
    expect(told.at(-1)).toContain("I couldn't ask the docs team: I'm no longer in <#C0EXPERTS>");
    expect(told.at(-1)).toContain('An admin can fix it with `/docs-settings experts`.');
    expect(told.at(-1)).not.toContain("I've told");
    expect(slack.messages.filter((m) => m.thread_ts === threadTs && m.bot_id)).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'could not tell the settings owner that the docs team is unreachable',
        slackError: 'internal_error',
        channel: 'C0DOCS',
      }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'could not give back an ask' }));
    expect(JSON.stringify(lines)).not.toContain('SAML');
  });

  it('a docs team that broke after it was set: the asker is told what happened and what to do, the settings owner by DM once a day, a warn line; nothing posted', async () => {
    const { logger, lines } = arrayLogger('warn');
    const owned = (e: Experts) => ({ ...deps(e), settingsOwnerOf: async () => 'U0ADMIN', logger });
    const ownerDms = () =>
      slack.messages.filter((m) => m.bot_id && m.text.startsWith('The docs team set for <#C0DOCS>'));
    const cases: [Experts, string, string, string][] = [
      [
        { kind: 'channel', id: 'C0EXPERTS' },
        'chat.postMessage',
        'not_in_channel',
        "I'm no longer in <#C0EXPERTS>: invite me back",
      ],
      [
        { kind: 'channel', id: 'C0EXPERTS' },
        'chat.postMessage',
        'channel_not_found',
        "I can't find <#C0EXPERTS> any more",
      ],
      [
        { kind: 'channel', id: 'C0EXPERTS' },
        'chat.postMessage',
        'is_archived',
        '<#C0EXPERTS> is archived: name another channel.',
      ],
      [
        { kind: 'usergroup', id: 'S0DOCSWRITERS' },
        'usergroups.users.list',
        'no_such_subteam',
        "That user group doesn't exist any more",
      ],
    ];
    for (const [i, [experts, method, error, said]] of cases.entries()) {
      const { answerId, threadTs } = await unanswered();
      slack.failNext(method, { error });
      await handleAskExperts(owned(experts), click(answerId), ctxOf(`exp-broken-${i}`), tell);
      expect(told.at(-1)).toContain(`I couldn't ask the docs team: ${said}`);
      expect(told.at(-1)).toContain("An admin can fix it with `/docs-settings experts`. I've told <@U0ADMIN>");
      expect(slack.messages.filter((m) => m.thread_ts === threadTs && m.bot_id)).toEqual([]);
    }
    // The owner heard once (the first breakage), with what to do; later ones that day only in the log.
    expect(ownerDms().map((m) => m.text)).toEqual([
      "The docs team set for <#C0DOCS> can't be reached, so Ask the docs team there asks no one: I'm no longer in <#C0EXPERTS>: " +
        'invite me back (`/invite @Docs Agent`) or name another channel. Fix it with `/docs-settings experts #channel|@usergroup|off` ' +
        "in <#C0DOCS>. I'll tell you again tomorrow at the earliest if it's still broken.",
    ]);
    const warned = lines.filter((l) => l.msg === 'the docs team set for a channel cannot be reached');
    expect(warned.map((l) => l.reason)).toEqual(['not_in_channel', 'channel_not_found', 'is_archived', 'check']);
    expect(JSON.stringify(lines)).not.toContain('SCIM'); // the question is never logged
    // A day on (the note lapsed), the owner is told again; with no owner known, only the asker and the log.
    await redis.del(`${prefix}:ask:experts-broken:C0DOCS`);
    const again = await unanswered();
    slack.failNext('chat.postMessage', { error: 'is_archived' });
    await handleAskExperts(
      owned({ kind: 'channel', id: 'C0EXPERTS' }),
      click(again.answerId),
      ctxOf('exp-broken-day2'),
      tell,
    );
    expect(ownerDms()).toHaveLength(2);
    const nobody = await unanswered();
    slack.failNext('chat.postMessage', { error: 'is_archived' });
    await redis.del(`${prefix}:ask:experts-broken:C0DOCS`);
    await handleAskExperts(
      deps({ kind: 'channel', id: 'C0EXPERTS' }),
      click(nobody.answerId),
      ctxOf('exp-broken-none'),
      tell,
    );
    expect(told.at(-1)).not.toContain("I've told");
    expect(ownerDms()).toHaveLength(2);
    // Once fixed, a click asks the team (every failed click gave its claim back).
    const before = postsIn('C0EXPERTS').length;
    await handleAskExperts(
      deps({ kind: 'channel', id: 'C0EXPERTS' }),
      click(nobody.answerId),
      ctxOf('exp-broken-fixed'),
      tell,
    );
    expect(postsIn('C0EXPERTS')).toHaveLength(before + 1);
  });

  it('a value the bot did not sign does nothing', async () => {
    const { answerId } = await unanswered();
    await handleAskExperts(
      deps({ kind: 'channel', id: 'C0EXPERTS' }),
      { ...click(answerId), value: `v1.forged.${answerId}` },
      ctxOf('exp-f'),
      tell,
    );
    expect(told.at(-1)).toMatch(/sign|verify|didn't come from me|ask your question again/i);
  });
});

describe("a broken docs team's notice to the settings owner, per installation", () => {
  // OAuth mode: each installation has its own channel settings and owner; in a Slack Connect channel
  // both sides can have a docs team set, so one side's note must not silence the other's owner.
  const as = <T>(teamId: string, fn: () => Promise<T>) =>
    withRequestContext({ requestId: 'r', teamId, enterpriseInstall: false }, fn);

  it('notes it once a day per installation and channel; single-token mode per channel as before', async () => {
    expect(await as('T0A', () => store.markExpertsBrokenTold('C0SHARED', 60))).toBe(true);
    expect(await as('T0A', () => store.markExpertsBrokenTold('C0SHARED', 60))).toBe(false);
    expect(await as('T0B', () => store.markExpertsBrokenTold('C0SHARED', 60))).toBe(true);
    expect(await redis.exists(`${prefix}:ask:experts-broken:team:T0A:C0SHARED`)).toBe(1);
    expect(await store.markExpertsBrokenTold('C0SHARED', 60)).toBe(true);
    expect(await redis.exists(`${prefix}:ask:experts-broken:C0SHARED`)).toBe(1);
  });
});

describe('Document this answer', () => {
  const names = { lookup: () => async (id: string) => (id === 'U0ADMIN' ? 'Ada Admin' : undefined) };
  const offerDeps = () => ({
    store,
    signer: TEST_SIGNER,
    slack: web as unknown as ExpertsDeps['slack'],
    names,
    logger: createLogger('silent'),
  });
  const reply = (threadTs: string, user: string, text: string, ts: string) => ({
    teamId: 'T0TEST',
    channel: 'C0DOCS',
    user,
    text,
    ts,
    thread_ts: threadTs,
  });
  const botPostsIn = (threadTs: string) => slack.messages.filter((m) => m.thread_ts === threadTs && m.bot_id);

  it('after the docs team was asked, the first reply by someone else gets one offer (not per reply, not per retry); its form quotes the reply inert, and submitting records a fenced job start', async () => {
    const { answerId, threadTs } = await unanswered('How do I set up SCIM?');
    expect(await store.answerAskedIn('C0DOCS', threadTs, 'U0BOB')).toBeUndefined();
    // Before the team is asked, a reply is no answer: nothing offered.
    await offerDocumentAnswer(offerDeps(), reply(threadTs, 'U0BOB', 'no idea', '1.0'), BOT, ctxOf('msg-0'));
    await handleAskExperts(deps({ kind: 'channel', id: 'C0EXPERTS' }), click(answerId), ctxOf('exp-d1'), tell);
    expect(await store.answerAskedIn('C0DOCS', threadTs, 'U0ALICE')).toBeUndefined();
    expect(await store.answerAskedIn('C0DOCS', threadTs, 'U0ADMIN')).toBe(answerId);
    const before = botPostsIn(threadTs).length;
    // The asker's own reply is no answer.
    await offerDocumentAnswer(offerDeps(), reply(threadTs, 'U0ALICE', 'anyone?', '2.0'), BOT, ctxOf('msg-a'));
    // Nor is a reply without text (a file alone): it leaves the offer to the team's answer.
    await offerDocumentAnswer(offerDeps(), reply(threadTs, 'U0BOB', '  ', '2.5'), BOT, ctxOf('msg-file'));
    const text = 'Ask <@U0ADMIN>, or <!channel>: set `SCIM_TOKEN` <https://evil.example/x|in the admin page> *first*.';
    const first = ctxOf('msg-1');
    await offerDocumentAnswer(offerDeps(), reply(threadTs, 'U0ADMIN', text, '3.0'), BOT, first);
    await offerDocumentAnswer(offerDeps(), reply(threadTs, 'U0ADMIN', text, '3.0'), BOT, first); // a retry
    await offerDocumentAnswer(offerDeps(), reply(threadTs, 'U0BOB', 'also this', '4.0'), BOT, ctxOf('msg-2'));
    const offers = botPostsIn(threadTs).slice(before);
    expect(offers).toHaveLength(1);
    expect(offers[0]!.text).toBe(ANSWER_OFFER_TEXT);
    const blocks = JSON.stringify(offers[0]!.blocks);
    expect(blocks).toContain('"action_id":"ask.document_answer"');
    expect(blocks).not.toContain('SCIM_TOKEN'); // the reply is in the thread already: the offer doesn't repeat it

    // The button opens the form: the question and the reply read-only, as plain text.
    const { open, record, formDeps } = documentAnswerForm();
    const value = (JSON.parse(blocks) as [unknown, { elements: [{ value: string }] }])[1].elements[0].value;
    const body = bobsClick('tr1');
    const respond = vi.fn(async () => undefined);
    await documentAnswerAction(formDeps)({ ack: async () => undefined, body, action: { value }, respond } as never);
    expect(respond).not.toHaveBeenCalled();
    const view = (open.mock.calls[0] as unknown as [{ view: ModalView }])[0].view;
    expect(view.callback_id).toBe('ask_document_answer');
    const quotedBlock = view.blocks.at(-1) as { text: { type: string; text: string } };
    expect(quotedBlock.text.type).toBe('plain_text');
    expect(quotedBlock.text.text).toContain('Question: How do I set up SCIM?');
    expect(quotedBlock.text.text).toContain('A person answered in the thread: Ask @Ada Admin, or @channel');
    expect(JSON.stringify(view.blocks)).not.toMatch(/<!channel>|<@U0ADMIN>|<https:/);

    // Submitting: the quote rebuilt from the records, fenced apart from the instruction.
    const submitted = {
      id: 'V9',
      hash: 'h',
      private_metadata: view.private_metadata,
      state: {
        values: { instruction: { instruction: { type: 'plain_text_input', value: 'Add it to the SCIM page' } } },
      },
    };
    const ack = vi.fn(async () => undefined);
    await documentAnswerSubmission(formDeps)({ ack, body: { ...body, view: submitted }, view: submitted } as never);
    expect(ack).toHaveBeenCalledWith();
    expect(record).toHaveBeenCalledTimes(1);
    const start = (record.mock.calls[0] as unknown as [unknown, string, string, Record<string, string>])[3];
    expect(start).toMatchObject({ channel: 'C0DOCS', threadTs, instruction: 'Add it to the SCIM page' });
    expect(start.instruction).not.toContain('SCIM_TOKEN');
    expect(start.quoted).toMatch(
      /<slack_answer_[^>]+>\n[\s\S]*set `SCIM_TOKEN` in the admin page \(https:\/\/evil\.example\/x\)/,
    );
    // A forged form is refused in the modal and starts nothing.
    const forged = { ...submitted, private_metadata: JSON.stringify({ c: 'C0DOCS', t: threadTs, r: 'a'.repeat(16) }) };
    const ack2 = vi.fn(async () => undefined);
    await documentAnswerSubmission(formDeps)({ ack: ack2, body: { ...body, view: forged }, view: forged } as never);
    expect(ack2).toHaveBeenCalledWith(expect.objectContaining({ response_action: 'errors' }));
    expect(record).toHaveBeenCalledTimes(1);
  });

  it('the docs team’s reply is preferred: a member of the experts’ channel replying after someone else takes the thread’s one offer (the first such reply); no second offer', async () => {
    const { answerId, threadTs } = await unanswered('How do I set up SCIM?');
    await handleAskExperts(deps({ kind: 'channel', id: 'C0EXPERTS' }), click(answerId), ctxOf('exp-pref'), tell);
    const silent = createLogger('silent');
    const teamOf = (e: Experts) =>
      expertCheck({
        expertsFor: async () => e,
        conversations: new ConversationDirectory({ slack: web }),
        groups: new SlackDirectory(web),
        logger: silent,
      });
    const isExpert = teamOf({ kind: 'channel', id: 'C0EXPERTS' });
    const offering = () => ({ ...offerDeps(), isExpert });
    const before = botPostsIn(threadTs).length;
    await offerDocumentAnswer(offering(), reply(threadTs, 'U0BOB', 'maybe restart it?', '5.0'), BOT, ctxOf('pref-1'));
    const expertReply = ctxOf('pref-2');
    await offerDocumentAnswer(
      offering(),
      reply(threadTs, 'U0ADMIN', 'Set `SCIM_TOKEN` first.', '6.0'),
      BOT,
      expertReply,
    );
    await offerDocumentAnswer(
      offering(),
      reply(threadTs, 'U0ADMIN', 'Set `SCIM_TOKEN` first.', '6.0'),
      BOT,
      expertReply,
    ); // a retry
    await offerDocumentAnswer(offering(), reply(threadTs, 'U0CAROL', 'I think it is X', '7.0'), BOT, ctxOf('pref-3'));
    await offerDocumentAnswer(offering(), reply(threadTs, 'U0ADMIN', 'Or ask IT.', '8.0'), BOT, ctxOf('pref-4'));
    const offers = botPostsIn(threadTs).slice(before);
    expect(offers).toHaveLength(1);
    // The offer (posted under Bob's reply) opens a form that quotes the team's first reply.
    const { open, record, formDeps } = documentAnswerForm(silent);
    const value = (offers[0]!.blocks as [unknown, { elements: [{ value: string }] }])[1].elements[0].value;
    const body = bobsClick('t');
    await documentAnswerAction(formDeps)({
      ack: async () => undefined,
      body,
      action: { value },
      respond: vi.fn(),
    } as never);
    const view = (open.mock.calls[0] as unknown as [{ view: ModalView }])[0].view;
    const quoted = (view.blocks.at(-1) as { text: { text: string } }).text.text;
    expect(quoted).toContain('A person answered in the thread: Set `SCIM_TOKEN` first.');
    expect(quoted).not.toMatch(/restart|Or ask IT|I think/);
    const submitted = {
      id: 'V8',
      hash: 'h',
      private_metadata: view.private_metadata,
      state: { values: { instruction: { instruction: { type: 'plain_text_input', value: 'Document it' } } } },
    };
    await documentAnswerSubmission(formDeps)({
      ack: vi.fn(),
      body: { ...body, view: submitted },
      view: submitted,
    } as never);
    const start = (record.mock.calls[0] as unknown as [unknown, string, string, Record<string, string>])[3];
    expect(start.quoted).toContain('Set `SCIM_TOKEN` first.');
    expect(start.quoted).not.toContain('restart');
    // A user group's members are the team too; someone outside it, or a group Slack can't read, is not.
    const group = teamOf({ kind: 'usergroup', id: 'S0DOCSWRITERS' });
    const reads = () => slack.calls.filter((c) => c.method === 'usergroups.users.list').length;
    const readsBefore = reads();
    expect([await group('C0DOCS', 'U0ALICE'), await group('C0DOCS', 'U0BOB')]).toEqual([true, false]);
    // 20 more replies in the thread: the group's members are read once (cached), not once a reply.
    for (let i = 0; i < 20; i++) expect(await group('C0DOCS', 'U0BOB')).toBe(false);
    expect(reads() - readsBefore).toBe(1);
    slack.failNext('usergroups.users.list', { error: 'no_such_subteam' });
    expect(await teamOf({ kind: 'usergroup', id: 'S0DOCSWRITERS' })('C0DOCS', 'U0ALICE')).toBe(false);
  });

  it('Slack failing the offer: the intake retries and the thread gets one offer; the reply is kept once', async () => {
    const { answerId, threadTs } = await unanswered('How do I rotate keys?');
    await handleAskExperts(deps({ kind: 'channel', id: 'C0EXPERTS' }), click(answerId), ctxOf('exp-d3'), tell);
    let fail = true;
    const flaky = {
      chat: {
        postMessage: async (args: Parameters<WebClient['chat']['postMessage']>[0]) => {
          if (fail) {
            fail = false;
            throw Object.assign(new Error('An API error occurred: internal_error'), {
              code: 'slack_webapi_platform_error',
              data: { ok: false, error: 'internal_error' },
            });
          }
          return web.chat.postMessage(args);
        },
      },
      conversations: web.conversations,
    };
    const d = { ...offerDeps(), slack: flaky as unknown as ExpertsDeps['slack'] };
    const ctx = ctxOf('msg-f');
    const r = reply(threadTs, 'U0ADMIN', 'Rotate them in Settings.', '6.0');
    await expect(offerDocumentAnswer(d, r, BOT, ctx)).rejects.toThrow(/internal_error/);
    await offerDocumentAnswer(d, r, BOT, ctx); // the intake's retry
    const offers = botPostsIn(threadTs).filter((m) => JSON.stringify(m.blocks ?? []).includes('ask.document_answer'));
    expect(offers).toHaveLength(1);
    expect(await redis.keys(`${prefix}:ask:reply:*`)).toHaveLength(1);
  });

  it('a reply no longer kept is said plainly at the click; the reply lasts 7 days like the answer', async () => {
    const { answerId, threadTs } = await unanswered('How do I export logs?');
    await handleAskExperts(deps({ kind: 'usergroup', id: 'S0DOCSWRITERS' }), click(answerId), ctxOf('exp-d2'), tell);
    await offerDocumentAnswer(offerDeps(), reply(threadTs, 'U0BOB', 'Use the export tab.', '5.0'), BOT, ctxOf('msg-3'));
    const keys = await redis.keys(`${prefix}:ask:reply:*`);
    expect(keys).toHaveLength(1);
    const ttl = await redis.ttl(keys[0]!);
    expect(ttl).toBeGreaterThan(ASK_TTL_S - 60);
    expect(ttl).toBeLessThanOrEqual(ASK_TTL_S);
    await redis.del(keys[0]!);
    const respond = vi.fn(async () => undefined);
    const { open, formDeps } = documentAnswerForm();
    const offer = botPostsIn(threadTs).at(-1)!;
    const value = (offer.blocks as [unknown, { elements: [{ value: string }] }])[1].elements[0].value;
    const body = bobsClick('tr2');
    await documentAnswerAction(formDeps)({ ack: async () => undefined, body, action: { value }, respond } as never);
    expect(open).not.toHaveBeenCalled();
    expect(respond).toHaveBeenCalledWith(expect.objectContaining({ text: REPLY_UNKNOWN_TEXT }));
  });

  it("a reply Redis can't read at the click is said to be unreadable just now (not gone), with one warn line; no form", async () => {
    const { answerId, threadTs } = await unanswered('How do I export traces?');
    await handleAskExperts(deps({ kind: 'usergroup', id: 'S0DOCSWRITERS' }), click(answerId), ctxOf('exp-d3'), tell);
    await offerDocumentAnswer(offerDeps(), reply(threadTs, 'U0BOB', 'Use the traces tab.', '7.0'), BOT, ctxOf('msg-4'));
    const { logger, lines } = arrayLogger('warn');
    const { open, formDeps } = documentAnswerForm(logger);
    const failing = Object.create(store) as AskStore;
    failing.reply = () => Promise.reject(new Error('Connection is closed.'));
    const respond = vi.fn(async () => undefined);
    const offer = botPostsIn(threadTs).at(-1)!;
    const value = (offer.blocks as [unknown, { elements: [{ value: string }] }])[1].elements[0].value;
    await documentAnswerAction({ ...formDeps, store: failing })({
      ack: async () => undefined,
      body: bobsClick('tr3'),
      action: { value },
      respond,
    } as never);
    expect(open).not.toHaveBeenCalled();
    expect(respond).toHaveBeenCalledWith(expect.objectContaining({ text: REPLY_UNREADABLE_TEXT }));
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'could not read a reply for Document this answer' }));
  });
});
