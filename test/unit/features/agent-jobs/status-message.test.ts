import { describe, expect, it } from 'vitest';
import type { PlanBlock, TaskCardBlock } from '@slack/types';
import { buildStatusMessage, slackDate, type StatusView } from '../../../../src/features/agent-jobs/status/blocks.js';

const STARTED = Date.UTC(2026, 10, 23, 14, 34, 56);
const base = {
  requester: 'U0ALICE',
  instruction: 'Add a quickstart',
  jobId: 'job_1',
  elapsedMs: 0,
  startedAt: STARTED,
};

describe('status message', () => {
  it("shows when a working job started with Slack's client-side date (each reader's time zone), not a running clock", () => {
    const msg = buildStatusMessage({ ...base, state: 'active' });
    const line = JSON.stringify(msg.blocks);
    expect(slackDate(STARTED)).toBe('<!date^1795444496^{date_short_pretty} {time}|2026-11-23 14:34 UTC>');
    expect(line).toContain(`Working* · started ${slackDate(STARTED)}`);
    // The notification text carries the readable fallback, not the token.
    expect(msg.text).toBe('Docs agent job job_1 for <@U0ALICE>: Working · started 2026-11-23 14:34 UTC');
  });

  it('is the same message however much time passes while the job works (so it is not edited)', () => {
    const a = buildStatusMessage({ ...base, state: 'active', elapsedMs: 5_000 });
    const b = buildStatusMessage({ ...base, state: 'active', elapsedMs: 25 * 60_000 });
    expect(b).toEqual(a);
  });

  it('Document this jobs differ by what they quote: an About line under the instruction, inert reader text', async () => {
    const { buildHomeView } = await import('../../../../src/features/agent-jobs/home/blocks.js');
    const about = 'Why does <!channel> *fail* at https://evil.example?\nsecond line';
    const status = JSON.stringify(buildStatusMessage({ ...base, state: 'active', about }).blocks);
    const job = {
      jobId: 'job_1',
      instruction: 'Add *it* now',
      about,
      state: 'active' as const,
      prLink: null,
      createdAt: STARTED,
      followups: 0,
    };
    const defaults = { followupPolicy: 'anyone' as const, ignorePrefix: '!', digestCron: '0 9 * * 1', digestTz: 'UTC' };
    const home = JSON.stringify(buildHomeView([job], defaults, STARTED).blocks);
    for (const shown of [status, home]) {
      expect(shown).toContain('About: Why does');
      expect(shown).not.toContain('<!channel>');
      expect(shown).not.toContain('https://evil.example');
      expect(shown).not.toContain('*fail*');
      expect(shown).not.toContain('\\nsecond');
    }
    // The instruction is shown in bold in App Home: a `*` of its own neither ends nor opens it.
    expect(home).toContain('"*Add ∗it∗ now*"');
    expect(JSON.stringify(buildStatusMessage({ ...base, state: 'active' }).blocks)).not.toContain('About:');
  });

  it("quotes the person's instruction and question as data: no link, formatting or code goes live", async () => {
    const { questionMessage } = await import('../../../../src/features/ask/handlers.js');
    const { buildUncertainNotice } = await import('../../../../src/features/agent-jobs/start/blocks.js');
    const { TEST_SIGNER } = await import('../../../helpers/signer.js');
    const typed = 'Fix *SSO* at https://evil.example and `code`\n<!here> _now_';
    const shown = [
      buildStatusMessage({ ...base, state: 'active', instruction: typed }).blocks,
      questionMessage('U0ALICE', typed).blocks,
      buildUncertainNotice({ requester: 'U0ALICE', instruction: typed, restartId: 'r1' }, TEST_SIGNER).blocks,
    ].map((b) => JSON.stringify(b));
    for (const text of shown) {
      expect(text).toContain('Fix ');
      for (const live of ['https://evil', '*SSO*', '`code`', '<!here>', '_now_']) expect(text).not.toContain(live);
    }
  });

  it('says how long it took once it ended', () => {
    const msg = buildStatusMessage({
      ...base,
      state: 'completed',
      elapsedMs: 11 * 60_000,
      prLink: 'https://github.com/acme/docs/pull/1',
    });
    expect(msg.text).toContain('Pull request ready · took 11m');
  });

  it("keeps the docs API's branch and repository inside their inline code: a backtick in them closes nothing", () => {
    // Git allows a backtick in a branch name; the agent picks its branch, so the name is quoted text.
    const branch = 'fix`_evil.example/go_`';
    const repository = 'acme/docs`#general`';
    const meta = buildStatusMessage({ ...base, state: 'active', branch, repository }).blocks[1] as {
      elements: { text: string }[];
    };
    const line = meta.elements[0]!.text;
    // Each value is one code span, with no backtick of its own inside.
    expect(line.match(/`[^`]*`/g)).toEqual(
      expect.arrayContaining(["`fix'_evil.example/go_'`", "`acme/docs'#general'`"]),
    );
    expect(line).not.toContain('`_evil.example/go_`');
  });

  describe('plan', () => {
    const plan = (v: Partial<StatusView>) => {
      const msg = buildStatusMessage({ ...base, state: 'active', projectId: 'proj_1', ...v });
      const last = msg.blocks.at(-1) as PlanBlock;
      expect(last.type).toBe('plan');
      return (last.tasks as TaskCardBlock[]).map((t) => ({
        id: t.task_id,
        title: t.title,
        status: t.status,
        details: t.details ? JSON.stringify(t.details) : undefined,
        sources: t.sources,
      }));
    };

    it('keeps the section, context and text fallback for clients that do not render plans, and adds the plan last', () => {
      const msg = buildStatusMessage({ ...base, state: 'active' });
      expect(msg.blocks.map((b) => b.type)).toEqual(['section', 'context', 'plan']);
      expect(msg.text).toContain('Working');
    });

    it('while starting: reading the thread with its message count and starting in progress, the rest pending', () => {
      const tasks = plan({ state: 'starting', jobId: undefined, hasContext: true, contextMessages: 7 });
      expect(tasks.map((t) => [t.title, t.status])).toEqual([
        ['Reading the thread (7 messages)', 'in_progress'],
        ['Starting the job', 'in_progress'],
        ['Agent working', 'pending'],
        ['Pull request', 'pending'],
      ]);
    });

    it('has no "Reading the thread" without context; starting shows job, project, repository and branch', () => {
      const tasks = plan({ repository: 'https://github.com/acme/docs', branch: 'main' });
      expect(tasks.map((t) => t.id)).toEqual(['start', 'work', 'outcome']);
      expect(tasks[0]).toMatchObject({ status: 'complete' });
      expect(tasks[0]!.details).toContain('Job job_1 · project proj_1 · acme/docs on main');
      expect(tasks[1]).toMatchObject({ title: 'Agent working', status: 'in_progress' });
      expect(tasks[2]).toMatchObject({ status: 'pending' });
    });

    it('a pull request completes every task, the last linking the PR', () => {
      const tasks = plan({ state: 'completed', hasContext: true, prLink: 'https://github.com/acme/docs/pull/1' });
      expect(tasks.every((t) => t.status === 'complete')).toBe(true);
      expect(tasks.at(-1)).toMatchObject({
        title: 'Pull request ready',
        sources: [{ type: 'url', url: 'https://github.com/acme/docs/pull/1', text: 'Pull request' }],
      });
    });

    it.each([
      [{ state: 'completed' as const, prLink: null }, 'No files changed', 'complete', 'complete'],
      [{ state: 'failed' as const }, 'Failed', 'error', 'error'],
      [{ state: 'archived' as const }, 'Archived', 'complete', 'complete'],
      [{ state: 'timeout' as const }, 'Stopped watching', 'error', 'error'],
    ])('ends %o as "%s"', (v, title, outcome, working) => {
      const tasks = plan(v);
      expect(tasks.at(-1)).toMatchObject({ title, status: outcome });
      expect(tasks.at(-1)!.sources).toBeUndefined();
      expect(tasks.at(-2)!.status).toBe(working);
    });

    it('a start that failed or may not have happened is an error on "Starting the job"', () => {
      for (const state of ['start_failed', 'uncertain'] as const) {
        const tasks = plan({ state, jobId: undefined, followups: 2 });
        expect(tasks.map((t) => [t.id, t.status])).toEqual([
          ['start', 'error'],
          ['work', 'pending'],
          ['outcome', 'pending'],
        ]);
      }
    });

    it('each follow-up is its own step; earlier runs are complete', () => {
      const tasks = plan({ followups: 2 });
      expect(tasks.map((t) => [t.title, t.status])).toEqual([
        ['Starting the job', 'complete'],
        ['Agent working', 'complete'],
        ['Agent working on follow-up 1', 'complete'],
        ['Agent working on follow-up 2', 'in_progress'],
        ['Pull request', 'pending'],
      ]);
    });

    it('does not link a PR that is not a safe URL', () => {
      const tasks = plan({ state: 'completed', prLink: 'javascript:alert(1)' });
      expect(tasks.at(-1)!.sources).toBeUndefined();
    });
  });
});
