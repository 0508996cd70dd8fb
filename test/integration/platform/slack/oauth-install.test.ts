import type { App, Installation } from '@slack/bolt';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postRaw, signatureHeaders } from '../../../../sandbox/driver/http.js';
import { RedisInstallationStore } from '../../../../src/platform/installation-store.js';
import { KeyRing } from '../../../../src/platform/sealed-box.js';
import { BOT_SCOPES, droppedForInstallation } from '../../../../src/platform/slack/oauth.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { startOAuthApp, testOAuth } from '../../../helpers/oauth-app.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

/**
 * OAuth mode's install routes on the bot's real receiver and Bolt app, with the installation store
 * on real Redis: what a browser sees at /slack/install and /slack/oauth_redirect, and what is stored.
 */

const redis = testRedis();
const prefix = randomPrefix();
const oauth = testOAuth(['T0A', 'T0B']);
let app: App;
let base: string;
let store: RedisInstallationStore;
const logs: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
const SIGNING = 'oauth-test-signing';

beforeAll(async () => {
  const { logger } = arrayLogger('info', logs);
  const installationStore = new RedisInstallationStore(
    redis,
    prefix,
    new KeyRing(oauth.installationKey),
    oauth.installAllowlist,
  );
  store = installationStore;
  // Slack is never reached: every callback here is refused before oauth.v2.access.
  const slackApiUrl = 'http://127.0.0.1:9/api/';
  ({ app, base } = await startOAuthApp({ oauth, installationStore, slackApiUrl, signingSecret: SIGNING, logger }));
});
afterEach(async () => {
  await dropPrefix(redis, prefix);
  logs.length = 0;
});
afterAll(async () => {
  await app.stop();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

async function install(): Promise<{ state: string; cookie: string; html: string; status: number }> {
  const res = await fetch(`${base}/slack/install`);
  const html = await res.text();
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const href =
    /href="(https:\/\/slack\.com\/oauth\/v2\/authorize[^"]*)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '';
  return { state: new URL(href).searchParams.get('state') ?? '', cookie, html, status: res.status };
}

async function callback(query: string, cookie?: string): Promise<{ status: number; html: string }> {
  const res = await fetch(`${base}/slack/oauth_redirect?${query}`, cookie ? { headers: { cookie } } : {});
  return { status: res.status, html: await res.text() };
}

describe('OAuth mode: /slack/install and /slack/oauth_redirect', () => {
  it("serves the Add to Slack page asking for manifest.yml's bot scopes, with a state cookie", async () => {
    const { status, html, state, cookie } = await install();
    expect(status).toBe(200);
    const href = new URL(
      /href="(https:\/\/slack\.com\/oauth\/v2\/authorize[^"]*)"/.exec(html)![1]!.replaceAll('&amp;', '&'),
    );
    expect(href.origin + href.pathname).toBe('https://slack.com/oauth/v2/authorize');
    expect(href.searchParams.get('client_id')).toBe('1111.2222');
    expect(href.searchParams.get('scope')?.split(',')).toEqual([...BOT_SCOPES]);
    expect(state).not.toBe('');
    expect(cookie).toBe(`slack-app-oauth-state=${state}`);
  });

  it('BOT_SCOPES are the bot scopes of manifest.yml', () => {
    const manifest = parse(readFileSync(new URL('../../../../manifest.yml', import.meta.url), 'utf8')) as {
      oauth_config: { scopes: { bot: string[] } };
    };
    expect([...BOT_SCOPES].sort()).toEqual([...new Set(manifest.oauth_config.scopes.bot)].sort());
  });

  it('a callback without state gets the plain error page (400) and stores nothing', async () => {
    const { status, html } = await callback('code=abc');
    expect(status).toBe(400);
    expect(html).toContain('Oops, Something Went Wrong!');
    expect(html).toContain('slack_oauth_missing_state');
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
  });

  it('a forged state (not signed with SLACK_STATE_SECRET) is refused, even with a matching cookie', async () => {
    const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJpbnN0YWxsT3B0aW9ucyI6e319.forged';
    const { status, html } = await callback(`code=abc&state=${forged}`, `slack-app-oauth-state=${forged}`);
    expect(status).toBe(400);
    expect(html).toContain('slack_oauth_invalid_state');
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
  });

  it('a real state replayed from another browser (or after its cookie was spent) is refused', async () => {
    const { state } = await install();
    const { status, html } = await callback(`code=abc&state=${encodeURIComponent(state)}`);
    expect(status).toBe(400);
    expect(html).toContain('slack_oauth_invalid_state');
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
  });
});

/** A signed Events API request for workspace `teamId` (Slack's event_callback envelope). */
async function sendEvent(teamId: string, event: Record<string, unknown>) {
  const body = JSON.stringify({
    type: 'event_callback',
    team_id: teamId,
    api_app_id: 'A0APP',
    event_id: `Ev${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    event,
    authorizations: [
      { enterprise_id: null, team_id: teamId, user_id: 'U0BOT', is_bot: true, is_enterprise_install: false },
    ],
  });
  const headers = { 'Content-Type': 'application/json', ...signatureHeaders(SIGNING, body, Date.now() / 1000) };
  return postRaw(`${base}/slack/events`, body, headers);
}

const installationOf = (teamId: string): Installation<'v2', false> => ({
  team: { id: teamId },
  enterprise: undefined,
  user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
  bot: { token: `xoxb-${teamId}`, scopes: ['chat:write'], id: 'B0BOT', userId: 'U0BOT' },
  isEnterpriseInstall: false,
  authVersion: 'v2',
});
const stored = async () => (await redis.keys(`${prefix}:*`)).sort();

describe('OAuth mode: installations go away with the app', () => {
  it("app_uninstalled deletes that workspace's installation only, with one info line", async () => {
    await store.storeInstallation(installationOf('T0A'));
    await store.storeInstallation(installationOf('T0B'));
    const res = await sendEvent('T0A', { type: 'app_uninstalled', event_ts: '1.000001' });
    expect(res.status).toBe(200);
    await expect.poll(stored).toEqual([`${prefix}:installations:team:T0B`]);
    expect(logs.filter((l) => l.msg === 'installation deleted')).toMatchObject([
      { teamId: 'T0A', reason: 'app_uninstalled', isEnterpriseInstall: false },
    ]);
  });

  it('app_uninstalled for a workspace never stored (a refused install) says there was none to delete', async () => {
    await store.storeInstallation(installationOf('T0B'));
    const res = await sendEvent('T0REFUSED', { type: 'app_uninstalled', event_ts: '1.000004' });
    expect(res.status).toBe(200);
    await expect
      .poll(() => logs.filter((l) => l.msg === 'no installation to delete (already deleted, or never stored)'))
      .toMatchObject([{ teamId: 'T0REFUSED', reason: 'app_uninstalled' }]);
    expect(logs.filter((l) => l.msg === 'installation deleted')).toEqual([]);
    expect(await stored()).toEqual([`${prefix}:installations:team:T0B`]);
  });

  it('tokens_revoked deletes it when the bot token is revoked, not for a user token alone', async () => {
    await store.storeInstallation(installationOf('T0A'));
    await sendEvent('T0A', { type: 'tokens_revoked', tokens: { oauth: ['U0PERSON'] }, event_ts: '1.000002' });
    await sendEvent('T0A', {
      type: 'app_mention',
      user: 'U0PERSON1',
      text: 'hi',
      channel: 'C0CHANNEL1',
      ts: '1700000000.000100',
      event_ts: '1700000000.000100',
    });
    expect(await stored()).toEqual([`${prefix}:installations:team:T0A`]);
    const res = await sendEvent('T0A', { type: 'tokens_revoked', tokens: { bot: ['U0BOT'] }, event_ts: '1.000003' });
    expect(res.status).toBe(200);
    await expect.poll(stored).toEqual([]);
    expect(logs.filter((l) => l.msg === 'installation deleted')).toMatchObject([
      { teamId: 'T0A', reason: 'tokens_revoked' },
    ]);
  });

  it('an event for an installation the bot does not have is acked and dropped with one warn line', async () => {
    const res = await sendEvent('T0GONE', {
      type: 'app_mention',
      user: 'U0PERSON1',
      text: 'hi',
      channel: 'C0CHANNEL1',
      ts: '1700000000.000200',
      event_ts: '1700000000.000200',
    });
    expect(res.status).toBe(200);
    const warned = logs.filter((l) => l.level >= 40);
    expect(warned).toMatchObject([
      {
        level: 40,
        msg: 'dropped a request for an installation the bot does not have',
        installationError: 'installation_not_found',
        installation: 'team:T0GONE',
      },
    ]);
  });
});

describe('droppedForInstallation', () => {
  const wrap = (original: unknown) =>
    Object.assign(new Error('Authorization of incoming event did not succeed.'), {
      code: 'slack_bolt_authorization_error',
      original: Object.assign(new Error('wrapped by @slack/oauth'), { original }),
    });

  it('drops an unusable installation, but not a Redis failure (that request is redelivered)', () => {
    const { logger, lines } = arrayLogger('info');
    const unreadable = Object.assign(new Error('x'), { code: 'installation_unreadable', installation: 'team:T0A' });
    expect(droppedForInstallation(wrap(unreadable), logger)).toBe(true);
    const redisDown = Object.assign(new Error('Connection is closed.'), { code: 'ECONNREFUSED' });
    expect(droppedForInstallation(wrap(redisDown), logger)).toBe(false);
    expect(droppedForInstallation(redisDown, logger)).toBe(false);
    expect(lines).toMatchObject([
      { level: 40, installationError: 'installation_unreadable', installation: 'team:T0A' },
    ]);
  });
});
