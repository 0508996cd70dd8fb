import type { App, InstallationStore } from '@slack/bolt';
import { freePort } from '../../sandbox/free-port.js';
import type { OAuthSettings } from '../../src/platform/config-oauth.js';
import { InFlight } from '../../src/platform/in-flight.js';
import type { Logger } from '../../src/platform/logger.js';
import { createSlackApp } from '../../src/platform/slack/app.js';
import { createInstaller } from '../../src/platform/slack/oauth.js';
import type { UninstallHook } from '../../src/platform/uninstalls.js';

/**
 * OAuth mode's Slack app as the bot builds it (the installer over `installationStore`, its install
 * routes, the uninstall events with `onUninstalled`), on a free port of 127.0.0.1, HTTP mode with
 * `signingSecret`, Slack's Web API at `slackApiUrl`. Stop it with `app.stop()`.
 * @returns the started app and its base URL (`http://127.0.0.1:<port>`).
 */
export async function startOAuthApp(o: {
  oauth: OAuthSettings;
  installationStore: InstallationStore;
  slackApiUrl: string;
  signingSecret: string;
  logger: Logger;
  onUninstalled?: UninstallHook[];
}): Promise<{ app: App; base: string }> {
  const port = await freePort();
  const { oauth, installationStore, slackApiUrl, logger } = o;
  const installer = createInstaller({ oauth, installationStore, slackApiUrl, logger });
  const { app } = createSlackApp({
    config: { SLACK_SIGNING_SECRET: o.signingSecret, SLACK_API_URL: slackApiUrl, PORT: port },
    logger,
    inFlight: new InFlight(),
    routes: [],
    commands: [],
    installer,
    ...(o.onUninstalled ? { onUninstalled: o.onUninstalled } : {}),
  });
  await app.start();
  return { app, base: `http://127.0.0.1:${port}` };
}

/**
 * OAuth mode's settings for a test: a fixed client id, client secret and state secret, an
 * installation key of 32 bytes (base64), and `allow` as SLACK_INSTALL_ALLOWLIST.
 */
export function testOAuth(allow: string[]): OAuthSettings {
  return {
    clientId: '1111.2222',
    clientSecret: 'oauth-test-client-secret',
    stateSecret: 'oauth-test-state-secret-0123456789',
    installationKey: Buffer.alloc(32, 3).toString('base64'),
    installAllowlist: new Set(allow),
  };
}
