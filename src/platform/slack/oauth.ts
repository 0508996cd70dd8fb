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
import type { RemovalOutcome } from '../installation-store.js';
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

/**
 * An installation store; RedisInstallationStore also says what it found, and keeps a record stored
 * after `storedAfter` (epoch ms).
 */
type ForgettingStore = InstallationStore & {
  removeInstallation?: (query: InstallationQuery<boolean>, storedAfter?: number) => Promise<RemovalOutcome>;
};

/**
 * How far Slack's clock (an event's `event_time`) and ours may disagree, in ms: an installation
 * stored more than this after the event is a reinstall (Slack's OAuth pages take a person longer).
 */
const EVENT_CLOCK_SKEW_MS = 5_000;

/**
 * The cutoff (epoch ms) past which a stored installation is newer than the event `body`: its
 * `event_time` (Slack: "epoch timestamp in seconds indicating when this event was dispatched";
 * docs.slack.dev/reference/objects/event-object) plus {@link EVENT_CLOCK_SKEW_MS}; undefined
 * without a usable `event_time` (then any stored installation counts as older). A retry is the
 * same event again (same `event_id`); that it carries its first delivery's `event_time` is assumed,
 * not documented by Slack: were it the retry's own time, a reinstall stored before the retry would
 * be deleted, as it was before the cutoff existed, never one kept that should go.
 */
function storedAfterCutoffMs(body: unknown): number | undefined {
  const t = (body as { event_time?: unknown } | undefined)?.event_time;
  return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t * 1000 + EVENT_CLOCK_SKEW_MS : undefined;
}

/** The info line of each removal outcome. */
const REMOVAL_LINES: Record<RemovalOutcome, string> = {
  deleted: 'installation deleted',
  absent: 'no installation to delete (already deleted, or never stored)',
  reinstalled: 'installation kept: stored again after this event (a reinstall); its data is left too',
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
 * it at use). An installation stored after the event ({@link storedAfterCutoffMs}: a reinstall,
 * met by a delivery Slack retried) is kept with its data, one info line ("installation kept").
 * @throws (to the edge) when Redis fails (or the record changed under each of the store's reads),
 * so the event is redelivered, and a redelivery removes what is left (unless the app was installed
 * again meanwhile: the reinstall is kept, and what the first delivery left stays with it).
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
    body: unknown,
  ) => {
    const isEnterpriseInstall = context.isEnterpriseInstall === true;
    const query = {
      teamId: isEnterpriseInstall ? undefined : context.teamId,
      enterpriseId: context.enterpriseId,
      isEnterpriseInstall,
    } as InstallationQuery<boolean>;
    const cutoff = storedAfterCutoffMs(body);
    // RedisInstallationStore says what it found; another store's delete counts as one.
    const outcome: RemovalOutcome = store.removeInstallation
      ? await store.removeInstallation(query, cutoff)
      : (await store.deleteInstallation?.(query), 'deleted');
    const ids = { teamId: context.teamId, enterpriseId: context.enterpriseId, isEnterpriseInstall };
    // A kept installation names the cutoff (event_time + 5 s, epoch ms): a clock far ahead of Slack's would show there.
    logger.info(
      { ...ids, reason, ...(outcome === 'reinstalled' ? { storedAfter: cutoff } : {}) },
      REMOVAL_LINES[outcome],
    );
    return { ids, outcome };
  };
  app.event('app_uninstalled', async ({ context, body }) => {
    const { ids, outcome } = await forget(context, 'app_uninstalled', body);
    const slot = installationSlotOf({ ...ids, enterpriseInstall: ids.isEnterpriseInstall });
    // A reinstall's settings and subscriptions are its own: an older uninstall leaves them.
    if (!slot || onUninstalled.length === 0 || outcome === 'reinstalled') return;
    if (!installationAllowed(installer.allowlist, ids))
      return logger.info(ids, 'uninstall of an installation SLACK_INSTALL_ALLOWLIST does not admit: no data removed');
    await forgetUninstalled(onUninstalled, slot, ids, logger);
  });
  app.event('tokens_revoked', async ({ event, context, body }) => {
    if ((event.tokens.bot ?? []).length > 0) await forget(context, 'tokens_revoked', body);
  });
}
