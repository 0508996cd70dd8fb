import { OPEN_GATE } from '../../../../src/platform/access.js';
import { describe, expect, it, vi } from 'vitest';
import {
  CONTEXT_FAILED_TEXT,
  startWithContext,
  type PromptContext,
} from '../../../../src/features/agent-jobs/start/context.js';
import type { StartJobDeps } from '../../../../src/features/agent-jobs/start/start.js';
import type { Steps } from '../../../../src/platform/steps.js';
import { fakeStartJobDeps } from '../../../helpers/start-job-deps.js';

/*
 * startWithContext at its seams: the prompt context (what the thread-context feature provides) and
 * a start whose Slack, store and docs API are hand-written fakes.
 */

function harness(context: PromptContext) {
  const createJob = vi.fn(async (_prompt: string) => ({ id: 'job_ctx', status: 'active' as const }));
  const deps: StartJobDeps = fakeStartJobDeps({
    docsApi: { forProject: () => ({ createJob }) },
    projectFor: async () => 'proj_a',
  });
  const told: string[] = [];
  const progress: Record<string, unknown> = {};
  const steps = (finalAttempt = true): Steps => ({
    progress,
    save: async (patch) => void Object.assign(progress, patch),
    finalAttempt,
  });
  return {
    deps: { start: deps, context: vi.fn(context) },
    createJob,
    told,
    tell: async (t: string) => void told.push(t),
    steps,
  };
}

const req = {
  teamId: 'T1',
  channel: 'C1',
  requester: 'U0ALICE',
  instruction: 'Document this',
  threadTs: '1700000000.000001',
  requestKey: 'k',
  receivedAt: 1_700_000_000_000,
  thread: { ts: '1700000000.000001' },
};

describe('startWithContext', () => {
  it('sends the prompt with its context to the agent, shows only the instruction, tells about unexpanded links once', async () => {
    const h = harness(async () => ({
      ok: true,
      prompt: 'Document this\n\nContext: …',
      notice: 'One link was not expanded …',
      sources: ['C1', 'CPRIV'],
    }));
    const res = await startWithContext(h.deps, req, h.steps(), h.tell);
    expect(res).toMatchObject({ ok: true, jobId: 'job_ctx' });
    // The job records where its context came from: follow-ups need their authors in each.
    expect(h.deps.start.store.create).toHaveBeenCalledWith(
      expect.objectContaining({ jobId: 'job_ctx', contextFrom: 'C1,CPRIV' }),
    );
    expect(h.createJob).toHaveBeenCalledWith('Document this\n\nContext: …');
    expect(h.deps.context).toHaveBeenCalledWith({
      teamId: 'T1',
      channel: 'C1',
      requester: 'U0ALICE',
      instruction: 'Document this',
      thread: { ts: '1700000000.000001' },
    });
    expect(JSON.stringify(vi.mocked(h.deps.start.slack.chat.postMessage).mock.calls[0]?.[0])).not.toContain('Context:');
    expect(h.told).toEqual(['One link was not expanded …']);
    // A retry (the intake's) reads nothing again and says nothing again.
    await startWithContext(h.deps, req, h.steps(), h.tell);
    expect(h.deps.context).toHaveBeenCalledTimes(1);
    expect(h.told).toHaveLength(1);
  });

  it("starts nothing when the request's thread can't be read, and says how to fix it", async () => {
    const h = harness(async () => ({ ok: false, message: 'Invite me with `/invite @Docs Agent`' }));
    expect(await startWithContext(h.deps, req, h.steps(), h.tell)).toBeUndefined();
    expect(h.createJob).not.toHaveBeenCalled();
    expect(h.deps.start.slack.chat.postMessage).not.toHaveBeenCalled();
    expect(h.told).toEqual(['Invite me with `/invite @Docs Agent`']);
  });

  it('retries a Slack hiccup while reading, and on the last try says so and starts nothing', async () => {
    const h = harness(async () => {
      throw Object.assign(new Error('ratelimited'), { code: 'slack_webapi_rate_limited_error' });
    });
    await expect(startWithContext(h.deps, req, h.steps(false), h.tell)).rejects.toThrow('ratelimited');
    expect(await startWithContext(h.deps, req, h.steps(true), h.tell)).toBeUndefined();
    expect(h.told).toEqual([CONTEXT_FAILED_TEXT]);
    expect(h.createJob).not.toHaveBeenCalled();
  });

  it('takes the agent budget before reading any context: a refused person costs no read; a start that reads nothing gives it back', async () => {
    const admitted: string[] = [];
    const refunds: string[] = [];
    const gate = (allowed: boolean) => ({
      ...OPEN_GATE,
      admitAgentCall: async (call: { project?: string }) => {
        admitted.push(call.project ?? '?');
        return allowed
          ? { allowed: true as const }
          : { allowed: false as const, reason: 'user_budget' as const, text: "You've used your hourly budget" };
      },
      refund: async (call: { project?: string }) => void refunds.push(call.project ?? '?'),
    });
    const refused = harness(async () => ({ ok: true, prompt: 'x' }));
    refused.deps.start.access = gate(false);
    expect(await startWithContext(refused.deps, req, refused.steps(), refused.tell)).toBeUndefined();
    expect(refused.deps.context).not.toHaveBeenCalled();
    expect(refused.told).toEqual(["You've used your hourly budget"]);

    const ok = harness(async () => ({ ok: true, prompt: 'Document this\n\nContext: …' }));
    ok.deps.start.access = gate(true);
    expect(await startWithContext(ok.deps, req, ok.steps(), ok.tell)).toMatchObject({ ok: true });
    expect(admitted).toEqual(['proj_a', 'proj_a']); // once for each request: the start does not take a second

    const unreadable = harness(async () => ({ ok: false, message: 'Invite me' }));
    unreadable.deps.start.access = gate(true);
    expect(await startWithContext(unreadable.deps, req, unreadable.steps(), unreadable.tell)).toBeUndefined();
    expect(refunds).toEqual(['proj_a']);
  });

  it('a start with quoted text and an About line: the prompt fences nothing new, the status message and record say what it is about, the session is titled by it', async () => {
    const h = harness(async (r) => ({ ok: true, prompt: `${r.instruction}\n\n${r.quoted ?? ''}` }));
    const session = vi.fn(async () => undefined);
    h.deps.start.agent = { session, loading: vi.fn(async () => undefined) };
    const quoted = 'The term:\n<reader_search_term_0123456789abcdef>\nsso saml\n</reader_search_term_0123456789abcdef>';
    const improve = {
      ...req,
      instruction: 'Find out what readers were looking for.',
      quoted,
      about: '"sso saml" · 263 searches',
    };
    const { thread: _t, ...noThread } = improve;
    expect(await startWithContext(h.deps, noThread, h.steps(), h.tell)).toMatchObject({ ok: true });
    expect(h.createJob).toHaveBeenCalledWith(`Find out what readers were looking for.\n\n${quoted}`);
    const posted = JSON.stringify(vi.mocked(h.deps.start.slack.chat.postMessage).mock.calls[0]![0]);
    expect(posted).toContain('About: \\"sso saml\\" · 263 searches');
    expect(posted).toContain('Find out what readers were looking for.');
    expect(posted).not.toContain('reader_search_term');
    expect(vi.mocked(h.deps.start.store.create).mock.calls[0]![0]).toMatchObject({
      instruction: 'Find out what readers were looking for.',
      about: '"sso saml" · 263 searches',
    });
    expect(session).toHaveBeenCalledWith(expect.anything(), 'processing', {
      title: '"sso saml" · 263 searches',
      initiator: 'U0ALICE',
    });
  });
});
