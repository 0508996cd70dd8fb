import { WebClient } from '@slack/web-api';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeSlack } from '../../../../sandbox/fake-slack.js';
import { handleIncomingMessage, type IncomingMessage } from '../../../../src/features/agent-jobs/messages.js';
import { AskBudget } from '../../../../src/features/ask/admission.js';
import { askQuestion, type AskDeps } from '../../../../src/features/ask/handlers.js';
import { AskStore } from '../../../../src/features/ask/store.js';
import { OPEN_GATE, type AccessGate } from '../../../../src/platform/access.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { markupToText } from '../../../../src/platform/slack/markup.js';
import { memorySteps } from '../../../../src/platform/steps.js';
import { UserNames } from '../../../../src/platform/slack/user-names.js';
import { testRedis } from '../../../helpers/redis.js';
import { useFakeSlackOnRedis } from '../../../helpers/fakes-on-redis.js';

/*
 * Who may ask, and the budget, come before any Slack read: a person refused by the access policy
 * or out of budget costs no users.info (names of the people their message mentions) and no
 * conversations.replies (the thread it was sent in), for a question and for a job start alike.
 * Checked on the fake Slack's call log.
 */

const TOKEN = 'xoxb-admission';
const redis = testRedis();
const logger = createLogger('silent');
let slack: FakeSlack;
let web: WebClient;
let prefix: string;
const TEXT = '<@U0DOCSBOT> how do <@U0BOB> and <@U0CAROL> rotate a key?';
const reads = () => slack.calls.filter((c) => c.method === 'users.info' || c.method === 'conversations.replies');

useFakeSlackOnRedis({ token: TOKEN, redis }, (s) => ({ slack, web, prefix } = s));
beforeEach(() => {
  slack.calls.length = 0;
});

const refusedBy = (text: string): AccessGate => ({
  ...OPEN_GATE,
  authorize: async () => ({ allowed: false, reason: 'guest', text }),
});

describe('a question: access and budget before the question is read', () => {
  function ask(access: AccessGate, perUser: number, told: string[]) {
    const names = new UserNames(web, { logger });
    const deps = {
      configured: true,
      access,
      budget: new AskBudget(redis, prefix, { perUser, perWorkspace: 1000 }),
      store: new AskStore(redis, prefix),
      slack: web,
      logger,
      now: Date.now,
      answers: { add: vi.fn(async () => undefined) },
    } as unknown as AskDeps;
    const req = {
      teamId: 'T0SANDBOX',
      channel: 'C0DOCS',
      user: 'U0ALICE',
      question: () => markupToText(TEXT, 'U0DOCSBOT', names.lookup('T0SANDBOX')),
      threadTs: '1700000000.000100',
      key: `k-${prefix}-${told.length}`,
      receivedAt: Date.now(),
    };
    return askQuestion(deps, req, memorySteps(), {
      to: { user: 'U0ALICE', channel: 'C0DOCS' },
      tell: async (t) => void told.push(t),
    }).then(() => deps);
  }

  it('refused by the access policy: told, no users.info', async () => {
    const told: string[] = [];
    await ask(refusedBy("Guests can't ask the docs here."), 30, told);
    expect(told).toEqual(["Guests can't ask the docs here."]);
    expect(reads()).toEqual([]);
  });

  it('out of budget: told when the next slot frees, no users.info; admitted, the names are read', async () => {
    const told: string[] = [];
    const first = await ask(OPEN_GATE, 1, told);
    expect(first.answers.add).toHaveBeenCalledWith(
      'answer',
      expect.objectContaining({ q: expect.objectContaining({ question: 'how do @bob and @carol rotate a key?' }) }),
      expect.anything(),
    );
    const lookups = reads().length;
    expect(lookups).toBeGreaterThan(0);
    slack.calls.length = 0;
    await ask(OPEN_GATE, 1, told);
    expect(told.at(-1)).toMatch(/^You've asked the docs 1 times this hour/);
    expect(reads()).toEqual([]);
  });
});

describe('a job start from a mention: access and the agent budget before the text or the thread is read', () => {
  async function mention(access: AccessGate) {
    const postEphemeral = vi.fn(async (_a: { text: string }) => ({ ok: true }));
    const startWith = vi.fn();
    const deps = {
      store: { findByThread: async () => undefined },
      followups: { run: vi.fn() },
      start: { access, projectFor: async () => 'proj', projects: ['proj'], logger },
      context: startWith,
      slack: { chat: { postEphemeral } },
      names: new UserNames(web, { logger }),
      logger,
      now: Date.now,
      ignorePrefix: '!aside',
    };
    const msg: IncomingMessage = {
      teamId: 'T0SANDBOX',
      channel: 'C0DOCS',
      user: 'U0ALICE',
      ts: '1700000001.000100',
      thread_ts: '1700000000.000100',
      text: '<@U0DOCSBOT> add what <@U0BOB> and <@U0CAROL> said about key rotation',
      viaMention: true,
    };
    const steps = memorySteps();
    const res = await handleIncomingMessage(deps as never, msg, 'U0DOCSBOT', steps, { key: 'k', receivedAt: 0 });
    return { res, told: postEphemeral.mock.calls.map((c) => c[0].text), startWith, steps };
  }

  it('refused by the access policy: told once, no users.info, no thread read', async () => {
    const { res, told, startWith } = await mention(refusedBy("Guests can't start docs jobs here."));
    expect(res.started).toBe(false);
    expect(told).toEqual(["Guests can't start docs jobs here."]);
    expect(startWith).not.toHaveBeenCalled();
    expect(reads()).toEqual([]);
  });

  it('out of agent budget: told when it frees, no users.info, no thread read', async () => {
    const text = "You've started 10 docs jobs this hour, the most one person may. Next free slot: 10:00.";
    const admitAgentCall = vi.fn(async () => ({ allowed: false as const, reason: 'user_budget' as const, text }));
    const { res, told, startWith } = await mention({ ...OPEN_GATE, admitAgentCall });
    expect(res.started).toBe(false);
    expect(told).toEqual([text]);
    expect(admitAgentCall).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ project: 'proj' }));
    expect(startWith).not.toHaveBeenCalled();
    expect(reads()).toEqual([]);
  });
});
