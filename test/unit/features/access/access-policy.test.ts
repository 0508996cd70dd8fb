import { describe, expect, it, vi } from 'vitest';
import { SlackDirectory } from '../../../../src/features/access/directory.js';
import {
  decideAccess,
  needsGroupCheck,
  type AccessPolicyConfig,
  type UserFacts,
} from '../../../../src/features/access/policy.js';
import { budgetText, createAccessGate } from '../../../../src/features/access/service.js';
import type { AccessAction } from '../../../../src/platform/access.js';
import { register, userChangeEvent } from '../../../../src/features/access/listeners.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { OPEN_POLICY as OPEN, grantingBudget } from '../../../helpers/access.js';

const HOME = 'T0HOME';
const member = (over: Partial<UserFacts> = {}): UserFacts => ({
  id: 'U1',
  teamId: HOME,
  isBot: false,
  deleted: false,
  isGuest: false,
  isStranger: false,
  isWorkspaceAdmin: false,
  tz: 'Europe/Berlin',
  ...over,
});
const ask = (
  c: Partial<AccessPolicyConfig>,
  facts: UserFacts,
  action: AccessAction = 'start_job',
  channel = 'C1',
  inAllowedGroup?: boolean,
) =>
  decideAccess(
    { ...OPEN, ...c },
    { facts, homeTeamId: HOME, action, channel, ...(inAllowedGroup !== undefined ? { inAllowedGroup } : {}) },
  );

describe('the access policy', () => {
  it('with the defaults, every full member may do everything but change settings', () => {
    for (const action of ['start_job', 'continue_job', 'manage_digests', 'read_reports'] as const)
      expect(ask({}, member(), action)).toEqual({ allowed: true });
    expect(ask({}, member(), 'change_settings')).toMatchObject({ allowed: false, reason: 'not_admin' });
  });

  it('asking follows starting jobs by default (allow-lists, channels, guests); ASK_ACCESS=everyone lets every full member ask anywhere, guests still not', () => {
    const narrow = { allowedUsergroups: ['S0WRITERS'], allowedChannels: ['C0DOCS'] };
    expect(ask(narrow, member(), 'ask', 'C0DOCS', false)).toMatchObject({
      allowed: false,
      reason: 'not_allowed_user',
      text: expect.stringContaining('can ask the docs'),
    });
    expect(ask(narrow, member(), 'ask', 'C0OTHER', true)).toMatchObject({
      allowed: false,
      reason: 'not_allowed_channel',
      text: expect.stringContaining('Questions to the docs'),
    });
    expect(ask(narrow, member(), 'ask', 'C0DOCS', true)).toEqual({ allowed: true });
    expect(needsGroupCheck({ ...OPEN, ...narrow }, 'ask', 'U1')).toBe(true);
    const everyone = { ...narrow, askAccess: 'everyone' as const };
    expect(ask(everyone, member(), 'ask', 'C0OTHER')).toEqual({ allowed: true });
    expect(needsGroupCheck({ ...OPEN, ...everyone }, 'ask', 'U1')).toBe(false);
    expect(ask(everyone, member(), 'start_job', 'C0DOCS', false)).toMatchObject({
      allowed: false,
      reason: 'not_allowed_user',
    });
    expect(ask(everyone, member({ isGuest: true }), 'ask')).toMatchObject({ allowed: false, reason: 'guest' });
  });

  it('refuses guests (multi- and single-channel) everywhere unless ACCESS_ALLOW_GUESTS', () => {
    for (const action of ['start_job', 'continue_job', 'manage_digests', 'read_reports'] as const) {
      const d = ask({}, member({ isGuest: true }), action);
      expect(d).toMatchObject({ allowed: false, reason: 'guest' });
    }
    expect(ask({}, member({ isGuest: true }))).toMatchObject({
      text: "Guests can't start docs jobs in this workspace. Ask a full member of the workspace to do it for you.",
    });
    expect(ask({ allowGuests: true }, member({ isGuest: true }))).toEqual({ allowed: true });
  });

  it('refuses users of another workspace (other team_id, or is_stranger) unless ACCESS_ALLOW_EXTERNAL', () => {
    expect(ask({}, member({ teamId: 'T0OTHER' }))).toMatchObject({ allowed: false, reason: 'external' });
    expect(ask({}, member({ isStranger: true, teamId: HOME }))).toMatchObject({ allowed: false, reason: 'external' });
    expect(ask({}, member({ teamId: 'T0OTHER' }), 'read_reports')).toMatchObject({
      allowed: false,
      reason: 'external',
    });
    expect(ask({ allowExternal: true }, member({ teamId: 'T0OTHER' }))).toEqual({ allowed: true });
  });

  it('refuses bots and deactivated accounts', () => {
    expect(ask({ allowGuests: true, allowExternal: true }, member({ isBot: true }))).toMatchObject({
      allowed: false,
      reason: 'not_a_person',
    });
    expect(ask({}, member({ deleted: true }), 'read_reports')).toMatchObject({
      allowed: false,
      reason: 'not_a_person',
    });
  });

  it('with an allow-list, only listed users or members of a listed group may start, continue and manage digests; reports stay open', () => {
    const c = { allowedUsers: ['U2'], allowedUsergroups: ['S1'], adminUsers: ['U9'] };
    const refused = ask(c, member(), 'start_job', 'C1', false);
    expect(refused).toMatchObject({ allowed: false, reason: 'not_allowed_user' });
    expect((refused as { text: string }).text).toBe(
      'Only members of <!subteam^S1> and <@U2> can start docs jobs: join that group, or ask whoever runs Docs Agent to add you.',
    );
    expect(ask(c, member(), 'continue_job', 'C1', false)).toMatchObject({ reason: 'not_allowed_user' });
    expect(ask(c, member(), 'manage_digests', 'C1', false)).toMatchObject({ reason: 'not_allowed_user' });
    expect(ask(c, member(), 'start_job', 'C1', true)).toEqual({ allowed: true });
    expect(ask(c, member({ id: 'U2' }), 'start_job', 'C1')).toEqual({ allowed: true });
    expect(ask(c, member(), 'read_reports', 'C1', false)).toEqual({ allowed: true });
    expect(ask({ allowedUsers: ['U2'] }, member(), 'start_job')).toMatchObject({
      text: 'Only <@U2> can start docs jobs: ask whoever runs Docs Agent to add you.',
    });
    // A long list is cut at five, counting the rest.
    const many = { allowedUsers: ['U1', 'U2', 'U3', 'U4', 'U5', 'U6', 'U7'], allowedUsergroups: ['S1', 'S2'] };
    expect(ask(many, member({ id: 'U0X' }), 'start_job', 'C1', false)).toMatchObject({
      text:
        'Only members of <!subteam^S1>, <!subteam^S2> and <@U1>, <@U2>, <@U3>, <@U4>, <@U5> and 2 more can start docs jobs: ' +
        'join one of those groups, or ask whoever runs Docs Agent to add you.',
    });
  });

  it('asks for group membership only when it can change the answer', () => {
    expect(needsGroupCheck(OPEN, 'start_job', 'U1')).toBe(false);
    expect(needsGroupCheck({ ...OPEN, allowedUsergroups: ['S1'] }, 'start_job', 'U1')).toBe(true);
    expect(needsGroupCheck({ ...OPEN, allowedUsergroups: ['S1'], allowedUsers: ['U1'] }, 'start_job', 'U1')).toBe(
      false,
    );
    expect(needsGroupCheck({ ...OPEN, allowedUsergroups: ['S1'] }, 'read_reports', 'U1')).toBe(false);
  });

  it('with ACCESS_ALLOWED_CHANNELS, jobs start and continue only there (DMs included in the rule)', () => {
    const c = { allowedChannels: ['C0REQ'] };
    expect(ask(c, member(), 'start_job', 'C1')).toMatchObject({
      allowed: false,
      reason: 'not_allowed_channel',
      text: "Docs jobs aren't enabled in this channel: try <#C0REQ>.",
    });
    expect(ask(c, member(), 'continue_job', 'D1')).toMatchObject({
      reason: 'not_allowed_channel',
      text: "Docs jobs aren't enabled in direct messages: try <#C0REQ>.",
    });
    expect(ask(c, member(), 'start_job', 'C0REQ')).toEqual({ allowed: true });
    expect(ask(c, member(), 'read_reports', 'C1')).toEqual({ allowed: true });
    expect(ask(c, member(), 'manage_digests', 'C1')).toEqual({ allowed: true });
  });

  it('settings: ADMIN_USERS and workspace admins/owners only, guests never unless allowed', () => {
    expect(ask({ adminUsers: ['U1'] }, member(), 'change_settings')).toEqual({ allowed: true });
    expect(ask({}, member({ isWorkspaceAdmin: true }), 'change_settings')).toEqual({ allowed: true });
    expect(ask({ adminUsers: ['U7'] }, member(), 'change_settings')).toMatchObject({
      text: "Only workspace admins and <@U7> can change this channel's docs settings.",
    });
    expect(ask({ adminUsers: ['U1'] }, member({ isGuest: true }), 'change_settings')).toMatchObject({
      reason: 'guest',
    });
  });
});

function fakeSlack(users: Record<string, object>, groups: Record<string, string[]> = {}) {
  return {
    users: {
      info: vi.fn(async ({ user }: { user: string }) => {
        if (!users[user])
          throw Object.assign(new Error('An API error occurred: user_not_found'), {
            data: { error: 'user_not_found' },
          });
        return { ok: true, user: { id: user, ...users[user] } };
      }),
    },
    usergroups: {
      users: {
        list: vi.fn(async ({ usergroup }: { usergroup: string }) => ({ ok: true, users: groups[usergroup] ?? [] })),
      },
    },
    auth: { test: vi.fn(async () => ({ ok: true, team_id: HOME })) },
  };
}

describe('the Slack directory', () => {
  it('caches users.info for its TTL, then asks again; failures are not cached', async () => {
    let t = 1_000_000; // lru-cache treats a start time of 0 as 'no TTL'
    const slack = fakeSlack({ U1: { team_id: HOME, is_restricted: true, tz: 'Asia/Tokyo' } });
    const dir = new SlackDirectory(slack as never, { userTtlMs: 600_000, perf: { now: () => t } });
    expect(await dir.user('U1')).toMatchObject({ isGuest: true, teamId: HOME, tz: 'Asia/Tokyo' });
    await dir.user('U1');
    expect(slack.users.info).toHaveBeenCalledTimes(1);
    t += 600_001;
    await dir.user('U1');
    expect(slack.users.info).toHaveBeenCalledTimes(2);
    await expect(dir.user('U404')).rejects.toThrow();
    await expect(dir.user('U404')).rejects.toThrow();
    expect(slack.users.info).toHaveBeenCalledTimes(4);
  });

  it('caches user group membership for its TTL', async () => {
    let t = 1_000_000; // lru-cache treats a start time of 0 as 'no TTL'
    const slack = fakeSlack({}, { S1: ['U1'] });
    const dir = new SlackDirectory(slack as never, { groupTtlMs: 300_000, perf: { now: () => t } });
    expect(await dir.inAnyGroup('U1', ['S1'])).toBe(true);
    expect(await dir.inAnyGroup('U2', ['S1'])).toBe(false);
    expect(slack.usergroups.users.list).toHaveBeenCalledTimes(1);
    t += 300_001;
    await dir.inAnyGroup('U2', ['S1']);
    expect(slack.usergroups.users.list).toHaveBeenCalledTimes(2);
  });
});

describe('the Slack directory when Redis or Slack fails', () => {
  it("a person's change record that cannot be read (Redis down) asks Slack again rather than trust the cache", async () => {
    const readable = fakeSlack({ U1: { team_id: HOME } });
    const none = new SlackDirectory(readable as never, { changes: { changedAt: async () => undefined } });
    await none.user('U1');
    await none.user('U1');
    expect(readable.users.info).toHaveBeenCalledTimes(1); // the record says nothing changed: cached
    const slack = fakeSlack({ U1: { team_id: HOME } });
    const changes = { changedAt: vi.fn(async () => Promise.reject(new Error('Connection is closed.'))) };
    const dir = new SlackDirectory(slack as never, { changes });
    await dir.user('U1');
    expect(await dir.user('U1')).toMatchObject({ id: 'U1', teamId: HOME });
    // Each lookup finds the record unreadable, so the cached facts are fetched again.
    expect(changes.changedAt).toHaveBeenCalledTimes(2);
    expect(slack.users.info).toHaveBeenCalledTimes(3);
  });

  it('users.info answering without a user fails the check (the gate refuses: check_failed)', async () => {
    const slack = fakeSlack({});
    slack.users.info.mockResolvedValueOnce({ ok: true } as never);
    await expect(new SlackDirectory(slack as never).user('U1')).rejects.toThrow('users.info returned no user');
  });

  it("the bot's own workspace: a failed or empty auth.test is not remembered; the next check asks again", async () => {
    const slack = fakeSlack({});
    const platform = Object.assign(new Error('An API error occurred: ratelimited'), {
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: 'ratelimited' },
    });
    slack.auth.test.mockRejectedValueOnce(platform).mockResolvedValueOnce({ ok: true } as never);
    const dir = new SlackDirectory(slack as never);
    await expect(dir.homeTeamId()).rejects.toBe(platform);
    await expect(dir.homeTeamId()).rejects.toThrow('auth.test returned no team_id');
    expect(await dir.homeTeamId()).toBe(HOME);
    expect(await dir.homeTeamId()).toBe(HOME);
    expect(slack.auth.test).toHaveBeenCalledTimes(3);
  });
});

describe('the access events', () => {
  it('a user_change or team_access event without ids is ignored with a warning (acked, nothing recorded)', async () => {
    const { logger, lines } = arrayLogger('warn');
    const deps = {
      directory: { forget: vi.fn() },
      changes: { mark: vi.fn(async () => undefined) },
      workspaces: { grant: vi.fn(async () => undefined), remove: vi.fn(async () => undefined) },
      logger,
    };
    const events = new Map<string, (a: { event: unknown }) => Promise<void>>();
    register({ event: (name: string, l: never) => void events.set(name, l) } as never, deps as never);
    await userChangeEvent(deps as never)({ event: { type: 'user_change', user: { id: '<!here>' } } } as never);
    await events.get('team_access_revoked')!({ event: { type: 'team_access_revoked', team_ids: ['not a team'] } });
    expect(deps.directory.forget).not.toHaveBeenCalled();
    expect(deps.changes.mark).not.toHaveBeenCalled();
    expect(deps.workspaces.remove).not.toHaveBeenCalled();
    expect(lines.map((l) => l.msg)).toEqual([
      'a user_change event without a user id; ignored',
      'a team_access event without workspace ids; ignored',
    ]);
    expect(JSON.stringify(lines)).not.toContain('<!here>');
  });
});

describe('the access gate', () => {
  const logs: string[] = [];
  const logger = createLogger('info', { write: (l: string) => void logs.push(l) } as never);
  const budget = grantingBudget();
  const gate = (slack: ReturnType<typeof fakeSlack>, policy: Partial<AccessPolicyConfig> = {}) =>
    createAccessGate({
      policy: { ...OPEN, ...policy },
      directory: new SlackDirectory(slack as never),
      budget,
      promptMaxChars: 100,
      defaultProject: 'p1',
      projectFor: async () => 'p1',
      logger,
      now: () => Date.UTC(2026, 10, 23, 13, 25),
    });

  it('fails closed when Slack cannot say who the person is, and writes one audit line', async () => {
    logs.length = 0;
    const d = await gate(fakeSlack({})).authorize({ user: 'U404' }, 'start_job', 'C1');
    expect(d).toMatchObject({
      allowed: false,
      reason: 'check_failed',
      text: "I couldn't check your access, so I didn't do anything. Try again in a moment.",
    });
    const audits = logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.audit);
    expect(audits).toEqual([
      expect.objectContaining({
        audit: true,
        actor: 'U404',
        channel: 'C1',
        action: 'start_job',
        outcome: 'refused',
        reason: 'check_failed',
      }),
    ]);
  });

  it('refuses an instruction over the cap with its length and the limit, before the budget', async () => {
    budget.take.mockClear();
    const d = await gate(fakeSlack({ U1: { team_id: HOME } })).admitAgentCall({
      actor: { user: 'U1' },
      channel: 'C1',
      action: 'start_job',
      promptChars: 12_345,
    });
    expect(d).toMatchObject({ allowed: false, reason: 'prompt_too_long' });
    expect((d as { text: string }).text).toContain('12,345 characters long; the limit is 100');
    expect(budget.take).not.toHaveBeenCalled();
  });

  it("a used-up budget says which and when the next slot frees, in the person's zone", async () => {
    budget.take.mockResolvedValueOnce({ ok: false, which: 'project', msBeforeNext: 7 * 60_000 } as never);
    const d = await gate(fakeSlack({ U1: { team_id: HOME, tz: 'Europe/Berlin' } })).admitAgentCall({
      actor: { user: 'U1' },
      channel: 'C1',
      action: 'start_job',
      promptChars: 10,
    });
    expect(d).toMatchObject({ allowed: false, reason: 'project_budget' });
    // 13:25 UTC + 7 min = 13:32 UTC = 14:32 in Berlin
    expect((d as { text: string }).text).toMatch(
      /^The docs agent's hourly budget for this project is used up \(100 requests\/hour\)\. Next free slot: <!date\^\d+\^\{time\}\|14:32> \(in 7m\)\.$/,
    );
    expect(budgetText({ budget, now: () => 0 }, 'user', 60_000, undefined)).toContain(
      "You've used your hourly budget of docs agent requests (20 requests/hour). Next free slot: <!date^60^{time}|00:01 UTC>",
    );
  });

  it('the budget failing (Redis down) is a refusal, not a pass', async () => {
    budget.take.mockRejectedValueOnce(new Error('Connection is closed.'));
    const d = await gate(fakeSlack({ U1: { team_id: HOME } })).admitAgentCall({
      actor: { user: 'U1' },
      channel: 'C1',
      action: 'continue_job',
      promptChars: 10,
    });
    expect(d).toMatchObject({ allowed: false, reason: 'check_failed' });
  });

  it("gives nothing back when the channel's project can't be read, and says so at warn", async () => {
    logs.length = 0;
    budget.give.mockClear();
    budget.block.mockClear();
    const g = createAccessGate({
      policy: OPEN,
      directory: new SlackDirectory(fakeSlack({}) as never),
      budget,
      promptMaxChars: 100,
      defaultProject: 'p1',
      projectFor: () => Promise.reject(new Error('Connection is closed.')),
      logger,
      now: () => 0,
    });
    const call = { actor: { user: 'U1' }, channel: 'C1', action: 'start_job' as const, promptChars: 10 };
    await g.refund(call);
    await g.noteRateLimited(call, 1_000);
    expect(budget.give).not.toHaveBeenCalled();
    expect(budget.block).not.toHaveBeenCalled();
    const warns = logs.map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message: string } });
    expect(warns.filter((l) => l.level === 40 && l.err?.message === 'Connection is closed.')).toEqual([
      expect.objectContaining({ msg: "could not read the channel's docs project; budget left as it is" }),
      expect.objectContaining({ msg: "could not read the channel's docs project; budget left as it is" }),
    ]);
  });

  it("a docs API 429 that cannot be recorded (Redis down) is said at warn; the caller's request is not failed by it", async () => {
    logs.length = 0;
    budget.block.mockRejectedValueOnce(new Error('Connection is closed.'));
    const call = { actor: { user: 'U1' }, channel: 'C1', action: 'start_job' as const, promptChars: 10 };
    await expect(gate(fakeSlack({ U1: { team_id: HOME } })).noteRateLimited(call, 30_000)).resolves.toBeUndefined();
    const warns = logs.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40);
    expect(warns.map((l) => l.msg)).toEqual([
      'the docs API is rate limiting agent requests; holding new ones until it frees',
      'could not record the docs API rate limit',
    ]);
  });
});
