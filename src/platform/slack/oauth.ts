/**
 * OAuth mode's installer: `@slack/oauth`'s `InstallProvider` (what Bolt's own HTTPReceiver builds
 * from `clientId`, `clientSecret`, `stateSecret`, `scopes`, `installationStore` and
 * `installerOptions`; docs.slack.dev bolt-js "Authenticating with OAuth"), served by the bot's own
 * receiver on `GET /slack/install` (the "Add to Slack" page; it sets the state cookie) and
 * `GET /slack/oauth_redirect` (Slack's redirect: state checked against the cookie and
 * SLACK_STATE_SECRET, then `oauth.v2.access` and `storeInstallation`). A missing, forged or replayed
 * state gets the library's plain error page (HTTP 400) and stores nothing. Bolt's `authorize` is the
 * installer's: it fetches the request's installation from the store.
 */
import { InstallProvider } from '@slack/oauth';
import type { InstallationStore } from '@slack/bolt';
import type { OAuthSettings } from '../config-oauth.js';
import type { Logger } from '../logger.js';
import { toBoltLogger } from './bolt-logger.js';
import type { HttpRoute } from './receiver.js';

/** Where Slack's users start an install (Bolt's default installPath). */
export const INSTALL_PATH = '/slack/install';
/** Where Slack sends them back with `code` and `state` (Bolt's default redirectUriPath; the app's Redirect URL). */
export const REDIRECT_URI_PATH = '/slack/oauth_redirect';

/** The bot scopes an install asks for: manifest.yml's `oauth_config.scopes.bot` (test/unit/oauth.test.ts checks them). */
export const BOT_SCOPES: readonly string[] = Object.freeze([
  'commands',
  'chat:write',
  'reactions:write',
  'users:read',
  'usergroups:read',
  'channels:read',
  'groups:read',
  'app_mentions:read',
  'channels:history',
  'groups:history',
  'im:history',
  'mpim:history',
  'mpim:read',
  'im:read',
  'files:write',
  'assistant:write',
]);

/**
 * The installer of OAuth mode, state verification on (the state cookie of the browser that started
 * the install, signed with SLACK_STATE_SECRET).
 * @param opts.slackApiUrl - Web API base for `oauth.v2.access` (SLACK_API_URL).
 */
export function createInstaller(opts: {
  oauth: OAuthSettings;
  installationStore: InstallationStore;
  slackApiUrl: string;
  logger: Logger;
}): InstallProvider {
  return new InstallProvider({
    clientId: opts.oauth.clientId,
    clientSecret: opts.oauth.clientSecret,
    stateSecret: opts.oauth.stateSecret,
    stateVerification: true,
    installationStore: opts.installationStore,
    logger: toBoltLogger(opts.logger),
    clientOptions: { slackApiUrl: opts.slackApiUrl },
  });
}

/** `GET /slack/install` and `GET /slack/oauth_redirect`, served by the installer. */
export function installRoutes(installer: InstallProvider): HttpRoute[] {
  return [
    {
      method: 'GET',
      path: INSTALL_PATH,
      handler: (req, res) => installer.handleInstallPath(req, res, {}, { scopes: [...BOT_SCOPES] }),
    },
    { method: 'GET', path: REDIRECT_URI_PATH, handler: (req, res) => installer.handleCallback(req, res) },
  ];
}
