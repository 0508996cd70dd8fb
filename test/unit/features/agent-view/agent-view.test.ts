import { describe, expect, it } from 'vitest';
import {
  discussionCache,
  RATE_LIMITED_TTL_MS,
  setPrompts,
  type AgentViewDeps,
} from '../../../../src/features/agent-view/handlers.js';
import {
  AGENT_VIEW_DEDUPE_WINDOW_MS,
  AGENT_VIEW_EVENTS_PER_MINUTE,
  appContextChanged,
  messagesTabOpened,
  viewedChannel,
} from '../../../../src/features/agent-view/listeners.js';
import { Quota } from '../../../../src/platform/quota.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';
import {
  latestDiscussionPrompt,
  promptsFor,
  QUESTION_PROMPT,
  STANDING_PROMPTS,
} from '../../../../src/features/agent-view/prompts.js';
import { OPEN_GATE } from '../../../../src/platform/access.js';
import { AgentSurface, type AgentSurfaceClient } from '../../../../src/platform/slack/agent-surface.js';
import { EventNotRecordedError } from '../../../../src/platform/slack/edge.js';
import { arrayLogger } from '../../../helpers/logs.js';

/** An error shaped like @slack/web-api's platform error for Slack error `code`. */
function platformError(code: string, method = 'x'): Error {
  return Object.assign(new Error(`An API error occurred: ${code}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: code },
    slackMethod: method,
  });
}

/** A recording intake; `fail` makes `record` throw like ioredis with Redis down. */
function fakeIntake(fail = false) {
  const records: Array<{ kind: string; id: string; payload: unknown }> = [];
  const options: unknown[] = [];
  return {
    records,
    options,
    record: (kind: { name: string }, id: string, _requestId: string, payload: unknown, opts?: unknown) => {
      if (fail) return Promise.reject(new Error("Stream isn't writeable and enableOfflineQueue options is false"));
      records.push({ kind: kind.name, id, payload });
      options.push(opts);
      return Promise.resolve();
    },
  };
}

const BODY = { team_id: 'T0SANDBOX', event_id: 'Ev1' };

describe('agent view listeners: what they record, and what they refuse', () => {
  it('records the Messages tab opening with the channel being viewed; ignores the Home tab', async () => {
    const intake = fakeIntake();
    const { logger } = arrayLogger();
    const context = { entities: [{ type: 'slack#/types/channel_id', value: 'C0DOCS', team_id: 'T0SANDBOX' }] };
    await messagesTabOpened({ intake, logger })({
      event: { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'messages', context },
      body: BODY,
    } as never);
    await messagesTabOpened({ intake, logger })({
      event: { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'home' },
      body: BODY,
    } as never);
    expect(intake.records).toEqual([
      {
        kind: 'agent-view.prompts',
        id: 'prompts-Ev1',
        payload: { teamId: 'T0SANDBOX', user: 'U0ALICE', channel: 'D0ALICE', viewing: 'C0DOCS' },
      },
    ]);
  });

  it('hostile or malformed app_context_changed: dropped with one warning each, nothing recorded, nothing thrown', async () => {
    const intake = fakeIntake();
    const { logger, lines } = arrayLogger();
    const bad: unknown[] = [
      { type: 'app_context_changed' },
      { type: 'app_context_changed', user: 'U0ALICE', channel: 'C0DOCS', context: {} }, // not the DM
      { type: 'app_context_changed', user: '<!channel>', channel: 'D0ALICE', context: {} },
      { type: 'app_context_changed', user: ['U0ALICE'], channel: 'D0ALICE' },
    ];
    for (const event of bad) await appContextChanged({ intake, logger })({ event, body: BODY } as never);
    await appContextChanged({ intake, logger })({
      event: { type: 'app_context_changed', user: 'U0ALICE', channel: 'D0ALICE', context: {} },
      body: {},
    } as never);
    expect(intake.records).toEqual([]);
    expect(lines.filter((l) => l.msg === 'dropped a malformed agent view event')).toHaveLength(5);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('reads the viewed channel from well-formed entities only (ours, a channel id)', () => {
    expect(
      viewedChannel(
        {
          entities: [
            { type: 'slack#/types/canvas_id', value: 'F1' },
            { type: 'slack#/types/channel_id', value: 'C0DOCS' },
          ],
        },
        'T1',
      ),
    ).toBe('C0DOCS');
    expect(
      viewedChannel(
        { entities: [{ type: 'slack#/types/message_context', value: { message_ts: '1.2', channel_id: 'C0DOCS' } }] },
        'T1',
      ),
    ).toBe('C0DOCS');
    expect(
      viewedChannel({ entities: [{ type: 'slack#/types/channel_id', value: 'C0OTHER', team_id: 'T2' }] }, 'T1'),
    ).toBeUndefined();
    expect(
      viewedChannel(
        { entities: [{ type: 'slack#/types/channel_id', value: 'D0ALICE' }, null, 7, { value: {} }] },
        'T1',
      ),
    ).toBeUndefined();
    expect(viewedChannel({ entities: 'C0DOCS' }, 'T1')).toBeUndefined();
    expect(viewedChannel(null, 'T1')).toBeUndefined();
  });

  it('when Redis will not record the event: EventNotRecordedError (the edge answers 503, so Slack sends it again) and one warning, no error', async () => {
    const { logger, lines } = arrayLogger();
    const event = { type: 'app_context_changed', user: 'U0ALICE', channel: 'D0ALICE', context: {} };
    const err = await appContextChanged({ intake: fakeIntake(true), logger })({
      event,
      body: BODY,
      context: { retryNum: 1 },
    } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EventNotRecordedError);
    expect(err).toMatchObject({
      intakeKind: 'agent-view.prompts',
      cause: { message: expect.stringContaining("Stream isn't writeable") },
    });
    expect(lines.filter((l) => l.level === 40)).toEqual([
      expect.objectContaining({ intake: 'agent-view.prompts', retryNum: 1, err: expect.anything() }),
    ]);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it("on Slack's last retry: still thrown, and the warning does not claim anyone was told (nobody waits on a tab)", async () => {
    const { logger, lines } = arrayLogger();
    const event = { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'messages' };
    await expect(
      messagesTabOpened({ intake: fakeIntake(true), logger })({ event, body: BODY, context: { retryNum: 3 } } as never),
    ).rejects.toBeInstanceOf(EventNotRecordedError);
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ intake: 'agent-view.prompts', retryNum: 3 });
    expect(warnings[0]!.msg).not.toMatch(/told/);
  });
});

/** Handler deps over a scripted Slack; `calls` lists the suggestions set. */
function handlerDeps(slack: Partial<Record<'info' | 'history' | 'permalink' | 'member', () => Promise<unknown>>> = {}) {
  const set: Array<{ channel: string; prompts: Array<{ title: string }> }> = [];
  const { logger, lines } = arrayLogger();
  const deps: AgentViewDeps = {
    slack: {
      conversations: {
        info: (slack.info ?? (() => Promise.resolve({ ok: true, channel: { name: 'docs' } }))) as never,
        history: (slack.history ??
          (() =>
            Promise.resolve({
              ok: true,
              messages: [{ ts: '2.0' }, { ts: '1.0', thread_ts: '1.0', reply_count: 2 }],
            }))) as never,
      },
      chat: {
        getPermalink: (slack.permalink ??
          (() => Promise.resolve({ ok: true, permalink: 'https://x.slack.com/archives/C0DOCS/p1000000' }))) as never,
      },
    },
    conversations: { isMember: (slack.member ?? (() => Promise.resolve(true))) as never },
    agent: { suggestPrompts: (channel, prompts) => Promise.resolve(void set.push({ channel, prompts })) },
    access: OPEN_GATE,
    logger,
  };
  return { deps, set, lines };
}

describe('agent view listeners: bounded work per person', () => {
  const changed = (user: string, eventId: string) =>
    ({
      event: { type: 'app_context_changed', user, channel: `D${user.slice(1)}`, context: {} },
      body: { ...BODY, event_id: eventId },
    }) as never;

  it(`handles ${AGENT_VIEW_EVENTS_PER_MINUTE} events a minute per person (counted in Redis), ignores the rest quietly, and keeps records ${AGENT_VIEW_DEDUPE_WINDOW_MS / 60_000} minutes for deduplication only`, async () => {
    const redis = testRedis();
    const prefix = randomPrefix();
    try {
      const perPerson = new Quota(redis, {
        keyPrefix: `${prefix}:agent-view:events`,
        points: AGENT_VIEW_EVENTS_PER_MINUTE,
        durationS: 60,
      });
      const intake = fakeIntake();
      const { logger, lines } = arrayLogger();
      for (let i = 0; i < 30; i++)
        await appContextChanged({ intake, logger, perPerson })(changed('U0ALICE', `EvA${i}`));
      await appContextChanged({ intake, logger, perPerson })(changed('U0BOB', 'EvB0'));
      expect(intake.records.map((r) => r.id)).toEqual([
        ...Array.from({ length: 10 }, (_, i) => `prompts-EvA${i}`),
        'prompts-EvB0',
      ]);
      expect(intake.options).toEqual(Array(11).fill({ dedupeWindowMs: AGENT_VIEW_DEDUPE_WINDOW_MS }));
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    } finally {
      await dropPrefix(redis, prefix);
      redis.disconnect();
    }
  });

  it('when Redis cannot count: the event is ignored with one warning (acked, nothing recorded, nothing thrown)', async () => {
    const intake = fakeIntake();
    const { logger, lines } = arrayLogger();
    const perPerson = {
      take: () => Promise.reject(new Error("Stream isn't writeable and enableOfflineQueue options is false")),
    };
    await appContextChanged({ intake, logger, perPerson })(changed('U0ALICE', 'Ev1'));
    expect(intake.records).toEqual([]);
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'could not count agent view events; ignored this one',
    ]);
  });
});

describe('agent view suggestions: the latest-discussion offer and Slack failures', () => {
  const p = { teamId: 'T1', user: 'U0ALICE', channel: 'D0ALICE', viewing: 'C0DOCS' };

  it('offers the newest thread of the viewed channel first, then the standing prompts (4 at most)', async () => {
    const h = handlerDeps();
    await setPrompts(h.deps, p);
    expect(h.set[0]?.prompts.map((x) => x.title)).toEqual([
      'Document the latest discussion in #docs',
      ...STANDING_PROMPTS.map((x) => x.title),
    ]);
  });

  it('with asking on, a question comes after the offer and before the standing prompts, 4 at most', async () => {
    const h = handlerDeps();
    await setPrompts({ ...h.deps, askEnabled: true }, p);
    const titles = [
      'Document the latest discussion in #docs',
      QUESTION_PROMPT.title,
      ...STANDING_PROMPTS.slice(0, 2).map((x) => x.title),
    ];
    expect(h.set[0]?.prompts.map((x) => x.title)).toEqual(titles);
    await setPrompts({ ...h.deps, askEnabled: true }, { ...p, viewing: undefined } as never);
    expect(h.set[1]?.prompts).toEqual([QUESTION_PROMPT, ...STANDING_PROMPTS]);
  });

  it('no offer when the person is not a member, the channel has no thread, or the access gate says no', async () => {
    const notMember = handlerDeps({ member: () => Promise.resolve(false) });
    await setPrompts(notMember.deps, p);
    const noThread = handlerDeps({ history: () => Promise.resolve({ ok: true, messages: [{ ts: '2.0' }] }) });
    await setPrompts(noThread.deps, p);
    const refused = handlerDeps();
    refused.deps.access = {
      authorize: () => Promise.resolve({ allowed: false, reason: 'channel_not_allowed', text: 'no' }),
    } as never;
    await setPrompts(refused.deps, p);
    for (const h of [notMember, noThread, refused]) expect(h.set[0]?.prompts).toEqual(STANDING_PROMPTS);
  });

  it("a channel's latest discussion is read once a minute, whoever views it and however often (Slack reads stay bounded)", async () => {
    let reads = 0;
    const h = handlerDeps({
      history: () => (
        reads++,
        Promise.resolve({ ok: true, messages: [{ ts: '1.0', thread_ts: '1.0', reply_count: 2 }] })
      ),
    });
    h.deps.discussions = discussionCache();
    for (let i = 0; i < 20; i++) await setPrompts(h.deps, { ...p, user: i % 2 ? 'U0ALICE' : 'U0BOB' });
    expect(reads).toBe(1);
    expect(h.set).toHaveLength(20);
    expect(h.set.every((x) => x.prompts[0]?.title === 'Document the latest discussion in #docs')).toBe(true);
  });

  it("Slack's refusals are kept too: a channel the bot isn't in is read once a minute, not on every flip; a 429 is no offer, not retried, not read for 30 s", async () => {
    let reads = 0;
    const notIn = handlerDeps({
      history: () => (reads++, Promise.reject(platformError('not_in_channel', 'conversations.history'))),
    });
    notIn.deps.discussions = discussionCache();
    for (let i = 0; i < 5; i++) await setPrompts(notIn.deps, p);
    expect(reads).toBe(1);
    expect(notIn.set.every((x) => x.prompts[0]?.title === STANDING_PROMPTS[0]?.title)).toBe(true);
    const rateLimited = Object.assign(
      new Error('A rate-limit has been reached, you may retry this request in 20 seconds'),
      { code: 'slack_webapi_rate_limited_error', retryAfter: 20 },
    );
    let limited = 0;
    const busy = handlerDeps({ history: () => (limited++, Promise.reject(rateLimited)) });
    busy.deps.discussions = discussionCache();
    for (let i = 0; i < 5; i++) await setPrompts(busy.deps, p);
    expect(limited).toBe(1);
    expect(busy.set).toHaveLength(5);
    expect(busy.deps.discussions.getRemainingTTL('C0DOCS')).toBeLessThanOrEqual(RATE_LIMITED_TTL_MS);
  });

  it('a channel the bot cannot read (Slack: not_in_channel) is no offer; a transient Slack error throws so the intake retries', async () => {
    const unreadable = handlerDeps({ history: () => Promise.reject(platformError('not_in_channel')) });
    await setPrompts(unreadable.deps, p);
    expect(unreadable.set[0]?.prompts).toEqual(STANDING_PROMPTS);
    const down = handlerDeps({ history: () => Promise.reject(platformError('internal_error')) });
    await expect(setPrompts(down.deps, p)).rejects.toThrow(/internal_error/);
    expect(down.set).toEqual([]);
  });
});

describe('AgentSurface: best effort, one warning per refused method per process', () => {
  function surface(fail: (method: string, args: { channel_id?: string }) => Error | undefined) {
    const calls: string[] = [];
    const call = (method: string) => (args: { channel_id?: string }) => {
      calls.push(method);
      const err = fail(method, args);
      return err ? Promise.reject(err) : Promise.resolve({ ok: true, args });
    };
    const slack = {
      assistant: {
        threads: {
          setStatus: call('assistant.threads.setStatus'),
          setSuggestedPrompts: call('assistant.threads.setSuggestedPrompts'),
        },
      },
      agents: { sessions: { setStatus: call('agents.sessions.setStatus') } },
    } as unknown as AgentSurfaceClient;
    const { logger, lines } = arrayLogger();
    return { s: new AgentSurface({ slack, logger }), calls, lines };
  }
  const at = { channel: 'D0ALICE', threadTs: '1.0' };

  it.each(['unknown_method', 'missing_scope', 'not_allowed_token_type'])(
    'an app-wide refusal (%s): one warning, never called again; the caller never sees an error',
    async (code) => {
      const h = surface(() => platformError(code));
      for (let i = 0; i < 3; i++) {
        await h.s.session(at, 'processing', { title: 'x' });
        await h.s.loading(at, 'is reading the thread…');
        await h.s.suggestPrompts('D0ALICE', [...STANDING_PROMPTS]);
      }
      expect(h.calls).toEqual([
        'agents.sessions.setStatus',
        'assistant.threads.setStatus',
        'assistant.threads.setSuggestedPrompts',
      ]);
      expect(h.lines.filter((l) => l.level === 40).map((l) => l.slackMethod)).toEqual(h.calls);
      expect(h.lines.filter((l) => l.level >= 50)).toEqual([]);
    },
  );

  it.each(['method_not_supported_for_channel_type', 'access_denied', 'no_permission', 'not_allowed'])(
    'a refusal that can be about one channel (%s) fails that call only: other channels keep their sessions, loading lines and prompts',
    async (code) => {
      const refusing = 'C0LEADS';
      const h = surface((_method, args) => (args.channel_id === refusing ? platformError(code) : undefined));
      for (const channel of [refusing, 'D0ALICE', refusing, 'D0ALICE']) {
        await h.s.session({ channel, threadTs: '1.0' }, 'processing', { title: 'x' });
        await h.s.loading({ channel, threadTs: '1.0' }, 'is reading the thread…');
        await h.s.suggestPrompts(channel, [...STANDING_PROMPTS]);
      }
      expect(h.calls).toHaveLength(12); // nothing switched off: every call was made
      for (const m of [
        'agents.sessions.setStatus',
        'assistant.threads.setStatus',
        'assistant.threads.setSuggestedPrompts',
      ] as const)
        expect(h.s.isRefused(m)).toBe(false);
      // One warning per (method, error) in the process, the repeats at debug.
      expect(h.lines.filter((l) => l.level === 40).map((l) => l.slackMethod)).toEqual([
        'agents.sessions.setStatus',
        'assistant.threads.setStatus',
        'assistant.threads.setSuggestedPrompts',
      ]);
      expect(h.lines.filter((l) => l.level === 40).every((l) => l.slackError === code)).toBe(true);
    },
  );

  it('a refusal about one call (a bad thread_ts, a channel the method does not take) is a warning for that call only: DMs keep their loading lines', async () => {
    let code = 'invalid_thread_ts';
    const h = surface(() => (code ? platformError(code) : undefined));
    await h.s.loading({ channel: 'C0DOCS', threadTs: '1.0' }, 'is reading the thread…');
    code = '';
    await h.s.loading(at, 'is reading the thread…');
    expect(h.calls).toEqual(['assistant.threads.setStatus', 'assistant.threads.setStatus']);
    expect(h.s.isRefused('assistant.threads.setStatus')).toBe(false);
    expect(h.lines.filter((l) => l.level === 40)).toHaveLength(1);
  });

  it('a gone thread is a debug line and a transient failure a warning; both keep calling', async () => {
    let code = 'thread_not_found';
    const h = surface(() => platformError(code));
    await h.s.session(at, 'active');
    code = 'ratelimited';
    await h.s.session(at, 'active');
    await h.s.session(at, 'closed');
    expect(h.calls).toHaveLength(3);
    expect(h.lines.filter((l) => l.level === 20 && l.msg.includes('gone'))).toHaveLength(1);
    expect(h.lines.filter((l) => l.level === 40)).toHaveLength(2);
  });

  it("the tab's order, cut at Slack's four: the channel's offer, the question, the standing ones; with both, the last standing one is left out (docs/using.md)", () => {
    const offer = latestDiscussionPrompt('docs', 'https://sandbox.slack.com/archives/C0DOCS/p1');
    const titles = (p: readonly { title: string }[]) => p.map((x) => x.title);
    const standing = titles(STANDING_PROMPTS);
    expect(standing).toEqual(['Fix typos and broken links', 'Make the quickstart clearer', 'Add missing API examples']);
    expect(titles(promptsFor(undefined))).toEqual(standing);
    expect(titles(promptsFor(offer))).toEqual([offer.title, ...standing]);
    expect(titles(promptsFor(undefined, true))).toEqual([QUESTION_PROMPT.title, ...standing]);
    expect(titles(promptsFor(offer, true))).toEqual([
      'Document the latest discussion in #docs',
      'Ask the docs a question',
      'Fix typos and broken links',
      'Make the quickstart clearer',
    ]);
  });

  it('cuts a session title to 200 characters and sends at most 4 prompts (Slack limits)', async () => {
    const sent: Array<Record<string, unknown>> = [];
    const slack = {
      assistant: {
        threads: {
          setStatus: () => Promise.resolve({ ok: true }),
          setSuggestedPrompts: (a: Record<string, unknown>) => Promise.resolve(void sent.push(a)),
        },
      },
      agents: { sessions: { setStatus: (a: Record<string, unknown>) => Promise.resolve(void sent.push(a)) } },
    } as unknown as AgentSurfaceClient;
    const s = new AgentSurface({ slack, logger: arrayLogger().logger });
    await s.session(at, 'processing', { title: 'x'.repeat(500), initiator: 'U0ALICE' });
    await s.suggestPrompts(
      'D0ALICE',
      Array.from({ length: 6 }, (_, i) => ({ title: `t${i}`, message: `m${i}` })),
    );
    expect((sent[0]?.title as string).length).toBe(200);
    expect(sent[0]).toMatchObject({
      channel_id: 'D0ALICE',
      thread_ts: '1.0',
      status: 'processing',
      initiator_user_id: 'U0ALICE',
    });
    expect(sent[1]?.prompts).toHaveLength(4);
    expect(sent[1]).not.toHaveProperty('thread_ts');
  });
});
