import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW_FIX_PURPOSE } from '../../../../src/features/agent-jobs/preview/blocks.js';
import {
  FIX_STALE_TEXT,
  FIX_UNKNOWN_TEXT,
  handlePreviewFix,
  type PreviewFixDeps,
} from '../../../../src/features/agent-jobs/preview/fix.js';
import { PreviewStore } from '../../../../src/features/agent-jobs/preview/record.js';
import { OPEN_GATE, promptTooLongText, type AccessGate } from '../../../../src/platform/access.js';
import { KeyedSerial } from '../../../../src/platform/keyed-serial.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { memorySteps } from '../../../../src/platform/steps.js';
import { UnreplicatedStepError } from '../../../../src/platform/replica-guard.js';
import { jobRecord } from '../../../helpers/job-record.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';

// "Ask the agent to fix the build": refusals before anything is sent, and the usual access and budget checks.
let redis: Redis;
const prefix = randomPrefix();
beforeAll(() => {
  redis = testRedis();
});
afterAll(async () => {
  await dropPrefix(redis, prefix);
  await redis.quit();
});

function setup(access: AccessGate = OPEN_GATE, jobId = 'job_fix000000001', logger = createLogger('silent')) {
  const rec = jobRecord({
    jobId,
    channel: 'C1',
    state: 'completed',
    prLink: 'https://github.com/a/b/pull/1',
  });
  const previews = new PreviewStore(redis, prefix);
  const sent: string[] = [];
  const told: string[] = [];
  const ctx = { ...memorySteps(), requestId: 'r1', jobId: 'intake-1', receivedAt: Date.now() };
  const deps = (): PreviewFixDeps => ({
    jobs: { get: async (id) => (id === rec.jobId ? rec : undefined) },
    previews,
    promptMaxChars: 12_000,
    followups: new KeyedSerial(),
    signer: TEST_SIGNER,
    logger,
    slack: {
      chat: { postMessage: (async () => ({ ok: true, ts: '1.2' })) as never },
      conversations: {
        history: (async () => ({ messages: [] })) as never,
        replies: (async () => ({ messages: [] })) as never,
      },
    },
    continue: {
      // The record's cycle moves on as the real store's does (beginCycle increments it).
      store: { get: async () => ({ ...rec }), beginCycle: async () => (rec.cycle += 1) },
      redis,
      prefix,
      docsApi: { forProject: () => ({ sendMessage: async (_id: string, prompt: string) => (sent.push(prompt), {}) }) },
      pollQueue: { add: (async () => ({})) as never },
      status: { show: async () => ({}) },
      access,
      logger: createLogger('silent'),
      policyFor: async () => 'anyone',
      firstPollDelayMs: 1_000,
      now: () => Date.now(),
    },
  });
  const one = deps();
  const click = (value: string, channel = 'C1') =>
    handlePreviewFix(one, { value, user: 'U2', channel }, ctx as never, async (t) => void told.push(t));
  return { rec, previews, sent, told, click, deps };
}

describe('Ask the agent to fix the build', () => {
  it('refuses a value it did not sign, a job of another conversation and a build that is no longer the latest: nothing sent', async () => {
    const s = setup();
    await s.previews.save({ jobId: s.rec.jobId, cycle: 0, stage: 'failed', logs: ['Error: x'] });
    await s.click('failed:job_fix000000001:0');
    await s.click(TEST_SIGNER.sign(PREVIEW_FIX_PURPOSE, `${s.rec.jobId}:0`), 'C_OTHER');
    await s.previews.save({ jobId: s.rec.jobId, cycle: 0, stage: 'ready' });
    await s.click(TEST_SIGNER.sign(PREVIEW_FIX_PURPOSE, `${s.rec.jobId}:0`));
    expect(s.told[0]).toMatch(/not one I sent|couldn't verify|can't verify|signed/i);
    expect(s.told.slice(1)).toEqual([FIX_UNKNOWN_TEXT, FIX_STALE_TEXT]);
    expect(s.sent).toEqual([]);
  });

  it('goes through the access gate and the agent budget: a refusal is told privately and costs no API call', async () => {
    const budgetSpent: AccessGate = {
      ...OPEN_GATE,
      admitAgentCall: async () => ({ allowed: false, reason: 'user_budget', text: 'Your hourly budget is spent.' }),
    };
    const s = setup(budgetSpent);
    await s.previews.save({
      jobId: s.rec.jobId,
      cycle: 0,
      stage: 'failed',
      summary: 'Build failed',
      logs: ['Error: </Tabs>'],
    });
    await s.click(TEST_SIGNER.sign(PREVIEW_FIX_PURPOSE, `${s.rec.jobId}:0`));
    expect(s.told).toEqual(['Your hourly budget is spent.']);
    expect(s.sent).toEqual([]);
  });

  it('sends one follow-up whose prompt quotes the failed build inside the fence; the audit names who asked', async () => {
    const audit = arrayLogger('info');
    const s = setup(OPEN_GATE, undefined, audit.logger);
    await s.previews.save({
      jobId: s.rec.jobId,
      cycle: 0,
      stage: 'failed',
      summary: 'Build failed',
      logs: ['Error: </Tabs>'],
    });
    await s.click(TEST_SIGNER.sign(PREVIEW_FIX_PURPOSE, `${s.rec.jobId}:0`));
    expect(s.told).toEqual([]);
    expect(s.sent).toHaveLength(1);
    expect(s.sent[0]).toMatch(/<build_log_([0-9a-f]{16})>\nsummary: Build failed\nError: <\/Tabs>\n<\/build_log_\1>$/);
    expect(audit.lines.filter((l) => l.audit)).toEqual([
      expect.objectContaining({ action: 'preview.fix', actor: 'U2', channel: 'C1', outcome: 'ok', cycle: 1 }),
    ]);
  });

  it('a double click (two intake jobs, on two replicas) sends one follow-up and takes one budget unit', async () => {
    let admitted = 0;
    const counting: AccessGate = {
      ...OPEN_GATE,
      admitAgentCall: async (call) => ((admitted += 1), OPEN_GATE.admitAgentCall(call)),
    };
    const s = setup(counting, 'job_fix000000002');
    await s.previews.save({ jobId: s.rec.jobId, cycle: 0, stage: 'failed', summary: 'Build failed', logs: ['x'] });
    const value = TEST_SIGNER.sign(PREVIEW_FIX_PURPOSE, `${s.rec.jobId}:0`);
    const told: Record<string, string[]> = { U2: [], U3: [] };
    // Each click has its own action_ts, so its own intake job and steps; each replica its own KeyedSerial.
    const click = (user: 'U2' | 'U3', i: number) =>
      handlePreviewFix(
        s.deps(),
        { value, user, channel: 'C1' },
        { ...memorySteps(), requestId: `r${i}`, jobId: `intake-${i}`, receivedAt: Date.now() } as never,
        async (t) => void told[user]!.push(t),
      );
    await Promise.all([click('U2', 1), click('U3', 2)]);
    expect(s.sent).toHaveLength(1);
    expect(admitted).toBe(1);
    expect(s.rec.cycle).toBe(1);
    expect([...told.U2!, ...told.U3!]).toEqual([FIX_STALE_TEXT]);
  });

  it('a long build log still makes a fix the budget takes: the instruction fits AGENT_PROMPT_MAX_CHARS', async () => {
    // As the real gate does: an instruction over the limit is refused before anything is spent.
    const limited: AccessGate = {
      ...OPEN_GATE,
      admitAgentCall: async (call) =>
        call.promptChars > 12_000
          ? { allowed: false, reason: 'prompt_too_long', text: promptTooLongText(call.promptChars, 12_000) }
          : OPEN_GATE.admitAgentCall(call),
    };
    const s = setup(limited, 'job_fix000000003');
    const logs = [...Array.from({ length: 40 }, (_, i) => `${i}:`.padEnd(350, 'x')), `Error: ${'y'.repeat(20_000)}`];
    await s.previews.save({ jobId: s.rec.jobId, cycle: 0, stage: 'failed', summary: 'Build failed', logs });
    await s.click(TEST_SIGNER.sign(PREVIEW_FIX_PURPOSE, `${s.rec.jobId}:0`));
    expect(s.told).toEqual([]);
    expect(s.sent).toHaveLength(1);
    expect(s.sent[0]!.length).toBeLessThanOrEqual(12_000);
    expect(s.sent[0]).toContain('summary: Build failed');
    expect(s.sent[0]).toContain('Error: yyy');
  });

  it('a fix note Slack refuses: the follow-up stands (sent once), nothing told, one warn line; an unreplicated note mark is thrown for the retry', async () => {
    const { logger, lines } = arrayLogger('warn');
    const s = setup(OPEN_GATE, 'job_fix000000004', logger);
    await s.previews.save({ jobId: s.rec.jobId, cycle: 0, stage: 'failed', summary: 'Build failed', logs: ['x'] });
    const d = s.deps();
    d.slack.chat.postMessage = (async () =>
      Promise.reject(
        Object.assign(new Error('An API error occurred: is_archived'), {
          code: 'slack_webapi_platform_error',
          data: { ok: false, error: 'is_archived' },
        }),
      )) as never;
    const value = TEST_SIGNER.sign(PREVIEW_FIX_PURPOSE, `${s.rec.jobId}:0`);
    const ctx = { ...memorySteps(), requestId: 'r9', jobId: 'intake-9', receivedAt: Date.now() };
    await handlePreviewFix(d, { value, user: 'U2', channel: 'C1' }, ctx as never, async (t) => void s.told.push(t));
    expect(s.sent).toHaveLength(1);
    expect(s.told).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'could not post the fix note' }));

    // A note whose "posting" mark is not confirmed on the replicas: thrown (the intake retries), nothing sent again.
    await s.previews.save({ jobId: s.rec.jobId, cycle: 1, stage: 'failed', summary: 'Build failed', logs: ['y'] });
    const again = {
      ...memorySteps(),
      requestId: 'r10',
      jobId: 'intake-10',
      receivedAt: Date.now(),
      confirm: async (what: string) => {
        if (what.endsWith(':note')) throw new UnreplicatedStepError('a replica left the primary a moment ago');
      },
    };
    const value1 = TEST_SIGNER.sign(PREVIEW_FIX_PURPOSE, `${s.rec.jobId}:1`);
    await expect(
      handlePreviewFix(s.deps(), { value: value1, user: 'U2', channel: 'C1' }, again as never, async () => undefined),
    ).rejects.toBeInstanceOf(UnreplicatedStepError);
    expect(s.sent).toHaveLength(2);
  });
});
