import { OPEN_GATE, promptTooLongText, type AccessGate } from '../../src/platform/access.js';
import { describe, expect, it, vi } from 'vitest';
import {
  appHomeOpenedEvent,
  docsEditCommand,
  docsReplyCommand,
  DOCS_EDIT_USAGE,
  DOCS_REPLY_USAGE,
  HOME_DEDUPE_WINDOW_MS,
  HOME_OPENS_PER_MINUTE,
  restartAction,
} from '../../src/features/agent-jobs/listeners.js';
import { Quota } from '../../src/platform/quota.js';
import { dropPrefix, randomPrefix, testRedis } from '../helpers/redis.js';
import { MESSAGE_DEDUPE_WINDOW_MS, messageEvent } from '../../src/features/conversations/listeners.js';
import { digestRetryAction, improveSubmission } from '../../src/features/reports/digests/listeners.js';
import { IMPROVE_CALLBACK_ID, IMPROVE_MODAL_PURPOSE } from '../../src/features/reports/digests/improve-modal.js';
import { INSTRUCTION_ACTION, INSTRUCTION_BLOCK } from '../../src/features/agent-jobs/index.js';
import { MODAL_CALLBACK_ID, THREAD_REF_PURPOSE } from '../../src/features/document-thread/blocks.js';
import {
  documentThreadShortcut,
  documentThreadSubmission,
  FORM_UNVERIFIED_TEXT,
} from '../../src/features/document-thread/listeners.js';
import { docsVisitorsCommand } from '../../src/features/reports/command.js';
import { BUSY_TEXT, EventNotRecordedError, UNSURE_TEXT } from '../../src/platform/slack/edge.js';
import { arrayLogger } from '../helpers/logs.js';
import { RecordUnconfirmedError } from '../../src/platform/intake.js';
import { TEST_SIGNER } from '../helpers/signer.js';
import { MembersUnknownError } from '../../src/platform/slack/conversations.js';
import { MEMBERSHIP_BUSY_TEXT, NOT_A_MEMBER_TEXT } from '../../src/platform/slack/member-check.js';
import { plainTextOf } from '../../src/platform/slack/markup.js';
import { withRequestContext } from '../../src/platform/request-context.js';

/**
 * The features' listeners in isolation, with a fake `ack`, a fake intake and a fake client: each
 * input check and each Redis failure in milliseconds. (The same listeners behind the real receiver
 * and Bolt: test/unit/platform/slack/slack-edge.test.ts; the flows: test/e2e.)
 */

interface LogLine {
  level: number;
  msg: string;
}

/** Members of each channel (C0HUGE: membership can't be read just now). */
const MEMBERS: Record<string, string[]> = { C0DOCS: ['U0ALICE', 'U0BOB'], C0LEADS: ['U0ADMIN'] };
const isMember = async (channel: string, user: string) => {
  if (channel === 'C0HUGE') throw new MembersUnknownError(channel, 'busy');
  return (MEMBERS[channel] ?? []).includes(user);
};

function harness(
  opts: { recordFails?: boolean; access?: AccessGate; threadOwner?: string; lookupFails?: boolean } = {},
) {
  const { logger, lines: logs } = arrayLogger<LogLine>('info');
  const record = vi.fn(
    async (_kind: { name: string }, _id: string, _requestId: string, _payload: unknown, _opts?: unknown) => {
      if (opts.recordFails) throw Object.assign(new Error('Connection is closed.'), { name: 'Error' });
    },
  );
  const postEphemeral = vi.fn(async (_args: unknown) => ({ ok: true }));
  const ack = vi.fn(async (_response?: unknown) => undefined);
  const findByThread = vi.fn(async (_channel: string, _ts: string, _user: string) => {
    if (opts.lookupFails) throw Object.assign(new Error('Connection is closed.'), { name: 'Error' });
    return 'threadOwner' in opts ? opts.threadOwner : 'job_1';
  });
  const threads = { findByThread };
  const conversations = { isMember: vi.fn(isMember) };
  return {
    deps: {
      intake: { record },
      slack: { chat: { postEphemeral }, views: { open: vi.fn() } },
      logger,
      access: opts.access ?? OPEN_GATE,
      conversations,
      signer: TEST_SIGNER,
      promptMaxChars: 12_000,
      threads,
    } as never,
    conversations,
    record,
    findByThread,
    postEphemeral,
    ack,
    logs,
    warnings: () => logs.filter((l) => l.level === 40).map((l) => l.msg),
    errors: () => logs.filter((l) => l.level >= 50),
  };
}

const command = (text: string, extra: Record<string, unknown> = {}) => ({
  command: '/docs-edit',
  text,
  user_id: 'U0ALICE',
  channel_id: 'C0DOCS',
  team_id: 'T0SANDBOX',
  trigger_id: 'trig-1',
  response_url: 'http://127.0.0.1:9/response',
  ...extra,
});

describe('agent-jobs listeners', () => {
  it.each(['', '   ', '\n\t'])(
    '/docs-edit with no instruction (%j): the usage in the ack, nothing recorded',
    async (text) => {
      const h = harness();
      await docsEditCommand(h.deps)({ command: command(text), ack: h.ack } as never);
      expect(h.ack).toHaveBeenCalledExactlyOnceWith({ response_type: 'ephemeral', text: DOCS_EDIT_USAGE });
      expect(h.record).not.toHaveBeenCalled();
    },
  );

  it('/docs-edit: recorded with an id from the trigger_id, Slack’s escaping undone, then an empty ack', async () => {
    const h = harness();
    await docsEditCommand(h.deps)({ command: command(' Add a &lt;Tabs&gt; example '), ack: h.ack } as never);
    expect(h.record).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ name: 'agent-jobs.start' }),
      'cmd-trig-1',
      'trig-1',
      expect.objectContaining({ instruction: 'Add a <Tabs> example', channel: 'C0DOCS', requester: 'U0ALICE' }),
    );
    expect(h.ack).toHaveBeenCalledExactlyOnceWith();
    expect(h.record.mock.invocationCallOrder[0]!).toBeLessThan(h.ack.mock.invocationCallOrder[0]!);
  });

  it('/docs-edit when Redis will not take the record: the ack says to try again, one warning, no error', async () => {
    const h = harness({ recordFails: true });
    await docsEditCommand(h.deps)({ command: command('Add a quickstart'), ack: h.ack } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({ response_type: 'ephemeral', text: BUSY_TEXT });
    expect(h.warnings()).toEqual(['could not record a request; told the person to try again']);
    expect(h.errors()).toEqual([]);
  });

  it.each([
    ['timed out (Redis took it, did not answer)', new Error('Command timed out')],
    [
      'was written but no WAIT could confirm it (a failover)',
      new RecordUnconfirmedError('agent-jobs.start', 'Connection is closed.'),
    ],
  ])("/docs-edit whose record %s: the ack says it can't tell, not that nothing was taken", async (_why, err) => {
    const h = harness();
    h.record.mockRejectedValueOnce(err);
    await docsEditCommand(h.deps)({ command: command('Add a quickstart'), ack: h.ack } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({ response_type: 'ephemeral', text: UNSURE_TEXT });
    expect(UNSURE_TEXT).toMatch(/can't tell whether I took it/);
  });

  it.each(['', 'job_1', '   job_1   '])('/docs-reply %j: the usage, nothing recorded', async (text) => {
    const h = harness();
    await docsReplyCommand(h.deps)({
      command: command(text, { command: '/docs-reply' }),
      ack: h.ack,
      context: {},
    } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({ response_type: 'ephemeral', text: DOCS_REPLY_USAGE });
    expect(h.record).not.toHaveBeenCalled();
  });

  it('/docs-reply with an instruction over AGENT_PROMPT_MAX_CHARS: refused in the ack like /docs-edit, nothing recorded', async () => {
    const h = harness();
    const long = 'x'.repeat(12_001);
    await docsReplyCommand(h.deps)({
      command: command(`job_1 ${long}`, { command: '/docs-reply' }),
      ack: h.ack,
      context: {},
    } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({
      response_type: 'ephemeral',
      text: promptTooLongText(12_001, 12_000),
    });
    expect(h.record).not.toHaveBeenCalled();
    await docsReplyCommand(h.deps)({
      command: command(`job_1 ${'x'.repeat(12_000)}`, { command: '/docs-reply' }),
      ack: h.ack,
      context: {},
    } as never);
    expect(h.record).toHaveBeenCalledOnce();
  });

  it(`App Home: ${HOME_OPENS_PER_MINUTE} opens a minute per person (counted in Redis), the rest ignored quietly; records kept ${HOME_DEDUPE_WINDOW_MS / 60_000} minutes for deduplication only`, async () => {
    const redis = testRedis();
    const prefix = randomPrefix();
    try {
      const h = harness();
      const homeOpens = new Quota(redis, {
        keyPrefix: `${prefix}:agent-jobs:home-opens`,
        points: HOME_OPENS_PER_MINUTE,
        durationS: 60,
      });
      const deps = { ...(h.deps as object), homeOpens } as never;
      const opened = (user: string, id: string) =>
        ({
          event: { type: 'app_home_opened', user, tab: 'home' },
          body: { team_id: 'T0SANDBOX', event_id: id },
          context: {},
        }) as never;
      for (let i = 0; i < 25; i++) await appHomeOpenedEvent(deps)(opened('U0ALICE', `EvA${i}`));
      await appHomeOpenedEvent(deps)(opened('U0BOB', 'EvB0'));
      expect(h.record.mock.calls.map((c) => c[1])).toEqual([
        ...Array.from({ length: 10 }, (_, i) => `home-EvA${i}`),
        'home-EvB0',
      ]);
      expect(h.record.mock.calls.map((c) => c[4])).toEqual(Array(11).fill({ dedupeWindowMs: HOME_DEDUPE_WINDOW_MS }));
      expect(h.warnings()).toEqual([]);
    } finally {
      await dropPrefix(redis, prefix);
      redis.disconnect();
    }
  });

  it('App Home when Redis cannot count the opens: this open is ignored (the tab shows what it showed), one warn line, no throw', async () => {
    const h = harness();
    const homeOpens = { take: vi.fn(async () => Promise.reject(new Error('Connection is closed.'))) };
    const deps = { ...(h.deps as object), homeOpens } as never;
    await appHomeOpenedEvent(deps)({
      event: { type: 'app_home_opened', user: 'U0ALICE', tab: 'home' },
      body: { team_id: 'T0SANDBOX', event_id: 'Ev3' },
      context: {},
    } as never);
    expect(h.record).not.toHaveBeenCalled();
    expect(h.warnings()).toEqual(['could not count Home tab opens; ignored this one']);
  });

  it('/docs-reply when Redis fails: the busy answer', async () => {
    const h = harness({ recordFails: true });
    await docsReplyCommand(h.deps)({
      command: command('job_1 more', { command: '/docs-reply' }),
      ack: h.ack,
      context: {},
    } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({ response_type: 'ephemeral', text: BUSY_TEXT });
  });

  const event = (e: Record<string, unknown>) => ({
    event: { type: 'message', channel: 'C0DOCS', user: 'U0ALICE', ts: '1700000001.000100', ...e },
    body: { team_id: 'T0SANDBOX', event_id: 'Ev1' },
    context: { botUserId: 'U0DOCSBOT' },
  });

  it('channel chatter (no thread, no mention, not a DM) is dropped without a Redis write', async () => {
    const h = harness();
    await messageEvent(h.deps)(event({ text: 'lunch?' }) as never);
    expect(h.record).not.toHaveBeenCalled();
  });

  it.each([
    { bot_id: 'B1', thread_ts: '1700000000.000100', text: 'x' },
    { subtype: 'message_changed', thread_ts: '1700000000.000100', text: 'x' },
    { thread_ts: '1700000000.000100' },
  ])('bots, edits and messages without text are ignored (%o)', async (e) => {
    const h = harness();
    await messageEvent(h.deps)(event(e) as never);
    expect(h.record).not.toHaveBeenCalled();
  });

  it('a thread reply is recorded once per (channel, ts), whatever the event id', async () => {
    const h = harness();
    await messageEvent(h.deps)(event({ thread_ts: '1700000000.000100', text: 'also add Go' }) as never);
    expect(h.record).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ name: 'agent-jobs.message' }),
      'msg-C0DOCS-1700000001.000100',
      'Ev1',
      expect.anything(),
      { dedupeWindowMs: MESSAGE_DEDUPE_WINDOW_MS },
    );
    expect(h.findByThread).toHaveBeenCalledExactlyOnceWith('C0DOCS', '1700000000.000100', 'U0ALICE');
  });

  it.each([{ channel_type: 'channel' }, { channel_type: 'im' }])(
    "a reply in a thread that is no job's, mentioning no one (%o): one lookup, nothing recorded",
    async (e) => {
      const h = harness({ threadOwner: undefined });
      await messageEvent(h.deps)(event({ ...e, thread_ts: '1700000000.000100', text: 'x'.repeat(40_000) }) as never);
      expect(h.findByThread).toHaveBeenCalledExactlyOnceWith('C0DOCS', '1700000000.000100', 'U0ALICE');
      expect(h.record).not.toHaveBeenCalled();
    },
  );

  it("a mention in a thread that is no job's is recorded without a lookup; a top-level DM too", async () => {
    const h = harness({ threadOwner: undefined });
    await messageEvent(h.deps)(event({ thread_ts: '1700000000.000100', text: '<@U0DOCSBOT> document this' }) as never);
    await messageEvent(h.deps)(
      event({ channel_type: 'im', ts: '1700000003.000100', text: 'add a quickstart' }) as never,
    );
    expect(h.findByThread).not.toHaveBeenCalled();
    expect(h.record.mock.calls.map((c) => c[1])).toEqual([
      'msg-C0DOCS-1700000001.000100',
      'msg-C0DOCS-1700000003.000100',
    ]);
  });

  it('the recorded text is cut to AGENT_PROMPT_MAX_CHARS, with its length as typed', async () => {
    const h = harness();
    await messageEvent(h.deps)(event({ thread_ts: '1700000000.000100', text: 'y'.repeat(100_000) }) as never);
    const payload = h.record.mock.calls[0]![3] as { msg: { text: string; textChars?: number } };
    expect(payload.msg.text).toHaveLength(12_000);
    expect(payload.msg.textChars).toBe(100_000);
  });

  it("OAuth mode: a Slack Connect message is keyed to the installation's workspace, not the body's team_id", async () => {
    // The body's team_id is the shared channel's other workspace (slackapi/bolt-js#687); the request
    // context holds the installation Bolt's authorize found (installationContext).
    const h = harness();
    const dm = { channel_type: 'im', text: 'add a quickstart' };
    const inst = { requestId: 'Ev1', teamId: 'T0A', enterpriseInstall: false };
    await withRequestContext(inst, () => messageEvent(h.deps)(event(dm) as never));
    await messageEvent(h.deps)(event({ ...dm, ts: '1700000004.000100' }) as never); // single-token mode
    const teams = h.record.mock.calls.map((c) => (c[3] as { msg: { teamId: string } }).msg.teamId);
    expect(teams).toEqual(['T0A', 'T0SANDBOX']);
  });

  it('a thread reply when the thread index cannot be read: thrown (not acked, Slack redelivers it), nothing recorded', async () => {
    const h = harness({ lookupFails: true });
    await expect(
      messageEvent(h.deps)(event({ thread_ts: '1700000000.000100', text: 'also add Go' }) as never),
    ).rejects.toBeInstanceOf(EventNotRecordedError);
    expect(h.record).not.toHaveBeenCalled();
    expect(h.warnings()).toEqual(['could not record an event; not acked, so Slack redelivers it']);
  });

  it("a thread reply when Redis fails: thrown (the edge does not ack, so Slack redelivers it); the person is told only on Slack's last retry", async () => {
    const h = harness({ recordFails: true });
    await expect(
      messageEvent(h.deps)(event({ thread_ts: '1700000000.000100', text: 'also add Go' }) as never),
    ).rejects.toBeInstanceOf(EventNotRecordedError);
    expect(h.postEphemeral).not.toHaveBeenCalled();
    const last = {
      ...event({ thread_ts: '1700000000.000100', text: 'also add Go' }),
      context: { botUserId: 'U0DOCSBOT', retryNum: 3 },
    };
    await expect(messageEvent(h.deps)(last as never)).rejects.toBeInstanceOf(EventNotRecordedError);
    expect(h.postEphemeral).toHaveBeenCalledExactlyOnceWith({
      channel: 'C0DOCS',
      user: 'U0ALICE',
      thread_ts: '1700000000.000100',
      text: BUSY_TEXT,
    });
    expect(h.errors()).toEqual([]);
  });

  it('App Home when Redis fails: thrown, so Slack redelivers it (the tab shows what it showed before)', async () => {
    const h = harness({ recordFails: true });
    await expect(
      appHomeOpenedEvent(h.deps)({
        event: { type: 'app_home_opened', user: 'U0ALICE', tab: 'home' },
        body: { team_id: 'T0SANDBOX', event_id: 'Ev2' },
        context: {},
      } as never),
    ).rejects.toBeInstanceOf(EventNotRecordedError);
    expect(h.warnings()).toEqual(['could not record an event; not acked, so Slack redelivers it']);
  });

  it('"Start it again" when Redis fails: acked, and told through the response_url (which here fails too: still no throw)', async () => {
    const h = harness({ recordFails: true });
    const body = { user: { id: 'U0ALICE' }, channel: { id: 'C0DOCS' }, response_url: 'http://127.0.0.1:9/response' };
    await restartAction(h.deps)({ ack: h.ack, body, action: { value: 'r1', action_ts: '1700000002.000200' } } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith();
    // The failed response_url is logged too, not swallowed.
    expect(h.warnings()).toEqual([
      'could not record a click; told the person to try again',
      'could not tell the person to try again',
    ]);
    expect(h.errors()).toEqual([]);
  });
});

/** A stand-in for digests' subcommands: the command's own checks are what these tests are about. */
const SUBCOMMANDS = {
  names: ['subscribe'],
  helpLines: [],
  examples: [],
  prepare: () => ({ ok: false as const, message: 'no' }),
  actionOf: () => 'manage_digests' as const,
};

describe('visitors and digests listeners', () => {
  it('/docs-visitors with a mistake: the problem in the ack, nothing recorded', async () => {
    const h = harness();
    await docsVisitorsCommand({ ...(h.deps as object), subcommands: SUBCOMMANDS } as never)({
      command: command('2026-13-45', { command: '/docs-visitors' }),
      ack: h.ack,
    } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({
      response_type: 'ephemeral',
      text: expect.stringContaining('2026-13-45'),
    });
    expect(h.record).not.toHaveBeenCalled();
  });

  it('/docs-visitors when Redis fails: the busy answer', async () => {
    const h = harness({ recordFails: true });
    await docsVisitorsCommand({ ...(h.deps as object), subcommands: SUBCOMMANDS } as never)({
      command: command('7d', { command: '/docs-visitors' }),
      ack: h.ack,
    } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({ response_type: 'ephemeral', text: BUSY_TEXT });
  });

  const improveMeta = (c: string) =>
    TEST_SIGNER.sign(IMPROVE_MODAL_PURPOSE, JSON.stringify({ c, t: '1700000000.000100', p: '/quickstart' }));
  const submission = (value: string | null, privateMetadata = improveMeta('C0DOCS')) => {
    const view = {
      id: 'V1',
      hash: 'h',
      callback_id: IMPROVE_CALLBACK_ID,
      private_metadata: privateMetadata,
      state: { values: { [INSTRUCTION_BLOCK]: { [INSTRUCTION_ACTION]: { type: 'plain_text_input', value } } } },
    };
    // Slack's view_submission body carries the view too.
    return { body: { user: { id: 'U0ALICE' }, team: { id: 'T0SANDBOX' }, trigger_id: 'trig-9', view }, view };
  };

  it('Improve with agent, blank: the modal stays open with an error on the field', async () => {
    const h = harness();
    await improveSubmission(h.deps)({ ack: h.ack, ...submission('  ') } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({
      response_action: 'errors',
      errors: { [INSTRUCTION_BLOCK]: 'Tell the agent what to change.' },
    });
    expect(h.record).not.toHaveBeenCalled();
  });

  it('Improve with agent, metadata the bot did not sign (unreadable, from before signing, or naming another channel): the modal says so, a warning, nothing checked or recorded', async () => {
    for (const metadata of [
      '{nope',
      JSON.stringify({ c: 'C0LEADS', t: '1700000000.000100', p: '/quickstart' }),
      improveMeta('C0DOCS').replace('C0DOCS', 'C0LEADS'),
    ]) {
      const h = harness();
      await improveSubmission(h.deps)({ ack: h.ack, ...submission('Review /quickstart', metadata) } as never);
      expect(h.ack).toHaveBeenCalledExactlyOnceWith({
        response_action: 'errors',
        errors: {
          [INSTRUCTION_BLOCK]: expect.stringMatching(
            /^I couldn't verify that button or form .* open the form again from the digest\.$/,
          ),
        },
      });
      expect(h.warnings()).toEqual(['refused a button or form value the bot did not sign']);
      expect(h.record).not.toHaveBeenCalled();
      expect(h.conversations.isMember).not.toHaveBeenCalled();
    }
  });

  it('Improve with agent, signed for a channel the person is not (or no longer) in, or not checkable just now: refused in the modal, nothing recorded', async () => {
    for (const [channel, text] of [
      ['C0LEADS', NOT_A_MEMBER_TEXT],
      ['C0HUGE', MEMBERSHIP_BUSY_TEXT],
    ] as const) {
      const h = harness();
      await improveSubmission(h.deps)({
        ack: h.ack,
        ...submission('Review /quickstart', improveMeta(channel)),
      } as never);
      expect(h.ack).toHaveBeenCalledExactlyOnceWith({
        response_action: 'errors',
        errors: { [INSTRUCTION_BLOCK]: plainTextOf(text) },
      });
      expect(h.record).not.toHaveBeenCalled();
    }
  });

  it('Improve with agent when Redis fails: the modal stays open with the busy text; nothing started', async () => {
    const h = harness({ recordFails: true });
    await improveSubmission(h.deps)({ ack: h.ack, ...submission('Review /quickstart') } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({
      response_action: 'errors',
      errors: { [INSTRUCTION_BLOCK]: BUSY_TEXT },
    });
    expect(h.warnings()).toEqual(['could not record a job start from the Improve with agent form']);
  });

  it('Improve with agent: a job start in the digest’s thread is recorded, then the modal closes', async () => {
    const h = harness();
    await improveSubmission(h.deps)({ ack: h.ack, ...submission('Review /quickstart') } as never);
    expect(h.record).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ name: 'agent-jobs.start' }),
      'view-V1',
      'trig-9',
      expect.objectContaining({ channel: 'C0DOCS', threadTs: '1700000000.000100', instruction: 'Review /quickstart' }),
    );
    expect(h.ack).toHaveBeenCalledExactlyOnceWith();
  });

  it("Improve with agent submitted again after 'can't tell' (a new trigger_id, the same view): recorded under the same id, so a kept first record is not doubled", async () => {
    const h = harness();
    h.record.mockRejectedValueOnce(new RecordUnconfirmedError('agent-jobs.start', 'Connection is closed.'));
    await improveSubmission(h.deps)({ ack: h.ack, ...submission('Review /quickstart') } as never);
    expect(h.ack).toHaveBeenCalledWith({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: UNSURE_TEXT } });
    const again = submission('Review /quickstart');
    await improveSubmission(h.deps)({ ack: h.ack, ...again, body: { ...again.body, trigger_id: 'trig-10' } } as never);
    expect(h.record.mock.calls.map((c) => c[1])).toEqual(['view-V1', 'view-V1']);
  });

  it('Improve with agent by someone the policy refuses: the refusal shows in the modal as plain text, nothing recorded', async () => {
    const access: AccessGate = {
      ...OPEN_GATE,
      authorize: async () => ({
        allowed: false,
        reason: 'not_allowed_user',
        text: 'Only members of <!subteam^S0DOCS> and <@U0ADMIN> can start docs jobs: ask <@U0ADMIN>.',
      }),
    };
    const h = harness({ access });
    await improveSubmission(h.deps)({ ack: h.ack, ...submission('Review /quickstart') } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({
      response_action: 'errors',
      errors: {
        [INSTRUCTION_BLOCK]: 'Only members of the allowed user group and the admin can start docs jobs: ask the admin.',
      },
    });
    expect(h.record).not.toHaveBeenCalled();
  });

  it("Improve with agent when the check hangs past 1.5 s: refused (fail closed) within Slack's 3 s", async () => {
    const access: AccessGate = { ...OPEN_GATE, authorize: () => new Promise(() => undefined) };
    const h = harness({ access });
    const started = Date.now();
    await improveSubmission(h.deps)({ ack: h.ack, ...submission('Review /quickstart') } as never);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith({
      response_action: 'errors',
      errors: { [INSTRUCTION_BLOCK]: expect.stringContaining("couldn't check your access") },
    });
    expect(h.record).not.toHaveBeenCalled();
  });

  it('digest Retry: recorded with its signed value (version 2, checked by the worker), then acked', async () => {
    const h = harness();
    await digestRetryAction(h.deps)({
      ack: h.ack,
      body: {
        user: { id: 'U0ALICE' },
        team: { id: 'T0SANDBOX' },
        channel: { id: 'C0DOCS' },
        container: { channel_id: 'C0DOCS', message_ts: '1700000000.000100' },
        response_url: 'https://hooks.slack.com/actions/T0SANDBOX/1/x',
      },
      action: { action_ts: '1.2', value: 's1.value' },
    } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith();
    const [kind, , , payload] = h.record.mock.calls[0] as unknown as [
      { name: string; version: number },
      string,
      string,
      unknown,
    ];
    expect(kind).toMatchObject({ name: 'digests.retry', version: 2 });
    expect(payload).toMatchObject({ value: 's1.value', teamId: 'T0SANDBOX', channel: 'C0DOCS', user: 'U0ALICE' });
  });

  it('digest Retry from nowhere (no channel): acked, nothing recorded', async () => {
    const h = harness();
    await digestRetryAction(h.deps)({
      ack: h.ack,
      body: { user: { id: 'U0ALICE' } },
      action: { action_ts: '1.2' },
    } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith();
    expect(h.record).not.toHaveBeenCalled();
  });
});

describe('thread-context listeners', () => {
  const shortcut = {
    channel: { id: 'C0DOCS' },
    message: { ts: '1700000000.000100' },
    user: { id: 'U0ALICE' },
    trigger_id: 'trig-7',
  };

  it('Document this thread when Redis fails: acked, told through the response_url, no modal opened', async () => {
    const h = harness({ recordFails: true });
    const respond = vi.fn(async () => undefined);
    const open = vi.fn();
    await documentThreadShortcut({ ...(h.deps as object), slack: { views: { open } } } as never)({
      ack: h.ack,
      shortcut,
      respond,
    } as never);
    expect(h.ack).toHaveBeenCalledExactlyOnceWith();
    expect(respond).toHaveBeenCalledExactlyOnceWith({
      response_type: 'ephemeral',
      replace_original: false,
      text: BUSY_TEXT,
    });
    expect(open).not.toHaveBeenCalled();
    expect(h.errors()).toEqual([]);
  });

  const threadMeta = (ref: { c: string; t?: string; j?: string }) =>
    TEST_SIGNER.sign(THREAD_REF_PURPOSE, JSON.stringify({ t: '1700000000.000100', ...ref }));
  const modal = (value: string, privateMetadata = threadMeta({ c: 'C0DOCS' })) => ({
    body: { user: { id: 'U0ALICE' }, team: { id: 'T0SANDBOX' }, trigger_id: 'trig-8' },
    view: {
      id: 'V2',
      hash: 'h',
      callback_id: MODAL_CALLBACK_ID,
      private_metadata: privateMetadata,
      state: { values: { [INSTRUCTION_BLOCK]: { [INSTRUCTION_ACTION]: { type: 'plain_text_input', value } } } },
    },
  });

  it('its modal, blank: stays open with an error; when Redis fails: stays open with the busy text', async () => {
    const blank = harness();
    await documentThreadSubmission(blank.deps)({ ack: blank.ack, ...modal(' ') } as never);
    expect(blank.ack).toHaveBeenCalledExactlyOnceWith({
      response_action: 'errors',
      errors: { [INSTRUCTION_BLOCK]: expect.any(String) },
    });
    expect(blank.record).not.toHaveBeenCalled();
    const down = harness({ recordFails: true });
    await documentThreadSubmission(down.deps)({ ack: down.ack, ...modal('Document this') } as never);
    expect(down.ack).toHaveBeenCalledExactlyOnceWith({
      response_action: 'errors',
      errors: { [INSTRUCTION_BLOCK]: BUSY_TEXT },
    });
  });

  it('its modal, metadata naming a private channel the person is not in, not signed by the bot (forged, or older than signing): refused in the modal with a warning; nothing checked, read or recorded', async () => {
    const forged = [
      JSON.stringify({ c: 'C0LEADS', t: '1700000000.000100' }),
      threadMeta({ c: 'C0DOCS' }).replace('C0DOCS', 'C0LEADS'),
      threadMeta({ c: 'C0DOCS', j: 'job_1' }).replace('job_1', 'job_9'),
    ];
    for (const metadata of forged) {
      const h = harness();
      await documentThreadSubmission(h.deps)({ ack: h.ack, ...modal('Document this', metadata) } as never);
      expect(h.ack).toHaveBeenCalledExactlyOnceWith({
        response_action: 'errors',
        errors: { [INSTRUCTION_BLOCK]: FORM_UNVERIFIED_TEXT },
      });
      expect(h.warnings()).toEqual(['refused a button or form value the bot did not sign']);
      expect(h.record).not.toHaveBeenCalled();
      expect(h.conversations.isMember).not.toHaveBeenCalled();
    }
  });

  it('its modal, signed by the bot for a conversation the person is not (or no longer) in, or not checkable just now: refused in the modal, start and follow-up alike; a member gets through', async () => {
    const cases = [
      [{ c: 'C0LEADS' }, NOT_A_MEMBER_TEXT],
      [{ c: 'C0LEADS', j: 'job_1' }, NOT_A_MEMBER_TEXT],
      [{ c: 'C0HUGE' }, MEMBERSHIP_BUSY_TEXT],
    ] as const;
    for (const [ref, text] of cases) {
      const h = harness();
      await documentThreadSubmission(h.deps)({ ack: h.ack, ...modal('Document this', threadMeta(ref)) } as never);
      expect(h.ack).toHaveBeenCalledExactlyOnceWith({
        response_action: 'errors',
        errors: { [INSTRUCTION_BLOCK]: plainTextOf(text) },
      });
      expect(h.record).not.toHaveBeenCalled();
    }
    const member = harness();
    await documentThreadSubmission(member.deps)({
      ack: member.ack,
      ...modal('Document this', threadMeta({ c: 'C0DOCS', j: 'job_1' })),
    } as never);
    expect(member.record).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ name: 'agent-jobs.reply' }),
      'view-trig-8',
      'trig-8',
      expect.objectContaining({ jobId: 'job_1', channel: 'C0DOCS', user: 'U0ALICE', via: 'form' }),
    );
    expect(member.ack).toHaveBeenCalledExactlyOnceWith();
  });
});
