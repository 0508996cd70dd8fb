import { WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FAKE_ASSISTANT_KEY,
  FAKE_DISCOVERY_PAGES,
  FAKE_DOCS_DOMAIN,
  type FakeDocsApi,
} from '../../../../sandbox/fake-docs-api.js';
import type { FakeSlack } from '../../../../sandbox/fake-slack.js';
import { AskBudget } from '../../../../src/features/ask/admission.js';
import { CUT_OFF_TEXT, TOO_LONG_TEXT } from '../../../../src/features/ask/blocks.js';
import {
  askQuestion,
  QUESTION_MAX_CHARS,
  type AskDeps,
  type AskRequest,
} from '../../../../src/features/ask/handlers.js';
import { answerJob, writeAnswer, type AnswerJobDeps } from '../../../../src/features/ask/answer/index.js';
import { answerIdOf, AskStore } from '../../../../src/features/ask/store.js';
import { ANSWER_MAX_CHARS, type StreamSlack } from '../../../../src/features/ask/answer/stream.js';
import {
  COULD_NOT_ANSWER_TEXT,
  KEY_REFUSED_TEXT,
  NOT_CONFIGURED_TEXT,
  QUESTION_NOT_POSTED_TEXT,
  questionTooLongText,
  THREAD_LOST_TEXT,
  TOO_MANY_ANSWERS_TEXT,
} from '../../../../src/features/ask/texts.js';
import { OPEN_GATE, type AccessGate } from '../../../../src/platform/access.js';
import { DiscoveryClient } from '../../../../src/platform/docs-api/discovery-client.js';
import { createLogger, type Logger } from '../../../../src/platform/logger.js';
import { memorySteps, postOnceKeys, stepKeys, stepsOver } from '../../../../src/platform/steps.js';
import { ARCHIVED_CHANNEL_TEXT, INVITE_FIRST } from '../../../../src/platform/slack/errors.js';
import { dropPrefix, randomPrefix, TEST_REDIS_URL, testRedis } from '../../../helpers/redis.js';
import { UnreplicatedStepError } from '../../../../src/platform/replica-guard.js';
import { createAnswerQueue, enqueueAnswer, startAnswerWorker } from '../../../../src/features/ask/answer/index.js';
import { answersWrittenAtOnce } from '../../../helpers/answers.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { closeSlackAndDocsFakes, startSlackAndDocsFakes } from '../../../helpers/slack-and-docs-fakes.js';

/*
 * Asking, from the access check to the last Slack call, on real Redis, the fake Slack (real HTTP,
 * the real WebClient, chat streaming as Slack documents it) and the fake discovery API (real
 * streams): every refusal and error the person can meet, each told privately, and what reached
 * Slack and the API.
 */

const TOKEN = 'xoxb-ask-test';
const redis = testRedis();
let slack: FakeSlack;
let docs: FakeDocsApi;
let web: WebClient;
let prefix: string;
let told: string[];
let lines: Array<{ level: number; msg: string; [k: string]: unknown }>;
let logger: Logger;

beforeAll(async () => {
  ({ slack, docs, web } = await startSlackAndDocsFakes(TOKEN, { apiKey: 'mint_admin', projectId: 'proj' }));
});
afterAll(async () => {
  await closeSlackAndDocsFakes({ slack, docs });
  redis.disconnect();
});
beforeEach(() => {
  prefix = randomPrefix();
  told = [];
  lines = [];
  logger = createLogger('info', {
    write: (l: string) => void lines.push(JSON.parse(l) as (typeof lines)[number]),
  } as unknown as NodeJS.WritableStream);
});
afterEach(() => dropPrefix(redis, prefix));

/** Asking's and the answer worker's deps; `answers` absent: each answer is written at once ({@link withAnswers}). */
type TestDeps = Omit<AskDeps, 'answers'> & Partial<Pick<AskDeps, 'answers'>> & AnswerJobDeps;

/** `d` with its answers' queue: the one given, else one that writes each answer at once, telling `told`. */
const withAnswers = (d: TestDeps): AskDeps & AnswerJobDeps => ({
  ...d,
  answers: d.answers ?? answersWrittenAtOnce(d, async (t) => void told.push(t)),
});

function deps(
  over: {
    apiKey?: string;
    access?: AccessGate;
    perUser?: number;
    configured?: boolean;
    store?: AskStore;
    scopeFor?: AskDeps['scopeFor'];
  } = {},
): TestDeps {
  const discovery = new DiscoveryClient({
    baseUrl: `${docs.url}/discovery`,
    apiKey: over.apiKey ?? FAKE_ASSISTANT_KEY,
    domain: FAKE_DOCS_DOMAIN,
    retryMinDelayMs: 1,
  });
  const writer = {
    slack: web as unknown as StreamSlack,
    budget: { take: async () => ({ ok: true as const }) },
    logger,
    now: Date.now,
  };
  return {
    configured: over.configured ?? true,
    discovery,
    store: over.store ?? new AskStore(redis, prefix),
    writer,
    signer: TEST_SIGNER,
    siteUrl: 'https://docs.acme.test',
    fingerprint: (t, u) => `fp-${t}-${u}`.replace(/U0/, 'x'),
    access: over.access ?? OPEN_GATE,
    budget: new AskBudget(redis, prefix, { perUser: over.perUser ?? 30, perWorkspace: 1000 }),
    slack: web,
    logger,
    now: Date.now,
    ...(over.scopeFor ? { scopeFor: over.scopeFor } : {}),
  };
}

/** alice's question in a new thread of #docs (its root posted) as the answer job gets it, keyed `${key}-${prefix}`. */
async function newQuestion(key: string) {
  const root = (await web.chat.postMessage({ channel: 'C0DOCS', text: 'q' })).ts!;
  const q = {
    teamId: 'T0TEST',
    channel: 'C0DOCS',
    threadTs: root,
    asker: 'U0ALICE',
    question: 'How do I rotate a key?',
    key: `${key}-${prefix}`,
    since: Date.now(),
  };
  return { root, q };
}

/**
 * The intake's steps over the tries of one record: each try resumes from what earlier tries wrote
 * (the job's data, as BullMQ keeps it), and a write `fails` picks is refused as Redis down refuses
 * it (nothing written).
 */
function triesOfOneRecord(fails: (patch: Record<string, unknown>) => boolean) {
  let kept: Record<string, unknown> = {};
  return (finalAttempt: boolean) =>
    stepsOver(
      { ...kept },
      async (progress, patch) => {
        if (fails(patch)) throw new Error('Connection is closed.');
        kept = { ...progress };
      },
      { finalAttempt },
    );
}

/** alice's `/docs-ask` in #docs with `key`, received now; `over` changes any field. */
function askRequest(key: string, over: Partial<AskRequest> = {}): AskRequest {
  return {
    teamId: 'T0TEST',
    channel: 'C0DOCS',
    user: 'U0ALICE',
    question: 'How do I rotate a key?',
    key,
    receivedAt: Date.now(),
    ...over,
  };
}

/** Where asking tells alice something privately (in #docs): into `told`. */
const tellAlice = () => ({ to: { user: 'U0ALICE', channel: 'C0DOCS' }, tell: async (t: string) => void told.push(t) });

let n = 0;
async function ask(
  d: TestDeps,
  question: string,
  opts: { threadTs?: string; channel?: string; user?: string; claim?: 'asker'; from?: 'question-channel' } = {},
) {
  n += 1;
  const root = opts.threadTs ?? (await web.chat.postMessage({ channel: opts.channel ?? 'C0DOCS', text: question })).ts!;
  const req = askRequest(`k${n}-${prefix}`, {
    channel: opts.channel ?? 'C0DOCS',
    user: opts.user ?? 'U0ALICE',
    question,
    threadTs: root,
    ...(opts.claim ? { claim: opts.claim } : {}),
    ...(opts.from ? { from: opts.from } : {}),
  });
  await askQuestion(withAnswers(d), req, memorySteps(), tellAlice());
  return root;
}
const assistantCalls = () => docs.requests.filter((r) => r.path.endsWith('/message'));
const replies = (root: string) => slack.messages.filter((m) => m.thread_ts === root && m.ts !== root && m.bot_id);

describe('asking: refusals cost no API call', () => {
  it('not configured: says how to turn it on', async () => {
    const before = assistantCalls().length;
    await ask(deps({ configured: false }), 'How do I rotate a key?');
    expect(told).toEqual([NOT_CONFIGURED_TEXT]);
    expect(assistantCalls()).toHaveLength(before);
  });

  it('not allowed: the access gate says why', async () => {
    const refuse: AccessGate = {
      ...OPEN_GATE,
      authorize: async () => ({
        allowed: false,
        reason: 'guest',
        text: "Guests can't ask the docs in this workspace.",
      }),
    };
    const before = assistantCalls().length;
    await ask(deps({ access: refuse }), 'How do I rotate a key?');
    expect(told).toEqual(["Guests can't ask the docs in this workspace."]);
    expect(assistantCalls()).toHaveLength(before);
  });

  it("the person's hourly budget spent: when the next slot frees", async () => {
    const d = deps({ perUser: 1 });
    await ask(d, 'How do I rotate a key?');
    const before = assistantCalls().length;
    await ask(d, 'Which page covers SSO?');
    expect(told.at(-1)).toMatch(/^You've asked the docs 1 times this hour.*Next free slot/);
    expect(assistantCalls()).toHaveLength(before);
  });
});

describe('asking in a question channel', () => {
  it('a flood past the budget is told once per person per hour (a note in Redis), a mention every time', async () => {
    const d = deps({ perUser: 1 });
    await ask(d, 'How do I rotate a key?', { from: 'question-channel' });
    const before = assistantCalls().length;
    for (let i = 0; i < 5; i++) await ask(d, `Which page covers SSO ${i}?`, { from: 'question-channel' });
    expect(told.filter((t) => t.startsWith("You've asked the docs 1 times"))).toHaveLength(1);
    expect(assistantCalls()).toHaveLength(before);
    const note = `${prefix}:ask:told:budget:T0TEST:U0ALICE`;
    expect(await redis.ttl(note)).toBeGreaterThan(3_590);
    expect(await redis.ttl(note)).toBeLessThanOrEqual(3_600);
    // Another person is told for themselves; a mention (no question channel) is told each time.
    await ask(d, 'How do I rotate a key?', { from: 'question-channel', user: 'U0BOB' });
    await ask(d, 'And SSO?', { from: 'question-channel', user: 'U0BOB' });
    await ask(d, 'And SSO?');
    await ask(d, 'And SSO?');
    expect(told.filter((t) => t.startsWith("You've asked the docs 1 times"))).toHaveLength(4);
    // Once the note lapses (an hour on Redis' clock), the next refusal is told again.
    await redis.del(note);
    await ask(d, 'And webhooks?', { from: 'question-channel' });
    expect(told.filter((t) => t.startsWith("You've asked the docs 1 times"))).toHaveLength(5);
  });

  it('a refusal whose "told this hour" note Redis cannot read is told (better twice than never), with one warn line', async () => {
    const store = new AskStore(redis, prefix);
    store.markTold = () => Promise.reject(new Error('Connection is closed.'));
    const d = deps({ perUser: 1, store });
    await ask(d, 'How do I rotate a key?', { from: 'question-channel' });
    await ask(d, 'Which page covers SSO?', { from: 'question-channel' });
    await ask(d, 'And webhooks?', { from: 'question-channel' });
    expect(told.filter((t) => t.startsWith("You've asked the docs 1 times"))).toHaveLength(2);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'could not read whether a refusal was told this hour; told', level: 40 }),
    );
  });

  it("a channel's docs scope goes to the assistant as its filter and is named under the answer", async () => {
    const scopeFor = vi.fn(async () => ({ version: 'v2' }));
    const root = await ask(deps({ scopeFor }), 'How do workspaces work?');
    expect(scopeFor).toHaveBeenCalledWith('C0DOCS');
    expect(assistantCalls().at(-1)!.body).toMatchObject({ filter: { version: 'v2' } });
    const answer = JSON.stringify(replies(root).map((m) => [m.text, m.blocks]));
    expect(answer).toContain('/v2/workspaces');
    expect(answer).not.toContain('/v1/workspaces');
    expect(answer).toContain("Answered from this channel's docs scope: version `v2`.");
  });
});

describe('asking: errors of the discovery API', () => {
  it(
    'the key refused (401): a plain line for the person, the log ' + 'names DOCS_ASSISTANT_API_KEY, nothing posted',
    async () => {
      const root = await ask(deps({ apiKey: 'mint_dsc_wrong' }), 'How do I rotate a key?');
      expect(told).toEqual([KEY_REFUSED_TEXT]);
      expect(lines.some((l) => l.level === 50 && l.msg.includes('DOCS_ASSISTANT_API_KEY'))).toBe(true);
      expect(JSON.stringify(lines)).not.toContain('mint_dsc_wrong');
      expect(replies(root)).toEqual([]);
    },
  );

  it('403 is the key refused too', async () => {
    docs.failNext(/\/discovery\/v2\/assistant\//, 403);
    await ask(deps(), 'How do I rotate a key?');
    expect(told).toEqual([KEY_REFUSED_TEXT]);
  });

  it('429: when to ask again (Retry-After)', async () => {
    docs.failNext(/\/discovery\/v2\/assistant\//, 429, 1, { message: 'Rate limit exceeded' }, { 'retry-after': '120' });
    await ask(deps(), 'How do I rotate a key?');
    expect(told).toEqual(['The docs assistant has had too many questions this hour. Ask again in 2 minutes.']);
  });

  it('a 5xx is retried once: answered on the second try', async () => {
    docs.failNext(/\/discovery\/v2\/assistant\//, 503);
    const before = assistantCalls().length;
    const root = await ask(deps(), 'How do I rotate a key?');
    expect(assistantCalls()).toHaveLength(before + 2);
    expect(told).toEqual([]);
    expect(replies(root)[0]?.text).toContain('Rotate');
  });

  it('5xx twice: "couldn\'t answer", nothing posted', async () => {
    docs.failNext(/\/discovery\/v2\/assistant\//, 502, 2);
    const before = assistantCalls().length;
    const root = await ask(deps(), 'How do I rotate a key?');
    expect(assistantCalls()).toHaveLength(before + 2);
    expect(told).toEqual([COULD_NOT_ANSWER_TEXT]);
    expect(replies(root)).toEqual([]);
  });

  it(
    'a stream cut before its first text is asked again; one cut ' +
      'after text ends with the notice, never asked again',
    async () => {
      docs.discovery.cutNextAnswers(0);
      const first = await ask(deps(), 'How do I rotate a key?');
      expect(replies(first)[0]?.text).toContain('Rotate');
      docs.discovery.cutNextAnswers(3);
      docs.discovery.chunkDelayMs = 30; // the deltas before the cut reach the bot before the connection dies
      const before = assistantCalls().length;
      const second = await ask(deps(), 'How do I rotate a key?').finally(() => (docs.discovery.chunkDelayMs = 0));
      expect(assistantCalls()).toHaveLength(before + 1);
      const [cut] = replies(second);
      expect(cut?.text).toContain(CUT_OFF_TEXT);
      expect(JSON.stringify(cut?.blocks)).toContain('ask.change');
      expect(slack.streams.get('C0DOCS', cut!.ts)?.state).toBe('completed');
    },
  );

  it('a malformed answer (not a UI message stream) is "couldn\'t answer"', async () => {
    docs.failNext(/\/discovery\/v2\/assistant\//, 200, 1, 'not an event stream');
    await ask(deps(), 'How do I rotate a key?');
    expect(told).toEqual([COULD_NOT_ANSWER_TEXT]);
  });

  it(
    'a follow-up sends the thread key; a conversation the ' + 'assistant lost (404) is said plainly and forgotten',
    async () => {
      const store = new AskStore(redis, prefix);
      const d = deps({ store });
      const root = await ask(d, 'How do I rotate a key?');
      await ask(d, 'and how long does the old one keep working?', { threadTs: root });
      const follow = assistantCalls().at(-1)!.body as { threadId?: string; threadKey?: string };
      expect(follow.threadKey).toBe(docs.discovery.threads.get(follow.threadId!)?.key);
      expect(replies(root)[1]?.text).toContain('24 hours');
      // The assistant forgets the thread: the next follow-up's 404 is told, and the conversation forgotten.
      docs.discovery.threads.delete(follow.threadId!);
      await ask(d, 'and can I revoke it?', { threadTs: root });
      expect(told).toEqual([THREAD_LOST_TEXT]);
      expect(await store.conversation('C0DOCS', root)).toBeUndefined();
    },
  );

  it('a lost conversation (404) Redis cannot forget is still said plainly, with one warn line', async () => {
    const store = new AskStore(redis, prefix);
    const d = deps({ store });
    const root = await ask(d, 'How do I rotate a key?');
    await ask(d, 'and how long does the old one keep working?', { threadTs: root });
    const follow = assistantCalls().at(-1)!.body as { threadId?: string };
    docs.discovery.threads.delete(follow.threadId!);
    store.forgetConversation = () => Promise.reject(new Error('Connection is closed.'));
    await ask(d, 'and can I revoke it?', { threadTs: root });
    expect(told).toEqual([THREAD_LOST_TEXT]);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'could not forget a lost conversation' }));
  });
});

describe('asking: Slack and Redis', () => {
  it('Slack fails mid-answer: the retry ends the cut stream with the notice and never asks again', async () => {
    const d = deps();
    // A clock that runs 2 s a reading: every batch of text is due for its chat.appendStream.
    let tick = 0;
    d.writer.now = () => Date.now() + 2_000 * tick++;
    const { root, q } = await newQuestion('mid');
    const steps = { ...memorySteps(), finalAttempt: false };
    slack.failNext('chat.appendStream', { error: 'internal_error' });
    const before = assistantCalls().length;
    await expect(writeAnswer(d, q, steps)).rejects.toThrow();
    const [cut] = replies(root);
    expect(slack.streams.get('C0DOCS', cut!.ts)?.state).toBe('in_progress');
    expect(await writeAnswer(d, q, steps)).toEqual({ outcome: 'failed' });
    expect(slack.streams.get('C0DOCS', cut!.ts)?.state).toBe('completed');
    expect(replies(root)).toHaveLength(1);
    expect(replies(root)[0]!.text).toContain('cut off; ask again');
    expect(assistantCalls()).toHaveLength(before + 1);
  });

  it(
    'Slack fails mid-answer on the last try and refuses to stop the stream too: the asker is told privately, ' +
      'one warn line by code (no answer text), and their answer slot is freed',
    async () => {
      const store = new AskStore(redis, prefix);
      const d = deps({ store });
      let tick = 0;
      d.writer.now = () => Date.now() + 2_000 * tick++;
      const { root, q } = await newQuestion('stop');
      const freed: string[] = [];
      const release = store.releaseAnswerSlot.bind(store);
      store.releaseAnswerSlot = async (t, u, k) => {
        freed.push(k);
        await release(t, u, k);
      };
      slack.failNext('chat.appendStream', { error: 'internal_error' });
      slack.failNext('chat.stopStream', { error: 'internal_error' });
      await answerJob(d, { q }, memorySteps(), async (t) => void told.push(t));
      expect(told).toEqual([COULD_NOT_ANSWER_TEXT]);
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'could not stop an answer stream that failed', slackError: 'internal_error' }),
      );
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'could not write an answer, even after retries; told the asker' }),
      );
      expect(freed).toEqual([q.key]);
      // Nothing of the question or the answer in the logs.
      const [cut] = replies(root);
      expect(JSON.stringify(lines)).not.toContain(q.question);
      expect(JSON.stringify(lines)).not.toContain(cut!.text.slice(0, 20));
    },
  );

  it('a try before the last that fails is thrown back for the intake to retry: nothing told, the slot kept', async () => {
    const store = new AskStore(redis, prefix);
    const d = deps({ store });
    let tick = 0;
    d.writer.now = () => Date.now() + 2_000 * tick++;
    const { q } = await newQuestion('retry');
    let freed = 0;
    store.releaseAnswerSlot = async () => void (freed += 1);
    slack.failNext('chat.appendStream', { error: 'internal_error' });
    const steps = { ...memorySteps(), finalAttempt: false };
    await expect(answerJob(d, { q }, steps, async (t) => void told.push(t))).rejects.toThrow();
    expect(told).toEqual([]);
    expect(freed).toBe(0);
  });

  it('an answer slot Redis cannot free is one warn line; the answer stands and the job ends', async () => {
    const store = new AskStore(redis, prefix);
    const d = deps({ store });
    const { root, q } = await newQuestion('slot');
    store.releaseAnswerSlot = () => Promise.reject(new Error('Connection is closed.'));
    await answerJob(d, { q }, memorySteps(), async (t) => void told.push(t));
    expect(replies(root)).toHaveLength(1);
    expect(told).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'could not free an answer slot; it lapses in 10 minutes' }),
    );
  });

  it('Slack fails mid-answer on the last try: the stream is still stopped, with the notice', async () => {
    const d = deps();
    let tick = 0;
    d.writer.now = () => Date.now() + 2_000 * tick++;
    const { root, q } = await newQuestion('last');
    slack.failNext('chat.appendStream', { error: 'internal_error' });
    await expect(writeAnswer(d, q, memorySteps())).rejects.toThrow();
    const [cut] = replies(root);
    expect(slack.streams.get('C0DOCS', cut!.ts)?.state).toBe('completed');
    expect(replies(root)[0]!.text).toContain('cut off; ask again');
  });

  it(
    'a crash after the final write (stop) but before "done": the retry ' +
      'repeats the write safely, no notice, no second answer',
    async () => {
      const d = deps();
      const { root, q } = await newQuestion('fin');
      const steps = memorySteps();
      // The steps as they were when the process died: everything saved before "done".
      let left: Record<string, unknown> = {};
      const save = steps.save;
      steps.save = async (patch) => {
        if (`${q.key}:done` in patch) left = { ...steps.progress };
        await save(patch);
      };
      expect(await writeAnswer(d, q, steps)).toEqual({ outcome: 'answered' });
      expect(steps.progress[`${q.key}:answer:final`]).toBeUndefined(); // its copy of the answer is dropped once done
      const before = assistantCalls().length;
      const retry = { ...memorySteps(), progress: { ...left } };
      retry.save = async (patch) => void Object.assign(retry.progress, patch);
      expect(await writeAnswer(d, q, retry)).toEqual({ outcome: 'answered' });
      expect(assistantCalls()).toHaveLength(before);
      expect(replies(root)).toHaveLength(1);
      expect(replies(root)[0]!.text).not.toContain('cut off');
    },
  );

  it('shutdown while an answer streams: the stream is stopped with the notice', async () => {
    const controller = new AbortController();
    const d = { ...deps(), signal: controller.signal };
    docs.discovery.chunkDelayMs = 40;
    const calls = slack.calls.length;
    const answering = ask(d, 'How do I rotate a key?').finally(() => (docs.discovery.chunkDelayMs = 0));
    await slack.waitFor(() => slack.calls.slice(calls).find((c) => c.method === 'chat.startStream'), 5_000);
    controller.abort();
    const root = await answering;
    const [answer] = replies(root);
    expect(answer!.text).toContain(CUT_OFF_TEXT);
    expect(slack.streams.get('C0DOCS', answer!.ts)?.state).toBe('completed');
  });

  it(
    'an answer longer than Slack shows is cut at ANSWER_MAX_CHARS with ' +
      'a notice, within the markdown_text limit per call',
    async () => {
      const long = { ...FAKE_DISCOVERY_PAGES[1]!, content: 'Rotate it. '.repeat(2_000) };
      const pages = docs.discovery.pages;
      docs.discovery.pages = [long];
      try {
        const root = await ask(deps(), 'How do I rotate a key?');
        const [answer] = replies(root);
        expect(answer!.text.length).toBeLessThanOrEqual(ANSWER_MAX_CHARS + TOO_LONG_TEXT.length + 4);
        expect(answer!.text).toContain(TOO_LONG_TEXT);
        const calls = slack.calls.filter(
          (c) => c.method.endsWith('Stream') && (c.args.ts === answer!.ts || c.args.thread_ts === root),
        );
        for (const c of calls) expect(String(c.args.markdown_text ?? '').length).toBeLessThanOrEqual(12_000);
      } finally {
        docs.discovery.pages = pages;
      }
    },
  );

  it('/docs-ask in a channel the bot is not in: told to invite it, the question given back to the budget', async () => {
    slack.channels.push({ id: 'C0OUTSIDE', name: 'outside', botIsMember: false, members: ['U0ALICE'] });
    const d = deps({ perUser: 1 });
    const req = askRequest(`out-${prefix}`, { channel: 'C0OUTSIDE' });
    await askQuestion(withAnswers(d), req, memorySteps(), tellAlice());
    expect(told).toEqual([INVITE_FIRST]);
    // The budget of 1 is whole again: the next question is answered.
    await ask(d, 'How do I rotate a key?');
    expect(told).toEqual([INVITE_FIRST]);
  });

  it('/docs-ask whose question Slack fails to post (5xx): thrown for the intake to retry, nothing told, the budget not given back', async () => {
    const d = deps({ perUser: 1 });
    const give = vi.spyOn(d.budget, 'give');
    slack.failNext('chat.postMessage', { error: 'internal_error' });
    const req = askRequest(`5xx-${prefix}`);
    await expect(
      askQuestion(withAnswers(d), req, { ...memorySteps(), finalAttempt: false }, tellAlice()),
    ).rejects.toThrow(/internal_error/);
    expect(told).toEqual([]);
    expect(give).not.toHaveBeenCalled();
  });

  it('/docs-ask whose question Slack fails to post on the last try: the person is told privately, the question given back to the budget', async () => {
    const d = deps({ perUser: 1 });
    slack.failNext('chat.postMessage', { error: 'internal_error' });
    await askQuestion(withAnswers(d), askRequest(`5xx-last-${prefix}`), memorySteps(), tellAlice());
    expect(told).toEqual([QUESTION_NOT_POSTED_TEXT]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'could not post a question, even after retries; told the asker',
        slackError: 'internal_error',
      }),
    );
    expect(JSON.stringify(lines)).not.toContain('rotate a key');
    // The budget of 1 is whole again: the next question is answered.
    await ask(d, 'How do I rotate a key?');
    expect(told).toEqual([QUESTION_NOT_POSTED_TEXT]);
  });

  it('/docs-ask on the last try with Redis failing from the post on: the person is still told the question was not posted', async () => {
    const d = deps({ perUser: 1 });
    const key = `redis-last-${prefix}`;
    const postingStep = postOnceKeys(stepKeys(key, 'question').question).posting;
    let down = false;
    const steps = stepsOver(
      {},
      async (_progress, patch) => {
        if (postingStep in patch) down = true;
        if (down) throw new Error('Connection is closed.');
      },
      { finalAttempt: true },
    );
    const req = askRequest(key, { question: `How do I rotate a key (${prefix})?` });
    await askQuestion(withAnswers(d), req, steps, tellAlice());
    expect(told).toEqual([QUESTION_NOT_POSTED_TEXT]);
    expect(slack.messages.filter((m) => m.text.includes(prefix))).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'could not record a refusal on the last try; telling it', level: 40 }),
    );
  });

  it('/docs-ask whose question is posted on the last try but Redis fails to record it: answered in its thread, not called unposted, nothing given back', async () => {
    const d = deps({ perUser: 1 });
    const give = vi.spyOn(d.budget, 'give');
    const key = `posted-unrecorded-${prefix}`;
    const tsStep = postOnceKeys(stepKeys(key, 'question').question).ts;
    let failed = false;
    const steps = stepsOver(
      {},
      async (_progress, patch) => {
        if (tsStep in patch && !failed) {
          failed = true;
          throw new Error('Connection is closed.');
        }
      },
      { finalAttempt: true },
    );
    const req = askRequest(key, { question: `How do I rotate a key (${prefix})?` });
    await askQuestion(withAnswers(d), req, steps, tellAlice());
    expect(failed).toBe(true);
    const posted = slack.messages.filter((m) => m.channel === 'C0DOCS' && !m.thread_ts && m.text.includes(prefix));
    expect(posted).toHaveLength(1);
    expect(replies(posted[0]!.ts)).toHaveLength(1); // the answer, in the question's thread
    expect(told).toEqual([]);
    expect(give).not.toHaveBeenCalled();
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'posted a question but could not record it; answering it', level: 40 }),
    );
  });

  it('/docs-ask in an archived channel: told to use another channel (inviting the bot cannot help), the question given back', async () => {
    slack.channels.push({ id: 'C0ARCHIVED', name: 'old', botIsMember: true, isArchived: true, members: ['U0ALICE'] });
    const d = deps({ perUser: 1 });
    const give = vi.spyOn(d.budget, 'give');
    await askQuestion(
      withAnswers(d),
      askRequest(`arch-${prefix}`, { channel: 'C0ARCHIVED' }),
      memorySteps(),
      tellAlice(),
    );
    expect(told).toEqual([ARCHIVED_CHANNEL_TEXT]);
    expect(give).toHaveBeenCalledTimes(1);
  });

  it('/docs-ask in a channel the bot is not in, with Redis failing to give the question back: still told to invite it, one warn line', async () => {
    slack.channels.push({ id: 'C0OUTSIDE2', name: 'outside2', botIsMember: false, members: ['U0ALICE'] });
    const d = deps();
    vi.spyOn(d.budget, 'give').mockRejectedValueOnce(new Error('Connection is closed.'));
    const req = askRequest(`out2-${prefix}`, { channel: 'C0OUTSIDE2' });
    await askQuestion(withAnswers(d), req, memorySteps(), tellAlice());
    expect(told).toEqual([INVITE_FIRST]);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'could not give back a question', level: 40 }));
  });

  it(
    '/docs-ask in a channel the bot is not in, Redis failing to record the refusal before the last try: ' +
      'the question is given back once, told once, and never posted, even once the bot is invited',
    async () => {
      const outside = { id: 'C0OUTSIDE3', name: 'outside3', botIsMember: false, members: ['U0ALICE'] };
      slack.channels.push(outside);
      const d = deps({ perUser: 1 });
      const give = vi.spyOn(d.budget, 'give');
      let down = true;
      const nextTry = triesOfOneRecord((patch) => down && 'refused' in patch);
      const req = {
        teamId: 'T0TEST',
        channel: 'C0OUTSIDE3',
        user: 'U0ALICE',
        question: `How do I rotate a key (${prefix})?`,
        key: `out3-${prefix}`,
        receivedAt: Date.now(),
      };
      const reply = { to: { user: 'U0ALICE', channel: 'C0DOCS' }, tell: async (t: string) => void told.push(t) };
      await expect(askQuestion(withAnswers(d), req, nextTry(false), reply)).rejects.toThrow('Connection is closed.');
      expect(told).toEqual([]);
      // Invited before the retry: the question was given back, so it is not posted now.
      outside.botIsMember = true;
      down = false;
      await askQuestion(withAnswers(d), req, nextTry(true), reply);
      expect(told).toEqual([INVITE_FIRST]);
      expect(give).toHaveBeenCalledTimes(1);
      expect(slack.messages.filter((m) => m.text.includes(prefix))).toEqual([]);
      // One question back, not two: the budget of 1 takes one more question, and refuses the next.
      await ask(d, 'How do I rotate a key?');
      await ask(d, 'How long does the old one keep working?');
      expect(told).toEqual([INVITE_FIRST, expect.stringContaining("You've asked the docs 1 times this hour")]);
    },
  );

  it('a question too long once its mentions are names, Redis failing to record the refusal before the last try: given back once, told once', async () => {
    const d = deps({ perUser: 1 });
    const give = vi.spyOn(d.budget, 'give');
    let down = true;
    const nextTry = triesOfOneRecord((patch) => down && 'refused' in patch);
    const root = (await web.chat.postMessage({ channel: 'C0DOCS', text: 'q' })).ts!;
    const long = 'a'.repeat(QUESTION_MAX_CHARS + 1);
    const req = {
      teamId: 'T0TEST',
      channel: 'C0DOCS',
      user: 'U0ALICE',
      question: async () => long,
      threadTs: root,
      key: `long-${prefix}`,
      receivedAt: Date.now(),
    };
    const reply = { to: { user: 'U0ALICE', channel: 'C0DOCS' }, tell: async (t: string) => void told.push(t) };
    await expect(askQuestion(withAnswers(d), req, nextTry(false), reply)).rejects.toThrow('Connection is closed.');
    down = false;
    await askQuestion(withAnswers(d), req, nextTry(true), reply);
    expect(told).toEqual([questionTooLongText(long.length, QUESTION_MAX_CHARS)]);
    expect(give).toHaveBeenCalledTimes(1);
    expect(replies(root)).toEqual([]);
    await ask(d, 'How do I rotate a key?');
    await ask(d, 'How long does the old one keep working?');
    expect(told.slice(1)).toEqual([expect.stringContaining("You've asked the docs 1 times this hour")]);
  });

  /** alice's question in a thread of #docs with `key` (not posted by the bot: answered in that thread). */
  async function threadQuestion(key: string) {
    const root = (await web.chat.postMessage({ channel: 'C0DOCS', text: 'q' })).ts!;
    return { root, req: askRequest(key, { threadTs: root }) };
  }

  it('an admission Redis fails to record before the last try: the question is given back and thrown; the retry takes it once and answers', async () => {
    const d = deps({ perUser: 1 });
    let down = true;
    const nextTry = triesOfOneRecord((patch) => down && 'admitted' in patch);
    const { root, req } = await threadQuestion(`adm-${prefix}`);
    await expect(askQuestion(withAnswers(d), req, nextTry(false), tellAlice())).rejects.toThrow(
      'Connection is closed.',
    );
    down = false;
    await askQuestion(withAnswers(d), req, nextTry(true), tellAlice());
    expect(told).toEqual([]);
    expect(replies(root)).toHaveLength(1); // answered once
    // One question taken, not two: the budget of 1 is spent by it, so the next is refused.
    await ask(d, 'How long does the old one keep working?');
    expect(told).toEqual([expect.stringContaining("You've asked the docs 1 times this hour")]);
  });

  it('an admission Redis fails to record on the last try: answered all the same, one warn line', async () => {
    const { root, req } = await threadQuestion(`adm2-${prefix}`);
    await askQuestion(withAnswers(deps()), req, triesOfOneRecord((patch) => 'admitted' in patch)(true), tellAlice());
    expect(told).toEqual([]);
    expect(replies(root)).toHaveLength(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'could not record an admitted question on the last try; asking it', level: 40 }),
    );
  });

  it('a give-back Redis fails to record before the last try is thrown with nothing given back; the retry gives it back once', async () => {
    slack.channels.push({ id: 'C0OUTSIDE4', name: 'outside4', botIsMember: false, members: ['U0ALICE'] });
    const d = deps({ perUser: 1 });
    const give = vi.spyOn(d.budget, 'give');
    let down = true;
    const nextTry = triesOfOneRecord((patch) => down && Object.keys(patch).some((k) => k.endsWith(':given-back')));
    const req = {
      teamId: 'T0TEST',
      channel: 'C0OUTSIDE4',
      user: 'U0ALICE',
      question: 'How do I rotate a key?',
      key: `out4-${prefix}`,
      receivedAt: Date.now(),
    };
    const reply = { to: { user: 'U0ALICE', channel: 'C0DOCS' }, tell: async (t: string) => void told.push(t) };
    await expect(askQuestion(withAnswers(d), req, nextTry(false), reply)).rejects.toThrow('Connection is closed.');
    expect(give).not.toHaveBeenCalled();
    down = false;
    await askQuestion(withAnswers(d), req, nextTry(true), reply);
    expect(told).toEqual([INVITE_FIRST]);
    expect(give).toHaveBeenCalledTimes(1);
  });

  it(
    'Redis down: the question is not lost (the error goes to the intake, ' +
      'which retries); on the last try the person is told',
    async () => {
      const down = testRedis();
      down.disconnect();
      const d = { ...deps(), budget: new AskBudget(down, prefix, { perUser: 30, perWorkspace: 1000 }) };
      const req = askRequest(`r-${prefix}`, { threadTs: '1.1' });
      const steps = { ...memorySteps(), finalAttempt: false };
      await expect(askQuestion(withAnswers(d), req, steps, tellAlice())).rejects.toThrow();
      await askQuestion(withAnswers(d), req, memorySteps(), tellAlice());
      expect(told).toEqual(["I couldn't check your access, so I didn't do anything. Try again in a moment."]);
    },
  );
});

describe('asking: which threads the bot takes replies in', () => {
  it(
    "the asker's own top-level message takes the asker's replies only; a mention answered in someone " +
      "else's thread claims nothing, and a later question by someone else never makes a thread theirs",
    async () => {
      const store = new AskStore(redis, prefix);
      const d = deps({ store });
      const own = await ask(d, 'How do I rotate a key?', { claim: 'asker' });
      expect(await store.takesReplyFrom('C0DOCS', own, 'U0ALICE')).toBe(true);
      expect(await store.takesReplyFrom('C0DOCS', own, 'U0MALLORY')).toBe(false);
      // Mallory's mention in Alice's thread is answered, and leaves the thread Alice's.
      await ask(d, 'Which page covers SSO?', { threadTs: own, user: 'U0MALLORY' });
      expect(await store.takesReplyFrom('C0DOCS', own, 'U0MALLORY')).toBe(false);
      expect(await store.takesReplyFrom('C0DOCS', own, 'U0ALICE')).toBe(true);

      // Carol's discussion thread: Mallory's mention there is answered, but the thread stays Carol's.
      const carol = (await web.chat.postMessage({ channel: 'C0DOCS', text: 'release notes?' })).ts!;
      await ask(d, 'How do I rotate a key?', { threadTs: carol, user: 'U0MALLORY' });
      expect(replies(carol)).toHaveLength(1);
      for (const user of ['U0MALLORY', 'U0CAROL', 'U0ALICE'])
        expect(await store.takesReplyFrom('C0DOCS', carol, user)).toBe(false);
    },
  );

  it("/docs-ask's thread (the bot's own question) takes anyone's replies", async () => {
    const store = new AskStore(redis, prefix);
    const d = withAnswers({ ...deps({ store }), answers: { add: vi.fn() } as unknown as AskDeps['answers'] });
    await askQuestion(d, askRequest(`q-${prefix}`, { question: 'SSO?' }), memorySteps(), tellAlice());
    const question = slack.messages.find((m) => m.text.includes('asked the docs') && m.text.includes('SSO?'))!;
    expect(await store.takesReplyFrom('C0DOCS', question.ts, 'U0BOB')).toBe(true);
  });
});

describe("asking: the assistant's text is made safe before Slack gets it", () => {
  it('a page echoing mentions, broadcasts and outside links reaches Slack with none of them', async () => {
    const hostile = {
      path: '/hostile',
      title: 'Hostile',
      keywords: ['hostile'],
      content:
        'Sign in at <https://evil.example/login|the docs sign-in page> and tell <!channel>, <!here|here>, ' +
        '<!subteam^S0ADMINS|@admins> and <@U0ALICE> in <#C0DOCS>; @everyone should read ' +
        '[the guide](https://evil.example/guide) or https://evil.example/x, not [keys](/api-keys).',
    };
    docs.discovery.pages.push(hostile);
    try {
      const root = (await web.chat.postMessage({ channel: 'C0DOCS', text: 'hostile?' })).ts!;
      const calls = slack.calls.length;
      await ask(deps(), 'what does the hostile page say?', { threadTs: root });
      const sent = slack.calls
        .slice(calls)
        .filter((c) => /^chat\.(startStream|appendStream|stopStream|postMessage|update)$/.test(c.method));
      expect(sent.map((c) => c.method)).toContain('chat.stopStream');
      const text = JSON.stringify(sent.map((c) => [c.args.markdown_text, c.args.text, c.args.blocks]));
      expect(text).not.toMatch(/<[!@#]/);
      // The Sources section links the page on the docs site; nothing else links anywhere.
      expect(text).not.toMatch(/<https?:\/\/(?!docs\.acme\.test\/)/);
      expect(text).not.toMatch(/\]\(https:\/\/evil/);
      expect(text).not.toMatch(/(?<!`)https:\/\/evil\.example\/x/);
      expect(text).not.toMatch(/@everyone/);
      expect(text).toContain('[keys](https://docs.acme.test/api-keys)');
      expect(replies(root)).toHaveLength(1);
    } finally {
      docs.discovery.pages.splice(docs.discovery.pages.indexOf(hostile), 1);
    }
  });
});

describe('asking: at most 3 answers being written per person', () => {
  it('a 4th question while 3 answers are written is told plainly and privately, costs nothing; one done frees a slot', async () => {
    const store = new AskStore(redis, prefix);
    const enqueue = vi.fn(async () => undefined);
    const d = { ...deps({ store, perUser: 4 }), answers: { add: enqueue } as unknown as AskDeps['answers'] };
    for (let i = 0; i < 3; i++) await ask(d, `How do I rotate key ${i}?`);
    expect(enqueue).toHaveBeenCalledTimes(3);
    await ask(d, 'Which page covers SSO?');
    expect(told).toEqual([TOO_MANY_ANSWERS_TEXT]);
    expect(enqueue).toHaveBeenCalledTimes(3);
    // Bob is not held back by Alice's answers.
    await ask(d, 'Which page covers SSO?', { user: 'U0BOB' });
    expect(enqueue).toHaveBeenCalledTimes(4);
    // One of Alice's answers done: her next question is taken (her budget of 4 was not spent by the refusal).
    const first = (enqueue.mock.calls[0] as unknown as [string, { q: { key: string } }])[1].q;
    await store.releaseAnswerSlot('T0TEST', 'U0ALICE', first.key);
    await ask(d, 'Which page covers SSO?');
    expect(enqueue).toHaveBeenCalledTimes(5);
    expect(told).toEqual([TOO_MANY_ANSWERS_TEXT]);
  });
});

describe("asking: what an answer's record keeps", () => {
  it('the earlier questions of the conversation; the answer text only when the docs had nothing', async () => {
    const store = new AskStore(redis, prefix);
    const d = deps({ store });
    const root = await ask(d, 'How do I rotate an API key?');
    const first = n;
    await ask(d, 'and how long does the old one keep working?', { threadTs: root });
    const second = await store.answer(answerIdOf(`k${n}-${prefix}`));
    expect(second?.earlier).toEqual(['How do I rotate an API key?']);
    expect(second?.unanswered).toBe(false);
    expect(second?.answer).toBe('');
    expect((await store.answer(answerIdOf(`k${first}-${prefix}`)))?.earlier).toEqual([]);
    const uncovered = await ask(d, 'how do I configure a custom domain for the status page?');
    const none = await store.answer(answerIdOf(`k${n}-${prefix}`));
    expect(none?.unanswered).toBe(true);
    expect(none?.answer).toContain("couldn't find");
    // Only the unanswered question is noted for the digest's "Asked in Slack, not answered by the docs".
    const noted = await store.unansweredIn(none!.channel, 0, Number.MAX_SAFE_INTEGER, 5);
    expect(noted).toEqual([
      { question: 'how do I configure a custom domain for the status page?', count: 1, channels: [none!.channel] },
    ]);
    // In Slack, the assistant found no page: no guess, said plainly, with the next step.
    const [shown] = replies(uncovered);
    expect(shown?.text).toContain("I found no page about it, so I won't guess");
    expect(shown?.text).not.toContain("couldn't find");
    expect(JSON.stringify(shown?.blocks)).toContain('ask.document');
    expect(slack.calls.some((c) => c.args.ts === shown?.ts && c.method === 'chat.appendStream')).toBe(false);
  });
});

describe('asking: the answer worker and the replica guard', () => {
  it('steps not confirmed on the replicas: nothing is streamed; confirmed on a later try, the answer is written once', async () => {
    const queues = { connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null }, prefix, logger };
    const queue = createAnswerQueue(queues);
    let refusals = 1;
    const confirmed: string[] = [];
    const guard = {
      mark: () => ({ epoch: 0 }),
      confirmSteps: async (_mark: unknown, what: string) => {
        if (refusals-- > 0) throw new UnreplicatedStepError('a replica left the primary a moment ago');
        confirmed.push(what);
      },
    };
    const d = deps();
    const worker = startAnswerWorker(queues, {
      answer: { ...d, store: new AskStore(redis, prefix) },
      tell: { slack: web, logger },
      guard,
      work: { forWork: (_ref, _id, fn) => fn() },
    });
    try {
      const { root, q } = await newQuestion('guard');
      const starts = () => slack.calls.filter((c) => c.method === 'chat.startStream' && c.args.thread_ts === root);
      await enqueueAnswer(queue, q, { user: 'U0ALICE', channel: 'C0DOCS' });
      await slack.waitFor(
        () => replies(root).some((m) => JSON.stringify(m.blocks ?? []).includes('ask.change')),
        10_000,
      );
      expect(starts()).toHaveLength(1);
      expect(confirmed[0]).toBe(`${q.key}:answer:streaming`);
      expect(replies(root)).toHaveLength(1);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
