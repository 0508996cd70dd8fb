import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EditBudget } from '../../src/features/agent-jobs/status/edit-budget.js';
import { StatusPresenter, type ShowOutcome } from '../../src/features/agent-jobs/status/presenter.js';
import { JobStore } from '../../src/features/agent-jobs/store.js';
import { createLogger } from '../../src/platform/logger.js';
import { startFakeSlack, type FakeSlack } from '../../sandbox/fake-slack.js';
import { jobRecord } from '../helpers/job-record.js';
import { dropPrefix, randomPrefix, testRedis } from '../helpers/redis.js';

/*
 * 200 jobs at once against the fake Slack (real HTTP, the real WebClient) and real Redis, with the
 * workspace's edit budget time-scaled 60×: 40 edits per 1-s window stand for 40 per minute. Each job
 * starts (an intermediate edit: "Working") and then ends (the final edit) at the same moment as the
 * 199 others, as a burst of finishing jobs would. The test plays the poll step's part: a final edit
 * that must wait (its slot, the budget) is asked for again after `retryInMs`.
 */

const TOKEN = 'xoxb-budget-test';
const JOBS = 200;
const PER_WINDOW = 40;
const WINDOW_MS = 1_000;

const redis = testRedis();
const prefix = randomPrefix();
let slack: FakeSlack;

beforeAll(async () => {
  slack = await startFakeSlack({ botToken: TOKEN, now: Date.now });
});
afterAll(async () => {
  await slack.close();
  await dropPrefix(redis, prefix);
  await redis.quit();
});

/** Shows until the edit is not deferred any more, as the poll step does (reschedules after `retryInMs`, asks again). */
async function showUntilShown(presenter: StatusPresenter, jobId: string): Promise<number> {
  let deferrals = 0;
  for (;;) {
    const outcome: ShowOutcome = await presenter.show(jobId);
    if (outcome.retryInMs === undefined) return deferrals;
    deferrals++;
    await new Promise((resolve) => setTimeout(resolve, outcome.retryInMs));
  }
}

describe('status edits of 200 jobs at once, within the workspace budget', () => {
  it('drops intermediate edits when short, lands every final one, and never exceeds the budget', async () => {
    const web = new WebClient(TOKEN, {
      slackApiUrl: slack.url,
      logLevel: LogLevel.ERROR,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const store = new JobStore(redis, prefix);
    const startedAt = Date.now();
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
          cycleStartedAt: startedAt,
          createdAt: startedAt,
        }),
      );
    }
    const budget = new EditBudget({ redis, prefix, perMinute: PER_WINDOW * 60, windowS: WINDOW_MS / 1000 });
    const presenter = new StatusPresenter({
      redis,
      prefix,
      store,
      slack: web,
      logger: createLogger('silent'),
      now: Date.now,
      minIntervalMs: 100,
      budget,
    });
    const edits = () => slack.calls.filter((c) => c.method === 'chat.update');

    // Every job starts: one window's worth of "Working" edits goes out, the rest are dropped.
    await Promise.all(ids.map((id) => presenter.show(id)));
    const intermediate = edits().length;
    expect(intermediate).toBeLessThanOrEqual(PER_WINDOW);
    expect(intermediate).toBeGreaterThan(0);
    // Showing again what is already shown costs nothing (no edit, no budget).
    const shownIds = [];
    for (const id of ids) if ((await store.get(id))!.shown) shownIds.push(id);
    expect(shownIds).toHaveLength(intermediate);
    await Promise.all(shownIds.map((id) => presenter.show(id)));
    expect(edits()).toHaveLength(intermediate);

    // Every job ends at once: each final edit waits its turn; none is dropped.
    for (const id of ids)
      await store.update(id, {
        state: 'completed',
        prLink: `https://github.com/acme/docs/pull/${id.slice(4)}`,
        endedAt: Date.now(),
      });
    const deferrals = await Promise.all(ids.map((id) => showUntilShown(presenter, id)));

    for (const id of ids) {
      const rec = (await store.get(id))!;
      expect(slack.findMessage('C0DOCS', rec.statusTs)?.text).toContain('Pull request ready');
    }
    const all = edits();
    expect(all.filter((c) => c.status !== 200)).toEqual([]);
    expect(all.length - intermediate).toBe(JOBS); // exactly one final edit per job
    expect(deferrals.filter((d) => d > 0).length).toBeGreaterThanOrEqual(JOBS - 2 * PER_WINDOW);

    // Edits per window (a scaled minute): fixed windows, so any 1-s span holds at most two windows' worth,
    // and the whole run at most one window's worth per window it spanned.
    const at = all.map((c) => c.at).sort((a, b) => a - b);
    const spanMs = at[at.length - 1]! - at[0]!;
    let busiest = 0;
    for (let i = 0, j = 0; i < at.length; i++) {
      while (at[j]! < at[i]! - WINDOW_MS + 1) j++;
      busiest = Math.max(busiest, i - j + 1);
    }
    expect(busiest).toBeLessThanOrEqual(2 * PER_WINDOW);
    expect(all.length).toBeLessThanOrEqual(PER_WINDOW * (Math.floor(spanMs / WINDOW_MS) + 2));
    const perWindow = new Map<number, number>();
    for (const t of at)
      perWindow.set(
        Math.floor((t - at[0]!) / WINDOW_MS),
        (perWindow.get(Math.floor((t - at[0]!) / WINDOW_MS)) ?? 0) + 1,
      );
    console.info(
      `edits per 1-s window (40/min scaled 60×): ${[...perWindow.values()].join(', ')}; ${intermediate} of ${JOBS} intermediate edits sent`,
    );
  }, 60_000); // 200 posts and records first: slow when the machine is busy
});
