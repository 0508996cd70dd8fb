import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EditBudget } from '../../../../src/features/agent-jobs/status/edit-budget.js';
import { StatusPresenter, type ShowOutcome } from '../../../../src/features/agent-jobs/status/presenter.js';
import { JobStore } from '../../../../src/features/agent-jobs/store.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { startFakeSlack, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { jobRecord } from '../../../helpers/job-record.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

/*
 * 200 jobs at once against the fake Slack (real HTTP, the real WebClient) and real Redis, with the
 * workspace's edit budget time-scaled 60×: 40 edits per 1-s window stand for 40 per minute. Each job
 * starts (an intermediate edit: "Working") and then ends (the final edit) at the same moment as the
 * 199 others, as a burst of finishing jobs would. The test plays the poll step's part: a final edit
 * that must wait (its slot, the budget) is asked for again `retryInMs` later. Time is virtual: the
 * budget, the presenter and the fake Slack share one clock, which the test moves to the next
 * retry instead of sleeping.
 */

const TOKEN = 'xoxb-budget-test';
const JOBS = 200;
const PER_WINDOW = 40;
const WINDOW_MS = 1_000;
/** The virtual clock's start, in epoch ms: the start of a budget window. */
const T0 = 1_700_000_000_000;

const redis = testRedis();
const prefix = randomPrefix();
let slack: FakeSlack;
let clock = T0;
const now = () => clock;

beforeAll(async () => {
  slack = await startFakeSlack({ botToken: TOKEN, now });
});
afterAll(async () => {
  await slack.close();
  await dropPrefix(redis, prefix);
  await redis.quit();
});

/**
 * Shows every job until none is deferred, as the poll step does: a deferred job is asked again
 * `retryInMs` later, and the clock jumps to the earliest such moment. Returns each job's deferrals.
 */
async function showUntilShown(presenter: StatusPresenter, ids: string[]): Promise<number[]> {
  const due = new Map(ids.map((id) => [id, clock]));
  const deferrals = new Map(ids.map((id) => [id, 0]));
  while (due.size > 0) {
    clock = Math.max(clock, Math.min(...due.values()));
    const ready = [...due].filter(([, at]) => at <= clock).map(([id]) => id);
    const outcomes: ShowOutcome[] = await Promise.all(ready.map((id) => presenter.show(id)));
    ready.forEach((id, i) => {
      const retryInMs = outcomes[i]!.retryInMs;
      if (retryInMs === undefined) return void due.delete(id);
      due.set(id, clock + retryInMs);
      deferrals.set(id, deferrals.get(id)! + 1);
    });
  }
  return ids.map((id) => deferrals.get(id)!);
}

describe('status edits of 200 jobs at once, within the workspace budget', () => {
  it('drops intermediate edits when short, lands every final one, and no window of the budget exceeds it', async () => {
    const web = new WebClient(TOKEN, {
      slackApiUrl: slack.url,
      logLevel: LogLevel.ERROR,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const store = new JobStore(redis, prefix);
    const ids = Array.from({ length: JOBS }, (_, i) => `job_${i}`);
    for (const jobId of ids) {
      const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'Starting…' });
      await store.create(
        jobRecord({
          jobId,
          teamId: 'T0SANDBOX',
          channel: 'C0DOCS',
          threadTs: posted.ts!,
          statusTs: posted.ts!,
          reactionTs: posted.ts!,
          cycleStartedAt: T0,
          createdAt: T0,
        }),
      );
    }
    const budget = new EditBudget({ redis, prefix, perMinute: PER_WINDOW * 60, windowS: WINDOW_MS / 1000, now });
    const presenter = new StatusPresenter({
      redis,
      prefix,
      store,
      slack: web,
      logger: createLogger('silent'),
      now,
      // The per-message throttle is Redis time (PX), not the virtual clock: 1 ms keeps it out of the way.
      minIntervalMs: 1,
      budget,
    });
    const edits = () => slack.calls.filter((c) => c.method === 'chat.update');

    // Every job starts: one window's worth of "Working" edits goes out, the rest are dropped.
    await Promise.all(ids.map((id) => presenter.show(id)));
    const intermediate = edits().length;
    expect(intermediate).toBe(PER_WINDOW);
    // Showing again what is already shown costs nothing (no edit, no budget).
    const shownIds = [];
    for (const id of ids) if ((await store.get(id))!.shown) shownIds.push(id);
    expect(shownIds).toHaveLength(intermediate);
    await Promise.all(shownIds.map((id) => presenter.show(id)));
    expect(edits()).toHaveLength(intermediate);

    // Every job ends at once, in the window the "Working" edits spent: each final edit waits its turn; none is dropped.
    for (const id of ids)
      await store.update(id, {
        state: 'completed',
        prLink: `https://github.com/acme/docs/pull/${id.slice(4)}`,
        endedAt: clock,
      });
    const deferrals = await showUntilShown(presenter, ids);

    for (const id of ids) {
      const rec = (await store.get(id))!;
      expect(slack.findMessage('C0DOCS', rec.statusTs)?.text).toContain('Pull request ready');
    }
    const all = edits();
    expect(all.filter((c) => c.status !== 200)).toEqual([]);
    expect(all.length - intermediate).toBe(JOBS); // exactly one final edit per job
    expect(deferrals.every((d) => d >= 1)).toBe(true); // the first window was spent by the "Working" edits

    // Edits per budget window (a scaled minute), by the fake Slack's clock: 40 "Working" edits in the
    // first, then the 200 final edits 40 a window over the next 5; a sliding second, which can
    // straddle two windows, holds at most two windows' worth.
    const perWindow = new Map<number, number>();
    for (const c of all) {
      const w = Math.floor((c.at - T0) / WINDOW_MS);
      perWindow.set(w, (perWindow.get(w) ?? 0) + 1);
    }
    expect([...perWindow.entries()].sort(([a], [b]) => a - b)).toEqual([0, 1, 2, 3, 4, 5].map((w) => [w, PER_WINDOW]));
    const at = all.map((c) => c.at).sort((a, b) => a - b);
    let busiest = 0;
    for (let i = 0, j = 0; i < at.length; i++) {
      while (at[j]! < at[i]! - WINDOW_MS + 1) j++;
      busiest = Math.max(busiest, i - j + 1);
    }
    expect(busiest).toBeLessThanOrEqual(2 * PER_WINDOW);
  });
});
