import { App, LogLevel } from '@slack/bolt';
import type { Config } from '../config.js';
import type { InFlight } from '../in-flight.js';
import type { UninstallHook } from '../uninstalls.js';
import type { Logger } from '../logger.js';
import { LINK_ACTION_PREFIX } from './actions.js';
import { toBoltLogger } from './bolt-logger.js';
import { SlackEdge, type EdgeObserver } from './edge.js';
import { droppedForInstallation, installRoutes, registerInstallationEvents, type Installer } from './oauth.js';
import { SlackReceiver, type HttpRoute } from './receiver.js';
import type { BotIdentity } from './startup.js';
import { installationContext } from './installation-tokens.js';
import { orgWorkspaceGuard, type OrgWorkspaceGuardOptions } from './org-workspace-guard.js';
import { responseUrlGuard } from './response-url-guard.js';
import { webClientRetries } from './web-client.js';

/** What {@link createSlackApp} needs. */
interface SlackAppOptions {
  config: Pick<Config, 'SLACK_BOT_TOKEN' | 'SLACK_SIGNING_SECRET' | 'SLACK_APP_TOKEN' | 'SLACK_API_URL' | 'PORT'>;
  logger: Logger;
  inFlight: InFlight;
  /** `GET /healthz` and friends, served on PORT in both modes. */
  routes: HttpRoute[];
  /** The slash commands the app has (named in the answer to an unknown one). */
  commands: readonly string[];
  /** Told how every Slack request was answered, and how fast (metrics). */
  observer?: EdgeObserver;
  /**
   * The bot's ids from the start-up `auth.test` (`checkBotToken`, startup.ts): Bolt then never calls
   * `auth.test` itself. Without them Bolt calls it as the app is built, and a refused token becomes
   * an unhandled rejection.
   */
  identity?: BotIdentity;
  /**
   * OAuth mode (SLACK_CLIENT_ID): the installer (oauth.ts). Its routes are served, and Bolt's
   * `authorize` picks each request's installation from its store; `SLACK_BOT_TOKEN` is not used.
   */
  installer?: Installer;
  /**
   * OAuth mode: what `app_uninstalled` removes besides the installation, each feature's part of
   * what it keeps per installation (compose.ts' `onUninstalled`; oauth.ts registerInstallationEvents).
   */
  onUninstalled?: readonly UninstallHook[];
  /**
   * With DOCS_WORKSPACE_PROJECTS: a request through an org-wide install is checked to come from one
   * of the install's workspaces before its workspace's own docs projects are used (org-workspace-guard.ts).
   */
  orgWorkspaces?: Omit<OrgWorkspaceGuardOptions, 'logger' | 'slackApiUrl'>;
}

/**
 * Builds the Bolt app on the bot's own receiver ({@link SlackReceiver} + {@link SlackEdge}: signed
 * HTTP on `POST /slack/events`, or Socket Mode when SLACK_APP_TOKEN is set), with no feature
 * listeners yet (each feature registers its own). A request whose response_url is not Slack's is
 * acked and dropped; every request's work is tracked in `inFlight`
 * for a graceful shutdown; every link button is acked; a listener's unexpected error reaches the
 * edge, which logs it with its stack and answers.
 */
export function createSlackApp(opts: SlackAppOptions): { app: App; receiver: SlackReceiver; edge: SlackEdge } {
  const { config, logger } = opts;
  const edge = new SlackEdge({
    logger,
    commands: opts.commands,
    slackApiUrl: config.SLACK_API_URL,
    ...(opts.observer ? { observer: opts.observer } : {}),
  });
  const receiver = new SlackReceiver({
    edge,
    logger,
    port: config.PORT,
    routes: opts.installer ? [...opts.routes, ...installRoutes(opts.installer)] : opts.routes,
    ...(opts.installer ? { installer: opts.installer } : {}),
    slackApiUrl: config.SLACK_API_URL,
    ...(opts.observer ? { observer: opts.observer } : {}),
    ...(config.SLACK_APP_TOKEN
      ? { appToken: config.SLACK_APP_TOKEN }
      : { signingSecret: config.SLACK_SIGNING_SECRET ?? '' }),
  });
  const app = new App({
    // OAuth mode: no token, Bolt takes `authorize` from the receiver's installer.
    ...(opts.installer ? {} : { token: config.SLACK_BOT_TOKEN, ...(opts.identity ?? {}) }),
    receiver,
    logger: toBoltLogger(logger),
    logLevel: LogLevel.INFO,
    clientOptions: { slackApiUrl: config.SLACK_API_URL, retryConfig: webClientRetries },
  });
  app.use(async ({ next }) => {
    await opts.inFlight.track(next());
  });
  // A response_url that isn't Slack's (or the configured API's origin) is never posted to.
  app.use(responseUrlGuard(config.SLACK_API_URL, logger));
  // OAuth mode: the rest runs as work of the installation Bolt's authorize found (its token, recorded with the intake).
  if (opts.installer) installationContext(app, logger);
  if (opts.orgWorkspaces) orgWorkspaceGuard(app, { ...opts.orgWorkspaces, slackApiUrl: config.SLACK_API_URL, logger });
  app.error(async (err) => {
    if (opts.installer && droppedForInstallation(err, logger)) return;
    throw err;
  });
  if (opts.installer) registerInstallationEvents(app, opts.installer, logger, opts.onUninstalled ?? []);
  registerLinkButtons(app);
  return { app, receiver, edge };
}

/**
 * Link buttons (a `button` with `url`: `link.*`, `open_pr_link`) still send `block_actions`: acked,
 * nothing else, or Slack shows a warning (Slack: "Interactivity" of the button element).
 */
export function registerLinkButtons(app: App): void {
  app.action(new RegExp(`^(${LINK_ACTION_PREFIX.replace('.', '\\.')}|open_pr_link$)`), async ({ ack }) => ack());
}
