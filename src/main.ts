import type { App } from '@slack/bolt';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { pathToFileURL } from 'node:url';
import { createAgentJobs, type AgentJobs } from './features/agent-jobs/index.js';
import { createDigests, type Digests } from './features/digests/index.js';
import { createVisitorsServices, register as registerVisitors } from './features/visitors/index.js';
import { ConfigError, readConfig, type Config } from './platform/config.js';
import { DocsApiClient } from './platform/docs-api/client.js';
import { healthHandler } from './platform/health.js';
import { InFlight } from './platform/in-flight.js';
import { createLogger, type Logger } from './platform/logger.js';
import type { QueueContext } from './platform/queues.js';
import { bullConnection, createStateRedis } from './platform/redis.js';
import { createSlackApp } from './platform/slack/app.js';
import { Dedupe } from './platform/slack/dedupe.js';
import { createWebClient } from './platform/slack/web-client.js';

/** Milliseconds a graceful shutdown may take before the process exits anyway (SIGTERM: ≤ 10 s). */
export const SHUTDOWN_BUDGET_MS = 9_000;

/** A running bot: web endpoint and workers in one process. */
export interface RunningBot {
  app: App;
  redis: Redis;
  agentJobs: AgentJobs;
  digests: Digests;
  /** Stops taking work, finishes in-flight calls, closes workers and Redis. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The composition root. Builds the platform (Redis, queues, docs API client, Slack clients, the
 * Bolt app), then each feature's services with what it needs, then registers the features'
 * listeners and starts their workers.
 *
 * @throws when the HTTP port cannot be bound or Slack's `auth.test` fails at start.
 */
export async function startBot(config: Config, logger: Logger = createLogger(config.LOG_LEVEL)): Promise<RunningBot> {
  const now = Date.now;
  const prefix = config.QUEUE_PREFIX;
  const redis = createStateRedis(config.REDIS_URL, logger);
  const queues: QueueContext = { connection: bullConnection(config.REDIS_URL), prefix, logger };
  const docsApi = new DocsApiClient({ baseUrl: config.DOCS_API_URL, apiKey: config.DOCS_API_KEY, projectId: config.DOCS_PROJECT_ID });
  const slackOpts = { token: config.SLACK_BOT_TOKEN, slackApiUrl: config.SLACK_API_URL, logger };
  const slack = createWebClient(slackOpts);
  const dedupe = new Dedupe(redis, prefix);
  const inFlight = new InFlight();
  const poll = { minMs: config.POLL_MIN_INTERVAL_MS, maxMs: config.POLL_MAX_INTERVAL_MS };
  const defaultSchedule = { pattern: config.DIGEST_CRON, tz: config.DIGEST_TZ };

  const agentJobs = createAgentJobs({
    queues,
    redis,
    prefix,
    docsApi,
    slack,
    statusSlack: createWebClient({ ...slackOpts, rejectRateLimitedCalls: true }),
    dedupe,
    logger,
    poll,
    timeoutMs: config.JOB_TIMEOUT_MS,
    followupPolicy: config.FOLLOWUP_POLICY,
    ignorePrefix: config.FOLLOWUP_IGNORE_PREFIX,
    homeDefaults: { followupPolicy: config.FOLLOWUP_POLICY, ignorePrefix: config.FOLLOWUP_IGNORE_PREFIX, digestCron: config.DIGEST_CRON, digestTz: config.DIGEST_TZ },
    now,
  });
  const visitors = createVisitorsServices({ redis, prefix, docsApi, projectId: config.DOCS_PROJECT_ID, logger, now });
  const digests = createDigests({ queues, redis, prefix, visitors, startJob: agentJobs.start, slack, defaultSchedule, logger, now });

  const app = createSlackApp({ config, logger, dedupe, inFlight, health: healthHandler({ redis }) });
  agentJobs.register(app);
  registerVisitors(app, { services: visitors, slack, redis, prefix, now, subcommands: digests.subcommands });
  digests.register(app);
  await app.start(config.PORT);
  const workers: Worker[] = [...agentJobs.startWorkers(), ...digests.startWorkers()];
  logger.info({ port: config.PORT, mode: config.SLACK_APP_TOKEN ? 'socket' : 'http', queuePrefix: prefix }, 'docs-agent-slack is running');

  const stop = onceOnly(async () => {
    logger.info('shutting down: no new work; finishing in-flight calls');
    await app.stop().catch((err: unknown) => logger.warn({ err }, 'receiver stop failed'));
    await inFlight.drain(SHUTDOWN_BUDGET_MS / 2);
    await Promise.all(workers.map((w) => w.close()));
    await agentJobs.close(SHUTDOWN_BUDGET_MS / 4);
    await digests.close();
    await docsApi.close();
    await redis.quit().catch(() => redis.disconnect());
    logger.info('shutdown complete');
  });
  return { app, redis, agentJobs, digests, stop };
}

/** Wraps `fn` so that it runs once; later calls get the first call's promise. */
function onceOnly(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = readConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) console.error(`config error: ${p}`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  let bot: RunningBot;
  try {
    bot = await startBot(config, logger);
  } catch (err) {
    logger.fatal({ err }, 'could not start');
    process.exit(1);
  }
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'signal received');
    setTimeout(() => {
      logger.warn('shutdown took too long; exiting');
      process.exit(0);
    }, SHUTDOWN_BUDGET_MS).unref();
    void bot.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main();
}
