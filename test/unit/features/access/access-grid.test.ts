import { describe, expect, it, vi } from 'vitest';
import { SlackDirectory } from '../../../../src/features/access/directory.js';
import {
  affiliationOf,
  decideAccess,
  type AccessPolicyConfig,
  type UserFacts,
} from '../../../../src/features/access/policy.js';
import { createAccessGate } from '../../../../src/features/access/service.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { currentRequestContext, withRequestContext } from '../../../../src/platform/request-context.js';
import { OPEN_POLICY as OPEN, grantingBudget } from '../../../helpers/access.js';

/*
 * Who is an insider on Enterprise Grid: the bot lives in workspace T0A of enterprise E0ORG; T0B is a
 * sibling workspace of the same org, T0X a workspace of another org E0OTHER, T0SOLO a workspace
 * outside Grid (Slack Connect).
 */
const HOME = { teamId: 'T0A', enterpriseId: 'E0ORG' };
const person = (over: Partial<UserFacts> = {}): UserFacts => ({
  id: 'W1',
  teamId: 'T0A',
  enterpriseId: 'E0ORG',
  isBot: false,
  deleted: false,
  isGuest: false,
  isStranger: false,
  isWorkspaceAdmin: false,
  ...over,
});
const decide = (
  facts: UserFacts,
  c: Partial<AccessPolicyConfig> = {},
  home: { teamId: string; enterpriseId?: string } = HOME,
) =>
  decideAccess(
    { ...OPEN, ...c },
    {
      facts,
      homeTeamId: home.teamId,
      ...(home.enterpriseId ? { homeEnterpriseId: home.enterpriseId } : {}),
      action: 'start_job',
      channel: 'C1',
    },
  );

describe('who is an insider on Enterprise Grid', () => {
  it('a member of a sibling workspace of the same org is an insider; of another org or outside Grid, an outsider', () => {
    expect(affiliationOf(person(), HOME)).toBe('same_workspace');
    expect(affiliationOf(person({ teamId: 'T0B' }), HOME)).toBe('same_organization');
    expect(decide(person({ teamId: 'T0B' }))).toEqual({ allowed: true });
    expect(affiliationOf(person({ teamId: 'T0X', enterpriseId: 'E0OTHER' }), HOME)).toBe('other_organization');
    expect(decide(person({ teamId: 'T0X', enterpriseId: 'E0OTHER' }))).toMatchObject({ reason: 'external' });
    const solo = person({ teamId: 'T0SOLO' });
    delete solo.enterpriseId;
    expect(affiliationOf(solo, HOME)).toBe('other_workspace');
    expect(decide(solo)).toMatchObject({ reason: 'external' });
  });

  it('is_stranger stays an outsider even with the same enterprise id; ACCESS_ALLOW_EXTERNAL lets outsiders in', () => {
    const stranger = person({ teamId: 'T0B', isStranger: true });
    expect(affiliationOf(stranger, HOME)).toBe('stranger');
    expect(decide(stranger)).toMatchObject({ reason: 'external' });
    expect(decide(stranger, { allowExternal: true })).toEqual({ allowed: true });
  });

  it('guests of a sibling workspace stay guests', () => {
    expect(decide(person({ teamId: 'T0B', isGuest: true }))).toMatchObject({ reason: 'guest' });
  });

  it('an org-wide install (auth.test team_id is the enterprise id) takes every workspace of its org as insiders', () => {
    const orgWide = { teamId: 'E0ORG', enterpriseId: 'E0ORG' };
    expect(affiliationOf(person({ teamId: 'T0A' }), orgWide)).toBe('same_organization');
    expect(decide(person({ teamId: 'T0B' }), {}, orgWide)).toEqual({ allowed: true });
    expect(decide(person({ teamId: 'T0X', enterpriseId: 'E0OTHER' }), {}, orgWide)).toMatchObject({
      reason: 'external',
    });
  });

  it('outside Grid nothing changes: another team_id is an outsider', () => {
    const home = { teamId: 'T0A' };
    const other = person({ teamId: 'T0B' });
    delete other.enterpriseId;
    expect(decide(other, {}, home)).toMatchObject({ reason: 'external' });
    expect(affiliationOf({ isStranger: false }, home)).toBe('same_workspace');
  });
});

describe('the directory and the gate on Grid', () => {
  const slack = {
    users: {
      info: vi.fn(async ({ user }: { user: string }) => {
        const teams: Record<string, [string, string]> = { W0BEA: ['T0B', 'E0ORG'], W0XAVI: ['T0X', 'E0OTHER'] };
        const [team, enterprise] = teams[user] ?? ['T0A', 'E0ORG'];
        return {
          ok: true,
          user: { id: user, team_id: team, enterprise_user: { id: user, enterprise_id: enterprise, teams: [team] } },
        };
      }),
    },
    usergroups: { users: { list: vi.fn(async () => ({ ok: true, users: [] })) } },
    auth: { test: vi.fn(async () => ({ ok: true, team_id: 'T0A', enterprise_id: 'E0ORG' })) },
  };

  it('reads enterprise_user.enterprise_id and auth.test enterprise_id', async () => {
    const dir = new SlackDirectory(slack as never);
    expect(await dir.user('W0BEA')).toMatchObject({ teamId: 'T0B', enterpriseId: 'E0ORG' });
    expect(await dir.home()).toEqual({ teamId: 'T0A', enterpriseId: 'E0ORG' });
    expect(await dir.homeTeamId()).toBe('T0A');
  });

  it("admits the sibling workspace's member; the refusal of another org's member is audited with its affiliation", async () => {
    const logs: string[] = [];
    const gate = createAccessGate({
      policy: OPEN,
      directory: new SlackDirectory(slack as never),
      budget: grantingBudget(),
      promptMaxChars: 100,
      defaultProject: 'p1',
      projectFor: async () => 'p1',
      logger: createLogger('info', { write: (l: string) => void logs.push(l) } as never),
      now: () => 0,
    });
    expect(await gate.authorize({ user: 'W0BEA' }, 'start_job', 'C1')).toEqual({ allowed: true });
    expect(await gate.authorize({ user: 'W0XAVI' }, 'start_job', 'C1')).toMatchObject({ reason: 'external' });
    const audits = logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.audit);
    expect(audits).toEqual([
      expect.objectContaining({ actor: 'W0XAVI', reason: 'external', affiliation: 'other_organization' }),
    ]);
  });
});

describe('OAuth mode: people are who each installation says they are', () => {
  // users.info answers for the token's own workspace (docs.slack.dev "User object": is_admin is
  // "an admin of the current workspace"; guest and deactivated are per workspace too). W0ANN is an
  // admin of T0A and a guest of T0B, two workspace installs of E0ORG.
  const asked: string[] = [];
  const slack = {
    users: {
      info: vi.fn(async ({ user }: { user: string }) => {
        const t = currentRequestContext()?.teamId ?? '';
        asked.push(`${t}:${user}`);
        const u = {
          id: user,
          team_id: 'T0A',
          enterprise_user: { id: user, enterprise_id: 'E0ORG', teams: ['T0A', 'T0B'] },
        };
        return { ok: true, user: { ...u, is_admin: t === 'T0A', is_restricted: t === 'T0B' } };
      }),
    },
    usergroups: { users: { list: vi.fn(async () => ({ ok: true, users: [] })) } },
    auth: { test: vi.fn(async () => ({ ok: true, team_id: currentRequestContext()?.teamId, enterprise_id: 'E0ORG' })) },
  };
  const inTeam = <T>(teamId: string, fn: () => Promise<T>) =>
    withRequestContext({ requestId: `r-${teamId}`, teamId, enterpriseId: 'E0ORG', enterpriseInstall: false }, fn);

  it("a workspace's admin is no settings admin where they are a guest, however soon after", async () => {
    const directory = new SlackDirectory(slack as never, { perInstallation: true });
    const gate = createAccessGate({
      policy: OPEN,
      directory,
      budget: {} as never,
      promptMaxChars: 100,
      defaultProject: 'p1',
      projectFor: async () => 'p1',
      logger: createLogger('silent'),
      now: () => 0,
    });
    const settings = (teamId: string) =>
      inTeam(teamId, () => gate.authorize({ user: 'W0ANN' }, 'change_settings', '', { audit: false }));
    expect(await settings('T0A')).toEqual({ allowed: true });
    expect(await settings('T0B')).toMatchObject({ allowed: false });
    expect(await inTeam('T0B', () => directory.user('W0ANN'))).toMatchObject({
      isGuest: true,
      isWorkspaceAdmin: false,
    });
    expect(await settings('T0A')).toEqual({ allowed: true }); // each installation's answer cached for it
    expect(asked).toEqual(['T0A:W0ANN', 'T0B:W0ANN']);
    // Their user_change drops what every installation knew of them.
    directory.forget('W0ANN');
    await settings('T0A');
    await settings('T0B');
    expect(asked).toEqual(['T0A:W0ANN', 'T0B:W0ANN', 'T0A:W0ANN', 'T0B:W0ANN']);
  });
});
