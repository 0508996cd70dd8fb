import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { IncomingMessage } from '../../../../src/features/agent-jobs/index.js';
import {
  handleMessage,
  handleQuestionChannelMessage,
  ROUTE_FAILED_TEXT,
  routeMessage,
  type MentionsMode,
  type RouterDeps,
} from '../../../../src/features/conversations/handlers.js';
import { STANDING_PROMPTS, suggestionKind } from '../../../../src/features/agent-view/index.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { NoInstallationError } from '../../../../src/platform/request-context.js';
import { stepsOver } from '../../../../src/platform/steps.js';
import { TOLD_ONCE_S } from '../../../../src/features/ask/admission.js';
import { AskStore } from '../../../../src/features/ask/store.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

const BOT = 'U0DOCSBOT';
// The question channel's hint is told once per person per hour: a note on real Redis (AskStore.markTold).
const redis = testRedis();
let prefix: string;
let store: AskStore;
beforeEach(() => {
  prefix = randomPrefix();
  store = new AskStore(redis, prefix);
});
afterEach(() => dropPrefix(redis, prefix));
afterAll(() => redis.disconnect());
const msg = (over: Partial<IncomingMessage> = {}): IncomingMessage => ({
  teamId: 'T1',
  channel: 'C1',
  user: 'U1',
  text: `<@${BOT}> how do I rotate a key?`,
  ts: '5.000001',
  viaMention: true,
  ...over,
});

/** A handler's intake context over steps in memory (`finalAttempt`: whether this is the last try). */
const intakeCtx = (o: { jobId?: string; requestId?: string; receivedAt?: number; finalAttempt?: boolean } = {}) => ({
  ...stepsOver({}, async () => undefined, { finalAttempt: o.finalAttempt ?? true }),
  jobId: o.jobId ?? 'j1',
  requestId: o.requestId ?? 'Ev1',
  receivedAt: o.receivedAt ?? 0,
  confirm: async () => undefined,
  log: createLogger('silent'),
});

function deps(
  over: {
    jobThread?: boolean;
    /** true: an answer's thread that takes anyone's replies; a user id: only that person's. */
    answerThread?: boolean | string;
    /** true: the docs team was asked in the thread (the asker is U0ASKER). */
    teamAsked?: boolean;
    configured?: boolean;
    mode?: MentionsMode;
    started?: boolean;
  } = {},
) {
  const jobs = { handleMessage: vi.fn(async () => ({ started: over.started ?? true })) };
  const ask = {
    configured: over.configured ?? true,
    takesReplyFrom: vi.fn(
      async (_channel: string, _ts: string, user: string) => over.answerThread === true || over.answerThread === user,
    ),
    handleMessage: vi.fn(async () => undefined),
    answerReplyFrom: vi.fn(
      async (_channel: string, _ts: string, user: string) => over.teamAsked === true && user !== 'U0ASKER',
    ),
    handleAnswerReply: vi.fn(async () => undefined),
    markTold: vi.fn(async (teamId: string, user: string, what: string) =>
      store.markTold(teamId, user, what, TOLD_ONCE_S),
    ),
  };
  const postEphemeral = vi.fn(async () => ({ ok: true }));
  const d: RouterDeps = {
    jobs,
    jobThreads: async () => (over.jobThread ? { kind: 'job', jobId: 'job_1' } : undefined),
    ask,
    mentionsModeFor: async () => over.mode ?? 'auto',
    ignorePrefix: '!aside',
    slack: { chat: { postEphemeral } } as never,
    logger: createLogger('silent'),
  };
  return { d, jobs, ask, postEphemeral };
}

describe("routing people's messages", () => {
  it("a reply in a job's thread goes to the job, whatever it says", async () => {
    expect(
      await routeMessage(
        deps({ jobThread: true, answerThread: true }).d,
        msg({ thread_ts: '1.1', text: 'how long?', viaMention: false }),
        BOT,
      ),
    ).toBe('jobs');
  });

  it("a reply in an answer's thread continues the conversation without a mention; !aside is for people", async () => {
    const { d } = deps({ answerThread: true });
    expect(await routeMessage(d, msg({ thread_ts: '1.1', text: 'and then?', viaMention: false }), BOT)).toBe('ask');
    expect(await routeMessage(d, msg({ thread_ts: '1.1', text: '!aside lunch?', viaMention: false }), BOT)).toBe(
      'ignore',
    );
  });

  it("in an answer's thread claimed for its asker, only the asker's replies go on without a mention", async () => {
    const { d, ask } = deps({ answerThread: 'U1' });
    expect(await routeMessage(d, msg({ thread_ts: '1.1', text: 'and then?', viaMention: false }), BOT)).toBe('ask');
    // Someone else, no mention: not for the bot (agent-jobs ignores it, with no API call).
    const stranger = msg({ user: 'U0MALLORY', thread_ts: '1.1', text: 'and then?', viaMention: false });
    expect(await routeMessage(d, stranger, BOT)).toBe('jobs');
    expect(ask.takesReplyFrom).toHaveBeenLastCalledWith('C1', '1.1', 'U0MALLORY');
    // Someone else with a mention: the mention rule, like anywhere.
    expect(await routeMessage(d, { ...stranger, text: `<@${BOT}> and then?`, viaMention: true }, BOT)).toBe('ask');
  });

  it("after the docs team was asked, someone else's reply is offered Document this answer; the asker's goes on", async () => {
    const { d, jobs, ask } = deps({ answerThread: 'U0ASKER', teamAsked: true });
    const expert = msg({ user: 'U0EXPERT', thread_ts: '1.1', text: 'Set SCIM_TOKEN first.', viaMention: false });
    expect(await routeMessage(d, expert, BOT)).toBe('answer');
    expect(await routeMessage(d, { ...expert, text: '!aside lunch?' }, BOT)).toBe('ignore');
    const asker = { ...expert, user: 'U0ASKER', text: 'and then?' };
    expect(await routeMessage(d, asker, BOT)).toBe('ask');
    // A mention is a mention, whoever writes it.
    expect(await routeMessage(d, { ...expert, text: `<@${BOT}> how do I add SCIM?`, viaMention: true }, BOT)).toBe(
      'ask',
    );
    const ctx = intakeCtx({ jobId: 'j9', requestId: 'Ev9' });
    await handleMessage(d, { msg: expert, botUserId: BOT }, ctx);
    expect(ask.handleAnswerReply).toHaveBeenCalledWith(expert, BOT, ctx);
    expect(ask.handleMessage).not.toHaveBeenCalled();
    expect(jobs.handleMessage).not.toHaveBeenCalled();
  });

  it('the mention rule in auto mode; ask and edit modes override it; an empty mention is help', async () => {
    expect(await routeMessage(deps().d, msg(), BOT)).toBe('ask');
    expect(await routeMessage(deps().d, msg({ text: `<@${BOT}> add a quickstart` }), BOT)).toBe('change');
    expect(await routeMessage(deps({ mode: 'edit' }).d, msg(), BOT)).toBe('change');
    expect(await routeMessage(deps({ mode: 'ask' }).d, msg({ text: `<@${BOT}> add a quickstart` }), BOT)).toBe('ask');
    expect(await routeMessage(deps().d, msg({ text: `<@${BOT}>` }), BOT)).toBe('jobs');
  });

  it('a top-level DM is a mention; chatter and other threads go to agent-jobs (which ignores them)', async () => {
    expect(
      await routeMessage(
        deps().d,
        msg({ channel: 'D1', channelType: 'im', text: 'which page covers SSO?', viaMention: false }),
        BOT,
      ),
    ).toBe('ask');
    expect(await routeMessage(deps().d, msg({ text: 'how are you all?', viaMention: false }), BOT)).toBe('jobs');
  });

  it("the Messages tab's own suggestions are taken at their word in the DM, whatever the mode, with no line on how to ask", async () => {
    const { d, jobs, postEphemeral } = deps({ started: true, mode: 'ask' });
    const withSuggestions = { ...d, suggestionKind };
    const dm = (text: string) => msg({ channel: 'D1', channelType: 'im', text, viaMention: false });
    const latest =
      'Document the latest discussion in #docs: <https://acme.slack.com/archives/C0DOCS/p1795925180588000>';
    expect(await routeMessage(withSuggestions, dm(latest), BOT)).toBe('jobs');
    expect(await routeMessage(withSuggestions, dm(STANDING_PROMPTS[0]!.message), BOT)).toBe('jobs');
    expect(
      await routeMessage(
        { ...withSuggestions, mentionsModeFor: async () => 'edit' },
        dm('What do the docs cover, and where should I start?'),
        BOT,
      ),
    ).toBe('ask');
    // Anything else in the DM goes by the mode as before; a suggestion's words in a channel mention too.
    expect(await routeMessage(withSuggestions, dm('Document the latest discussion in #docs, please'), BOT)).toBe('ask');
    expect(await routeMessage(withSuggestions, msg({ text: `<@${BOT}> ${STANDING_PROMPTS[0]!.message}` }), BOT)).toBe(
      'ask',
    );
    const ctx = intakeCtx();
    await handleMessage(
      { ...withSuggestions, mentionsModeFor: async () => 'auto' },
      { msg: dm(latest), botUserId: BOT },
      ctx,
    );
    expect(jobs.handleMessage).toHaveBeenCalledTimes(1);
    expect(postEphemeral).not.toHaveBeenCalled();
  });

  it('with asking off, every mention goes to agent-jobs as before', async () => {
    expect(await routeMessage(deps({ configured: false }).d, msg(), BOT)).toBe('jobs');
  });

  it(
    'a job started from a message taken as a change is followed by one line ' +
      'on how to ask instead; the route is kept across retries',
    async () => {
      const { d, jobs, ask, postEphemeral } = deps({ started: true });
      const ctx = intakeCtx();
      const p = { msg: msg({ text: `<@${BOT}> add a quickstart` }), botUserId: BOT };
      await handleMessage(d, p, ctx);
      await handleMessage({ ...d, mentionsModeFor: async () => 'ask' }, p, ctx);
      expect(jobs.handleMessage).toHaveBeenCalledTimes(2);
      expect(ask.handleMessage).not.toHaveBeenCalled();
      expect(postEphemeral).toHaveBeenCalledTimes(1);
      expect(postEphemeral).toHaveBeenCalledWith(
        expect.objectContaining({ text: expect.stringContaining('/docs-ask') }),
      );
    },
  );

  it("a channel's settings that can't be read (OAuth mode: no installation) are retried, and on the last try the person is told", async () => {
    const { d, jobs, ask, postEphemeral } = deps();
    const missing = new NoInstallationError('channel settings');
    const refusing = { ...d, mentionsModeFor: async () => Promise.reject(missing) };
    const ctx = (finalAttempt: boolean) => intakeCtx({ finalAttempt });
    const p = { msg: msg({ text: `<@${BOT}> how do I rotate a key?` }), botUserId: BOT };
    await expect(handleMessage(refusing, p, ctx(false))).rejects.toBe(missing);
    expect(postEphemeral).not.toHaveBeenCalled();
    await handleMessage(refusing, p, ctx(true));
    expect(postEphemeral.mock.calls).toEqual([
      [{ channel: 'C1', user: 'U1', thread_ts: '5.000001', text: ROUTE_FAILED_TEXT }],
    ]);
    expect(jobs.handleMessage).not.toHaveBeenCalled();
    expect(ask.handleMessage).not.toHaveBeenCalled();
  });

  it('in a channel whose mentions setting is edit, the line says every mention is a change there and /docs-ask asks (no phrasing hint), across retries', async () => {
    const { d, postEphemeral } = deps({ started: true, mode: 'edit' });
    const ctx = intakeCtx();
    const p = { msg: msg({ text: `<@${BOT}> how do I rotate a key?` }), botUserId: BOT };
    await handleMessage(d, p, ctx);
    expect(postEphemeral.mock.calls).toEqual([
      [
        {
          channel: 'C1',
          user: 'U1',
          thread_ts: '5.000001',
          text:
            'I took your message as a change to the docs and started a job: this channel takes every mention as a docs ' +
            'change. To ask the docs a question here, use `/docs-ask …`.',
        },
      ],
    ]);
    // A retry whose hint was not told yet (the save of askHintTold lost) keeps the saved route and its reason.
    const retry = intakeCtx();
    await retry.save({ route: 'change', bySetting: true });
    await handleMessage({ ...d, mentionsModeFor: async () => 'auto' }, p, retry);
    expect(postEphemeral).toHaveBeenLastCalledWith(
      expect.objectContaining({ text: expect.stringContaining('this channel takes every mention as a docs change') }),
    );
    // In auto mode the line keeps the phrasing hint.
    const auto = deps({ started: true });
    await handleMessage(auto.d, { msg: msg({ text: `<@${BOT}> add a quickstart` }), botUserId: BOT }, intakeCtx());
    expect(auto.postEphemeral).toHaveBeenCalledWith(
      expect.objectContaining({ text: expect.stringContaining('start the message with a question word') }),
    );
  });

  it('no line on how to ask when no job started (refused, help)', async () => {
    const { d, postEphemeral } = deps({ started: false });
    const ctx = intakeCtx();
    await handleMessage(d, { msg: msg({ text: `<@${BOT}> add a quickstart` }), botUserId: BOT }, ctx);
    expect(postEphemeral).not.toHaveBeenCalled();
  });
});

describe('a new message in a question channel', () => {
  const ctx = () => intakeCtx({ receivedAt: 7 });
  const plain = (text: string) => ({ msg: msg({ text, viaMention: false, channelType: 'channel' }), botUserId: BOT });

  it('is asked through the ask path (its receipt and the question-channel origin), never a job', async () => {
    const { d, jobs, ask, postEphemeral } = deps();
    const c = ctx();
    await handleQuestionChannelMessage(d, plain('webhooks keep retrying for me'), c);
    expect(ask.handleMessage).toHaveBeenCalledWith(
      expect.objectContaining({ text: 'webhooks keep retrying for me', ts: '5.000001' }),
      BOT,
      c,
      { key: 'j1', receivedAt: 7 },
      { from: 'question-channel' },
    );
    expect(jobs.handleMessage).not.toHaveBeenCalled();
    expect(postEphemeral).not.toHaveBeenCalled();
  });

  it('that reads as a change gets one private line in its thread, once across retries, and no job', async () => {
    const { d, jobs, ask, postEphemeral } = deps();
    const c = ctx();
    await handleQuestionChannelMessage(d, plain('please add a note about SCIM'), c);
    await handleQuestionChannelMessage(d, plain('please add a note about SCIM'), c);
    expect(postEphemeral).toHaveBeenCalledTimes(1);
    expect(postEphemeral).toHaveBeenCalledWith({
      channel: 'C1',
      user: 'U1',
      thread_ts: '5.000001',
      text: expect.stringContaining('reads as a docs change'),
    });
    expect(jobs.handleMessage).not.toHaveBeenCalled();
    expect(ask.handleMessage).not.toHaveBeenCalled();
  });

  it('the hint is told at most once per person per hour, however many change-like messages they post', async () => {
    const { d, postEphemeral } = deps();
    const at = (ts: string, user = 'U1') => ({
      ...plain('please add a note about SCIM'),
      msg: msg({ ts, user, text: 'please add a note about SCIM', viaMention: false, channelType: 'channel' }),
    });
    for (let i = 1; i <= 5; i++) await handleQuestionChannelMessage(d, at(`5.00000${i}`), { ...ctx(), jobId: `j${i}` });
    expect(postEphemeral).toHaveBeenCalledTimes(1);
    await handleQuestionChannelMessage(d, at('6.000001', 'U2'), { ...ctx(), jobId: 'k1' });
    expect(postEphemeral).toHaveBeenCalledTimes(2); // someone else is told
    expect(postEphemeral).toHaveBeenLastCalledWith(expect.objectContaining({ user: 'U2', thread_ts: '6.000001' }));
    // The note lasts an hour (on Redis' clock), then the person may be told again.
    const ttl = await redis.ttl(`${prefix}:ask:told:question-channel-hint:T1:U1`);
    expect(ttl).toBeGreaterThan(3_500);
    expect(ttl).toBeLessThanOrEqual(3_600);
  });

  it('a crash after the note and before the hint loses that hint rather than posting it twice', async () => {
    const { d, postEphemeral } = deps();
    await store.markTold('T1', 'U1', 'question-channel-hint', TOLD_ONCE_S); // the first try's note, then a crash
    await handleQuestionChannelMessage(d, plain('please add a note about SCIM'), ctx()); // the retry
    expect(postEphemeral).not.toHaveBeenCalled();
  });

  it('does nothing while asking the docs is off', async () => {
    const { d, ask, postEphemeral } = deps({ configured: false });
    await handleQuestionChannelMessage(d, plain('how do I log in?'), ctx());
    expect(ask.handleMessage).not.toHaveBeenCalled();
    expect(postEphemeral).not.toHaveBeenCalled();
  });
});
