import { describe, expect, it, vi } from 'vitest';
import type { GuardMark } from '../../../src/platform/replica-guard.js';
import { postOnceKeys, guardSince, stepKeys, stepsOf } from '../../../src/platform/steps.js';

/** A replica guard whose epoch moves when the test says (a reconnect), recording what each confirm covered. */
function fakeGuard() {
  let epoch = 0;
  const confirmSteps = vi.fn(async (_mark: GuardMark, _what: string) => undefined);
  return { mark: () => ({ epoch }), confirmSteps, reconnect: () => void epoch++ };
}

const job = (progress?: Record<string, unknown>) => ({
  data: { progress },
  updateData: vi.fn(async () => undefined),
  attemptsMade: 0,
  opts: { attempts: 3 },
});

describe('steps', () => {
  it('step keys are <scope>:<name>, byte for byte the keys jobs in flight saved their steps under (a retry resumes from them)', () => {
    // Intakes' job ids and a start request's key: the scopes the features name their steps in.
    expect(stepKeys('ask.experts-A1_2', 'experts', 'experts-told')).toEqual({
      experts: 'ask.experts-A1_2:experts',
      'experts-told': 'ask.experts-A1_2:experts-told',
    });
    expect(stepKeys('agent-jobs.reply-V1', 'note').note).toBe('agent-jobs.reply-V1:note');
    expect(stepKeys('req-1', 'status', 'uncertain')).toEqual({ status: 'req-1:status', uncertain: 'req-1:uncertain' });
    expect(stepKeys('agent-jobs.message-C1_1.000001', 'help').help).toBe('agent-jobs.message-C1_1.000001:help');
    // What postOnce saves under a message's key.
    expect(postOnceKeys('req-1:status')).toEqual({ ts: 'req-1:status:ts', posting: 'req-1:status:posting' });
  });

  it("a job's steps confirm what was written since they were made; without a guard there is nothing to confirm", async () => {
    const guard = fakeGuard();
    expect(stepsOf(job(), undefined).confirm).toBeUndefined();

    const steps = stepsOf(job({ done: true }), guard);
    guard.reconnect(); // after the steps were made: their confirm must not pass over it
    await steps.confirm('post');
    expect(guard.confirmSteps).toHaveBeenCalledWith({ epoch: 0 }, 'post');
    expect(steps.progress).toEqual({ done: true });
    expect(steps.finalAttempt).toBe(false);
  });

  it('guardSince keeps the mark of when it was taken, for steps made later (the poller: its claim comes first)', async () => {
    const guard = fakeGuard();
    const sinceRunBegan = guardSince(guard);
    guard.reconnect(); // between the run's first write and its steps
    await stepsOf(job(), sinceRunBegan).confirm('announce');
    expect(guard.confirmSteps).toHaveBeenCalledWith({ epoch: 0 }, 'announce');
  });
});
