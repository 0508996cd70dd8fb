import { describe, expect, it, vi } from 'vitest';
import {
  ORG_WORKSPACES_FAILURE_MS,
  ORG_WORKSPACES_MAX_AGE_MS,
  ORG_WORKSPACES_MAX_PAGES,
  ORG_WORKSPACES_MISS_REFRESH_MS,
  OrgWorkspaces,
  type ListTeams,
} from '../../../../src/platform/slack/org-workspaces.js';

/** An `auth.teams.list` over `teams()` in pages of `pageSize`, counting its calls. */
function lister(teams: () => string[], pageSize = 1_000) {
  const calls: { limit: number; cursor?: string }[] = [];
  const list: ListTeams = (args) => {
    calls.push(args);
    const start = args.cursor ? Number(args.cursor) : 0;
    const all = teams();
    const next = start + pageSize < all.length ? String(start + pageSize) : '';
    return Promise.resolve({
      teams: all.slice(start, start + pageSize).map((id) => ({ id })),
      response_metadata: { next_cursor: next },
    });
  };
  return { list, calls };
}

describe("an org-wide install's workspaces (auth.teams.list)", () => {
  it('reads the list once for every request within 10 minutes, and again after', async () => {
    let now = 1_000_000;
    const orgs = new OrgWorkspaces({ perf: { now: () => now } });
    const { list, calls } = lister(() => ['T0A', 'T0B']);
    const answers = await Promise.all([
      orgs.includes('E0ORG', 'T0A', list),
      orgs.includes('E0ORG', 'T0B', list),
      orgs.includes('E0ORG', 'T0A', list),
    ]);
    expect(answers).toEqual([true, true, true]);
    expect(calls).toEqual([{ limit: 1_000 }]);
    now += ORG_WORKSPACES_MAX_AGE_MS + 1;
    expect(await orgs.includes('E0ORG', 'T0A', list)).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it('refuses a workspace not in the list, reading it again for that at most once a minute (a workspace added since)', async () => {
    let now = 1_000_000;
    const orgs = new OrgWorkspaces({ perf: { now: () => now } });
    const teams = ['T0A'];
    const { list, calls } = lister(() => teams);
    expect(await orgs.includes('E0ORG', 'T0A', list)).toBe(true);
    expect(await orgs.includes('E0ORG', 'T0OTHER', list)).toBe(false);
    expect(await orgs.includes('E0ORG', 'T0OTHER', list)).toBe(false);
    expect(calls).toHaveLength(1);
    teams.push('T0NEW');
    now += ORG_WORKSPACES_MISS_REFRESH_MS;
    expect(await orgs.includes('E0ORG', 'T0NEW', list)).toBe(true);
    expect(calls).toHaveLength(2);
    // Another org's list is its own.
    expect(await orgs.includes('E0SECOND', 'T0A', lister(() => []).list)).toBe(false);
  });

  it('reads every page, at most 10 of them', async () => {
    const orgs = new OrgWorkspaces();
    const many = Array.from({ length: 25 }, (_, i) => `T0W${i}`);
    const { list, calls } = lister(() => many, 10);
    expect(await orgs.includes('E0ORG', 'T0W24', list)).toBe(true);
    expect(calls.map((c) => c.cursor)).toEqual([undefined, '10', '20']);
    const endless: ListTeams = () =>
      Promise.resolve({ teams: [{ id: 'T0X' }], response_metadata: { next_cursor: 'more' } });
    let pages = 0;
    const counted: ListTeams = (a) => ((pages += 1), endless(a));
    expect(await new OrgWorkspaces().includes('E0LOOP', 'T0Y', counted)).toBe(false);
    expect(pages).toBe(ORG_WORKSPACES_MAX_PAGES);
  });

  it("throws Slack's error when no list was ever read, asks again only after 30 s, and keeps the last list when later reads fail", async () => {
    let now = 1_000_000;
    const orgs = new OrgWorkspaces({ perf: { now: () => now } });
    const refused = Object.assign(new Error('An API error occurred: ratelimited'), { data: { error: 'ratelimited' } });
    let failedCalls = 0;
    const failing: ListTeams = () => ((failedCalls += 1), Promise.reject(refused));
    await expect(orgs.includes('E0ORG', 'T0A', failing)).rejects.toBe(refused);
    await expect(orgs.includes('E0ORG', 'T0A', failing)).rejects.toBe(refused);
    expect(failedCalls).toBe(1);
    now += ORG_WORKSPACES_FAILURE_MS + 1;
    expect(await orgs.includes('E0ORG', 'T0A', lister(() => ['T0A']).list)).toBe(true);
    // Expired, then Slack fails twice in a row: the last list is still used each time.
    now += ORG_WORKSPACES_MAX_AGE_MS + 1;
    expect(await orgs.includes('E0ORG', 'T0A', failing)).toBe(true);
    await vi.waitFor(() => expect(failedCalls).toBe(2));
    expect(await orgs.includes('E0ORG', 'T0A', failing)).toBe(true);
    now += ORG_WORKSPACES_FAILURE_MS + 1;
    expect(await orgs.includes('E0ORG', 'T0A', failing)).toBe(true);
  });

  it('answers from an expired list at once while it is read again in the background', async () => {
    let now = 1_000_000;
    const orgs = new OrgWorkspaces({ perf: { now: () => now } });
    const teams = ['T0A'];
    const { list, calls } = lister(() => teams);
    expect(await orgs.includes('E0ORG', 'T0A', list)).toBe(true);
    now += ORG_WORKSPACES_MAX_AGE_MS + 1;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const slow: ListTeams = async (a) => (await gate, list(a));
    expect(await orgs.includes('E0ORG', 'T0A', slow)).toBe(true);
    release();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
  });
});
