import type { App } from '@slack/bolt';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../sandbox/free-port.js';
import { InFlight } from '../../src/platform/in-flight.js';
import { RedisInstallationStore } from '../../src/platform/installation-store.js';
import { KeyRing } from '../../src/platform/sealed-box.js';
import { createSlackApp } from '../../src/platform/slack/app.js';
import { BOT_SCOPES, createInstaller } from '../../src/platform/slack/oauth.js';
import { arrayLogger } from '../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis } from '../helpers/redis.js';

/**
 * OAuth mode's install routes on the bot's real receiver and Bolt app, with the installation store
 * on real Redis: what a browser sees at /slack/install and /slack/oauth_redirect, and what is stored.
 */

const redis = testRedis();
const prefix = randomPrefix();
const oauth = {
  clientId: '1111.2222',
  clientSecret: 'oauth-test-client-secret',
  stateSecret: 'oauth-test-state-secret-0123456789',
  installationKey: Buffer.alloc(32, 3).toString('base64'),
};
let app: App;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  const { logger } = arrayLogger('info', []);
  const installationStore = new RedisInstallationStore(redis, prefix, new KeyRing(oauth.installationKey));
  // Slack is never reached: every callback here is refused before oauth.v2.access.
  const slackApiUrl = 'http://127.0.0.1:9/api/';
  const installer = createInstaller({ oauth, installationStore, slackApiUrl, logger });
  ({ app } = createSlackApp({
    config: { SLACK_SIGNING_SECRET: 'oauth-test-signing', SLACK_API_URL: slackApiUrl, PORT: port },
    logger,
    inFlight: new InFlight(),
    routes: [],
    commands: [],
    installer,
  }));
  await app.start();
  base = `http://127.0.0.1:${port}`;
});
afterEach(async () => {
  expect(await redis.keys(`${prefix}:*`)).toEqual([]); // nothing is ever stored here
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
  const href = /href="(https:\/\/slack\.com\/oauth\/v2\/authorize[^"]*)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '';
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
    const href = new URL(/href="(https:\/\/slack\.com\/oauth\/v2\/authorize[^"]*)"/.exec(html)![1]!.replaceAll('&amp;', '&'));
    expect(href.origin + href.pathname).toBe('https://slack.com/oauth/v2/authorize');
    expect(href.searchParams.get('client_id')).toBe('1111.2222');
    expect(href.searchParams.get('scope')?.split(',')).toEqual([...BOT_SCOPES]);
    expect(state).not.toBe('');
    expect(cookie).toBe(`slack-app-oauth-state=${state}`);
  });

  it('BOT_SCOPES are the bot scopes of manifest.yml', () => {
    const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8')) as {
      oauth_config: { scopes: { bot: string[] } };
    };
    expect([...BOT_SCOPES].sort()).toEqual([...new Set(manifest.oauth_config.scopes.bot)].sort());
  });

  it('a callback without state gets the plain error page (400) and stores nothing', async () => {
    const { status, html } = await callback('code=abc');
    expect(status).toBe(400);
    expect(html).toContain('Oops, Something Went Wrong!');
    expect(html).toContain('slack_oauth_missing_state');
  });

  it('a forged state (not signed with SLACK_STATE_SECRET) is refused, even with a matching cookie', async () => {
    const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJpbnN0YWxsT3B0aW9ucyI6e319.forged';
    const { status, html } = await callback(`code=abc&state=${forged}`, `slack-app-oauth-state=${forged}`);
    expect(status).toBe(400);
    expect(html).toContain('slack_oauth_invalid_state');
  });

  it('a real state replayed from another browser (or after its cookie was spent) is refused', async () => {
    const { state } = await install();
    const { status, html } = await callback(`code=abc&state=${encodeURIComponent(state)}`);
    expect(status).toBe(400);
    expect(html).toContain('slack_oauth_invalid_state');
  });
});
