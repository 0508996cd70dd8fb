/**
 * OAuth mode's installer: `@slack/oauth`'s `InstallProvider` (what Bolt's own HTTPReceiver builds
 * from `clientId`, `clientSecret`, `stateSecret`, `scopes`, `installationStore` and
 * `installerOptions`; docs.slack.dev bolt-js "Authenticating with OAuth"), served by the bot's own
 * receiver on `GET /slack/install` (the "Add to Slack" page; it sets the state cookie) and
 * `GET /slack/oauth_redirect` (Slack's redirect: state checked against the cookie and
 * SLACK_STATE_SECRET, then `oauth.v2.access` and `storeInstallation`). A missing, forged or replayed
 * state gets the library's plain error page (HTTP 400) and stores nothing; an installation of a
 * workspace or org not in SLACK_INSTALL_ALLOWLIST is uninstalled again and answered 403, nothing
 * stored (install-refusal.ts). Bolt's `authorize` is the installer's: it fetches the request's
 * installation from the store.
 */
import { InstallProvider, type CallbackOptions } from '@slack/oauth';
import type { App, InstallationQuery, InstallationStore } from '@slack/bolt';
import { errorCode } from '../errors.js';
import { installationSlotOf } from '../request-context.js';
import { forgetUninstalled, type UninstallHook } from '../uninstalls.js';
import type { OAuthSettings } from '../config-oauth.js';
import type { Logger } from '../logger.js';
import { toBoltLogger } from './bolt-logger.js';
import { isInstallationError } from './errors.js';
import { installationAllowed, type InstallAllowlist } from '../install-allowlist.js';
import { refuseNotAllowed } from './install-refusal.js';
import type { HttpRoute } from './receiver.js';

/** Where Slack's users start an install (Bolt's default installPath). */
const INSTALL_PATH = '/slack/install';
/** Where Slack sends them back with `code` and `state` (Bolt's default redirectUriPath; the app's Redirect URL). */
const REDIRECT_URI_PATH = '/slack/oauth_redirect';

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
 * OAuth mode's installer: @slack/oauth's InstallProvider and the options its callback route is
 * served with ({@link installRoutes}): `afterInstallation` refuses an installation
 * SLACK_INSTALL_ALLOWLIST does not admit (install-refusal.ts).
 */
export class Installer extends InstallProvider {
  constructor(
    options: ConstructorParameters<typeof InstallProvider>[0],
    readonly callbackOptions: CallbackOptions,
    /** SLACK_INSTALL_ALLOWLIST: an uninstall of an installation it does not admit removes no data. */
    readonly allowlist: InstallAllowlist,
  ) {
    super(options);
  }
}

/**
 * The installer of OAuth mode, state verification on (the state cookie of the browser that started
 * the install, signed with SLACK_STATE_SECRET), refusing installations SLACK_INSTALL_ALLOWLIST does
 * not admit.
 * @param opts.slackApiUrl - Web API base for `oauth.v2.access` and `apps.uninstall` (SLACK_API_URL).
 */
export function createInstaller(opts: {
  oauth: OAuthSettings;
  installationStore: InstallationStore;
  slackApiUrl: string;
  logger: Logger;
}): Installer {
  return new Installer(
    {
      clientId: opts.oauth.clientId,
      clientSecret: opts.oauth.clientSecret,
      stateSecret: opts.oauth.stateSecret,
      stateVerification: true,
      installationStore: opts.installationStore,
      logger: toBoltLogger(opts.logger),
      clientOptions: { slackApiUrl: opts.slackApiUrl },
    },
    { afterInstallation: refuseNotAllowed(opts) },
    opts.oauth.installAllowlist,
  );
}

/** `GET /slack/install` and `GET /slack/oauth_redirect` (with the installer's callback options), served by the installer. */
export function installRoutes(installer: Installer): HttpRoute[] {
  return [
    {
      method: 'GET',
      path: INSTALL_PATH,
      handler: (req, res) => installer.handleInstallPath(req, res, {}, { scopes: [...BOT_SCOPES] }),
    },
    {
      method: 'GET',
      path: REDIRECT_URI_PATH,
      handler: (req, res) => installer.handleCallback(req, res, installer.callbackOptions),
    },
  ];
}

/**
 * Whether `err` is Bolt's authorize failure (`slack_bolt_authorization_error`) for an installation
 * the store does not have, may not give or cannot open (errors.ts' `isInstallationError`): the
 * request is then acked and dropped with one warn line (logged here), not retried by Slack. A Redis failure is not: it stays an error, so the request is
 * not acked and Slack redelivers it.
 */
export function droppedForInstallation(err: unknown, logger: Logger): boolean {
  if (errorCode(err) !== 'slack_bolt_authorization_error') return false;
  // Bolt's error wraps @slack/oauth's (InstallProvider.authorize), which wraps the store's.
  let original = (err as { original?: unknown }).original;
  for (let i = 0; i < 3 && original && !isInstallationError(original); i++)
    original = (original as { original?: unknown }).original;
  if (!isInstallationError(original)) return false;
  const code = errorCode(original);
  const installation = (original as { installation?: unknown }).installation;
  logger.warn({ installationError: code, installation }, 'dropped a request for an installation the bot does not have');
  return true;
}

/** An installation store; RedisInstallationStore also says whether it held the one it removed. */
type ForgettingStore = InstallationStore & {
  removeInstallation?: (query: InstallationQuery<boolean>) => Promise<boolean>;
};

/**
 * `app_uninstalled` and `tokens_revoked` (its `tokens.bot`): the installation of the event's
 * workspace (or org, for an org-wide install) is deleted, with one info line ("installation
 * deleted", or, when the store says none was kept, "no installation to delete": an install
 * SLACK_INSTALL_ALLOWLIST refused is uninstalled again and brings this event). Bolt runs these
 * without `authorize` (its `eventTypesToSkipAuthorize`), so they arrive even when the installation
 * is gone already. A revoked user token alone (`tokens.oauth`) changes nothing: the bot stores none
 * of its own. `app_uninstalled` (Slack: "sent ... whenever a Slack app is completely uninstalled";
 * docs.slack.dev/reference/events/app_uninstalled) then runs `onUninstalled`, the features' removal
 * of what they keep for that installation (uninstalls.ts: one info line); `tokens_revoked` does
 * not (it also comes when only a token is revoked). The removal runs only for an installation
 * the installer's `allowlist` (SLACK_INSTALL_ALLOWLIST) admits: an install it refused is
 * uninstalled again and brings this event too, and anyone can repeat that, so it must cost no more
 * than deleting the (absent) record; such an installation had no data written (the store refuses
 * it at use). @throws (to the edge) when Redis
 * fails, so the event is redelivered, and a redelivery removes what is left.
 */
export function registerInstallationEvents(
  app: App,
  installer: Pick<Installer, 'installationStore' | 'allowlist'>,
  logger: Logger,
  onUninstalled: readonly UninstallHook[] = [],
): void {
  const store: ForgettingStore = installer.installationStore;
  const forget = async (
    context: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean },
    reason: string,
  ) => {
    const isEnterpriseInstall = context.isEnterpriseInstall === true;
    const query = {
      teamId: isEnterpriseInstall ? undefined : context.teamId,
      enterpriseId: context.enterpriseId,
      isEnterpriseInstall,
    } as InstallationQuery<boolean>;
    // RedisInstallationStore says whether there was one; another store's delete counts as one.
    const deleted = store.removeInstallation
      ? await store.removeInstallation(query)
      : (await store.deleteInstallation?.(query), true);
    const ids = { teamId: context.teamId, enterpriseId: context.enterpriseId, isEnterpriseInstall };
    logger.info(
      { ...ids, reason },
      !deleted ? 'no installation to delete (already deleted, or never stored)' : 'installation deleted',
    );
    return ids;
  };
  app.event('app_uninstalled', async ({ context }) => {
    const ids = await forget(context, 'app_uninstalled');
    const slot = installationSlotOf({ ...ids, enterpriseInstall: ids.isEnterpriseInstall });
    if (!slot || onUninstalled.length === 0) return;
    if (!installationAllowed(installer.allowlist, ids))
      return logger.info(ids, 'uninstall of an installation SLACK_INSTALL_ALLOWLIST does not admit: no data removed');
    await forgetUninstalled(onUninstalled, slot, ids, logger);
  });
  app.event('tokens_revoked', async ({ event, context }) => {
    if ((event.tokens.bot ?? []).length > 0) await forget(context, 'tokens_revoked');
  });
}
