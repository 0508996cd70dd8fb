import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CHANNELS, startFakeSlack, type FakeSlack } from '../../sandbox/fake-slack.js';
import {
  ALREADY_ASKED_TEXT,
  handleAskExperts,
  NO_EXPERTS_TEXT,
  type ExpertsDeps,
} from '../../src/features/ask/experts.js';
import { AskStore } from '../../src/features/ask/store.js';
import type { Experts } from '../../src/features/settings/index.js';
import { OPEN_GATE, type AccessGate } from '../../src/platform/access.js';
import { createLogger } from '../../src/platform/logger.js';
import { memorySteps } from '../../src/platform/steps.js';
import { dropPrefix, randomPrefix, testRedis } from '../helpers/redis.js';
import { TEST_SIGNER } from '../helpers/signer.js';

/*
 * Ask the docs team on real Redis and the fake Slack: the question reaches the experts once,
 * whoever clicks and however often; a team the bot can't reach is said plainly.
 */

const TOKEN = 'xoxb-experts-test';
const redis = testRedis();
let slack: FakeSlack;
let web: WebClient;
let prefix: string;
let store: AskStore;
let told: string[];

beforeAll(async () => {
  const channels = [
    ...DEFAULT_CHANNELS,
    { id: 'C0EXPERTS', name: 'docs-team', botIsMember: true, members: ['U0ADMIN', '@bot'] },
  ];
  slack = await startFakeSlack({ botToken: TOKEN, channels });
  web = new WebClient(TOKEN, { slackApiUrl: slack.url, logLevel: LogLevel.ERROR, retryConfig: { retries: 0 } });
});
afterAll(async () => {
  await slack.close();
  redis.disconnect();
});
beforeEach(() => {
  prefix = randomPrefix();
  store = new AskStore(redis, prefix);
  told = [];
});
afterEach(() => dropPrefix(redis, prefix));

function deps(experts: Experts | undefined, access: AccessGate = OPEN_GATE): ExpertsDeps {
  return {
    store,
    signer: TEST_SIGNER,
    access,
    expertsFor: async () => experts,
    slack: web as unknown as ExpertsDeps['slack'],
    logger: createLogger('silent'),
  };
}

let n = 0;
/** An unanswered answer in #docs: its question posted there (the thread root), its record saved. */
async function unanswered(question = 'How do I set up <!channel> SCIM?') {
  n += 1;
  const root = await web.chat.postMessage({ channel: 'C0DOCS', text: question });
  const answerId = `${n}`.padStart(16, 'a');
  await store.saveAnswer({
    answerId,
    teamId: 'T0TEST',
    channel: 'C0DOCS',
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
const click = (answerId: string, user = 'U0ALICE') => ({
  value: TEST_SIGNER.sign('ask.experts', answerId),
  user,
  teamId: 'T0TEST',
  channel: 'C0DOCS',
});
const tell = async (t: string) => void told.push(t);
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
