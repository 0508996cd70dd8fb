import type { Installation } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { RedisInstallationStore } from '../../../../src/platform/installation-store.js';
import { KeyRing } from '../../../../src/platform/sealed-box.js';
import { InstallationTokens, withInstallation } from '../../../../src/platform/slack/installation-tokens.js';
import { createInstaller } from '../../../../src/platform/slack/oauth.js';
import { createWebClient, singleTokenRefusals } from '../../../../src/platform/slack/web-client.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';
import { tokensWebClient } from '../../../helpers/oauth-client.js';

/*
 * A token Slack stops taking while no uninstall event reaches the bot, on the fake Slack (which
 * answers an uninstalled app's token `{"ok":false,"error":"token_revoked"}` and a token it never
 * issued `invalid_auth`, as Slack does) and the sealed installation store on real Redis: the
 * installation is noticed once (one warn line), its work stops without further calls with that
 * token, and the other installations go on. In single-token mode: one error line, nothing deleted.
 */
const redis = testRedis();
const prefix = randomPrefix();
/** Every workspace this file installs (SLACK_INSTALL_ALLOWLIST). */
const ALLOW = new Set(['T0A', 'T0BAD', 'T0DEL', 'T0GONE', 'T0KEPT', 'T0RDN', 'T0REV', 'T0SANDBOX']);
const store = new RedisInstallationStore(redis, prefix, new KeyRing(Buffer.alloc(32, 7).toString('base64')), ALLOW);
const { logger: quiet } = arrayLogger('error');
const OAUTH = { clientId: '1.2', clientSecret: 'revoked-test-secret' };
let slack: FakeSlack;

/** Stores an installation of `teamId` with `token` as Bolt would (the token from the fake's oauth.v2.access unless given). */
async function install(teamId: string, token?: string): Promise<string> {
  let botToken = token;
  if (!botToken) {
    const body = new URLSearchParams({
      client_id: OAUTH.clientId,
      client_secret: OAUTH.clientSecret,
      code: slack.installs.authorize({ teamId }),
    });
    const res = (await (await fetch(`${slack.url}oauth.v2.access`, { method: 'POST', body })).json()) as {
      access_token: string;
    };
    botToken = res.access_token;
  }
  await store.storeInstallation({
    team: { id: teamId },
    enterprise: undefined,
    user: { id: 'U0ALICE', token: undefined, scopes: undefined },
    bot: { token: botToken, scopes: ['chat:write'], id: 'B0DOCSBOT', userId: 'U0DOCSBOT' },
    isEnterpriseInstall: false,
    authVersion: 'v2',
  } as Installation<'v2', false>);
  return botToken;
}

/**
 * The platform's client in OAuth mode over `tokens`, as runtime.ts builds it, and its warn lines;
 * `revokedStore` replaces the store the refused-token deletion uses.
 */
function oauthClient(revokedStore: typeof store = store) {
  const { logger, lines } = arrayLogger('warn');
  const oauth = { ...OAUTH, stateSecret: 'revoked-test-state-secret', installationKey: '', installAllowlist: ALLOW };
  const installer = createInstaller({ oauth, installationStore: store, slackApiUrl: slack.url, logger: quiet });
  const tokens = new InstallationTokens(installer, { store: revokedStore, logger });
  const web = tokensWebClient(tokens, slack.url, quiet);
  /** auth.test as work of `teamId` in a request of its own (`id`). */
  const as = (teamId: string, id: string) => withInstallation({ teamId }, id, () => web.auth.test());
  return { web, lines, as };
}

const authTests = () => slack.calls.filter((c) => c.method === 'auth.test').length;

beforeAll(async () => {
  slack = await startFakeSlack({ botToken: 'xoxb-single', oauth: OAUTH });
  await install('T0A');
});
afterAll(async () => {
  await slack.close();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

describe("OAuth mode: Slack stops taking one installation's token", () => {
  it('token_revoked: noticed once though three calls are refused at once; deleted; no further call; others go on', async () => {
    const { web, lines, as } = oauthClient();
    await install('T0REV');
    // A request that read its credentials before the revocation keeps them.
    await withInstallation({ teamId: 'T0REV' }, 'req-early', async () => {
      await web.auth.test();
      slack.installs.uninstall('T0REV'); // the app_uninstalled event never reaches the bot
      const refused = await Promise.allSettled([as('T0REV', 'r1'), as('T0REV', 'r2'), as('T0REV', 'r3')]);
      // Each is refused: by Slack, or (once a first refusal stopped the token) before calling Slack.
      const why = refused.map((r) => {
        const err = (r.status === 'rejected' ? r.reason : {}) as { code?: string; data?: { error?: string } };
        return err.data?.error ?? err.code;
      });
      expect(why[0]).toBe('token_revoked');
      for (const w of why) expect(['token_revoked', 'installation_not_found']).toContain(w);
      const calls = authTests();
      // The early request's kept token is not used again, nor is it by later work.
      await expect(web.auth.test()).rejects.toMatchObject({ code: 'installation_not_found' });
      await expect(as('T0REV', 'r4')).rejects.toMatchObject({ code: 'installation_not_found' });
      expect(authTests()).toBe(calls);
    });
    expect(await redis.exists(`${prefix}:installations:team:T0REV`)).toBe(0);
    expect(lines.map((l) => [l.msg, (l as { teamId?: string }).teamId])).toEqual([
      [
        "Slack refused this installation's token for good; installation deleted (its work stops; a reinstall restores it)",
        'T0REV',
      ],
    ]);
    expect((await as('T0A', 'req-a')).team_id).toBe('T0A');
    // A reinstall's new token works again.
    await install('T0REV');
    expect((await as('T0REV', 'r5')).team_id).toBe('T0REV');
  });

  it('account_inactive (its workspace deleted, no event): noticed once; deleted; no further call; others go on', async () => {
    const { lines, as } = oauthClient();
    await install('T0DEL');
    expect((await as('T0DEL', 'd0')).team_id).toBe('T0DEL');
    slack.installs.deleteWorkspace('T0DEL'); // Slack sends the bot no event for it
    const refused = await Promise.allSettled([as('T0DEL', 'd1'), as('T0DEL', 'd2'), as('T0DEL', 'd3')]);
    const why = refused.map((r) => {
      const err = (r.status === 'rejected' ? r.reason : {}) as { code?: string; data?: { error?: string } };
      return err.data?.error ?? err.code;
    });
    expect(why[0]).toBe('account_inactive');
    for (const w of why) expect(['account_inactive', 'installation_not_found']).toContain(w);
    const calls = authTests();
    await expect(as('T0DEL', 'd4')).rejects.toMatchObject({ code: 'installation_not_found' });
    expect(authTests()).toBe(calls);
    expect(await redis.exists(`${prefix}:installations:team:T0DEL`)).toBe(0);
    expect(
      lines.map((l) => [l.msg, (l as { teamId?: string }).teamId, (l as { slackError?: string }).slackError]),
    ).toEqual([
      [
        "Slack refused this installation's token for good; installation deleted (its work stops; a reinstall restores it)",
        'T0DEL',
        'account_inactive',
      ],
    ]);
    expect(JSON.stringify(lines)).not.toContain('xoxb-');
    expect((await as('T0A', 'req-a3')).team_id).toBe('T0A');
  });

  it('invalid_auth: noticed once, its work stops without calling Slack, the installation kept; others go on', async () => {
    const { lines, as } = oauthClient();
    await install('T0BAD', 'xoxb-never-issued-by-slack');
    const refused = await Promise.allSettled([as('T0BAD', 'b1'), as('T0BAD', 'b2')]);
    expect(
      refused.map((r) => r.status === 'rejected' && (r.reason as { data?: { error?: string } }).data?.error),
    ).toEqual(['invalid_auth', 'invalid_auth']);
    const calls = authTests();
    await expect(as('T0BAD', 'b3')).rejects.toMatchObject({ code: 'installation_not_found' });
    expect(authTests()).toBe(calls);
    expect(await redis.exists(`${prefix}:installations:team:T0BAD`)).toBe(1);
    expect(
      lines.map((l) => [l.msg, (l as { teamId?: string }).teamId, (l as { slackError?: string }).slackError]),
    ).toEqual([
      [
        "Slack refused this installation's token (invalid_auth); its work stops until a reinstall or restart",
        'T0BAD',
        'invalid_auth',
      ],
    ]);
    expect(JSON.stringify(lines)).not.toContain('xoxb-');
    expect((await as('T0A', 'req-a2')).team_id).toBe('T0A');
  });

  it('token_revoked while Redis cannot read the installation to delete it: its work still stops, and a warning names the failure (no token)', async () => {
    const broken = Object.create(store) as typeof store;
    broken.removeInstallationHolding = async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    const { lines, as } = oauthClient(broken);
    await install('T0RDN');
    slack.installs.uninstall('T0RDN');
    await expect(as('T0RDN', 'x1')).rejects.toMatchObject({ data: { error: 'token_revoked' } });
    const calls = authTests();
    await expect(as('T0RDN', 'x2')).rejects.toMatchObject({ code: 'installation_not_found' });
    expect(authTests()).toBe(calls);
    expect(lines.map((l) => [l.msg, (l as { slackError?: string }).slackError])).toEqual([
      ['could not delete an installation whose token Slack refused', 'token_revoked'],
    ]);
    expect(JSON.stringify(lines)).not.toContain('xoxb-');
    await store.deleteInstallation({ teamId: 'T0RDN', enterpriseId: undefined, isEnterpriseInstall: false });
  });

  it('token_revoked after the uninstall event already deleted the installation: nothing more to delete, no warning', async () => {
    const { web, lines } = oauthClient();
    await install('T0GONE');
    await withInstallation({ teamId: 'T0GONE' }, 'req-kept', async () => {
      await web.auth.test(); // this request keeps its credentials
      slack.installs.uninstall('T0GONE');
      await store.deleteInstallation({ teamId: 'T0GONE', enterpriseId: undefined, isEnterpriseInstall: false });
      await expect(web.auth.test()).rejects.toMatchObject({ data: { error: 'token_revoked' } });
    });
    expect(lines).toEqual([]);
  });
});

describe("the fake Slack: a deleted workspace's tokens", () => {
  /** `method` called with `token` on the fake, as the Web API is called (form body, bearer token). */
  const call = async (method: string, token: string, args: Record<string, string> = {}) =>
    (await (
      await fetch(`${slack.url}${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: new URLSearchParams(args),
      })
    ).json()) as { ok: boolean; error?: string };

  it('every method answers account_inactive (Slack: "token is for a deleted user or workspace"); other workspaces unaffected', async () => {
    const fake = await startFakeSlack({ botToken: 'xoxb-sandbox-single', oauth: OAUTH });
    const own = slack;
    slack = fake;
    try {
      const gone = await install('T0GONE');
      const kept = await install('T0KEPT');
      fake.installs.deleteWorkspace('T0GONE');
      for (const [method, args] of [
        ['auth.test', {}],
        ['chat.postMessage', { channel: 'C0GENERAL', text: 'hi' }],
        ['users.info', { user: 'U0ALICE' }],
      ] as const)
        expect(await call(method, gone, args)).toMatchObject({ ok: false, error: 'account_inactive' });
      expect(fake.installs.refusal(gone)).toBe('account_inactive');
      expect(await call('auth.test', kept)).toMatchObject({ ok: true, team_id: 'T0KEPT' });
      expect(await call('auth.test', 'xoxb-sandbox-single')).toMatchObject({ ok: true });
      // The single-token bot token of the fake's own workspace, that workspace deleted.
      fake.installs.deleteWorkspace('T0SANDBOX');
      expect(await call('auth.test', 'xoxb-sandbox-single')).toMatchObject({ ok: false, error: 'account_inactive' });
      expect(await call('auth.test', kept)).toMatchObject({ ok: true });
    } finally {
      slack = own;
      await fake.close();
    }
  });
});

describe('single-token mode: Slack stops taking SLACK_BOT_TOKEN', () => {
  it('one error line for the operator, however many calls fail; a working token writes none', async () => {
    const { logger, lines } = arrayLogger('warn');
    const client = (token: string) =>
      createWebClient({ token, slackApiUrl: slack.url, logger: quiet, onRefusedToken: singleTokenRefusals(logger) });
    await client('xoxb-single').auth.test();
    expect(lines).toEqual([]);
    const revoked = client('xoxb-revoked-single');
    for (let i = 0; i < 3; i++)
      await expect(revoked.auth.test()).rejects.toMatchObject({ data: { error: 'invalid_auth' } });
    expect(lines.map((l) => [l.level, (l as { slackError?: string }).slackError])).toEqual([[50, 'invalid_auth']]);
    expect(lines[0]!.msg).toMatch(/SLACK_BOT_TOKEN/);
    expect(JSON.stringify(lines)).not.toContain('xoxb-');
  });
});
