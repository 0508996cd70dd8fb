import { performance } from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { documentModal } from '../../../../src/features/ask/document.js';
import { documentAction, documentSubmission } from '../../../../src/features/ask/document-form.js';
import { PURPOSE } from '../../../../src/features/ask/blocks.js';
import type { AskListenerDeps } from '../../../../src/features/ask/listeners.js';
import type { AnswerRecord } from '../../../../src/features/ask/store.js';
import { OPEN_GATE } from '../../../../src/platform/access.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { answerRecord } from '../../../helpers/answers.js';

/**
 * The Document this form's checks against Slack's 3 s (the ack of a view_submission; the trigger_id
 * of a click) with the slowest parts that still answer: the answer's record just inside its 0.8 s,
 * the access policy at 1.4 s, membership at 0.9 s (too late once access took 1.4 s of the shared
 * 1.5 s: refused). Real time: these are the listener's own time limits, measured.
 */

const REC: AnswerRecord = answerRecord({
  question: 'How do I export audit logs?',
  answer: '',
  unanswered: true,
});

const after = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

function slowDeps() {
  const isMember = vi.fn(() => after(900, true));
  const open = vi.fn(async () => ({ ok: true }));
  const d: AskListenerDeps = {
    intake: { record: vi.fn(async () => undefined) },
    configured: true,
    signer: TEST_SIGNER,
    store: { answer: () => after(780, REC), reply: async () => undefined, expertReplyIn: async () => undefined },
    access: { ...OPEN_GATE, authorize: () => after(1_400, { allowed: true as const }) },
    conversations: { isMember },
    slack: { views: { open } } as never,
    logger: createLogger('silent'),
  };
  return { d, isMember, open };
}

describe('the Document this form answers within Slack’s 3 s', () => {
  it('a submission is answered (refused in the modal) within 2.5 s with every check slow; a click is answered before its trigger_id ends', async () => {
    const sub = slowDeps();
    const ack = vi.fn(async () => undefined);
    const view = documentModal(REC, TEST_SIGNER);
    const values = { instruction: { instruction: { value: 'Document it' } } };
    const t0 = performance.now();
    const submitted = documentSubmission(sub.d)({
      ack,
      body: { user: { id: 'U0BOB' }, team: { id: 'T1' }, view: { id: 'V1' }, trigger_id: 'tr' },
      view: { ...view, state: { values } },
    } as never).then(() => performance.now() - t0);
    const click = slowDeps();
    const respond = vi.fn(async () => undefined);
    const clicked = documentAction(click.d)({
      ack: vi.fn(async () => undefined),
      body: { user: { id: 'U0BOB' }, team: { id: 'T1' }, trigger_id: 'tr2', response_url: 'https://hooks.slack.com/x' },
      action: { value: TEST_SIGNER.sign(PURPOSE.document, REC.answerId) },
      respond,
    } as never).then(() => performance.now() - t0);
    const [submitMs, clickMs] = await Promise.all([submitted, clicked]);
    // Membership asked once per path, too late, and its refusal told: nothing recorded, no form opened.
    expect(sub.isMember).toHaveBeenCalledTimes(1);
    expect(ack).toHaveBeenCalledWith(expect.objectContaining({ response_action: 'errors' }));
    expect(sub.d.intake.record).not.toHaveBeenCalled();
    expect(click.isMember).toHaveBeenCalledTimes(1);
    expect(click.open).not.toHaveBeenCalled();
    expect(respond).toHaveBeenCalledTimes(1);
    expect(submitMs).toBeLessThan(2_500);
    expect(clickMs).toBeLessThan(2_500);
  });
});
