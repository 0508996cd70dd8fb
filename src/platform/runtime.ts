/**
 * The platform as one object: built once from the configuration by the composition root
 * (`buildPlatform`, called by main.ts) and handed to every feature, which names the parts it uses
 * (`Pick<Platform, …>`), so a test builds only those.
 */
import { WorkspaceAccess } from './workspace-access.js';
import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { askConfigured, docsProjects, type Config } from './config.js';
import { DocsApiClient } from './docs-api/client.js';
import { DiscoveryClient } from './docs-api/discovery-client.js';
import { DocsWorkspaces, workspaceDiscovery, type AskingClient } from './docs-workspaces.js';
import type { InstallationRef } from './request-context.js';
import { InFlight } from './in-flight.js';
import { Intake } from './intake.js';
import type { ReplyTo } from './intake-kind.js';
import type { Logger } from './logger.js';
import { BotMetrics } from './metrics.js';
import type { QueueContext } from './queues.js';
import { keyPrefix, redisTarget, RedisConnections } from './redis.js';
import { createAgentSurface, type AgentSurface } from './slack/agent-surface.js';
import { ConversationDirectory, redisReadLimits } from './slack/conversations.js';
import { signerFromConfig, type ValueSigner } from './slack/signed-value.js';
import { tryTelling } from './slack/tell.js';
import { UserNames } from './slack/user-names.js';
import { createWebClient, singleTokenRefusals, type WebClientOptions } from './slack/web-client.js';
import { oauthMode } from './config-oauth.js';
import { hasCode, PlatformErrorCode } from './errors.js';
import { logKeyRotation, RedisInstallationStore } from './installation-store.js';
import { KeyRing } from './sealed-box.js';
import { InstallationTokens, withInstallation, type BotCredentials } from './slack/installation-tokens.js';
import { createInstaller, type Installer } from './slack/oauth.js';

/** The bot's Slack Web API clients (each with the bot token, the retry policy and the logger). */
export interface SlackClients {
  /** The bot's client: posts, edits, opens views; waits out a 429's `Retry-After`. */
  web: WebClient;
  /**
   * A client that rejects a 429 at once, for reads a person can cause (membership, threads,
   * message links, the agent view's channel): they never pause `web`.
   */
  reads: WebClient;
  /** People's names for mentions and authors: users.info on a client of its own (429s rejected), cached. */
  names: UserNames;
  /** Slack's agent surfaces (assistant threads): sessions, loading lines, suggested prompts; never throws. */
  agent: AgentSurface;
  /**
   * A new client of its own (its own request queue), e.g. `{ rejectRateLimitedCalls: true }` for
   * a caller that waits out `Retry-After` itself and then sends a newer state (status edits).
   */
  own(opts: Pick<WebClientOptions, 'rejectRateLimitedCalls'>): WebClient;
  /**
   * Runs a worker's `fn` as work of the installation recorded with it (OAuth mode: every client
   * above then calls with that installation's token; `requestId` names the work in log lines when
   * no request is current; with DOCS_WORKSPACE_PROJECTS, in either mode, the work's docs projects
   * and site are that workspace's). Single-token mode without it: just runs `fn`. Only `ref`'s
   * installation fields (`teamId`, `enterpriseId`, `enterpriseInstall`) are read: a work's record
   * or a queued job's data can be given as it is.
   */
  forWork<T>(ref: InstallationRef, requestId: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Whether the installation `ref` names is stored and allowed (OAuth mode; an uninstalled
   * workspace's is not, nor one SLACK_INSTALL_ALLOWLIST no longer admits). Single-token mode: always true. @throws Redis errors, an installation that does not open.
   */
  installed(ref: InstallationRef): Promise<boolean>;
}

/** What the platform gives the features, and what the composition root keeps to run and stop them. */
export interface Platform {
  /** The validated configuration (docs/configuration.md); each feature reads its own variables. */
  config: Config;
  logger: Logger;
  /** Every Redis connection of the bot (closed last on shutdown). */
  connections: RedisConnections;
  /** The state connection (records, claims, locks, budgets). */
  redis: Redis;
  /** Prefix of every key, BullMQ's and the bot's: QUEUE_PREFIX (hash-tagged on a Cluster). */
  prefix: string;
  queues: QueueContext;
  /** Where listeners record requests before the ack; features register their handlers on it. */
  intake: Intake;
  /** The docs API; `forProject(id)` calls with that project's key (DOCS_WORKSPACE_PROJECTS). */
  docsApi: DocsApiClient;
  /**
   * The docs projects each workspace may use (DOCS_WORKSPACE_PROJECTS, else the defaults):
   * `current()` for the request's or worker's workspace.
   */
  docsWorkspaces: DocsWorkspaces;
  /**
   * The docs assistant (discovery API), when DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN are set: each
   * question goes to the docs site of the current request's (or worker's) workspace.
   */
  discovery: AskingClient | undefined;
  slack: SlackClients;
  /**
   * OAuth mode (SLACK_CLIENT_ID): the installations in Redis, sealed with SLACK_INSTALLATION_KEY
   * (the installer stores them, the Slack clients take each call's token from them); undefined in
   * single-token mode.
   */
  installations: RedisInstallationStore | undefined;
  /**
   * OAuth mode: the installer over {@link installations} (its routes serve installs; its
   * `authorize` gives every request and every worker its installation's token); else undefined.
   */
  installer: Installer | undefined;
  /** Membership of conversations (Slack reads on `slack.reads`, cached; read budgets in Redis). */
  conversations: ConversationDirectory;
  /** The workspaces an org-wide install was removed from (`team_access_revoked`). */
  workspaces: WorkspaceAccess;
  /** Signs the values the bot puts in buttons and modals (key from SLACK_SIGNING_SECRET, else SLACK_APP_TOKEN). */
  signer: ValueSigner;
  /** Calls under way, drained on shutdown. */
  inFlight: InFlight;
  /** The bot's Prometheus metrics, on a registry of its own. */
  metrics: BotMetrics;
  /** Clock in epoch ms. */
  now: () => number;
}

/** The docs API clients: the admin API's (each project with its key) and the discovery API's. */
function docsClients(
  config: Config,
  metrics: BotMetrics,
  docsWorkspaces: DocsWorkspaces,
): Pick<Platform, 'docsApi' | 'docsWorkspaces' | 'discovery'> {
  const docsApi = new DocsApiClient({
    baseUrl: config.DOCS_API_URL,
    apiKey: config.DOCS_API_KEY,
    projectId: config.DOCS_PROJECT_ID,
    observer: metrics,
    keyFor: (project) => docsWorkspaces.keyFor(project),
  });
  return { docsApi, docsWorkspaces, discovery: discoveryClient(config, metrics, docsWorkspaces) };
}

/** The docs projects of each workspace: DOCS_WORKSPACE_PROJECTS over the defaults. */
export function docsWorkspacesOf(config: Config): DocsWorkspaces {
  const ask = askConfigured(config)
    ? { apiKey: config.DOCS_ASSISTANT_API_KEY ?? '', domain: config.DOCS_DOMAIN ?? '' }
    : undefined;
  const defaults = { projects: docsProjects(config), apiKey: config.DOCS_API_KEY, ask, siteUrl: config.DOCS_SITE_URL };
  return new DocsWorkspaces(defaults, config.docsWorkspaces);
}

/**
 * The discovery client of the docs assistant, when asking is configured (DOCS_ASSISTANT_API_KEY and
 * DOCS_DOMAIN): `sendMessage` asks the site of the current request's (or worker's) workspace
 * (`workspaces.askFor`), one client per site and key over one dispatcher.
 */
export function discoveryClient(
  config: Config,
  metrics: BotMetrics,
  workspaces: DocsWorkspaces,
): AskingClient | undefined {
  if (!askConfigured(config)) return undefined;
  const base = new DiscoveryClient({
    baseUrl: config.DOCS_DISCOVERY_URL,
    apiKey: config.DOCS_ASSISTANT_API_KEY ?? '',
    domain: config.DOCS_DOMAIN ?? '',
    observer: metrics,
  });
  return workspaces.mapped ? workspaceDiscovery(base, workspaces) : base;
}

/** The Slack clients of {@link SlackClients}, all reporting their failures to `metrics`. */
function slackClients(
  config: Config,
  logger: Logger,
  metrics: BotMetrics,
  enterpriseInstall: boolean,
  tokens: InstallationTokens | undefined,
  workspaceDocs = false,
): SlackClients {
  const options: WebClientOptions = {
    // OAuth mode (no SLACK_BOT_TOKEN): each call's token is its installation's (installation-tokens.ts).
    token: config.SLACK_BOT_TOKEN ?? '',
    slackApiUrl: config.SLACK_API_URL,
    logger,
    onError: (e) => metrics.slackApiError(e),
    ...(enterpriseInstall ? { enterpriseInstall } : {}),
    ...(tokens
      ? {
          credentials: () => tokens.current(),
          onRefusedToken: (creds: BotCredentials, code: string) => tokens.refused(creds, code),
        }
      : { onRefusedToken: singleTokenRefusals(logger) }),
  };
  const own = (opts: Pick<WebClientOptions, 'rejectRateLimitedCalls'>) => createWebClient({ ...options, ...opts });
  return {
    web: createWebClient(options),
    reads: own({ rejectRateLimitedCalls: true }),
    names: new UserNames(own({ rejectRateLimitedCalls: true }), { logger }),
    agent: createAgentSurface(options),
    own,
    // The installation also picks the docs projects and site (DOCS_WORKSPACE_PROJECTS), in either mode.
    forWork: (ref, requestId, fn) => (tokens || workspaceDocs ? withInstallation(ref, requestId, fn) : fn()),
    installed: async (ref) => {
      if (!tokens) return true;
      return tokens.forRef(ref).then(
        () => true,
        (err: unknown) => {
          const gone = PlatformErrorCode.InstallationNotFound;
          if (hasCode(err, gone) || hasCode(err, PlatformErrorCode.InstallationNotAllowed)) return false;
          throw err;
        },
      );
    },
  };
}

/**
 * OAuth mode's parts (SLACK_CLIENT_ID set): the encrypted Redis installation store, Bolt's installer
 * over it and the per-installation tokens the Slack clients take; all undefined in single-token mode.
 */
function oauthParts(config: Config, redis: Redis, prefix: string, logger: Logger) {
  const oauth = oauthMode(config);
  if (!oauth) return { installations: undefined, installer: undefined, tokens: undefined };
  const keys = new KeyRing(oauth.installationKey, oauth.previousInstallationKey);
  const installations = new RedisInstallationStore(redis, prefix, keys, oauth.installAllowlist, logger);
  logKeyRotation(keys, logger);
  const installer = createInstaller({
    oauth,
    installationStore: installations,
    slackApiUrl: config.SLACK_API_URL,
    logger,
  });
  return {
    installations,
    installer,
    tokens: new InstallationTokens(installer, { store: installations, logger }, new WorkspaceAccess(redis, prefix)),
  };
}

/**
 * Builds the platform from the configuration: metrics on a registry of their own, the Redis
 * connections, queues and intake (replica acknowledgement per REDIS_WAIT_REPLICAS), the docs API
 * clients, the Slack clients and the membership directory. Connects lazily: nothing is awaited.
 * `install.enterpriseInstall`: SLACK_BOT_TOKEN is org-level (the start-up `auth.test`), so the
 * Slack clients give the methods Slack lists the request's `team_id` (platform/slack/org-wide.ts).
 */
export function buildPlatform(config: Config, logger: Logger, install: { enterpriseInstall?: boolean } = {}): Platform {
  // One registry per bot, not prom-client's global one: several bots (tests) can share a process.
  const metrics = new BotMetrics({ registry: new Registry(), logger });
  const connections = new RedisConnections(redisTarget(config), logger, metrics);
  const redis = connections.state;
  const prefix = keyPrefix(config);
  const queues: QueueContext = {
    connection: connections.bull('queue'),
    workerConnection: connections.bull('worker'),
    prefix,
    logger,
  };
  const replication = {
    replicas: config.REDIS_WAIT_REPLICAS,
    timeoutMs: config.REDIS_WAIT_TIMEOUT_MS,
    onUnreplicated: () => metrics.intakeUnreplicated.inc(),
    onStepUnreplicated: (outcome: 'held' | 'went_ahead') => metrics.stepsUnreplicated.inc({ outcome }),
  };
  const { installations, installer, tokens } = oauthParts(config, redis, prefix, logger);
  const docsWorkspaces = docsWorkspacesOf(config);
  const slack = slackClients(
    config,
    logger,
    metrics,
    install.enterpriseInstall ?? false,
    tokens,
    docsWorkspaces.mapped,
  );
  // The person behind a record the intake gives up on: its response_url, else an ephemeral.
  const notHandled = 'could not tell the person that their request was not handled';
  const tell = (to: ReplyTo, text: string) =>
    tryTelling({ slack: slack.web, logger }, to, text, { failure: notHandled });
  const intakeOptions = { observer: metrics, tell };
  const limits = redisReadLimits(redis, prefix);
  return {
    config,
    logger,
    connections,
    redis,
    prefix,
    queues,
    intake: new Intake(queues, connections.intake(), replication, intakeOptions),
    ...docsClients(config, metrics, docsWorkspaces),
    slack,
    installations,
    installer,
    conversations: new ConversationDirectory({ slack: slack.reads, limits, logger }),
    workspaces: new WorkspaceAccess(redis, prefix),
    signer: signerFromConfig(config),
    inFlight: new InFlight(),
    metrics,
    now: Date.now,
  };
}
