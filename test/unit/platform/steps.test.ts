import { describe, expect, it, vi } from 'vitest';
import { UnreplicatedStepError, type GuardMark } from '../../../src/platform/replica-guard.js';
import { confirmStep, postOnceKeys, guardSince, stepKeys, stepsOf } from '../../../src/platform/steps.js';
import { arrayLogger } from '../../helpers/logs.js';

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

  it('a step mark the replicas cannot confirm is taken back and the step not taken (the error is thrown for a retry); when even that fails, one warning says so', async () => {
    const unconfirmed = new UnreplicatedStepError('1 of 2 replicas in 500 ms');
    const saved: Record<string, unknown>[] = [];
    const steps = {
      progress: { posting: true },
      save: vi.fn(async (patch: Record<string, unknown>) => void saved.push(patch)),
      confirm: vi.fn(async () => Promise.reject(unconfirmed)),
      finalAttempt: false,
    };
    const { logger, lines } = arrayLogger('warn');
    await expect(confirmStep(steps, 'post', { posting: null }, logger)).rejects.toBe(unconfirmed);
    expect(saved).toEqual([{ posting: null }]);
    expect(lines).toEqual([]);

    steps.save.mockRejectedValueOnce(new Error('Connection is closed.'));
    await expect(confirmStep(steps, 'post', { posting: null }, logger)).rejects.toBe(unconfirmed);
    expect(lines).toEqual([
      expect.objectContaining({ step: 'post', msg: 'could not take back a step mark that was not confirmed' }),
    ]);
  });
});
