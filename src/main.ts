import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { hostname } from 'node:os';
import { Registry } from 'prom-client';
import { accessPolicyFromConfig, AgentBudget, createAccess, createAccessDirectory } from './features/access/index.js';
import { createAgentJobs, threadOwner, type AgentJobs, type AgentJobsOptions } from './features/agent-jobs/index.js';
import { createAgentView, type AgentView } from './features/agent-view/index.js';
import { createDigests, type Digests } from './features/digests/index.js';
import { createDocumentThread, type DocumentThread } from './features/document-thread/index.js';
import { createThreadContext } from './features/thread-context/index.js';
import { createChannelSettings, type Settings } from './features/settings/index.js';
import type { Conversations } from './features/conversations/index.js';
import type { Ask } from './features/ask/index.js';
import { buildAsk, buildRouter, buildSettings, discoveryClient } from './compose.js';
import { createVisitors, type Visitors } from './features/visitors/index.js';
import { ConfigError, docsProjects, readConfig, type Config } from './platform/config.js';
import type { DiscoveryClient } from './platform/docs-api/discovery-client.js';
import { DocsApiClient } from './platform/docs-api/client.js';
import { healthHandler } from './platform/health.js';
import { InFlight } from './platform/in-flight.js';
import { isEntryPoint } from './platform/entry-point.js';
import { onceOnly } from './platform/once.js';
import { Intake, INTAKE_QUEUE } from './platform/intake.js';
import { createLogger, type Logger } from './platform/logger.js';
import { BotMetrics } from './platform/metrics.js';
import { metricsHandler } from './platform/metrics-route.js';
import { createQueue, type QueueContext } from './platform/queues.js';
import { checkEvictionPolicy, keyPrefix, redisTarget, RedisConnections } from './platform/redis.js';
import { warnPlaintextPasswords } from './platform/redis-target.js';
import { createAgentSurface } from './platform/slack/agent-surface.js';
import { WorkerWatch } from './platform/worker-watch.js';
import { exitAfterStop } from './platform/shutdown.js';
import { createSlackApp } from './platform/slack/app.js';
import { checkBotToken, logStartFailure } from './platform/slack/startup.js';
import type { HttpRoute } from './platform/slack/receiver.js';
import { ConversationDirectory, redisReadLimits } from './platform/slack/conversations.js';
import { signerFromConfig, type ValueSigner } from './platform/slack/signed-value.js';
import { UserNames } from './platform/slack/user-names.js';
import { tellPersonVia } from './platform/slack/tell.js';
import { createWebClient } from './platform/slack/web-client.js';

/** Milliseconds a graceful shutdown may take before the process exits anyway (SIGTERM: ≤ 10 s). */
export const SHUTDOWN_BUDGET_MS = 9_000;

/** The slash commands of manifest.yml. */
export const COMMANDS = ['/docs-edit', '/docs-reply', '/docs-ask', '/docs-visitors', '/docs-settings'] as const;

/** A running bot: web endpoint and workers in one process. */
export interface RunningBot {
  app: App;
  redis: Redis;
  intake: Intake;
  agentJobs: AgentJobs;
  digests: Digests;
  /** The bot's Prometheus metrics (its own registry), served on `GET /metrics`. */
  metrics: BotMetrics;
  /** Stops taking work, finishes in-flight calls, closes workers and Redis. Idempotent. */
  stop(): Promise<void>;
}

/** The platform every feature is built on. */
interface Platform {
  config: Config;
  logger: Logger;
  connections: RedisConnections;
  redis: Redis;
  /** Prefix of every key, BullMQ's and the bot's: QUEUE_PREFIX (hash-tagged on a Cluster). */
  prefix: string;
  queues: QueueContext;
  intake: Intake;
  docsApi: DocsApiClient;
  /** The docs assistant (discovery API), when DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN are set. */
  discovery: DiscoveryClient | undefined;
  slackOpts: { token: string; slackApiUrl: string; logger: Logger };
  slack: WebClient;
  names: UserNames; // users.info on a client of its own, so its 429s never pause `slack`
  /** Signs the values the bot puts in buttons and modals (key from SLACK_SIGNING_SECRET, else SLACK_APP_TOKEN). */
  signer: ValueSigner;
  inFlight: InFlight;
  metrics: BotMetrics;
  now: () => number;
}

function buildPlatform(config: Config, logger: Logger): Platform {
  // One registry per bot, not prom-client's global one: several bots (tests) can share a process.
  const metrics = new BotMetrics({ registry: new Registry() });
  const connections = new RedisConnections(redisTarget(config), logger, metrics);
  const redis = connections.state;
  const prefix = keyPrefix(config);
  const queues: QueueContext = {
    connection: connections.bull('queue'),
    workerConnection: connections.bull('worker'),
    prefix,
    logger,
  };
  const onStepUnreplicated = (outcome: 'held' | 'went_ahead') => metrics.stepsUnreplicated.inc({ outcome });
  const replication = {
    replicas: config.REDIS_WAIT_REPLICAS,
    timeoutMs: config.REDIS_WAIT_TIMEOUT_MS,
    onUnreplicated: () => metrics.intakeUnreplicated.inc(),
    onStepUnreplicated,
  };
  const slackOpts = {
    token: config.SLACK_BOT_TOKEN,
    slackApiUrl: config.SLACK_API_URL,
    logger,
    onError: (e: { method: string; code: string }) => metrics.slackApiError(e),
  };
  const slack = createWebClient(slackOpts);
  return {
    config,
    logger,
    connections,
    redis,
    prefix,
    queues,
    intake: new Intake(queues, connections.intake(), replication, {
      observer: metrics,
      tell: tellPersonVia(slack, logger),
    }),
    docsApi: new DocsApiClient({
      baseUrl: config.DOCS_API_URL,
      apiKey: config.DOCS_API_KEY,
      projectId: config.DOCS_PROJECT_ID,
      observer: metrics,
    }),
    discovery: discoveryClient(config, metrics),
    slackOpts,
    slack,
    names: new UserNames(createWebClient({ ...slackOpts, rejectRateLimitedCalls: true }), { logger }),
    inFlight: new InFlight(),
    signer: signerFromConfig(config),
    metrics,
    now: Date.now,
  };
}

interface Features {
  agentJobs: AgentJobs;
  digests: Digests;
  visitors: Visitors;
  settings: Settings;
  documentThread: DocumentThread;
  agentView: AgentView;
  ask: Ask;
  conversations: Conversations;
  access: { register(app: App): void };
}

/** The agent-jobs feature: what the platform and the configuration give it, and what is built before it. */
function buildAgentJobs(
  p: Platform,
  d: Pick<AgentJobsOptions, 'conversations' | 'context' | 'access' | 'projectFor' | 'followupPolicyFor' | 'agent'>,
): AgentJobs {
  const { config } = p;
  return createAgentJobs({
    ...d,
    signer: p.signer,
    promptMaxChars: config.AGENT_PROMPT_MAX_CHARS,
    queues: p.queues,
    intake: p.intake,
    redis: p.redis,
    prefix: p.prefix,
    docsApi: p.docsApi,
    projects: docsProjects(config),
    slack: p.slack,
    names: p.names,
    statusSlack: createWebClient({ ...p.slackOpts, rejectRateLimitedCalls: true }),
    logger: p.logger,
    poll: { minMs: config.POLL_MIN_INTERVAL_MS, maxMs: config.POLL_MAX_INTERVAL_MS },
    projectId: config.DOCS_PROJECT_ID,
    updateBudgetPerMinute: config.SLACK_UPDATE_BUDGET_PER_MINUTE,
    timeoutMs: config.JOB_TIMEOUT_MS,
    ignorePrefix: config.FOLLOWUP_IGNORE_PREFIX,
    homeDefaults: {
      followupPolicy: config.FOLLOWUP_POLICY,
      ignorePrefix: config.FOLLOWUP_IGNORE_PREFIX,
      digestCron: config.DIGEST_CRON,
      digestTz: config.DIGEST_TZ,
    },
    now: p.now,
    metrics: p.metrics,
  });
}

function buildFeatures(p: Platform): Features {
  const { config, redis, queues, intake, docsApi, slack, logger, now, prefix } = p;
  // Bottom up: the channel settings lookup, then access (it asks a channel's project), then the
  // features in dependency order; /docs-settings last (it describes access and digests).
  const channelSettings = createChannelSettings({
    redis,
    prefix,
    projects: docsProjects(config),
    defaultFollowupPolicy: config.FOLLOWUP_POLICY,
  });
  const projectFor = (channel: string) => channelSettings.projectFor(channel);
  const accessDirectory = createAccessDirectory({
    slack,
    redis,
    prefix,
    now,
    logger: logger.child({ feature: 'access' }),
  });
  const access = createAccess({
    policy: accessPolicyFromConfig(config),
    directory: accessDirectory.directory,
    budget: new AgentBudget(redis, prefix, {
      perProject: config.AGENT_CALLS_PER_HOUR,
      perUser: config.AGENT_CALLS_PER_USER_PER_HOUR,
    }),
    promptMaxChars: config.AGENT_PROMPT_MAX_CHARS,
    defaultProject: config.DOCS_PROJECT_ID,
    projectFor,
    onBudget: (project, remaining) => p.metrics.agentBudgetRemaining.set({ project }, remaining),
    logger: logger.child({ feature: 'access' }),
    now,
  });
  // Reads a person can cause (membership, threads, the agent view's channel) reject a 429: it never pauses `slack`.
  const reads = createWebClient({ ...p.slackOpts, rejectRateLimitedCalls: true });
  const conversations = new ConversationDirectory({ slack: reads, limits: redisReadLimits(redis, prefix), logger });
  const threadContext = createThreadContext({
    slack: reads,
    names: p.names,
    logger,
    maxChars: config.AGENT_PROMPT_MAX_CHARS,
    conversations,
    allowedChannels: config.ACCESS_ALLOWED_CHANNELS,
  });
  const agent = createAgentSurface(p.slackOpts);
  const askEnabled = p.discovery !== undefined;
  const agentView = createAgentView({
    slack: reads,
    conversations,
    agent,
    intake,
    access,
    logger,
    redis,
    prefix,
    askEnabled,
  });
  const agentJobs = buildAgentJobs(p, {
    conversations,
    context: threadContext.context,
    access,
    projectFor,
    followupPolicyFor: (channel) => channelSettings.followupPolicyFor(channel),
    agent,
  });
  const jobThreads = threadOwner(redis, prefix);
  // Ask is built on agent-jobs (its buttons start jobs); the router of people's messages on both.
  const streamSlack = createWebClient({ ...p.slackOpts, rejectRateLimitedCalls: true }); // an answer's 429 never pauses `slack`
  const ask = buildAsk(p, { discovery: p.discovery, access, conversations, start: agentJobs.start, streamSlack });
  const router = buildRouter(p, {
    jobs: agentJobs,
    jobThreads,
    ask,
    mentionsModeFor: (channel) => channelSettings.mentionsModeFor(channel),
  });
  const { signer } = p;
  const documentThread = createDocumentThread({
    threadContext,
    slack,
    intake,
    access,
    conversations,
    signer,
    logger,
    owner: jobThreads,
    redis,
    prefix,
  });
  const projects = docsProjects(config);
  const analytics = {
    docsApi,
    projectId: config.DOCS_PROJECT_ID,
    analyticsPerUser: config.ANALYTICS_CALLS_PER_USER_PER_HOUR,
  };
  const visitors = createVisitors({
    ...analytics,
    intake,
    redis,
    prefix,
    signer,
    slack,
    access,
    conversations,
    projectFor,
    projects,
    logger,
    now,
  });
  const defaultSchedule = { pattern: config.DIGEST_CRON, tz: config.DIGEST_TZ };
  const digestsOn = { queues, intake, redis, prefix, visitors: visitors.services, slack, access, conversations };
  const digests = createDigests({ ...digestsOn, signer: p.signer, defaultSchedule, projectFor, projects, logger, now });
  const settings = buildSettings(p, access, conversations, (teamId, channel) =>
    digests.describeSubscription(teamId, channel),
  );
  return {
    agentJobs,
    digests,
    visitors,
    settings,
    documentThread,
    agentView,
    ask,
    conversations: router,
    access: accessDirectory,
  };
}

/**
 * The composition root. Builds the platform (Redis, queues, the intake, the docs API client, Slack
 * clients, the Bolt app on the bot's receiver), then each feature with what it needs, then
 * registers the features' listeners and starts the workers.
 *
 * @throws {@link StartupError} when Slack refuses SLACK_BOT_TOKEN (`auth.test`, checked first) or
 * SLACK_APP_TOKEN, or cannot be reached; any other error when e.g. the HTTP port cannot be bound.
 */
export async function startBot(config: Config, logger: Logger = createLogger(config.LOG_LEVEL)): Promise<RunningBot> {
  const identity = await checkBotToken({ token: config.SLACK_BOT_TOKEN, slackApiUrl: config.SLACK_API_URL, logger });
  const p = buildPlatform(config, logger);
  warnPlaintextPasswords(p.connections.target, logger);
  const watch = new WorkerWatch(p.redis, [], { maxWaitMs: config.HEALTHZ_DUE_JOB_MAX_WAIT_MS, now: p.now, logger });
  const { agentJobs, digests, visitors, settings, documentThread, agentView, ask, conversations, access } =
    buildFeatures(p);
  const intakeDepth = createQueue(p.queues, INTAKE_QUEUE, {}); // read on the queue connection: the intake's own one waits out its WAITs
  p.metrics.watchQueues([intakeDepth, agentJobs.pollQueue, digests.digestQueue, ask.answerQueue]);
  const routes: HttpRoute[] = [
    {
      method: 'GET',
      path: '/healthz',
      handler: healthHandler({
        redis: p.redis,
        probeKey: `${p.prefix}:healthz:${hostname()}:${process.pid}`,
        stuckWorkers: () => watch.stuck(),
      }),
    },
    {
      method: 'GET',
      path: '/metrics',
      handler: metricsHandler({
        registry: p.metrics.registry,
        logger,
        ...(config.METRICS_TOKEN ? { token: config.METRICS_TOKEN } : {}),
      }),
    },
  ];
  const { app } = createSlackApp({
    config,
    logger,
    inFlight: p.inFlight,
    commands: COMMANDS,
    routes,
    observer: p.metrics,
    ...(identity ? { identity } : {}),
  });
  agentJobs.register(app);
  ask.register(app);
  conversations.register(app);
  visitors.register(app);
  documentThread.register(app);
  digests.register(app);
  settings.register(app);
  agentView.register(app);
  access.register(app);
  await p.intake.checkReplication();
  await app.start();
  void checkEvictionPolicy(p.redis, logger);
  const workers: Worker[] = [
    p.intake.startWorker(),
    ...agentJobs.startWorkers(),
    ...digests.startWorkers(),
    ...ask.startWorkers(),
  ];
  watch.add(workers.map((w) => ({ name: w.name, keys: w.keys, worker: w })));
  watch.start();
  logger.info(
    {
      port: config.PORT,
      mode: config.SLACK_APP_TOKEN ? 'socket' : 'http',
      redisMode: p.connections.target.mode,
      queuePrefix: p.prefix,
    },
    'docs-agent-slack is running',
  );
  const stop = onceOnly(async () => {
    logger.info('shutting down: no new work; finishing in-flight calls');
    await app.stop().catch((err: unknown) => logger.warn({ err }, 'receiver stop failed'));
    ask.abort(); // answers being written end with the cut-off notice before the workers close
    await p.inFlight.drain(SHUTDOWN_BUDGET_MS / 2);
    await Promise.all(workers.map((w) => w.close()));
    await agentJobs.close(SHUTDOWN_BUDGET_MS / 4);
    await digests.close();
    await ask.close();
    await Promise.all([p.intake.close(), intakeDepth.close()]);
    await p.docsApi.close();
    await p.discovery?.close();
    watch.stop();
    await p.connections.close();
    logger.info('shutdown complete');
  });
  return { app, redis: p.redis, intake: p.intake, agentJobs, digests, metrics: p.metrics, stop };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = readConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const problem of err.problems) console.error(`config error: ${problem}`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  let bot: RunningBot;
  try {
    bot = await startBot(config, logger);
  } catch (err) {
    logStartFailure(logger, err);
    process.exit(1);
  }
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'signal received');
    // Exit 0 after a clean stop; 1 when the budget ran out or the stop failed.
    exitAfterStop(bot.stop, { budgetMs: SHUTDOWN_BUDGET_MS, logger, exit: (code) => process.exit(code) });
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

if (isEntryPoint(import.meta.url)) void main();
