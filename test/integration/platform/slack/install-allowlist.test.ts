import type { ServerResponse } from 'node:http';
import type { App, Installation } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postRaw, signatureHeaders } from '../../../../sandbox/driver/http.js';
import { startFakeSlack, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { readConfig } from '../../../../src/platform/config.js';
import { RedisInstallationStore } from '../../../../src/platform/installation-store.js';
import { buildPlatform } from '../../../../src/platform/runtime.js';
import { KeyRing } from '../../../../src/platform/sealed-box.js';
import { refuseNotAllowed } from '../../../../src/platform/slack/install-refusal.js';
import { fakeSlackClient } from '../../../helpers/fake-slack-client.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { startOAuthApp } from '../../../helpers/oauth-app.js';
import { VALID_ENV } from '../../../helpers/config-env.js';
import { dropPrefix, randomPrefix, TEST_REDIS_URL, testRedis } from '../../../helpers/redis.js';

/*
 * SLACK_INSTALL_ALLOWLIST on the bot's real receiver and Bolt app, the installation store on real
 * Redis and the fake Slack's OAuth (oauth.v2.access, apps.uninstall): the workspace T0ALLOWED and
 * the Grid org E0ORG may install; any other installation is uninstalled again, answered 403 and
 * not stored, and a stored one the list no longer admits is refused at use.
 */
const redis = testRedis();
const prefix = randomPrefix();
const OAUTH = { clientId: '1111.2222', clientSecret: 'allowlist-test-client-secret' };
const SIGNING = 'allowlist-test-signing';
const KEY = Buffer.alloc(32, 4).toString('base64');
const REFUSED_MSG = 'refused an installation: its workspace or org is not in SLACK_INSTALL_ALLOWLIST';
let app: App;
let base: string;
let slack: FakeSlack;
const logs: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
/** The fake's calls before this test. */
let callsFrom = 0;

beforeAll(async () => {
  slack = await startFakeSlack({ botToken: 'xoxb-unused', oauth: OAUTH });
  const { logger } = arrayLogger('info', logs);
  const oauth = {
    ...OAUTH,
    stateSecret: 'allowlist-test-state-secret-0123456789',
    installationKey: KEY,
    installAllowlist: new Set(['T0ALLOWED', 'E0ORG']),
  };
  const installationStore = new RedisInstallationStore(redis, prefix, new KeyRing(KEY), oauth.installAllowlist);
  ({ app, base } = await startOAuthApp({
    oauth,
    installationStore,
    slackApiUrl: slack.url,
    signingSecret: SIGNING,
    logger,
  }));
});
afterEach(async () => {
  await dropPrefix(redis, prefix);
  logs.length = 0;
  callsFrom = slack.calls.length;
});
afterAll(async () => {
  await app.stop();
  await slack.close();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

type Consent = Parameters<FakeSlack['installs']['authorize']>[0];

/** A browser installs the app: /slack/install (state cookie), Slack's consent, /slack/oauth_redirect. */
async function install(consent: Consent): Promise<{ status: number; html: string; type: string | null }> {
  const page = await fetch(`${base}/slack/install`);
  const html = await page.text();
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const href = /href="(https:\/\/slack\.com\/oauth\/v2\/authorize[^"]*)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
  const state = new URL(href ?? 'https://x.test').searchParams.get('state') ?? '';
  const code = slack.installs.authorize(consent);
  const query = `code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`;
  const res = await fetch(`${base}/slack/oauth_redirect?${query}`, { headers: { cookie } });
  return { status: res.status, html: await res.text(), type: res.headers.get('content-type') };
}

/** The bot token oauth.v2.access last issued (from the fake's recorded answer). */
const lastIssuedToken = () =>
  (slack.calls.filter((c) => c.method === 'oauth.v2.access').at(-1)?.response as { access_token: string }).access_token;

const stored = async () => (await redis.keys(`${prefix}:*`)).sort();
const uninstalls = () => slack.calls.slice(callsFrom).filter((c) => c.method === 'apps.uninstall');
const warnings = () => logs.filter((l) => l.level >= 40);

/** A signed app_mention from workspace `teamId` (its installation: `authorizations[0]`). */
async function mention(teamId: string) {
  const body = JSON.stringify({
    type: 'event_callback',
    team_id: teamId,
    api_app_id: 'A0APP',
    event_id: `Ev${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_mention',
      user: 'U0PERSON1',
      text: 'hi',
      channel: 'C0CHANNEL1',
      ts: '1700000000.000300',
      event_ts: '1700000000.000300',
    },
    authorizations: [
      { enterprise_id: null, team_id: teamId, user_id: 'U0BOT', is_bot: true, is_enterprise_install: false },
    ],
  });
  const headers = { 'Content-Type': 'application/json', ...signatureHeaders(SIGNING, body, Date.now() / 1000) };
  return postRaw(`${base}/slack/events`, body, headers);
}

describe('SLACK_INSTALL_ALLOWLIST at the install', () => {
  it('a listed workspace installs as before: stored, nothing uninstalled, no warning', async () => {
    const { status } = await install({ teamId: 'T0ALLOWED' });
    expect(status).toBe(200);
    expect(await stored()).toEqual([`${prefix}:installations:team:T0ALLOWED`]);
    expect(uninstalls()).toEqual([]);
    expect(warnings()).toEqual([]);
  });

  it('another workspace: uninstalled with its own token, 403 naming its id, nothing stored, one warn line', async () => {
    const { status, html, type } = await install({ teamId: 'T0STRANGER', teamName: '<b>Stranger</b>' });
    const token = lastIssuedToken();
    expect(status).toBe(403);
    expect(type).toBe('text/html; charset=utf-8');
    expect(html).toContain('This deployment of Docs Agent serves only the workspaces its operators allow');
    expect(html).toContain("your workspace's id <code>T0STRANGER</code>");
    expect(html).toContain('The app has been removed again');
    expect(html).not.toContain('Stranger</b>');
    expect(await stored()).toEqual([]);
    expect(uninstalls()).toMatchObject([
      { tokenTeam: 'T0STRANGER', args: { client_id: OAUTH.clientId }, response: { ok: true } },
    ]);
    expect(
      await fakeSlackClient(slack, token)
        .auth.test()
        .catch((e: { data: { error: string } }) => e.data.error),
    ).toBe('token_revoked');
    expect(warnings()).toMatchObject([
      { level: 40, msg: REFUSED_MSG, teamId: 'T0STRANGER', isEnterpriseInstall: false, uninstalled: true },
    ]);
    expect(JSON.stringify(logs)).not.toContain('xoxb-');
    // Its later events are acked and dropped with one warn line.
    logs.length = 0;
    expect((await mention('T0STRANGER')).status).toBe(200);
    expect(warnings()).toMatchObject([
      { msg: 'dropped a request for an installation the bot does not have', installation: 'team:T0STRANGER' },
    ]);
  });

  it('an org-wide install of a listed org, and a workspace install in it, are stored', async () => {
    expect((await install({ teamId: 'T0ORGA', enterpriseId: 'E0ORG', orgWide: true })).status).toBe(200);
    expect((await install({ teamId: 'T0ORGB', enterpriseId: 'E0ORG' })).status).toBe(200);
    expect(await stored()).toEqual([`${prefix}:installations:enterprise:E0ORG`, `${prefix}:installations:team:T0ORGB`]);
    expect(uninstalls()).toEqual([]);
  });

  it("a listed workspace's id does not admit an org-wide install of its unlisted org", async () => {
    const { status, html } = await install({ teamId: 'T0ALLOWED', enterpriseId: 'E0OTHER', orgWide: true });
    expect(status).toBe(403);
    expect(html).toContain("your organization's id <code>E0OTHER</code>");
    expect(await stored()).toEqual([]);
  });

  it('a grant with user scopes only (no bot token) is uninstalled with its user token', async () => {
    const { logger } = arrayLogger('info', logs);
    const oauth = { ...OAUTH, stateSecret: 's', installationKey: KEY, installAllowlist: new Set(['T0ALLOWED']) };
    const refuse = refuseNotAllowed({ oauth, slackApiUrl: slack.url, logger });
    const res = { writeHead: () => res, end: () => res } as unknown as ServerResponse;
    const grant = {
      team: { id: 'T0USERONLY' },
      user: { id: 'U0X', token: 'xoxp-user-only' },
      isEnterpriseInstall: false,
    };
    expect(await refuse(grant as never, {} as never, {} as never, res)).toBe(false);
    expect(uninstalls()).toMatchObject([{ args: { client_id: OAUTH.clientId } }]);
    expect(warnings().map((l) => l.msg)).not.toContain('could not uninstall a refused installation: it has no token');
  });

  it("when apps.uninstall fails: one warn line with Slack's code, and an org-wide page names the org admin", async () => {
    slack.failNext('apps.uninstall', { error: 'invalid_auth' });
    const { status, html } = await install({ teamId: 'T0OTHERA', enterpriseId: 'E0OTHER', orgWide: true });
    expect(status).toBe(403);
    expect(html).toContain('an org admin must remove it in the admin console');
    expect(html).toContain('<code>E0OTHER</code>');
    expect(await stored()).toEqual([]);
    expect(warnings()).toMatchObject([
      { msg: 'could not uninstall a refused installation (apps.uninstall)', slackError: 'invalid_auth' },
      { msg: REFUSED_MSG, enterpriseId: 'E0OTHER', isEnterpriseInstall: true, uninstalled: false },
    ]);
    expect(JSON.stringify(logs)).not.toMatch(/xoxb-|allowlist-test-client-secret/);
  });
});

/** Stores a workspace install of `teamId` as a bot whose list still had it would have. */
async function storedBefore(teamId: string): Promise<void> {
  const before = new RedisInstallationStore(redis, prefix, new KeyRing(KEY), new Set([teamId]));
  await before.storeInstallation({
    team: { id: teamId },
    enterprise: undefined,
    user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
    bot: { token: `xoxb-${teamId}`, scopes: ['chat:write'], id: 'B0BOT', userId: 'U0BOT' },
    isEnterpriseInstall: false,
    authVersion: 'v2',
  } as Installation<'v2', false>);
}

describe('SLACK_INSTALL_ALLOWLIST at use', () => {
  it('an installation stored before its id left the list is refused: the event acked and dropped, one warn line', async () => {
    await storedBefore('T0FORMER');
    expect((await mention('T0FORMER')).status).toBe(200);
    expect(warnings()).toMatchObject([
      {
        level: 40,
        msg: 'dropped a request for an installation the bot does not have',
        installationError: 'installation_not_allowed',
        installation: 'team:T0FORMER',
      },
    ]);
    // Kept: putting the id back on the list restores it.
    expect(await stored()).toEqual([`${prefix}:installations:team:T0FORMER`]);
  });

  it("background work of such an installation (a digest's run) finds it not installed, and a listed one installed", async () => {
    await storedBefore('T0FORMER');
    await storedBefore('T0ALLOWED');
    const { SLACK_BOT_TOKEN: _t, ...single } = VALID_ENV;
    const config = readConfig({
      ...single,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      SLACK_CLIENT_ID: OAUTH.clientId,
      SLACK_CLIENT_SECRET: OAUTH.clientSecret,
      SLACK_STATE_SECRET: 'allowlist-test-state-secret-0123456789',
      SLACK_INSTALLATION_KEY: KEY,
      SLACK_INSTALL_ALLOWLIST: 'T0ALLOWED',
    });
    const { logger } = arrayLogger('info', logs);
    const p = buildPlatform(config, logger);
    try {
      expect(await p.slack.installed({ teamId: 'T0FORMER' })).toBe(false);
      expect(await p.slack.installed({ teamId: 'T0ALLOWED' })).toBe(true);
    } finally {
      await p.connections.close();
    }
  });
});
