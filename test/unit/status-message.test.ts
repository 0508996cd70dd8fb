import { describe, expect, it } from 'vitest';
import { buildStatusMessage, slackDate } from '../../src/features/agent-jobs/blocks.js';

const STARTED = Date.UTC(2026, 10, 23, 14, 34, 56);
const base = { requester: 'U0ALICE', instruction: 'Add a quickstart', jobId: 'job_1', elapsedMs: 0, startedAt: STARTED };

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

  it('says how long it took once it ended', () => {
    const msg = buildStatusMessage({ ...base, state: 'completed', elapsedMs: 11 * 60_000, prLink: 'https://github.com/acme/docs/pull/1' });
    expect(msg.text).toContain('Pull request ready · took 11m');
  });
});
