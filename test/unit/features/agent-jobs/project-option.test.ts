import { describe, expect, it, vi } from 'vitest';
import { OPEN_GATE, type AccessGate } from '../../../../src/platform/access.js';
import { PROJECT_ONLY_TEXT, startWithContext } from '../../../../src/features/agent-jobs/start/context.js';
import { takeProjectOption } from '../../../../src/features/agent-jobs/start/project-option.js';
import type { StartJobDeps } from '../../../../src/features/agent-jobs/start/start.js';
import type { Steps } from '../../../../src/platform/steps.js';
import { fakeStartJobDeps } from '../../../helpers/start-job-deps.js';

const ALLOWED = ['docs-main', 'docs-api'];

describe('takeProjectOption', () => {
  it('takes project=<id> out of the instruction wherever it stands', () => {
    expect(takeProjectOption('project=docs-api Add a Go quickstart', ALLOWED)).toEqual({
      ok: true,
      instruction: 'Add a Go quickstart',
      project: 'docs-api',
    });
    expect(takeProjectOption('Add a Go quickstart project=docs-api', ALLOWED)).toEqual({
      ok: true,
      instruction: 'Add a Go quickstart',
      project: 'docs-api',
    });
    expect(takeProjectOption('Add a Go project=docs-api quickstart', ALLOWED)).toEqual({
      ok: true,
      instruction: 'Add a Go quickstart',
      project: 'docs-api',
    });
    expect(takeProjectOption('Add\nproject=docs-api\nmore', ALLOWED)).toMatchObject({
      ok: true,
      project: 'docs-api',
      instruction: 'Add\n\nmore',
    });
  });

  it('leaves instructions without the option alone (a word that merely contains it too)', () => {
    expect(takeProjectOption('Explain the subproject=x flag', ALLOWED)).toEqual({
      ok: true,
      instruction: 'Explain the subproject=x flag',
    });
    expect(takeProjectOption('Document `project=foo` syntax', ALLOWED)).toEqual({
      ok: true,
      instruction: 'Document `project=foo` syntax',
    });
  });

  it('refuses an unknown id, an empty one, and two different ones, listing the allowed ids', () => {
    const unknown = takeProjectOption('project=nope Add a page', ALLOWED);
    expect(unknown).toEqual({ ok: false, message: expect.stringContaining('`nope`') });
    expect(unknown.ok ? '' : unknown.message).toContain('`docs-main`, `docs-api`');
    expect(takeProjectOption('project= Add a page', ALLOWED)).toMatchObject({
      ok: false,
      message: expect.stringContaining('empty project id'),
    });
    expect(takeProjectOption('project=docs-api project=docs-main Add', ALLOWED)).toMatchObject({
      ok: false,
      message: expect.stringContaining('one docs project'),
    });
    expect(takeProjectOption('project=docs-api Add project=docs-api', ALLOWED)).toEqual({
      ok: true,
      instruction: 'Add',
      project: 'docs-api',
    });
  });

  it('is exact: case and look-alikes are other projects', () => {
    expect(takeProjectOption('PROJECT=docs-api Add', ALLOWED)).toMatchObject({ ok: true, project: 'docs-api' });
    expect(takeProjectOption('project=Docs-API Add', ALLOWED).ok).toBe(false);
    expect(takeProjectOption('project=docs-api` Add', ALLOWED).ok).toBe(false);
  });
});

function harness(access: AccessGate = OPEN_GATE) {
  const createJob = vi.fn(async (_prompt: string) => ({ id: 'job_p', status: 'active' as const }));
  const forProject = vi.fn((_p: string) => ({ createJob }));
  const admitted: (string | undefined)[] = [];
  const deps: StartJobDeps = fakeStartJobDeps({
    docsApi: { forProject },
    projectFor: async () => 'docs-main',
    projects: ALLOWED,
    access: { ...access, admitAgentCall: async (call) => (admitted.push(call.project), access.admitAgentCall(call)) },
  });
  const told: string[] = [];
  const progress: Record<string, unknown> = {};
  const steps: Steps = { progress, save: async (patch) => void Object.assign(progress, patch), finalAttempt: true };
  return {
    deps: { start: deps },
    createJob,
    forProject,
    admitted,
    told,
    tell: async (t: string) => void told.push(t),
    steps,
  };
}

const req = { teamId: 'T1', channel: 'C1', requester: 'U0ALICE', requestKey: 'k', receivedAt: 1_700_000_000_000 };

describe('project=<id> at the start of a job', () => {
  it("sends the job to the named project, takes that project's budget, shows it from the start and leaves it out of the prompt", async () => {
    const h = harness();
    const res = await startWithContext(
      h.deps,
      { ...req, instruction: 'project=docs-api Add a Go quickstart' },
      h.steps,
      h.tell,
    );
    expect(res).toMatchObject({ ok: true, jobId: 'job_p' });
    expect(h.forProject).toHaveBeenCalledWith('docs-api');
    expect(h.createJob).toHaveBeenCalledWith('Add a Go quickstart');
    expect(h.admitted).toEqual(['docs-api']);
    const placeholder = JSON.stringify(vi.mocked(h.deps.start.slack.chat.postMessage).mock.calls[0]?.[0]);
    expect(placeholder).toContain('Project `docs-api`');
    expect(placeholder).not.toContain('project=');
    expect(vi.mocked(h.deps.start.store.create).mock.calls[0]?.[0]).toMatchObject({
      projectId: 'docs-api',
      instruction: 'Add a Go quickstart',
    });
  });

  it('without the option, the channel project applies and is shown', async () => {
    const h = harness();
    await startWithContext(h.deps, { ...req, instruction: 'Add a Go quickstart' }, h.steps, h.tell);
    expect(h.forProject).toHaveBeenCalledWith('docs-main');
    expect(h.admitted).toEqual(['docs-main']);
    expect(JSON.stringify(vi.mocked(h.deps.start.slack.chat.postMessage).mock.calls[0]?.[0])).toContain(
      'Project `docs-main`',
    );
  });

  it('an unknown project is answered privately with the allowed ones; nothing is posted, sent or spent', async () => {
    const h = harness();
    expect(
      await startWithContext(h.deps, { ...req, instruction: 'project=other Add a page' }, h.steps, h.tell),
    ).toBeUndefined();
    expect(h.told).toEqual([expect.stringMatching(/`other`.*`docs-main`, `docs-api`/s)]);
    expect(h.createJob).not.toHaveBeenCalled();
    expect(h.admitted).toEqual([]);
    expect(h.deps.start.slack.chat.postMessage).not.toHaveBeenCalled();
    // The intake's retry says nothing again.
    await startWithContext(h.deps, { ...req, instruction: 'project=other Add a page' }, h.steps, h.tell);
    expect(h.told).toHaveLength(1);
  });

  it('someone who may not start jobs here hears that, not the project list; only the option is asked for more', async () => {
    const h = harness({
      ...OPEN_GATE,
      authorize: async () => ({ allowed: false, reason: 'guest', text: 'Guests cannot start jobs.' }),
    });
    await startWithContext(h.deps, { ...req, instruction: 'project=other Add a page' }, h.steps, h.tell);
    expect(h.told).toEqual(['Guests cannot start jobs.']);
    const h2 = harness();
    await startWithContext(h2.deps, { ...req, instruction: 'project=docs-api' }, h2.steps, h2.tell);
    expect(h2.told).toEqual([PROJECT_ONLY_TEXT]);
    expect(h2.createJob).not.toHaveBeenCalled();
  });
});
