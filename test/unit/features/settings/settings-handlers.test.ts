import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_UNKNOWN_TEXT } from '../../../../src/features/settings/blocks.js';
import {
  READ_FAILED,
  registerHandlers,
  SAVE_FAILED,
  type SettingsHandlerDeps,
} from '../../../../src/features/settings/handlers.js';
import type { CommandIntake, SaveIntake } from '../../../../src/features/settings/intake.js';
import type { ChangeOutcome } from '../../../../src/features/settings/service.js';
import type { IntakeContext } from '../../../../src/platform/intake.js';
import { slackPlatformError } from '../../../helpers/fake-slack-client.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { startResponseUrlHook, type ResponseUrlHook } from '../../../helpers/response-url-hook.js';
import { CHANNEL_SETTINGS } from '../../../helpers/settings.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';

/** Redis refusing a command, as ioredis rejects. */
const redisDown = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

const ctxOf = (finalAttempt: boolean) => ({ finalAttempt }) as unknown as IntakeContext;

/** The settings handlers over fakes; `over` replaces any dependency. */
function rig(over: Partial<SettingsHandlerDeps> = {}) {
  const { logger, lines } = arrayLogger();
  const handlers = new Map<string, (p: unknown, ctx: IntakeContext) => Promise<void>>();
  const chat = {
    postMessage: vi.fn(async (_a: { channel: string; text: string }) => ({ ok: true })),
    postEphemeral: vi.fn(async (_a: { channel: string; user: string; text: string }) => ({ ok: true })),
  };
  const deps: SettingsHandlerDeps = {
    service: {
      effective: vi.fn(async () => CHANNEL_SETTINGS),
      isAdmin: vi.fn(async () => true),
      change: vi.fn(async (): Promise<ChangeOutcome> => ({ outcome: 'unchanged', text: 'Nothing to change.' })),
    },
    authorizeView: async () => ({ allowed: true }),
    usage: 'usage',
    describeAccess: async () => 'every full member',
    describeDigest: async () => 'none',
    asking: true,
    adminUsers: [],
    checkExperts: async () => undefined,
    slack: { chat: chat as unknown as SettingsHandlerDeps['slack']['chat'] },
    signer: TEST_SIGNER,
    logger,
    ...over,
  };
  registerHandlers({ on: ((kind: { name: string }, h: never) => void handlers.set(kind.name, h)) as never }, deps);
  return {
    chat,
    lines,
    command: (p: CommandIntake, finalAttempt = false) => handlers.get('settings.command')!(p, ctxOf(finalAttempt)),
    save: (p: SaveIntake, finalAttempt = false) => handlers.get('settings.save')!(p, ctxOf(finalAttempt)),
  };
}

let hook: ResponseUrlHook;
beforeAll(async () => {
  hook = await startResponseUrlHook();
});
afterAll(() => hook.close());

const show = (): CommandIntake => ({
  teamId: 'T1',
  channel: 'C0DOCS',
  user: 'U0ALICE',
  responseUrl: hook.url,
  command: { kind: 'show' },
});
const SAVE: SaveIntake = { teamId: 'T1', channel: 'C0DOCS', user: 'U0ADMIN', change: { projectId: 'proj_a' } };

describe('/docs-settings when a part of the settings message cannot be read', () => {
  it('still shows the settings, saying which part it could not read, and no Edit when admin status is unknown', async () => {
    hook.received.length = 0;
    const r = rig({
      describeAccess: async () => Promise.reject(redisDown()),
      describeDigest: async () => Promise.reject(redisDown()),
      service: {
        effective: async () => CHANNEL_SETTINGS,
        isAdmin: async () => Promise.reject(slackPlatformError('ratelimited')),
        change: vi.fn(),
      },
    });
    await r.command(show());
    expect(hook.received).toHaveLength(1);
    const answer = JSON.stringify(hook.received[0]);
    expect(hook.received[0]).toMatchObject({ response_type: 'ephemeral' });
    expect(answer).toContain('*Docs project:* `proj_b`');
    expect(answer.match(/I couldn't read it just now/g)).toHaveLength(2);
    expect(answer).toContain(ADMIN_UNKNOWN_TEXT);
    expect(answer).not.toContain('settings.edit');
    expect(r.lines.filter((l) => l.level === 40)).toEqual([
      expect.objectContaining({ msg: 'could not check whether the viewer is a settings admin' }),
    ]);
  });
});

describe('/docs-settings (show) when the settings cannot be read', () => {
  const down = () =>
    rig({ service: { effective: async () => Promise.reject(redisDown()), isAdmin: vi.fn(), change: vi.fn() } });

  it('throws on an early attempt (the intake retries) and tells the person nothing yet', async () => {
    hook.received.length = 0;
    await expect(down().command(show(), false)).rejects.toThrow(/ECONNREFUSED/);
    expect(hook.received).toEqual([]);
  });

  it('on the last attempt tells the person, privately, to try again, and logs an error naming the channel', async () => {
    hook.received.length = 0;
    const r = down();
    await r.command(show(), true);
    expect(hook.received).toEqual([{ response_type: 'ephemeral', text: READ_FAILED }]);
    expect(r.lines.filter((l) => l.level === 50)).toEqual([
      expect.objectContaining({ msg: 'could not read channel settings', channel: 'C0DOCS' }),
    ]);
  });
});

describe('/docs-settings <change> when storage fails', () => {
  const change = (): CommandIntake => ({ ...show(), user: 'U0ADMIN', command: { kind: 'mentions', mode: 'ask' } });

  it('throws on an early attempt (the intake retries) and tells the person nothing yet', async () => {
    hook.received.length = 0;
    const r = rig({
      service: { effective: vi.fn(), isAdmin: vi.fn(), change: async () => Promise.reject(redisDown()) },
    });
    await expect(r.command(change(), false)).rejects.toThrow(/ECONNREFUSED/);
    expect(hook.received).toEqual([]);
  });

  it('on the last attempt tells the person, privately, that nothing was saved, and logs an error naming the channel', async () => {
    hook.received.length = 0;
    const r = rig({
      service: { effective: vi.fn(), isAdmin: vi.fn(), change: async () => Promise.reject(redisDown()) },
    });
    await r.command(change(), true);
    expect(hook.received).toEqual([{ response_type: 'ephemeral', text: SAVE_FAILED }]);
    expect(r.lines.filter((l) => l.level === 50)).toEqual([
      expect.objectContaining({ msg: 'could not save channel settings', channel: 'C0DOCS' }),
    ]);
  });
});

describe('the settings modal’s save when storage or Slack fails', () => {
  it('storage failing on the last attempt: the person is told privately; nothing goes to the channel', async () => {
    const r = rig({
      service: { effective: vi.fn(), isAdmin: vi.fn(), change: async () => Promise.reject(redisDown()) },
    });
    await expect(r.save(SAVE, false)).rejects.toThrow(/ECONNREFUSED/);
    expect(r.chat.postEphemeral).not.toHaveBeenCalled();
    await r.save(SAVE, true);
    expect(r.chat.postEphemeral).toHaveBeenCalledWith({ channel: 'C0DOCS', user: 'U0ADMIN', text: SAVE_FAILED });
    expect(r.chat.postMessage).not.toHaveBeenCalled();
  });

  it('a change the channel cannot be told about (bot removed) reaches the person as a DM instead', async () => {
    const r = rig({
      service: {
        effective: vi.fn(),
        isAdmin: vi.fn(),
        change: async (): Promise<ChangeOutcome> => ({
          outcome: 'changed',
          before: CHANNEL_SETTINGS,
          after: CHANNEL_SETTINGS,
          text: 'Docs project is now `proj_a`.',
        }),
      },
    });
    r.chat.postMessage.mockImplementationOnce(async () => Promise.reject(slackPlatformError('not_in_channel')));
    await r.save(SAVE, false);
    expect(r.chat.postMessage.mock.calls.map(([a]) => a)).toEqual([
      { channel: 'C0DOCS', text: 'Docs project is now `proj_a`.' },
      { channel: 'U0ADMIN', text: 'Docs project is now `proj_a`.' },
    ]);
  });

  it('when neither the ephemeral nor the DM can be sent, the save still completes (no retry, no second change) and a warning names the failure', async () => {
    const change = vi.fn(async (): Promise<ChangeOutcome> => ({ outcome: 'refused', text: 'Only admins may.' }));
    const r = rig({ service: { effective: vi.fn(), isAdmin: vi.fn(), change } });
    r.chat.postEphemeral.mockImplementationOnce(async () => Promise.reject(slackPlatformError('user_not_in_channel')));
    r.chat.postMessage.mockImplementationOnce(async () => Promise.reject(slackPlatformError('cannot_dm_bot')));
    await expect(r.save(SAVE, false)).resolves.toBeUndefined();
    expect(change).toHaveBeenCalledTimes(1);
    expect(r.chat.postMessage).toHaveBeenCalledWith({ channel: 'U0ADMIN', text: 'Only admins may.' });
    const warns = r.lines.filter((l) => l.level === 40);
    expect(warns).toEqual([expect.objectContaining({ msg: 'could not tell the outcome of a settings change' })]);
    expect(JSON.stringify(warns)).toContain('cannot_dm_bot');
    expect(JSON.stringify(warns)).not.toContain('Only admins may.');
  });
});
