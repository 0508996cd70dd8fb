import { describe, expect, it, vi } from 'vitest';
import { buildSettingsMessage, EDIT_MODAL_PURPOSE } from '../../../../src/features/settings/blocks.js';
import { editAction, editSubmission, register } from '../../../../src/features/settings/listeners.js';
import type { EffectiveSettings } from '../../../../src/features/settings/service.js';
import type { FollowupPolicy } from '../../../../src/features/settings/store.js';
import type { AccessDecision } from '../../../../src/platform/access.js';
import { NOT_A_MEMBER_TEXT } from '../../../../src/platform/slack/member-check.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { CHANNEL_SETTINGS } from '../../../helpers/settings.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';

const ctx = { channel: 'C0DOCS', access: 'every full member', digest: 'none', asking: true, adminUsers: [] };

/** Members of each channel, as conversations.members would list them. */
const MEMBERS: Record<string, string[]> = { C0DOCS: ['U0ADMIN', 'U0ALICE'], C0LEADS: ['U0ALICE'] };

function deps(
  over: {
    effective?: () => Promise<EffectiveSettings>;
    record?: () => Promise<void>;
    open?: () => Promise<{ ok: boolean }>;
    authorizeView?: () => Promise<AccessDecision>;
  } = {},
) {
  const { logger, lines } = arrayLogger();
  return {
    intake: { record: vi.fn(over.record ?? (async () => undefined)) },
    service: { effective: vi.fn(over.effective ?? (async () => CHANNEL_SETTINGS)), projects: ['proj_a', 'proj_b'] },
    slack: { views: { open: vi.fn(over.open ?? (async () => ({ ok: true }))) } },
    authorizeView: vi.fn(over.authorizeView ?? (async (): Promise<AccessDecision> => ({ allowed: true }))),
    conversations: {
      isMember: vi.fn(async (channel: string, user: string) => (MEMBERS[channel] ?? []).includes(user)),
    },
    signer: TEST_SIGNER,
    modal: { defaultFollowupPolicy: 'anyone' as FollowupPolicy, asking: true },
    usageFacts: { adminUsers: [], asking: true },
    logger,
    lines,
  };
}

/** The value of the Edit button the bot shows on `channel`'s settings message. */
function editValue(channel: string): string {
  const blocks = buildSettingsMessage(CHANNEL_SETTINGS, { ...ctx, channel, canEdit: true }, TEST_SIGNER)
    .blocks as unknown as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>;
  return blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'settings.edit')!.value!;
}

/** A click on Edit by `user`, on the settings message in `channel`, carrying `value`. */
const click = (value: string, user = 'U0ADMIN', channel = 'C0DOCS') => ({
  body: { trigger_id: 'trig', user: { id: user }, channel: { id: channel } },
  action: { value },
});

const submission = (
  values: Record<string, string | undefined>,
  metadata = TEST_SIGNER.sign(EDIT_MODAL_PURPOSE, JSON.stringify({ c: 'C0DOCS' })),
  user = 'U0ADMIN',
) => ({
  body: { user: { id: user }, team: { id: 'T1' } },
  view: {
    id: 'V1',
    hash: 'h1',
    private_metadata: metadata,
    state: {
      values: {
        project: { project: { selected_option: values.project ? { value: values.project } : null } },
        followups: { followups: { selected_option: values.followups ? { value: values.followups } : null } },
        ...(values.answerAll ? { answer_all: { answer_all: { selected_option: { value: values.answerAll } } } } : {}),
      },
    },
  },
});

describe('the settings message', () => {
  it('shows Edit only to an admin, and says so when admin status could not be checked', () => {
    const admin = JSON.stringify(buildSettingsMessage(CHANNEL_SETTINGS, { ...ctx, canEdit: true }, TEST_SIGNER).blocks);
    expect(admin).toContain('"action_id":"settings.edit"');
    expect(admin).toContain('*Docs project:* `proj_b`');
    expect(admin).toContain('only the person who started a job can continue it');
    expect(admin).toContain('Last changed by <@U0ADMIN>.');
    // The footer names three settings to type; it ends with where all of them are.
    expect(admin).toMatch(/`\/docs-settings help` lists every setting and how to change it\."\}\]\}\]$/);
    const member = JSON.stringify(
      buildSettingsMessage(CHANNEL_SETTINGS, { ...ctx, canEdit: false }, TEST_SIGNER).blocks,
    );
    expect(member).not.toContain('settings.edit');
    expect(member).toContain(
      'Workspace admins can change them: ask one of them. `/docs-settings help` explains each setting.',
    );
    const unknown = JSON.stringify(
      buildSettingsMessage(CHANNEL_SETTINGS, { ...ctx, canEdit: 'unknown' }, TEST_SIGNER).blocks,
    );
    expect(unknown).not.toContain('settings.edit');
    expect(unknown).toContain(
      "I couldn't check whether you may change them; run `/docs-settings` again in a moment to get *Edit* if you may.",
    );
    const stale = JSON.stringify(
      buildSettingsMessage(
        { ...CHANNEL_SETTINGS, projectId: 'proj_a', projectIsDefault: true, staleProjectId: 'proj_gone' },
        { ...ctx, canEdit: false },
        TEST_SIGNER,
      ).blocks,
    );
    expect(stale).toContain('`proj_gone`, which is no longer configured; the default is used');
  });

  it('says whether the channel is a question channel and which docs scope it answers from (values inert)', () => {
    const plain = JSON.stringify(
      buildSettingsMessage(CHANNEL_SETTINGS, { ...ctx, canEdit: false }, TEST_SIGNER).blocks,
    );
    expect(plain).toContain('*Questions:* only mentions, DMs and `/docs-ask` are answered');
    expect(plain).toContain('*Docs scope:* all the docs');
    const scoped = { ...CHANNEL_SETTINGS, answerAll: true, scope: { version: 'v2', groups: ['<!here>'] } };
    const text = JSON.stringify(buildSettingsMessage(scoped, { ...ctx, canEdit: false }, TEST_SIGNER).blocks);
    expect(text).toContain('*Questions:* every new message from a person is taken as a question');
    expect(text).toContain('*Docs scope:* version `v2`, groups `&lt;!here&gt;`');
  });
});

describe('the settings message and form while asking the docs is off, and who may change them', () => {
  const off = { ...ctx, asking: false, canEdit: false as const };

  it('says a mention always starts a docs job and nothing is answered, and who sets asking up; what is saved for later', () => {
    const plain = JSON.stringify(buildSettingsMessage(CHANNEL_SETTINGS, off, TEST_SIGNER).blocks);
    expect(plain).toContain(
      "*Questions:* asking the docs isn't set up, so a mention always starts a docs job and no message is answered as a question; the people who run Docs Agent set it up.",
    );
    expect(plain).not.toContain('*A mention of the bot is:*');
    expect(plain).not.toContain('taken as a question (a question channel)');
    const saved = { ...CHANNEL_SETTINGS, mentions: 'ask' as const, answerAll: true };
    expect(JSON.stringify(buildSettingsMessage(saved, off, TEST_SIGNER).blocks)).toContain(
      'set it up. Saved for when it is: mentions `ask`, answer-all on.',
    );
  });

  it('names the settings admins with what to do, the same way as the usage', () => {
    const member = JSON.stringify(
      buildSettingsMessage(CHANNEL_SETTINGS, { ...ctx, canEdit: false, adminUsers: ['U0SET1', 'U0SET2'] }, TEST_SIGNER)
        .blocks,
    );
    expect(member).toContain('Workspace admins and <@U0SET1>, <@U0SET2> can change them: ask one of them.');
  });

  it('the form offers the workspace defaults, preselected when the channel has no value of its own', async () => {
    const d = deps({
      effective: async () => ({ ...CHANNEL_SETTINGS, projectFollowsDefault: true, followupIsDefault: true }),
    });
    d.modal = { defaultFollowupPolicy: 'requester', asking: false };
    await editAction(d)({
      ack: vi.fn(async () => undefined),
      ...click(editValue('C0DOCS')),
      respond: vi.fn(),
    } as never);
    const [[{ view }]] = d.slack.views.open.mock.calls as unknown as [[{ view: { blocks: unknown[] } }]];
    type Input = { block_id?: string; hint?: { text: string }; element?: Record<string, unknown> };
    const input = (id: string) => (view.blocks as Input[]).find((b) => b.block_id === id)!;
    const label = (o: unknown) => (o as { text: { text: string } }).text.text;
    expect(label(input('project').element!.initial_option)).toBe('Default project (proj_a)');
    expect((input('project').element!.options as unknown[]).map(label)).toEqual([
      'Default project (proj_a)',
      'proj_a',
      'proj_b',
    ]);
    expect(label(input('followups').element!.initial_option)).toBe(
      'Workspace default (only the person who started it)',
    );
    expect(input('mentions').hint?.text).toMatch(/^Asking the docs isn't set up, so this is saved but has no effect/);
    // A channel with its own values gets them preselected.
    const own = deps();
    await editAction(own)({
      ack: vi.fn(async () => undefined),
      ...click(editValue('C0DOCS')),
      respond: vi.fn(),
    } as never);
    const [[{ view: ownView }]] = own.slack.views.open.mock.calls as unknown as [[{ view: { blocks: Input[] } }]];
    const ownInput = (id: string) => ownView.blocks.find((b) => b.block_id === id)!;
    expect(label(ownInput('project').element!.initial_option)).toBe('proj_b');
    expect(label(ownInput('followups').element!.initial_option)).toBe('Only the person who started the job');
    // A project no longer configured (the default used instead): the default option, so Save keeps following it.
    const stale = deps({
      effective: async () => ({ ...CHANNEL_SETTINGS, projectId: 'proj_a', staleProjectId: 'proj_gone' }),
    });
    await editAction(stale)({
      ack: vi.fn(async () => undefined),
      ...click(editValue('C0DOCS')),
      respond: vi.fn(),
    } as never);
    const [[{ view: staleView }]] = stale.slack.views.open.mock.calls as unknown as [[{ view: { blocks: Input[] } }]];
    const staleProject = staleView.blocks.find((b) => b.block_id === 'project')!;
    expect(label(staleProject.element!.initial_option)).toBe('Default project (proj_a)');
  });

  it("saving the default options saves no value of the channel's own (back to the workspace default)", async () => {
    const d = deps();
    const ack = vi.fn(async () => undefined);
    await editSubmission(d)({ ack, ...submission({ project: ':default:', followups: ':default:' }) } as never);
    expect(ack).toHaveBeenCalledWith();
    expect(d.intake.record).toHaveBeenCalledWith(expect.anything(), 'view-V1-h1', 'V1-h1', {
      teamId: 'T1',
      channel: 'C0DOCS',
      user: 'U0ADMIN',
      change: { projectId: null, followupPolicy: null },
    });
  });
});

describe('Edit and the settings modal', () => {
  it('Edit acks, then opens the modal with the channel (signed) and its settings', async () => {
    const d = deps();
    const ack = vi.fn(async () => undefined);
    await editAction(d)({ ack, ...click(editValue('C0DOCS')), respond: vi.fn() } as never);
    expect(ack).toHaveBeenCalled();
    const view = d.slack.views.open.mock.calls[0] as unknown as [
      { trigger_id: string; view: { private_metadata: string; callback_id: string } },
    ];
    expect(view[0]).toMatchObject({
      trigger_id: 'trig',
      view: { callback_id: 'settings_edit', private_metadata: TEST_SIGNER.sign(EDIT_MODAL_PURPOSE, '{"c":"C0DOCS"}') },
    });
    expect(d.authorizeView).toHaveBeenCalledWith({ user: 'U0ADMIN' }, 'C0DOCS');
  });

  it('Edit tells the person when the settings cannot be read or Slack will not open the form', async () => {
    for (const d of [
      deps({ effective: async () => Promise.reject(new Error('ECONNREFUSED')) }),
      deps({ open: async () => Promise.reject(new Error('expired_trigger_id')) }),
    ]) {
      const respond = vi.fn(async () => undefined);
      await editAction(d)({ ack: vi.fn(async () => undefined), ...click(editValue('C0DOCS')), respond } as never);
      expect(respond).toHaveBeenCalledWith(
        expect.objectContaining({
          response_type: 'ephemeral',
          text: "I couldn't open the settings form; click Edit again.",
        }),
      );
    }
    const respond = vi.fn(async () => undefined);
    await editAction(deps())({
      ack: vi.fn(async () => undefined),
      ...click(TEST_SIGNER.sign('settings.edit', 'not a channel')),
      respond,
    } as never);
    expect(respond).toHaveBeenCalledWith(expect.objectContaining({ text: expect.stringMatching(/older message/) }));
  });

  it('an Edit click for a channel the person may not view, or is not in, shows nothing of it', async () => {
    const guest = deps({
      authorizeView: async () => ({
        allowed: false,
        reason: 'guest',
        text: "Guests can't see the docs bot's settings.",
      }),
    });
    const respond = vi.fn(async () => undefined);
    await editAction(guest)({
      ack: vi.fn(async () => undefined),
      ...click(editValue('C0LEADS'), 'U0GUEST', 'C0LEADS'),
      respond,
    } as never);
    expect(respond).toHaveBeenCalledWith(
      expect.objectContaining({ response_type: 'ephemeral', text: "Guests can't see the docs bot's settings." }),
    );
    expect(guest.service.effective).not.toHaveBeenCalled();
    expect(guest.slack.views.open).not.toHaveBeenCalled();

    const outsider = deps();
    const told = vi.fn(async () => undefined);
    await editAction(outsider)({
      ack: vi.fn(async () => undefined),
      ...click(editValue('C0LEADS'), 'U0ADMIN', 'C0LEADS'),
      respond: told,
    } as never);
    expect(told).toHaveBeenCalledWith(expect.objectContaining({ text: NOT_A_MEMBER_TEXT }));
    expect(outsider.service.effective).not.toHaveBeenCalled();
    expect(outsider.slack.views.open).not.toHaveBeenCalled();
  });

  it("an Edit value the bot did not sign, or signed for another channel than the message's, shows nothing (and a forged one logs a warning)", async () => {
    const d = deps();
    const respond = vi.fn(async () => undefined);
    await editAction(d)({
      ack: vi.fn(async () => undefined),
      ...click('C0LEADS', 'U0ALICE', 'C0DOCS'),
      respond,
    } as never);
    expect(respond).toHaveBeenLastCalledWith(
      expect.objectContaining({
        text: expect.stringMatching(/^I couldn't verify that button or form.*run `\/docs-settings` again/),
      }),
    );
    expect(d.lines.filter((l) => l.level === 40)).toEqual([
      expect.objectContaining({ purpose: 'settings.edit', reason: 'unsigned' }),
    ]);
    await editAction(d)({
      ack: vi.fn(async () => undefined),
      ...click(editValue('C0LEADS'), 'U0ALICE', 'C0DOCS'),
      respond,
    } as never);
    expect(respond).toHaveBeenLastCalledWith(expect.objectContaining({ text: expect.stringMatching(/older message/) }));
    expect(d.service.effective).not.toHaveBeenCalled();
    expect(d.slack.views.open).not.toHaveBeenCalled();
  });

  it('a submission with a project or policy that is not configured, metadata the bot did not sign, or by someone not in the channel gets errors in the modal and records nothing', async () => {
    const d = deps();
    const ack = vi.fn(async () => undefined);
    await editSubmission(d)({ ack, ...submission({ project: 'proj_gone', followups: 'everyone' }) } as never);
    expect(ack).toHaveBeenCalledWith({
      response_action: 'errors',
      errors: { project: 'Choose one of proj_a (default), proj_b.', followups: 'Choose who may continue a job.' },
    });
    await editSubmission(d)({
      ack,
      ...submission({ project: 'proj_a', followups: 'anyone' }, '{"c":"C0LEADS"}'),
    } as never);
    expect(ack).toHaveBeenLastCalledWith({
      response_action: 'errors',
      errors: { project: expect.stringMatching(/^I couldn't verify that button or form/) },
    });
    await editSubmission(d)({
      ack,
      ...submission({ project: 'proj_a', followups: 'anyone' }, TEST_SIGNER.sign(EDIT_MODAL_PURPOSE, '{"c":"../x"}')),
    } as never);
    expect(ack).toHaveBeenLastCalledWith({
      response_action: 'errors',
      errors: { project: expect.stringMatching(/^I couldn't verify that button or form/) },
    });
    await editSubmission(d)({
      ack,
      ...submission(
        { project: 'proj_a', followups: 'anyone' },
        TEST_SIGNER.sign(EDIT_MODAL_PURPOSE, '{"c":"C0LEADS"}'),
      ),
    } as never);
    expect(ack).toHaveBeenLastCalledWith({ response_action: 'errors', errors: { project: NOT_A_MEMBER_TEXT } });
    expect(d.intake.record).not.toHaveBeenCalled();
  });

  it('a valid submission is recorded before the modal closes; if Redis will not take it, the modal says so', async () => {
    const d = deps();
    const ack = vi.fn(async () => undefined);
    await editSubmission(d)({ ack, ...submission({ project: 'proj_a', followups: 'anyone' }) } as never);
    expect(d.intake.record).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'settings.save' }),
      'view-V1-h1',
      'V1-h1',
      { teamId: 'T1', channel: 'C0DOCS', user: 'U0ADMIN', change: { projectId: 'proj_a', followupPolicy: 'anyone' } },
    );
    expect(ack).toHaveBeenCalledWith();

    const down = deps({ record: async () => Promise.reject(new Error('ECONNREFUSED')) });
    const ack2 = vi.fn(async () => undefined);
    await editSubmission(down)({ ack: ack2, ...submission({ project: 'proj_a', followups: 'anyone' }) } as never);
    expect(ack2).toHaveBeenCalledWith({
      response_action: 'errors',
      errors: { project: expect.stringMatching(/database|try again/i) },
    });
  });

  it('the form turns a question channel on or off; a value it never offered is refused in the modal', async () => {
    const d = deps();
    const ack = vi.fn(async () => undefined);
    await editSubmission(d)({
      ack,
      ...submission({ project: 'proj_a', followups: 'anyone', answerAll: 'on' }),
    } as never);
    expect(d.intake.record).toHaveBeenCalledWith(expect.anything(), 'view-V1-h1', 'V1-h1', {
      teamId: 'T1',
      channel: 'C0DOCS',
      user: 'U0ADMIN',
      change: { projectId: 'proj_a', followupPolicy: 'anyone', answerAll: true },
    });
    const ack2 = vi.fn(async () => undefined);
    await editSubmission(d)({
      ack: ack2,
      ...submission({ project: 'proj_a', followups: 'anyone', answerAll: 'always' }),
    } as never);
    expect(ack2).toHaveBeenCalledWith({ response_action: 'errors', errors: { answer_all: expect.any(String) } });
    expect(d.intake.record).toHaveBeenCalledTimes(1);
  });

  it('Edit on a stale button whose answer Slack will not take (response_url expired) ends quietly with a warning, not a crash', async () => {
    const d = deps();
    const respond = vi.fn(async () => Promise.reject(new Error('response_url answered HTTP 404')));
    await expect(
      editAction(d)({ ack: vi.fn(async () => undefined), ...click('C0LEADS', 'U0ALICE', 'C0DOCS'), respond } as never),
    ).resolves.toBeUndefined();
    expect(respond).toHaveBeenCalledTimes(1);
    expect(d.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'refused a button or form value the bot did not sign',
      'could not answer through the response_url',
    ]);
  });

  it('Edit clicked where Slack gives no response_url (not from a message): a warning, not a crash', async () => {
    const d = deps();
    await expect(
      editAction(d)({
        ack: vi.fn(async () => undefined),
        ...click('C0LEADS', 'U0ALICE', 'C0DOCS'),
        respond: undefined,
      } as never),
    ).resolves.toBeUndefined();
    expect(d.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'refused a button or form value the bot did not sign',
      'a click came without a response_url; the person could not be answered',
    ]);
  });
});

describe('/docs-settings', () => {
  it('a mistake is still recorded (the worker answers it with the usage) and logs a warning naming the channel, not the text', async () => {
    const d = deps();
    let listener: ((args: unknown) => Promise<void>) | undefined;
    const app = {
      command: (name: string, l: (args: unknown) => Promise<void>) => {
        if (name === '/docs-settings') listener = l;
      },
      action: () => undefined,
      view: () => undefined,
    };
    register(app as never, d as never);
    const ack = vi.fn(async () => undefined);
    const command = {
      text: 'colour <!here> secret-words',
      team_id: 'T1',
      channel_id: 'C0DOCS',
      user_id: 'U0ALICE',
      response_url: 'https://hooks.slack.com/commands/T1/1/x',
      trigger_id: 'trig1',
    };
    await listener!({ command, ack });
    expect(ack).toHaveBeenCalledWith();
    expect(d.intake.record).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'settings.command' }),
      'cmd-trig1',
      'trig1',
      expect.objectContaining({ command: expect.objectContaining({ kind: 'invalid' }) }),
    );
    const warns = d.lines.filter((l) => l.level === 40);
    expect(warns).toEqual([
      expect.objectContaining({ channel: 'C0DOCS', msg: 'a /docs-settings mistake; answered with the usage' }),
    ]);
    expect(JSON.stringify(warns)).not.toContain('secret-words');
  });
});
