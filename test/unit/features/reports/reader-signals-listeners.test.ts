import { describe, expect, it, vi } from 'vitest';
import { docsVisitorsCommand } from '../../../../src/features/reports/command.js';
import { INSTRUCTION_ACTION, INSTRUCTION_BLOCK } from '../../../../src/features/agent-jobs/index.js';
import {
  OLDER_SIGNAL_TEXT,
  OTHER_CONVERSATION_TEXT,
  SIGNAL_IMPROVE_CALLBACK_ID,
  SIGNAL_MODAL_PURPOSE,
  SIGNAL_UNVERIFIED_TEXT,
  signalImproveAction,
  signalImproveSubmission,
} from '../../../../src/features/reports/digests/improve-signal.js';
import { buttonAction, menuAction } from '../../../../src/features/reports/listeners.js';
import { INTAKE } from '../../../../src/features/reports/intake.js';
import { encodeSignalImprove, type SignalImproveInput } from '../../../../src/features/reports/signals/improve.js';
import { OPEN_GATE, type AccessGate } from '../../../../src/platform/access.js';
import { BUSY_TEXT } from '../../../../src/platform/slack/edge.js';
import { NOT_A_MEMBER_TEXT } from '../../../../src/platform/slack/member-check.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { slashCommandArgs } from '../../../helpers/slash-command.js';

/**
 * The new entry points in isolation (fake ack, intake and client): `/docs-visitors searches|feedback|
 * questions`, the reports' buttons and menu, and Improve with agent on a signal (its click and its
 * modal), each with Redis failing and Slack failing.
 */

const MEMBERS: Record<string, string[]> = { C0DOCS: ['U0ALICE', 'U0BOB'] };

function harness(opts: { recordFails?: boolean; access?: AccessGate; viewsOpenFails?: boolean } = {}) {
  const { logger, lines } = arrayLogger<{ level: number; msg: string }>('info');
  const record = vi.fn(async (_kind: { name: string }, _id: string, _requestId: string, _payload: unknown) => {
    if (opts.recordFails) throw new Error('Connection is closed.');
  });
  const open = vi.fn(async (_args: { trigger_id: string; view: { private_metadata?: string; blocks: unknown[] } }) => {
    if (opts.viewsOpenFails)
      throw Object.assign(new Error('An API error occurred: expired_trigger_id'), {
        code: 'slack_webapi_platform_error',
        data: { ok: false, error: 'expired_trigger_id' },
      });
    return { ok: true };
  });
  const conversations = {
    isMember: vi.fn(async (channel: string, user: string) => (MEMBERS[channel] ?? []).includes(user)),
  };
  const subcommands = {
    names: ['digest'],
    helpLines: [],
    examples: [],
    prepare: () => ({ ok: false as const, message: 'no' }),
    actionOf: () => 'manage_digests' as const,
  };
  const deps = {
    intake: { record },
    slack: { views: { open } },
    access: opts.access ?? OPEN_GATE,
    conversations,
    signer: TEST_SIGNER,
    logger,
    subcommands,
    projects: ['proj_docs'],
  };
  return {
    deps,
    record,
    open,
    conversations,
    ack: vi.fn(async (_r?: unknown) => undefined),
    warnings: () => lines.filter((l) => l.level === 40).map((l) => l.msg),
  };
}

const improve = (over: Partial<SignalImproveInput> = {}): SignalImproveInput => ({
  signal: { kind: 'question', question: 'How do I set up SSO with Okta?', count: 9, response: 'Not covered.' },
  rangeLabel: 'Nov 15 – Nov 21, 2026',
  channel: 'C0DOCS',
  projectId: 'proj_docs',
  ...over,
});

function click(value: string | undefined, user = 'U0ALICE', channel = 'C0DOCS') {
  const said: string[] = [];
  const respond = vi.fn(async (m: { text?: string }) => void said.push(String(m.text)));
  const args = {
    body: {
      user: { id: user, team_id: 'T1' },
      team: { id: 'T1' },
      channel: { id: channel },
      container: { channel_id: channel, message_ts: '1700000000.000100' },
      trigger_id: 'trig-1',
      response_url: 'http://127.0.0.1:9/unreachable',
    },
    action: { action_id: 'visitors.signal.improve.0', value, action_ts: '1700000001.000200' },
    respond,
  };
  return { args, said };
}

describe('Improve with agent on a signal: the click', () => {
  it('a member who may start jobs: the modal, its instruction, signed metadata naming the project', async () => {
    const h = harness();
    const { args, said } = click(encodeSignalImprove(improve(), TEST_SIGNER));
    await signalImproveAction(h.deps as never)({ ...args, ack: h.ack } as never);
    expect(said).toEqual([]);
    const view = h.open.mock.calls[0]![0].view as {
      callback_id: string;
      private_metadata: string;
      blocks: { element?: { initial_value?: string } }[];
    };
    expect(view.callback_id).toBe(SIGNAL_IMPROVE_CALLBACK_ID);
    // Changed on purpose: the instruction is plain guidance; the question no longer sits in it, fenced.
    const initial = view.blocks[1]!.element!.initial_value!;
    expect(initial).toMatch(/^Add or extend the docs so that the question below is answered/);
    expect(initial).not.toMatch(/reader_question|[<>]|Okta|9 times|Nov/);
    // The question is shown under it, read-only, as an inert quote.
    expect(JSON.stringify(view.blocks.slice(2))).toContain('> Question: How do I set up SSO with Okta?');
    const opened = TEST_SIGNER.open(SIGNAL_MODAL_PURPOSE, view.private_metadata);
    expect(opened.ok && JSON.parse(opened.payload)).toEqual({
      c: 'C0DOCS',
      t: '1700000000.000100',
      p: 'proj_docs',
      s: improve().signal,
      r: 'Nov 15 – Nov 21, 2026',
    });
  });

  it.each([
    ['unsigned', () => JSON.stringify({ s: improve().signal }), SIGNAL_UNVERIFIED_TEXT],
    [
      'made for another channel',
      () => encodeSignalImprove(improve({ channel: 'C0OTHER' }), TEST_SIGNER),
      OTHER_CONVERSATION_TEXT,
    ],
    [
      'of a project no longer configured',
      () => encodeSignalImprove(improve({ projectId: 'proj_gone' }), TEST_SIGNER),
      OLDER_SIGNAL_TEXT,
    ],
  ])('a value %s: refused privately, nothing opened or checked', async (_what, value, text) => {
    const h = harness();
    const { args, said } = click(value());
    await signalImproveAction(h.deps as never)({ ...args, ack: h.ack } as never);
    expect(said).toEqual([text]);
    expect(h.open).not.toHaveBeenCalled();
    expect(h.conversations.isMember).not.toHaveBeenCalled();
  });

  it('someone not in the channel, or refused by the policy: told why, no modal', async () => {
    const h = harness();
    const { args, said } = click(encodeSignalImprove(improve(), TEST_SIGNER), 'U0CAROL');
    await signalImproveAction(h.deps as never)({ ...args, ack: h.ack } as never);
    expect(said).toEqual([NOT_A_MEMBER_TEXT]);
    const refused = harness({
      access: { authorize: async () => ({ allowed: false, text: 'Guests cannot start docs jobs.' }) } as never,
    });
    const second = click(encodeSignalImprove(improve(), TEST_SIGNER));
    await signalImproveAction(refused.deps as never)({ ...second.args, ack: refused.ack } as never);
    expect(second.said).toEqual(['Guests cannot start docs jobs.']);
    expect(refused.open).not.toHaveBeenCalled();
  });

  it('a click that came without a response_url (Bolt gives no respond): refused with a warning, no throw', async () => {
    const h = harness();
    const { args } = click(encodeSignalImprove(improve({ channel: 'C0OTHER' }), TEST_SIGNER));
    const { respond: _none, ...bare } = args;
    await signalImproveAction(h.deps as never)({ ...bare, ack: h.ack } as never);
    expect(h.open).not.toHaveBeenCalled();
    expect(h.warnings()).toContain('a click came without a response_url; the person could not be answered');
  });

  it('Slack refusing views.open: the person is told to click again, one warning, no throw', async () => {
    const h = harness({ viewsOpenFails: true });
    const { args, said } = click(encodeSignalImprove(improve(), TEST_SIGNER));
    await signalImproveAction(h.deps as never)({ ...args, ack: h.ack } as never);
    expect(said).toEqual(['Slack would not open the form; click the button again.']);
    expect(h.warnings()).toContain('could not open the Improve with agent modal of a signal');
  });
});

describe('Improve with agent on a signal: the modal', () => {
  const submit = (h: ReturnType<typeof harness>, instruction: string, metadata: string) =>
    signalImproveSubmission(h.deps as never)({
      ack: h.ack,
      body: {
        user: { id: 'U0ALICE', team_id: 'T1' },
        team: { id: 'T1' },
        trigger_id: 'trig-2',
        view: { id: 'V1', hash: 'h1' },
      },
      view: {
        private_metadata: metadata,
        state: { values: { [INSTRUCTION_BLOCK]: { [INSTRUCTION_ACTION]: { value: instruction } } } },
      },
    } as never);
  const meta = TEST_SIGNER.sign(SIGNAL_MODAL_PURPOSE, '{"c":"C0DOCS","t":"1700000000.000100","p":"proj_docs"}');

  it("records a job start in the message's thread, on the signal's project, then closes", async () => {
    const h = harness();
    await submit(h, 'Document Okta SSO.', meta);
    expect(h.record).toHaveBeenCalledOnce();
    const [kind, id, , payload] = h.record.mock.calls[0]!;
    expect(kind.name).toBe('agent-jobs.start');
    expect(id).toBe('view-V1');
    expect(payload).toMatchObject({
      channel: 'C0DOCS',
      threadTs: '1700000000.000100',
      project: 'proj_docs',
      instruction: 'Document Okta SSO.',
      requester: 'U0ALICE',
      reactOnStatusMessage: true,
    });
    expect(h.ack).toHaveBeenCalledWith();
  });

  it('the signal rides in the signed metadata: the job gets it as quoted data (fenced) and an About line, whatever was typed', async () => {
    const h = harness();
    const wire = {
      c: 'C0DOCS',
      t: '1700000000.000100',
      p: 'proj_docs',
      s: { kind: 'search', term: 'sso saml', hits: 263 },
      r: 'Nov 16 – Nov 22, 2026',
    };
    await submit(
      h,
      'Find out what they wanted. project=other',
      TEST_SIGNER.sign(SIGNAL_MODAL_PURPOSE, JSON.stringify(wire)),
    );
    const payload = h.record.mock.calls[0]![3] as { instruction: string; quoted: string; about: string };
    expect(payload.instruction).toBe('Find out what they wanted. project=other');
    expect(payload.about).toBe('"sso saml" · 263 searches');
    expect(payload.quoted).toMatch(
      /^Readers searched the docs for the term quoted below 263 times \(Nov 16 – Nov 22, 2026\)[^]*\n<reader_search_term_([0-9a-f]{16})>\nsso saml\n<\/reader_search_term_\1>$/,
    );
    // Metadata whose reader text is not quoted (not the bot's shape) is refused like a forged form.
    const raw = { ...wire, s: { kind: 'search', term: '<!channel> hi', hits: 1 } };
    await submit(h, 'Fix it', TEST_SIGNER.sign(SIGNAL_MODAL_PURPOSE, JSON.stringify(raw)));
    expect(h.record).toHaveBeenCalledOnce();
  });

  it('blank, or metadata the bot did not sign: refused in the modal, nothing recorded', async () => {
    const h = harness();
    await submit(h, '   ', meta);
    await submit(h, 'Fix it', '{"c":"C0DOCS","t":"1700000000.000100"}');
    expect(h.ack.mock.calls.map((c) => (c[0] as { errors: Record<string, string> }).errors[INSTRUCTION_BLOCK])).toEqual(
      ['Tell the agent what to change.', expect.stringContaining("I couldn't verify that button or form")],
    );
    expect(h.record).not.toHaveBeenCalled();
  });

  it('Redis refusing the record: the modal stays open with the busy text; nothing started', async () => {
    const h = harness({ recordFails: true });
    await submit(h, 'Document Okta SSO.', meta);
    expect(h.ack).toHaveBeenCalledWith({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: BUSY_TEXT } });
  });
});

describe("the reports' command, buttons and menu", () => {
  const command = (text: string) => slashCommandArgs(text, 'trig-9');

  it('/docs-visitors questions 30d: recorded as its own kind; a mistake answered in the ack; Redis down', async () => {
    const h = harness();
    await docsVisitorsCommand(h.deps as never)({ ...command('questions 30d limit=5'), ack: h.ack } as never);
    expect(h.record.mock.calls[0]![0].name).toBe(INTAKE.signalReport.name);
    expect(h.record.mock.calls[0]![3]).toMatchObject({
      report: 'questions',
      range: { type: 'shortcut', shortcut: '30d' },
      limit: 5,
    });
    await docsVisitorsCommand(h.deps as never)({ ...command('feedback limit=50'), ack: h.ack } as never);
    expect(String((h.ack.mock.calls[1]![0] as { text: string }).text)).toContain('limit must be from 1 to 20');
    expect(h.record).toHaveBeenCalledTimes(1);
    const down = harness({ recordFails: true });
    await docsVisitorsCommand(down.deps as never)({ ...command('searches'), ack: down.ack } as never);
    expect(down.ack).toHaveBeenCalledWith({ response_type: 'ephemeral', text: BUSY_TEXT });
  });

  it('the menu records the choice with its block_id; a button with Redis down is acked all the same', async () => {
    const h = harness();
    const body = {
      user: { id: 'U0BOB' },
      channel: { id: 'C0DOCS' },
      container: { message_ts: '1700000000.000100' },
      response_url: 'http://127.0.0.1:9/x',
    };
    const action = {
      action_id: 'visitors.menu',
      block_id: 's1.signed-state',
      selected_option: { value: 'feedback' },
      action_ts: '1700000002.000300',
    };
    await menuAction(h.deps as never)({ ack: h.ack, body, action } as never);
    expect(h.record.mock.calls[0]!.slice(0, 2)).toEqual([INTAKE.menu, 'act-1700000002.000300']);
    expect(h.record.mock.calls[0]![3]).toEqual({
      blockId: 's1.signed-state',
      report: 'feedback',
      user: 'U0BOB',
      channel: 'C0DOCS',
      messageTs: '1700000000.000100',
      responseUrl: 'http://127.0.0.1:9/x',
    });
    const down = harness({ recordFails: true });
    await buttonAction(
      down.deps as never,
      INTAKE.signalPage,
    )({ ack: down.ack, body, action: { action_id: 'visitors.signals.next', value: 'v', action_ts: '1.2' } } as never);
    expect(down.ack).toHaveBeenCalledOnce();
    expect(down.warnings()).toContain('could not record a click; told the person to try again');
  });
});
