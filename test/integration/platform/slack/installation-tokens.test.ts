import { App, type Installation } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { RedisInstallationStore } from '../../../../src/platform/installation-store.js';
import { KeyRing } from '../../../../src/platform/sealed-box.js';
import { classifySlackError } from '../../../../src/platform/slack/errors.js';
import { currentRequestContext, withRequestContext } from '../../../../src/platform/request-context.js';
import {
  CREDENTIALS_MAX_AGE_MS,
  installationContext,
  InstallationTokens,
  type InstallationSource,
  withInstallation,
} from '../../../../src/platform/slack/installation-tokens.js';
import { requestTeamId } from '../../../../src/platform/slack/payloads.js';
import { OTHER_ORG_TEXT, orgWorkspaceGuard } from '../../../../src/platform/slack/org-workspace-guard.js';
import { OrgWorkspaces } from '../../../../src/platform/slack/org-workspaces.js';
import { WorkspaceAccess } from '../../../../src/platform/workspace-access.js';
import { createInstaller } from '../../../../src/platform/slack/oauth.js';
import { createWebClient } from '../../../../src/platform/slack/web-client.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';
import { tokensWebClient } from '../../../helpers/oauth-client.js';

/*
 * OAuth mode's per-call tokens: the platform's WebClient asks InstallationTokens for the token of
 * the current request's (or worker's) installation, from the installer's authorize over the sealed
 * store on real Redis, and
 * the fake Slack answers each token as its own workspace.
 */
const redis = testRedis();
const prefix = randomPrefix();
/** Every workspace and org this file installs (SLACK_INSTALL_ALLOWLIST). */
const ALLOW = new Set(
  'E0BETA E0GRID E0ORG T0A T0B T0BETA1 T0C T0C2 T0C3 T0C4 T0C7 T0C8 T0EXT T0GONE T0KEPT T0OTHER T0REV T0ROT T0USERONLY'.split(
    ' ',
  ),
);
const store = new RedisInstallationStore(redis, prefix, new KeyRing(Buffer.alloc(32, 5).toString('base64')), ALLOW);
const { logger: quiet } = arrayLogger('error');
let tokens: InstallationTokens;
let installer: InstallationSource;
let slack: FakeSlack;
const OAUTH = { clientId: '1.2', clientSecret: 'tokens-test-secret' };
/** The OAuth installer over `installationStore` (default this file's store) at the fake Slack `slackApiUrl`. */
const installerAt = (slackApiUrl: string, installationStore: RedisInstallationStore = store) =>
  createInstaller({
    oauth: { ...OAUTH, stateSecret: 'tokens-test-state-secret', installationKey: '', installAllowlist: ALLOW },
    installationStore,
    slackApiUrl,
    logger: quiet,
  });

/** Installs the app in `teamId` (or org-wide in `enterpriseId`) through the fake's oauth.v2.access, stored as Bolt would. */
async function install(p: {
  teamId: string;
  enterpriseId?: string;
  orgWide?: boolean;
  teams?: { id: string; name: string }[];
}): Promise<string> {
  const code = slack.installs.authorize(p);
  const body = new URLSearchParams({ client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret, code });
  const res = (await (await fetch(`${slack.url}oauth.v2.access`, { method: 'POST', body })).json()) as {
    access_token: string;
    team: { id: string } | null;
    enterprise: { id: string } | null;
    is_enterprise_install: boolean;
  };
  const installation: Installation<'v2', boolean> = {
    team: res.team ?? undefined,
    enterprise: res.enterprise ?? undefined,
    user: { id: 'U0ALICE', token: undefined, scopes: undefined },
    bot: { token: res.access_token, scopes: ['chat:write'], id: 'B0DOCSBOT', userId: 'U0DOCSBOT' },
    isEnterpriseInstall: res.is_enterprise_install,
    authVersion: 'v2',
  } as Installation<'v2', boolean>;
  await store.storeInstallation(installation);
  return res.access_token;
}

beforeAll(async () => {
  slack = await startFakeSlack({ botToken: 'xoxb-unused', oauth: OAUTH });
  installer = installerAt(slack.url);
  tokens = new InstallationTokens(installer);
  await install({ teamId: 'T0A' });
  await install({ teamId: 'T0B', enterpriseId: 'E0ORG' });
  await install({
    teamId: 'T0C',
    enterpriseId: 'E0GRID',
    orgWide: true,
    teams: [
      { id: 'T0C7', name: 'Grid C7' },
      { id: 'T0C8', name: 'Grid C8' },
    ],
  });
});
afterAll(async () => {
  await slack.close();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

/**
 * A view_submission body as Slack sends it (Slack: view_submission payload): submitted by `user` of
 * `team` (of Grid org `team.enterprise`, when given), in a modal of the app installed in `installedTeam`.
 */
function viewSubmission(o: { team: { id: string; enterprise?: string }; user: string; installedTeam: string }) {
  const { id, enterprise } = o.team;
  return {
    type: 'view_submission',
    api_app_id: 'A0DOCS',
    team: { id, domain: id.toLowerCase(), ...(enterprise ? { enterprise_id: enterprise } : {}) },
    ...(enterprise ? { enterprise: { id: enterprise, name: enterprise } } : {}),
    user: { id: o.user, team_id: id },
    trigger_id: `1.2.${o.user}`,
    view: {
      id: `V${o.user}`,
      type: 'modal',
      callback_id: 'sc_form',
      app_installed_team_id: o.installedTeam,
      state: { values: {} },
    },
  };
}
describe('InstallationTokens', () => {
  it("finds a workspace install by team, an org-wide one by org, and an old record's by trying both", async () => {
    const tokenTeam = (t: string) => slack.installs.identity(t)?.teamId;
    expect(tokenTeam((await tokens.forRef({ teamId: 'T0A' })).token)).toBe('T0A');
    expect(
      tokenTeam((await tokens.forRef({ teamId: 'T0B', enterpriseId: 'E0ORG', enterpriseInstall: false })).token),
    ).toBe('T0B');
    const org = await tokens.forRef({ teamId: 'T0C2', enterpriseId: 'E0GRID', enterpriseInstall: true });
    expect(org.enterpriseInstall).toBe(true);
    expect(tokenTeam(org.token)).toBe('E0GRID');
    // Recorded before the flag was: the workspace's own install first, else the org's.
    expect(tokenTeam((await tokens.forRef({ teamId: 'T0C3', enterpriseId: 'E0GRID' })).token)).toBe('E0GRID');
  });

  it('refuses work of a workspace it has no installation for, and work that names none', async () => {
    await expect(tokens.forRef({ teamId: 'T0GONE' })).rejects.toMatchObject({ code: 'installation_not_found' });
    await expect(tokens.forRef({})).rejects.toMatchObject({ code: 'installation_not_found' });
    // An installation without a bot token (a user-token-only install) is no installation the bot can work in.
    await store.storeInstallation({
      team: { id: 'T0USERONLY' },
      enterprise: undefined,
      user: { id: 'U0ALICE', token: 'xoxp-user-only', scopes: ['search:read'] },
      isEnterpriseInstall: false,
      authVersion: 'v2',
    } as Installation<'v2', false>);
    const noBot = await tokens.forRef({ teamId: 'T0USERONLY' }).catch((e: unknown) => e);
    expect(noBot).toMatchObject({ code: 'installation_not_found' });
    expect((noBot as Error).message).toContain('no bot token');
    expect((noBot as Error).message).not.toContain('xoxp-');
    await expect(
      tokens.forRef({ teamId: 'T0C3', enterpriseId: 'E0GRID', enterpriseInstall: false }),
    ).rejects.toMatchObject({
      code: 'installation_not_found',
    });
  });
});

describe('the installation of old records and nested work', () => {
  it("an old record's org fallback skips a workspace team_access_revoked removed from the org install", async () => {
    const workspaces = new WorkspaceAccess(redis, prefix);
    const guarded = new InstallationTokens(installer, undefined, workspaces);
    await workspaces.remove(['T0C4']);
    await expect(guarded.forRef({ teamId: 'T0C4', enterpriseId: 'E0GRID' })).rejects.toMatchObject({
      code: 'installation_not_found',
    });
    // Another workspace of the org still falls back to it; granted again, so does T0C4.
    const tokenTeam = (t: string) => slack.installs.identity(t)?.teamId;
    expect(tokenTeam((await guarded.forRef({ teamId: 'T0C3', enterpriseId: 'E0GRID' })).token)).toBe('E0GRID');
    await workspaces.grant(['T0C4']);
    expect(tokenTeam((await guarded.forRef({ teamId: 'T0C4', enterpriseId: 'E0GRID' })).token)).toBe('E0GRID');
  });

  it("work run inside another installation's uses only its own ref, inheriting nothing", async () => {
    const orgRef = { teamId: 'T0C2', enterpriseId: 'E0GRID', enterpriseInstall: true };
    const inner = await withInstallation(orgRef, 'req-outer', () =>
      withInstallation({ teamId: 'T0A' }, 'req-inner', async () => ({
        ctx: currentRequestContext(),
        team: slack.installs.identity((await tokens.current()).token)?.teamId,
      })),
    );
    expect(inner).toEqual({ ctx: { requestId: 'req-outer', teamId: 'T0A' }, team: 'T0A' });
  });
});

describe("the platform's WebClient in OAuth mode", () => {
  it("calls with the token of the current request's installation, and only that one", async () => {
    const { logger } = arrayLogger('warn');
    const failures: string[] = [];
    const web = createWebClient({
      token: '',
      slackApiUrl: slack.url,
      logger,
      onError: (e) => failures.push(`${e.method} ${e.kind} ${e.code}`),
      credentials: () => tokens.current(),
    });
    const teamOf = async (teamId: string) =>
      (await withInstallation({ teamId }, 'req-1', () => web.auth.test())).team_id;
    expect(await Promise.all([teamOf('T0A'), teamOf('T0B'), teamOf('T0A')])).toEqual(['T0A', 'T0B', 'T0A']);

    const err = await withInstallation({ teamId: 'T0GONE' }, 'req-2', () => web.auth.test()).catch((e: unknown) => e);
    expect(classifySlackError(err)).toEqual({ kind: 'permanent', code: 'installation_not_found', method: 'auth.test' });
    expect(failures).toEqual(['auth.test permanent installation_not_found']);
    // No call reached Slack without a token.
    expect(slack.calls.filter((c) => c.method === 'auth.test' && (c.response as { ok: boolean }).ok === false)).toEqual(
      [],
    );
  });
});

/**
 * Runs `body` through a real Bolt App (its own authorize source, from the installer) behind the
 * edge's request context and {@link installationContext}: the token and request context its
 * listener works with, and the warn lines.
 */
async function throughBolt(
  body: Record<string, unknown>,
  guard?: { hasOwnEntry: (teamId: string) => boolean; workspaces: OrgWorkspaces; waitMs?: number },
) {
  const { logger, lines } = arrayLogger('warn');
  const installer = installerAt(slack.url);
  const app = new App({
    authorize: (source) => installer.authorize(source),
    clientOptions: { slackApiUrl: slack.url },
    receiver: { init: () => undefined, start: () => Promise.resolve(), stop: () => Promise.resolve() },
  });
  installationContext(app, logger);
  // auth.teams.list as main.ts gives it: the platform's reads client, with the request's installation's token.
  const reads = createWebClient({
    token: '',
    slackApiUrl: slack.url,
    logger: quiet,
    rejectRateLimitedCalls: true,
    credentials: () => tokens.current(),
  });
  const listTeams = (a: { limit: number; cursor?: string }) => reads.auth.teams.list(a);
  const tokenOrg = async () => (await reads.auth.test()).enterprise_id || undefined;
  if (guard)
    orgWorkspaceGuard(app, {
      ...guard,
      listTeams,
      tokenOrg,
      singleTokenOrgWide: false,
      slackApiUrl: slack.url,
      logger,
    });
  const seen: { token?: string; teamId?: string }[] = [];
  const listener = async ({ ack }: { ack?: () => Promise<void> }) => {
    await ack?.();
    seen.push({ token: (await tokens.current()).token, teamId: currentRequestContext()?.teamId });
  };
  app.event('message', listener);
  app.view('sc_form', listener);
  app.action('ext_click', listener);
  const teamId = requestTeamId(body);
  await withRequestContext({ requestId: 'req-sc', ...(teamId ? { teamId } : {}) }, () =>
    app.processEvent({ body, ack: () => Promise.resolve() }),
  );
  return { seen, warns: lines };
}

describe('a request from the other side of a Slack Connect channel', () => {
  // docs.slack.dev Events API: `authorizations` names the installation an event is delivered for;
  // the top-level team_id can be the other workspace of a shared channel (slackapi/bolt-js#687), and a
  // view submitted there names the submitter's team, its installation `view.app_installed_team_id`
  // (slackapi/bolt-js#1614). Both workspaces have the app installed here.
  const teamOf = (token: string | undefined) => slack.installs.identity(token ?? '')?.teamId;

  it("runs an event with the installing workspace's token, not the top-level team_id's", async () => {
    await install({ teamId: 'T0OTHER' });
    const { seen, warns } = await throughBolt({
      type: 'event_callback',
      event_id: 'Ev0SC',
      api_app_id: 'A0DOCS',
      team_id: 'T0OTHER',
      authorizations: [
        { team_id: 'T0A', enterprise_id: null, user_id: 'U0DOCSBOT', is_bot: true, is_enterprise_install: false },
      ],
      is_ext_shared_channel: true,
      event: {
        type: 'message',
        user: 'U0BOB',
        text: 'hi',
        channel: 'C0SHARED',
        channel_type: 'channel',
        ts: '1.000100',
      },
    });
    expect(seen.map((s) => [teamOf(s.token), s.teamId])).toEqual([['T0A', 'T0A']]);
    expect(warns.map((l) => [l.msg, l.teamId, l.requestTeamId])).toEqual([
      [expect.stringContaining("the installation's is used"), 'T0A', 'T0OTHER'],
    ]);
  });

  it("runs a view submission with view.app_installed_team_id's token, not the submitter team's", async () => {
    await install({ teamId: 'T0OTHER' });
    const { seen } = await throughBolt(
      viewSubmission({ team: { id: 'T0OTHER' }, user: 'U0BOB', installedTeam: 'T0A' }),
    );
    expect(seen.map((s) => [teamOf(s.token), s.teamId])).toEqual([['T0A', 'T0A']]);
  });

  it("keeps the request's workspace for an org-wide install (its token's team_id), the org's token", async () => {
    const { seen, warns } = await throughBolt({
      type: 'event_callback',
      event_id: 'Ev0ORG',
      api_app_id: 'A0DOCS',
      team_id: 'T0C7',
      enterprise_id: 'E0GRID',
      authorizations: [
        { team_id: null, enterprise_id: 'E0GRID', user_id: 'U0DOCSBOT', is_bot: true, is_enterprise_install: true },
      ],
      event: { type: 'message', user: 'U0BOB', text: 'hi', channel: 'C0GRID', channel_type: 'channel', ts: '1.000200' },
    });
    expect(seen.map((s) => [teamOf(s.token), s.teamId])).toEqual([['E0GRID', 'T0C7']]);
    expect(warns).toEqual([]);
  });
});

describe("an org-wide install's request naming a workspace that is not the org's", () => {
  // A Slack Connect channel of the org-wide install E0GRID (added to T0C7 and T0C8): a body naming
  // another organization's workspace that has docs projects of its own (T0EXT) is refused before
  // any listener runs, so nothing of that workspace's projects, keys or site is used.
  const orgEvent = (teamId: string, id: string) => ({
    type: 'event_callback',
    event_id: `Ev${id}`,
    api_app_id: 'A0DOCS',
    team_id: teamId,
    enterprise_id: 'E0GRID',
    is_ext_shared_channel: true,
    authorizations: [
      { team_id: null, enterprise_id: 'E0GRID', user_id: 'U0DOCSBOT', is_bot: true, is_enterprise_install: true },
    ],
    event: { type: 'message', user: 'U0EVE', text: 'hi', channel: 'C0GRID', channel_type: 'channel', ts: `1.${id}` },
  });
  const teamsLists = () => slack.calls.filter((c) => c.method === 'auth.teams.list').length;
  const mapped = new Set(['T0C7', 'T0EXT']);
  const guarded = () => ({ hasOwnEntry: (t: string) => mapped.has(t), workspaces: new OrgWorkspaces() });

  it("refuses it with one warn line; the org's own mapped workspace goes on; one auth.teams.list for both", async () => {
    const guard = guarded();
    const before = teamsLists();
    const outsider = await throughBolt(orgEvent('T0EXT', '000301'), guard);
    expect(outsider.seen).toEqual([]);
    expect(outsider.warns.map((l) => [l.msg, l.teamId, l.enterpriseId])).toEqual([
      [expect.stringContaining("that is not the install's"), 'T0EXT', 'E0GRID'],
    ]);
    const insider = await throughBolt(orgEvent('T0C7', '000302'), guard);
    expect(insider.seen.map((s) => s.teamId)).toEqual(['T0C7']);
    expect(insider.warns).toEqual([]);
    expect(teamsLists() - before).toBe(1);
  });

  it("refuses a click whose clicker's own workspace is the other organization's mapped one, telling them why", async () => {
    const guard = guarded();
    const responseUrl = slack.responseUrl(undefined, { user: 'U0EVE', channel: 'C0GRID' });
    const { seen } = await throughBolt(
      {
        type: 'block_actions',
        api_app_id: 'A0DOCS',
        // Org-wide install: `team` is null, so the clicker's own workspace is the one named.
        team: null,
        enterprise: { id: 'E0GRID', name: 'Grid' },
        is_enterprise_install: true,
        user: { id: 'U0EVE', team_id: 'T0EXT' },
        trigger_id: '1.2.ext',
        response_url: responseUrl,
        channel: { id: 'C0GRID' },
        actions: [{ type: 'button', action_id: 'ext_click', block_id: 'b', action_ts: '1.000400' }],
      },
      guard,
    );
    expect(seen).toEqual([]);
    const told = await slack.waitFor(() =>
      slack.calls.find((c) => c.method === 'response_url' && String(c.args.text ?? '').includes('Nothing was done')),
    );
    expect(told.args.text).toBe(OTHER_ORG_TEXT);
  });

  it("refuses while Slack's list can't be read (no call per request meanwhile); a slow list still serves the next requests", async () => {
    const guard = { ...guarded(), waitMs: 2_000 };
    slack.failNext('auth.teams.list', { error: 'internal_error' });
    const before = teamsLists();
    const failed = await throughBolt(orgEvent('T0C7', '000304'), guard);
    const again = await throughBolt(orgEvent('T0C7', '000305'), guard);
    expect([...failed.seen, ...again.seen]).toEqual([]);
    expect(failed.warns.map((l) => [l.msg, l.slackError])).toEqual([
      [expect.stringContaining('could not read'), 'internal_error'],
    ]);
    // The failure is remembered (30 s): the second request made no call.
    expect(teamsLists() - before).toBe(1);
    expect(again.warns.map((l) => l.slackError)).toEqual(['internal_error']);

    const slow = { ...guarded(), waitMs: 200 };
    const held = slack.hold('auth.teams.list');
    const pending = throughBolt(orgEvent('T0C7', '000306'), slow);
    await held.reached;
    const late = await pending;
    expect(late.seen).toEqual([]);
    expect(late.warns.map((l) => l.msg)).toEqual([expect.stringContaining('did not come in time')]);
    const calls = teamsLists();
    held.release();
    await vi.waitFor(() => expect(teamsLists()).toBe(calls + 1));
    const after = await throughBolt(orgEvent('T0C7', '000307'), slow);
    expect(after.seen.map((s) => s.teamId)).toEqual(['T0C7']);
    expect(teamsLists()).toBe(calls + 1);
  });

  it("refuses a workspace install's form naming another organization with docs of its own; the install's own org goes on", async () => {
    const guard = { hasOwnEntry: (id: string) => id === 'E0BETA' || id === 'E0ORG', workspaces: new OrgWorkspaces() };
    const tests = () => slack.calls.filter((c) => c.method === 'auth.test').length;
    const before = tests();
    // T0A is not on Grid; the submitter is of Grid org E0BETA, which has docs projects of its own.
    const foreign = await throughBolt(
      viewSubmission({ team: { id: 'T0BETA1', enterprise: 'E0BETA' }, user: 'W0BETA', installedTeam: 'T0A' }),
      guard,
    );
    expect(foreign.seen).toEqual([]);
    // installationContext's line (the body's workspace is not the installation's), then the guard's.
    expect(foreign.warns.map((l) => [l.msg, l.teamId, l.enterpriseId]).at(-1)).toEqual([
      expect.stringContaining("not the workspace install's"),
      'T0A',
      'E0BETA',
    ]);
    // T0B's own org, E0ORG: its auth.test says so, and the form goes on.
    const own = await throughBolt(
      viewSubmission({ team: { id: 'T0B', enterprise: 'E0ORG' }, user: 'W0BOB', installedTeam: 'T0B' }),
      guard,
    );
    expect(own.seen.map((x) => x.teamId)).toEqual(['T0B']);
    expect(tests() - before).toBe(2);
  });

  it('costs no auth.teams.list when no workspace named has docs projects of its own', async () => {
    const before = teamsLists();
    const { seen, warns } = await throughBolt(orgEvent('T0C8', '000303'), guarded());
    expect(seen.map((s) => s.teamId)).toEqual(['T0C8']);
    expect(warns).toEqual([]);
    expect(teamsLists()).toBe(before);
  });
});

describe('credentials kept per request', () => {
  it('reads an installation once per request context; again after max age, a refused token, or near its expiry', async () => {
    const installer = installerAt(slack.url);
    const reads: string[] = [];
    let expiresAt: number | undefined;
    const source = {
      authorize: async (q: Parameters<typeof installer.authorize>[0]) => {
        reads.push(q.teamId ?? '');
        const res = await installer.authorize(q);
        return expiresAt === undefined ? res : { ...res, botTokenExpiresAt: expiresAt };
      },
    };
    let now = 1_000_000;
    const counted = new InstallationTokens(source, { store, logger: quiet }, undefined, () => now);
    const web = tokensWebClient(counted, slack.url, quiet);
    // One request, five calls (three at once): one read. Another request reads its own.
    await withInstallation({ teamId: 'T0A' }, 'req-kept', async () => {
      await web.auth.test();
      await Promise.all([web.auth.test(), web.auth.test(), web.auth.test()]);
      await web.auth.test();
    });
    expect(reads).toEqual(['T0A']);
    await withInstallation({ teamId: 'T0B' }, 'req-other', () => web.auth.test());
    expect(reads).toEqual(['T0A', 'T0B']);
    reads.length = 0;

    // Long work: read again once CREDENTIALS_MAX_AGE_MS passed.
    await withInstallation({ teamId: 'T0A' }, 'req-long', async () => {
      await web.auth.test();
      now += CREDENTIALS_MAX_AGE_MS - 1;
      await web.auth.test();
      now += 1;
      await web.auth.test();
    });
    expect(reads).toEqual(['T0A', 'T0A']);
    reads.length = 0;

    // Token rotation: a token expiring within the margin is not kept.
    expiresAt = Math.floor(now / 1000) + 60;
    await withInstallation({ teamId: 'T0A' }, 'req-expiring', async () => {
      await web.auth.test();
      await web.auth.test();
    });
    expect(reads).toEqual(['T0A', 'T0A']);
    expiresAt = undefined;
    reads.length = 0;

    // A token Slack refuses is dropped: the next call reads the installation again (now gone).
    await install({ teamId: 'T0KEPT' });
    await withInstallation({ teamId: 'T0KEPT' }, 'req-refused', async () => {
      await web.auth.test();
      slack.installs.uninstall('T0KEPT');
      await expect(web.auth.test()).rejects.toMatchObject({ data: { error: 'token_revoked' } });
      await expect(web.auth.test()).rejects.toMatchObject({ code: 'installation_not_found' });
    });
    expect(reads).toEqual(['T0KEPT', 'T0KEPT']);
  });
});

describe('a token Slack revoked without telling the bot', () => {
  it('deletes that installation once, with one warn line; its later work finds none, others go on', async () => {
    const { logger, lines } = arrayLogger('warn');
    const installer = installerAt(slack.url);
    const revoking = new InstallationTokens(installer, { store, logger });
    const web = tokensWebClient(revoking, slack.url, quiet);
    await install({ teamId: 'T0REV' });
    slack.installs.uninstall('T0REV'); // the app_uninstalled event never reaches the bot
    const asRev = () => withInstallation({ teamId: 'T0REV' }, 'req-rev', () => web.auth.test());
    await expect(asRev()).rejects.toMatchObject({ data: { error: 'token_revoked' } });
    await expect(asRev()).rejects.toMatchObject({ code: 'installation_not_found' });
    expect(await redis.exists(`${prefix}:installations:team:T0REV`)).toBe(0);
    expect(lines.map((l) => l.msg)).toEqual([
      "Slack refused this installation's token for good; installation deleted (its work stops; a reinstall restores it)",
    ]);
    expect((await withInstallation({ teamId: 'T0A' }, 'req-a', () => web.auth.test())).team_id).toBe('T0A');
  });
});

describe('token rotation', () => {
  it("refreshes a bot token that expires within 2 hours before a worker's call, and stores the new one", async () => {
    const rotating = await startFakeSlack({
      botToken: 'xoxb-unused',
      oauth: { ...OAUTH, tokenRotation: { expiresInS: 3_600 } },
    });
    const rotPrefix = randomPrefix();
    const rotStore = new RedisInstallationStore(
      redis,
      rotPrefix,
      new KeyRing(Buffer.alloc(32, 6).toString('base64')),
      ALLOW,
    );
    try {
      const code = rotating.installs.authorize({ teamId: 'T0ROT' });
      const body = new URLSearchParams({ client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret, code });
      const res = (await (await fetch(`${rotating.url}oauth.v2.access`, { method: 'POST', body })).json()) as {
        access_token: string;
        refresh_token: string;
        expires_in: number;
      };
      expect(res.expires_in).toBe(3_600);
      await rotStore.storeInstallation({
        team: { id: 'T0ROT' },
        enterprise: undefined,
        user: { id: 'U0ALICE', token: undefined, scopes: undefined },
        bot: {
          token: res.access_token,
          refreshToken: res.refresh_token,
          expiresAt: Math.floor(Date.now() / 1000) + res.expires_in,
          scopes: ['chat:write'],
          id: 'B0DOCSBOT',
          userId: 'U0DOCSBOT',
        },
        isEnterpriseInstall: false,
        authVersion: 'v2',
      });
      const installer = installerAt(rotating.url, rotStore);
      const rotTokens = new InstallationTokens(installer);
      const web = createWebClient({
        token: '',
        slackApiUrl: rotating.url,
        logger: quiet,
        credentials: () => rotTokens.current(),
      });
      const auth = await withInstallation({ teamId: 'T0ROT' }, 'req-rot', () => web.auth.test());
      expect(auth.team_id).toBe('T0ROT');
      const refreshes = rotating.calls.filter(
        (c) => c.method === 'oauth.v2.access' && c.args.grant_type === 'refresh_token',
      );
      expect(refreshes.map((c) => (c.response as { ok: boolean }).ok)).toEqual([true]);
      const stored = await rotStore.fetchInstallation({
        teamId: 'T0ROT',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(stored.bot?.token).not.toBe(res.access_token);
      expect(rotating.installs.identity(stored.bot?.token ?? '')?.teamId).toBe('T0ROT');
      // The spent refresh token is refused, as Slack does.
      const again = new URLSearchParams({
        client_id: OAUTH.clientId,
        client_secret: OAUTH.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: res.refresh_token,
      });
      expect(await (await fetch(`${rotating.url}oauth.v2.access`, { method: 'POST', body: again })).json()).toEqual({
        ok: false,
        error: 'invalid_refresh_token',
      });
    } finally {
      await rotating.close();
      await dropPrefix(redis, rotPrefix);
    }
  });
});
