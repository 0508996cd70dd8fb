import type { App } from '@slack/bolt';
import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { hostname } from 'node:os';
import type { AgentJobs } from './features/agent-jobs/index.js';
import type { Reports } from './features/reports/index.js';
import { buildFeatures, type Features } from './compose.js';
import { warnAssistantKeyPrefix } from './platform/assistant-key.js';
import { readConfig, type Config, type ConfigError } from './platform/config.js';
import { hasCode, PlatformErrorCode } from './platform/errors.js';
import { isEntryPoint } from './platform/entry-point.js';
import { healthHandler } from './platform/health.js';
import { Intake, INTAKE_QUEUE } from './platform/intake.js';
import { createLogger, type Logger } from './platform/logger.js';
import type { BotMetrics } from './platform/metrics.js';
import { metricsHandler, warnOpenMetrics } from './platform/metrics-route.js';
import { onceOnly } from './platform/once.js';
import { createQueue } from './platform/queues.js';
import { cleanTargets, QueueCleaner } from './platform/queue-clean.js';
import { checkEvictionPolicy } from './platform/redis.js';
import { warnPlaintextPasswords } from './platform/redis-target.js';
import { buildPlatform, type Platform } from './platform/runtime.js';
import { socketModeObserver } from './platform/socket-mode-gauge.js';
import { Drain, exitAfterStop, shutdownDrainMs } from './platform/shutdown.js';
import { createSlackApp } from './platform/slack/app.js';
import type { Installer } from './platform/slack/oauth.js';
import { OrgWorkspaces } from './platform/slack/org-workspaces.js';
import type { HttpRoute } from './platform/slack/receiver.js';
import { checkBotInstall, logStartFailure, type BotInstall } from './platform/slack/startup.js';
import { WorkerWatch } from './platform/worker-watch.js';

/**
 * Milliseconds a graceful stop may take, after the drain (SHUTDOWN_DRAIN_MS), before the process exits
 * anyway: with no drain the process is gone within Docker's default 10 s `docker stop` timeout.
 */
export const SHUTDOWN_BUDGET_MS = 9_000;

/** The slash commands of manifest.yml. */
export const COMMANDS = ['/docs-edit', '/docs-reply', '/docs-ask', '/docs-visitors', '/docs-settings'] as const;

/** A running bot: web endpoint and workers in one process. */
export interface RunningBot {
  app: App;
  redis: Redis;
  intake: Intake;
  agentJobs: AgentJobs;
  reports: Reports;
  /** The bot's Prometheus metrics (its own registry), served on `GET /metrics`. */
  metrics: BotMetrics;
  /** Stops taking work, finishes in-flight calls, closes workers and Redis. Idempotent. */
  stop(): Promise<void>;
  /**
   * The drain before a stop on SIGTERM: `drain.ms` (SHUTDOWN_DRAIN_MS, or its mode's default),
   * `drain.end()` cuts it short (a second signal).
   */
  drain: Drain;
  /**
   * What SIGTERM does: `/healthz` answers 503 "draining" while requests are still taken and acked,
   * for `drain.ms` or until `drain.end()`; then {@link stop}. Idempotent.
   */
  drainAndStop(): Promise<void>;
}

/**
 * `GET /healthz` (Redis answers, no worker stuck; 503 while draining) and `GET /metrics` (bearer
 * METRICS_TOKEN when set).
 */
function httpRoutes(p: Platform, watch: WorkerWatch, drain: Drain): HttpRoute[] {
  const health = healthHandler({
    redis: p.redis,
    probeKey: `${p.prefix}:healthz:${hostname()}:${process.pid}`,
    stuckWorkers: () => watch.stuck(),
    draining: () => drain.draining,
  });
  const token = p.config.METRICS_TOKEN;
  const metrics = metricsHandler({ registry: p.metrics.registry, logger: p.logger, ...(token ? { token } : {}) });
  return [
    { method: 'GET', path: '/healthz', handler: health },
    { method: 'GET', path: '/metrics', handler: metrics },
  ];
}

/** Registers every feature's listeners on the Bolt app. */
function registerListeners(app: App, f: Features): void {
  for (const feature of [
    f.agentJobs,
    f.ask,
    f.conversations,
    f.reports,
    f.documentThread,
    f.settings,
    f.agentView,
    f.access,
  ])
    feature.register(app);
}

/**
 * Stops the bot, once: the queue cleaner's timer stops, no new work (the receiver stops), answers
 * being written end with their cut-off notice, calls in flight finish (within half the budget),
 * then the workers, the features' queues, the intake, the API clients, the worker watch and Redis
 * close, in that order.
 */
function stopper(
  p: Platform,
  app: App,
  f: Features,
  run: { workers: Worker[]; intakeQueue: Queue; watch: WorkerWatch; cleaner: QueueCleaner },
) {
  const { logger } = p;
  return onceOnly(async () => {
    logger.info('shutting down: no new work; finishing in-flight calls');
    run.cleaner.stop();
    await app.stop().catch((err: unknown) => logger.warn({ err }, 'receiver stop failed'));
    f.ask.abort(); // answers being written end with the cut-off notice before the workers close
    await p.inFlight.drain(SHUTDOWN_BUDGET_MS / 2);
    await Promise.all(run.workers.map((w) => w.close()));
    await f.agentJobs.close(SHUTDOWN_BUDGET_MS / 4);
    await f.reports.close();
    await f.ask.close();
    await Promise.all([p.intake.close(), run.intakeQueue.close()]);
    await p.docsApi.close();
    await p.discovery?.close();
    run.watch.stop();
    await p.connections.close();
    logger.info('shutdown complete');
  });
}

/**
 * OAuth mode's installer (SLACK_CLIENT_ID set), its installations in Redis sealed with
 * SLACK_INSTALLATION_KEY (and _PREVIOUS during a rotation); `{}` in single-token mode.
 */
function oauthInstaller(p: Platform): { installer?: Installer } {
  return p.installer ? { installer: p.installer } : {};
}

/** The start-up warnings about the configuration (each one line, naming variables, never a value). */
function warnAboutConfig(p: Platform, config: Config, logger: Logger): void {
  warnPlaintextPasswords(p.connections.target, logger);
  warnAssistantKeyPrefix(config, logger);
  warnOpenMetrics(config, logger);
}

/** Enterprise Grid with DOCS_WORKSPACE_PROJECTS: what the receiver's org-workspace guard reads; `{}` otherwise. */
function orgWorkspacesOption(p: Platform, install: BotInstall) {
  if (!p.docsWorkspaces.mapped) return {};
  return {
    orgWorkspaces: {
      workspaces: new OrgWorkspaces(),
      listTeams: (args: { limit: number; cursor?: string }) => p.slack.reads.auth.teams.list(args),
      tokenOrg: async () => (await p.slack.reads.auth.test()).enterprise_id || undefined,
      hasOwnEntry: (teamId: string) => p.docsWorkspaces.hasOwnEntry(teamId),
      singleTokenOrgWide: install.enterpriseInstall,
      singleTokenTeamId: install.enterpriseInstall ? undefined : install.teamId,
    },
  };
}

/**
 * The composition root. Builds the platform (Redis, queues, the intake, the docs API client, Slack
 * clients; platform/runtime.ts), then each feature with what it needs (compose.ts), then the Bolt
 * app on the bot's receiver with every feature's listeners, then starts the workers.
 *
 * @throws {@link StartupError} when Slack refuses SLACK_BOT_TOKEN (`auth.test`, checked first) or
 * SLACK_APP_TOKEN, or cannot be reached; any other error when e.g. the HTTP port cannot be bound.
 */
export async function startBot(config: Config, logger: Logger = createLogger(config.LOG_LEVEL)): Promise<RunningBot> {
  // OAuth mode has no token of its own to check: each installation's comes from the store.
  const install: BotInstall =
    config.SLACK_BOT_TOKEN === undefined
      ? { enterpriseInstall: false }
      : await checkBotInstall({ token: config.SLACK_BOT_TOKEN, slackApiUrl: config.SLACK_API_URL, logger });
  const { identity } = install;
  if (install.enterpriseInstall)
    logger.info({ enterpriseId: install.enterpriseId }, 'SLACK_BOT_TOKEN is an org-wide install (Enterprise Grid)');
  const p = buildPlatform(config, logger, { enterpriseInstall: install.enterpriseInstall });
  warnAboutConfig(p, config, logger);
  const drain = new Drain(shutdownDrainMs(config));
  const watch = new WorkerWatch(p.redis, [], { maxWaitMs: config.HEALTHZ_DUE_JOB_MAX_WAIT_MS, now: p.now, logger });
  const features = buildFeatures(p);
  const { agentJobs, reports, ask } = features;
  // The intake's queue on the queue connection (the intake's own one waits out its WAITs), with its
  // options: its depth is read, and its finished records cleaned, here.
  const intakeQueue = createQueue(p.queues, INTAKE_QUEUE, p.intake.queue.defaultJobOptions);
  const preview = agentJobs.previewQueue ? [agentJobs.previewQueue] : [];
  const queues = [intakeQueue, agentJobs.pollQueue, ...preview, reports.digestQueue, ask.answerQueue];
  p.metrics.watchQueues(queues);
  const { app } = createSlackApp({
    config,
    logger,
    inFlight: p.inFlight,
    commands: COMMANDS,
    routes: httpRoutes(p, watch, drain),
    observer: config.SLACK_APP_TOKEN ? socketModeObserver(p.metrics) : p.metrics,
    ...(identity ? { identity } : {}),
    ...oauthInstaller(p),
    onUninstalled: features.onUninstalled,
    ...orgWorkspacesOption(p, install),
  });
  registerListeners(app, features);
  await p.intake.checkReplication();
  await app.start();
  void checkEvictionPolicy(p.redis, logger);
  const workers: Worker[] = [
    p.intake.startWorker(),
    ...agentJobs.startWorkers(),
    ...reports.startWorkers(),
    ...ask.startWorkers(),
  ];
  watch.add(workers.map((w) => ({ name: w.name, keys: w.keys, worker: w })));
  watch.start();
  // Finished jobs past their queue's age are deleted hourly (BullMQ only does it when a later job finishes).
  const cleaner = new QueueCleaner(cleanTargets(queues, workers), { logger, registry: p.metrics.registry });
  cleaner.start();
  const mode = config.SLACK_APP_TOKEN ? 'socket' : 'http';
  const running = { port: config.PORT, mode, redisMode: p.connections.target.mode, queuePrefix: p.prefix };
  logger.info(running, 'docs-agent-slack is running');
  const stop = stopper(p, app, features, { workers, intakeQueue, watch, cleaner });
  const drainAndStop = onceOnly(async () => {
    if (drain.ms > 0) logger.info({ drainMs: drain.ms }, 'draining: /healthz answers 503, requests still taken');
    await drain.run();
    await stop();
  });
  return { app, redis: p.redis, intake: p.intake, agentJobs, reports, metrics: p.metrics, stop, drain, drainAndStop };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = readConfig(process.env);
  } catch (err) {
    if (hasCode<ConfigError>(err, PlatformErrorCode.ConfigInvalid)) {
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
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal (Ctrl-C twice, or a supervisor's repeat): the port closes now, the stop goes on.
      logger.info({ signal }, 'signal received again: ending the drain');
      bot.drain.end();
      return;
    }
    stopping = true;
    logger.info({ signal }, 'signal received');
    // Exit 0 after a clean stop; 1 when the budget (after the drain) ran out or the stop failed.
    const budgetMs = bot.drain.ms + SHUTDOWN_BUDGET_MS;
    exitAfterStop(bot.drainAndStop, { budgetMs, logger, exit: (code) => process.exit(code) });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

if (isEntryPoint(import.meta.url)) void main();
