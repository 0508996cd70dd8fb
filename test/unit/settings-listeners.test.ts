import { describe, expect, it, vi } from 'vitest';
import { buildSettingsMessage } from '../../src/features/settings/blocks.js';
import { editAction, editSubmission } from '../../src/features/settings/listeners.js';
import type { EffectiveSettings } from '../../src/features/settings/service.js';
import { createLogger } from '../../src/platform/logger.js';

const SETTINGS: EffectiveSettings = { projectId: 'proj_b', projectIsDefault: false, followupPolicy: 'requester', followupIsDefault: false, mentions: 'auto', updatedBy: 'U0ADMIN' };
const ctx = { channel: 'C0DOCS', access: 'every full member', digest: 'none' };

function deps(over: { effective?: () => Promise<EffectiveSettings>; record?: () => Promise<void>; open?: () => Promise<{ ok: boolean }> } = {}) {
  return {
    intake: { record: vi.fn(over.record ?? (async () => undefined)) },
    service: { effective: vi.fn(over.effective ?? (async () => SETTINGS)), projects: ['proj_a', 'proj_b'] },
    slack: { views: { open: vi.fn(over.open ?? (async () => ({ ok: true }))) } },
    logger: createLogger('silent'),
  };
}

const submission = (values: Record<string, string | undefined>, metadata = JSON.stringify({ c: 'C0DOCS' })) => ({
  body: { user: { id: 'U0ADMIN' }, team: { id: 'T1' } },
  view: {
    id: 'V1',
    hash: 'h1',
    private_metadata: metadata,
    state: {
      values: {
        project: { project: { selected_option: values.project ? { value: values.project } : null } },
        followups: { followups: { selected_option: values.followups ? { value: values.followups } : null } },
      },
    },
  },
});

describe('the settings message', () => {
  it('shows Edit only to an admin, and says so when admin status could not be checked', () => {
    const admin = JSON.stringify(buildSettingsMessage(SETTINGS, { ...ctx, canEdit: true }).blocks);
    expect(admin).toContain('"action_id":"settings.edit"');
    expect(admin).toContain('*Docs project:* `proj_b`');
    expect(admin).toContain('only the person who started a job can continue it');
    expect(admin).toContain('Last changed by <@U0ADMIN>.');
    const member = JSON.stringify(buildSettingsMessage(SETTINGS, { ...ctx, canEdit: false }).blocks);
    expect(member).not.toContain('settings.edit');
    expect(member).toContain("Workspace admins and the bot's settings admins can change them.");
    const unknown = JSON.stringify(buildSettingsMessage(SETTINGS, { ...ctx, canEdit: 'unknown' }).blocks);
    expect(unknown).not.toContain('settings.edit');
    expect(unknown).toContain("I couldn't check whether you may change them.");
    const stale = JSON.stringify(buildSettingsMessage({ ...SETTINGS, projectId: 'proj_a', projectIsDefault: true, staleProjectId: 'proj_gone' }, { ...ctx, canEdit: false }).blocks);
    expect(stale).toContain('`proj_gone`, which is no longer configured; the default is used');
  });
});

describe('Edit and the settings modal', () => {
  it('Edit acks, then opens the modal with the channel and its settings', async () => {
    const d = deps();
    const ack = vi.fn(async () => undefined);
    await editAction(d)({ ack, body: { trigger_id: 'trig' }, action: { value: 'C0DOCS' }, respond: vi.fn() } as never);
    expect(ack).toHaveBeenCalled();
    const view = d.slack.views.open.mock.calls[0] as unknown as [{ trigger_id: string; view: { private_metadata: string; callback_id: string } }];
    expect(view[0]).toMatchObject({ trigger_id: 'trig', view: { callback_id: 'settings_edit', private_metadata: '{"c":"C0DOCS"}' } });
  });

  it('Edit tells the person when the settings cannot be read or Slack will not open the form', async () => {
    for (const d of [deps({ effective: async () => Promise.reject(new Error('ECONNREFUSED')) }), deps({ open: async () => Promise.reject(new Error('expired_trigger_id')) })]) {
      const respond = vi.fn(async () => undefined);
      await editAction(d)({ ack: vi.fn(async () => undefined), body: { trigger_id: 'trig' }, action: { value: 'C0DOCS' }, respond } as never);
      expect(respond).toHaveBeenCalledWith(expect.objectContaining({ response_type: 'ephemeral', text: "I couldn't open the settings form; click Edit again." }));
    }
    const respond = vi.fn(async () => undefined);
    await editAction(deps())({ ack: vi.fn(async () => undefined), body: { trigger_id: 'trig' }, action: { value: 'not a channel' }, respond } as never);
    expect(respond).toHaveBeenCalledWith(expect.objectContaining({ text: expect.stringMatching(/older message/) }));
  });

  it('a submission with a project or policy that is not configured gets errors in the modal and records nothing', async () => {
    const d = deps();
    const ack = vi.fn(async () => undefined);
    await editSubmission(d)({ ack, ...submission({ project: 'proj_gone', followups: 'everyone' }) } as never);
    expect(ack).toHaveBeenCalledWith({ response_action: 'errors', errors: { project: 'Choose one of proj_a (default), proj_b.', followups: 'Choose who may continue a job.' } });
    await editSubmission(d)({ ack, ...submission({ project: 'proj_a', followups: 'anyone' }, '{"c":"../x"}') } as never);
    expect(ack).toHaveBeenLastCalledWith({ response_action: 'errors', errors: { project: 'This form is out of date; run `/docs-settings` again.' } });
    expect(d.intake.record).not.toHaveBeenCalled();
  });

  it('a valid submission is recorded before the modal closes; if Redis will not take it, the modal says so', async () => {
    const d = deps();
    const ack = vi.fn(async () => undefined);
    await editSubmission(d)({ ack, ...submission({ project: 'proj_a', followups: 'anyone' }) } as never);
    expect(d.intake.record).toHaveBeenCalledWith(expect.objectContaining({ name: 'settings.save' }), 'view-V1-h1', 'V1-h1', { teamId: 'T1', channel: 'C0DOCS', user: 'U0ADMIN', change: { projectId: 'proj_a', followupPolicy: 'anyone' } });
    expect(ack).toHaveBeenCalledWith();

    const down = deps({ record: async () => Promise.reject(new Error('ECONNREFUSED')) });
    const ack2 = vi.fn(async () => undefined);
    await editSubmission(down)({ ack: ack2, ...submission({ project: 'proj_a', followups: 'anyone' }) } as never);
    expect(ack2).toHaveBeenCalledWith({ response_action: 'errors', errors: { project: expect.stringMatching(/database|try again/i) } });
  });
});
