import { describe, expect, it, vi } from 'vitest';
import { RESTART_PURPOSE } from '../../../../src/features/agent-jobs/start/index.js';
import { registerHandlers, type AgentJobsHandlerDeps } from '../../../../src/features/agent-jobs/handlers.js';
import { INTAKE, type RestartIntake } from '../../../../src/features/agent-jobs/intake.js';
import type { IntakeContext } from '../../../../src/platform/intake.js';
import { NOT_A_MEMBER_TEXT } from '../../../../src/platform/slack/member-check.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';

/*
 * "Start it again" on the notice of an uncertain start (agent-jobs.restart): its value is signed,
 * and only the requester may use it, from the notice's own conversation, while still a member.
 * Every refusal here happens before anything is posted or sent (the start's Slack client and docs
 * API are not even given).
 */

const SAVED = { teamId: 'T1', channel: 'C0DOCS', requester: 'U0ALICE', instruction: 'Add a quickstart' };
const MEMBERS: Record<string, string[]> = { C0DOCS: ['U0ALICE', 'U0BOB'] };

function harness(members = MEMBERS) {
  const handlers = new Map<string, (p: unknown, ctx: IntakeContext) => Promise<void>>();
  const intake = {
    on: (kind: { name: string }, h: (p: unknown, ctx: IntakeContext) => Promise<void>) =>
      void handlers.set(kind.name, h),
  };
  const postEphemeral = vi.fn(async (_args: { channel: string; user: string; text: string }) => ({ ok: true }));
  const getRestart = vi.fn(async (id: string) => (id === 'req-1' ? SAVED : undefined));
  const { logger, lines } = arrayLogger();
  const deps = {
    store: { getRestart },
    slack: { chat: { postEphemeral } },
    signer: TEST_SIGNER,
    conversations: { isMember: async (channel: string, user: string) => (members[channel] ?? []).includes(user) },
    logger,
  } as unknown as AgentJobsHandlerDeps;
  registerHandlers(intake as never, deps);
  const ctx = {
    jobId: 'act-1',
    requestId: 'r',
    receivedAt: 0,
    progress: {},
    save: async () => undefined,
    finalAttempt: true,
    log: logger,
  } as unknown as IntakeContext;
  const click = (p: RestartIntake) => handlers.get(INTAKE.restart.name)!(p, ctx);
  const told = () => postEphemeral.mock.calls.map(([a]) => a.text);
  return { click, told, getRestart, lines };
}

describe('"Start it again"', () => {
  it('a value the bot did not sign: refused privately with a warning, nothing looked up', async () => {
    const h = harness();
    await h.click({ restartId: 'req-1', user: 'U0ALICE', channel: 'C0DOCS' });
    expect(h.told()).toEqual([
      expect.stringMatching(/^I couldn't verify that button or form.*start the job with `\/docs-edit`\.$/),
    ]);
    expect(h.lines.filter((l) => l.level === 40)).toEqual([
      expect.objectContaining({ purpose: RESTART_PURPOSE, reason: 'unsigned' }),
    ]);
    expect(h.getRestart).not.toHaveBeenCalled();
  });

  it("clicked in another conversation than the notice's: the unknown instruction's answer (nobody learns it exists)", async () => {
    const h = harness();
    await h.click({ restartId: TEST_SIGNER.sign(RESTART_PURPOSE, 'req-1'), user: 'U0ALICE', channel: 'C0OTHER' });
    await h.click({ restartId: TEST_SIGNER.sign(RESTART_PURPOSE, 'req-gone'), user: 'U0ALICE', channel: 'C0OTHER' });
    expect(h.told()).toEqual([
      expect.stringMatching(/^I no longer have that instruction/),
      expect.stringMatching(/^I no longer have that instruction/),
    ]);
  });

  it('someone else than the requester, or the requester no longer in the conversation: refused', async () => {
    const h = harness();
    await h.click({ restartId: TEST_SIGNER.sign(RESTART_PURPOSE, 'req-1'), user: 'U0BOB', channel: 'C0DOCS' });
    expect(h.told()).toEqual([
      'Only <@U0ALICE>, who asked for this job, can start it again. To run it yourself, start a job with `/docs-edit`.',
    ]);
    const left = harness({ C0DOCS: ['U0BOB'] });
    await left.click({ restartId: TEST_SIGNER.sign(RESTART_PURPOSE, 'req-1'), user: 'U0ALICE', channel: 'C0DOCS' });
    expect(left.told()).toEqual([NOT_A_MEMBER_TEXT]);
  });
});
