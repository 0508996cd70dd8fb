import type { KnownBlock } from '@slack/types';
import { describe, expect, it, vi } from 'vitest';
import {
  handleIncomingMessage,
  JobStillStartingError,
  STILL_STARTING_TEXT,
  type MessageDeps,
} from '../../../../src/features/agent-jobs/messages.js';
import { PENDING_THREAD } from '../../../../src/features/agent-jobs/store.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { buildAnnouncement } from '../../../../src/features/agent-jobs/poll/blocks.js';
import { quoteToken, SLACK_LIMITS, truncate } from '../../../../src/platform/slack/limits.js';
import { buildStatusMessage } from '../../../../src/features/agent-jobs/status/blocks.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { expectSlackTakesMessage } from '../../../helpers/block-kit.js';

function texts(blocks: KnownBlock[]): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.type === 'section' && b.text) out.push(b.text.text);
    if (b.type === 'context') for (const e of b.elements) if ('text' in e) out.push(e.text);
  }
  return out;
}

describe('status message', () => {
  it('names the requester, quotes the instruction, shows job id, state and when it started', () => {
    const m = buildStatusMessage({
      requester: 'U0ALICE',
      instruction: 'Add a quickstart\nfor <Python>',
      jobId: 'job_1',
      state: 'active',
      elapsedMs: 130_000,
      startedAt: 1_700_000_000_000,
    });
    const all = texts(m.blocks).join('\n');
    expect(all).toContain('<@U0ALICE> asked the docs agent');
    expect(all).toContain('> Add a quickstart\n> for &lt;Python&gt;');
    expect(all).toContain('Job `job_1`');
    expect(all).toContain('Working');
    expect(all).toContain('started <!date^1700000000^{date_short_pretty} {time}|2023-11-14 22:13 UTC>');
    expect(m.text).toContain('job_1');
  });

  it('shows the PR button only when completed with a link', () => {
    const done = buildStatusMessage({
      requester: 'U1',
      instruction: 'x',
      jobId: 'j',
      state: 'completed',
      elapsedMs: 1,
      prLink: 'https://github.com/a/b/pull/1',
    });
    expect(JSON.stringify(done.blocks)).toContain('"url":"https://github.com/a/b/pull/1"');
    const none = buildStatusMessage({
      requester: 'U1',
      instruction: 'x',
      jobId: 'j',
      state: 'completed',
      elapsedMs: 1,
      prLink: null,
    });
    expect(JSON.stringify(none.blocks)).not.toContain('"button"');
    expect(texts(none.blocks).join()).toContain('no files changed');
  });

  it('stays inside Slack limits for a huge instruction', () => {
    const m = buildStatusMessage({
      requester: 'U1',
      instruction: '<&>'.repeat(5000),
      jobId: 'j',
      state: 'active',
      elapsedMs: 0,
    });
    for (const t of texts(m.blocks)) expect(t.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(texts(m.blocks)[0]).toMatch(/…$/);
    expectSlackTakesMessage(m);
  });
});

describe('announcement', () => {
  it('completed with a PR: mentions the person, links the PR and has a button', () => {
    const a = buildAnnouncement(
      { mention: 'U0ALICE', jobId: 'job_1', outcome: { kind: 'completed', prLink: 'https://github.com/a/b/pull/9' } },
      TEST_SIGNER,
    );
    expect(a.text).toMatch(/^<@U0ALICE> .*https:\/\/github\.com\/a\/b\/pull\/9/);
    expect(JSON.stringify(a.blocks)).toContain('View pull request');
  });
  it('completed without a PR: says no files were changed', () => {
    const a = buildAnnouncement(
      { mention: 'U1', jobId: 'job_1', outcome: { kind: 'completed', prLink: null } },
      TEST_SIGNER,
    );
    expect(a.text).toContain('no files were changed');
    expect(JSON.stringify(a.blocks)).not.toContain('"type":"button"'); // no PR link button (the feedback buttons stay)
  });
  it('failed: gives the job id and what to do next', () => {
    const a = buildAnnouncement({ mention: 'U1', jobId: 'job_1', outcome: { kind: 'failed' } }, TEST_SIGNER);
    expect(a.text).toMatch(/<@U1> job `job_1` failed.*Reply in this thread/);
  });
  it('quoteToken keeps outside text one inline-code span: backticks replaced, whitespace on one line, escaped, cut', () => {
    expect(quoteToken('a`b\n*c*\t<!here> & d')).toBe("a'b *c* &lt;!here&gt; &amp; d");
    expect(quoteToken('x'.repeat(150), 100)).toBe(`${'x'.repeat(99)}…`);
  });

  it('keeps a job id from the docs API inside its inline code: a backtick in it closes nothing', () => {
    const a = buildAnnouncement(
      { mention: 'U1', jobId: 'job_1`<!here>_x_`', outcome: { kind: 'failed' } },
      TEST_SIGNER,
    );
    expect(a.text).toContain("job `job_1'&lt;!here&gt;_x_'` failed");
    const status = buildStatusMessage({
      state: 'active',
      requester: 'U1',
      instruction: 'x',
      jobId: 'job_1`*bold*`',
      elapsedMs: 0,
      startedAt: 0,
    });
    expect(JSON.stringify(status.blocks)).toContain("Job `job_1'*bold*'`");
  });
  it('archived and timeout name the job', () => {
    expect(
      buildAnnouncement({ mention: 'U1', jobId: 'job_1', outcome: { kind: 'archived' } }, TEST_SIGNER).text,
    ).toContain('was archived');
    expect(
      buildAnnouncement(
        { mention: 'U1', jobId: 'job_1', outcome: { kind: 'timeout', watchedMs: 21_600_000 } },
        TEST_SIGNER,
      ).text,
    ).toMatch(/stopped watching job `job_1` after 6h/);
  });
});

describe('truncate', () => {
  it('never splits a surrogate pair', () => {
    expect(truncate('ab😀cd', 4)).toBe('ab…');
    expect(truncate('short', 10)).toBe('short');
  });
});

describe('a reply while its job is still being created', () => {
  function setup() {
    const postEphemeral = vi.fn(async (_a: { channel: string; user: string; text: string; thread_ts?: string }) => ({
      ok: true,
    }));
    const deps = {
      store: { findByThread: async () => PENDING_THREAD },
      slack: { chat: { postEphemeral } },
      logger: arrayLogger().logger,
      now: () => 0,
    } as unknown as MessageDeps;
    const msg = {
      teamId: 'T1',
      channel: 'C1',
      user: 'U0ALICE',
      text: 'also the Go SDK',
      ts: '2.000001',
      thread_ts: '1.000001',
      viaMention: false,
    };
    const run = (finalAttempt: boolean) =>
      handleIncomingMessage(
        deps,
        msg,
        'U0BOT',
        { progress: {}, save: async () => undefined, finalAttempt },
        {
          key: 'intake-1',
          receivedAt: 0,
        },
      );
    return { run, postEphemeral };
  }

  it('before the last try: thrown so the intake tries again, nobody told yet', async () => {
    const s = setup();
    await expect(s.run(false)).rejects.toBeInstanceOf(JobStillStartingError);
    expect(s.postEphemeral).not.toHaveBeenCalled();
  });

  it('on the last try: the author is told privately, in the thread, to send it again', async () => {
    const s = setup();
    expect(await s.run(true)).toEqual({ started: false });
    expect(s.postEphemeral).toHaveBeenCalledWith(
      expect.objectContaining({ channel: 'C1', user: 'U0ALICE', thread_ts: '1.000001', text: STILL_STARTING_TEXT }),
    );
  });
});
