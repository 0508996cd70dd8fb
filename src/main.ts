import { Redis } from 'ioredis';
import { pathToFileURL } from 'node:url';
import { createApp } from './app.js';
import { ConfigError, readConfig, type Config } from './config.js';
import type { Deps } from './deps.js';
import { DocsApiClient } from './docs-api/client.js';
import { InFlight } from './in-flight.js';
import { createLogger, type Logger } from './logger.js';
import { createDigestQueue } from './queues/digest-queue.js';
import { createPollQueue } from './queues/poll-queue.js';
import { startWorkers } from './queues/workers.js';
import { Dedupe } from './store/dedupe.js';
import { JobStore } from './store/job-store.js';
import { KeyedSerial } from './keyed-serial.js';
import { StatusPresenter } from './agent-jobs/status-presenter.js';
import { toBoltLogger } from './slack/bolt-logger.js';
import { WebClient } from '@slack/web-api';

/** Milliseconds a graceful shutdown may take before the process exits anyway (SIGTERM: ≤ 10 s). */
export const SHUTDOWN_BUDGET_MS = 9_000;

/** A running bot: web endpoint and workers in one process. */
export interface RunningBot {
  deps: Deps;
  /** Stops taking work, finishes in-flight calls, closes workers and Redis. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the bot (HTTP or Socket Mode receiver + BullMQ workers) from a validated config.
 * @throws when the HTTP port cannot be bound or Slack's `auth.test` fails at start.
 */
export async function startBot(config: Config, logger: Logger = createLogger(config.LOG_LEVEL)): Promise<RunningBot> {
  const redisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true } as const;
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, connectionName: 'docs-agent-state' });
  redis.on('error', (err) => logger.warn({ err: { message: err.message } }, 'redis connection error'));
  const connection = { url: config.REDIS_URL, ...redisOptions };
  const docsApi = new DocsApiClient({ baseUrl: config.DOCS_API_URL, apiKey: config.DOCS_API_KEY, projectId: config.DOCS_PROJECT_ID });
  const pollQueue = createPollQueue(connection, config.QUEUE_PREFIX);
  const digestQueue = createDigestQueue(connection, config.QUEUE_PREFIX);
  const store = new JobStore(redis, config.QUEUE_PREFIX);
  // Status edits get their own client that rejects 429s, so the presenter waits out Retry-After
  // and then sends the latest state rather than a stale one.
  const statusSlack = new WebClient(config.SLACK_BOT_TOKEN, {
    slackApiUrl: config.SLACK_API_URL,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 2, minTimeout: 500, maxTimeout: 2_000 },
    logger: toBoltLogger(logger),
  });
  const deps: Deps = {
    config,
    logger,
    redis,
    store,
    dedupe: new Dedupe(redis, config.QUEUE_PREFIX),
    followups: new KeyedSerial(),
    status: new StatusPresenter({ redis, prefix: config.QUEUE_PREFIX, store, slack: statusSlack, logger, now: Date.now }),
    docsApi,
    pollQueue,
    digestQueue,
    inFlight: new InFlight(),
    now: Date.now,
  };
  const app = createApp(deps);
  await app.start(config.PORT);
  const workers = startWorkers(deps, app.client, connection);
  logger.info(
    { port: config.PORT, mode: config.SLACK_APP_TOKEN ? 'socket' : 'http', queuePrefix: config.QUEUE_PREFIX },
    'docs-agent-slack is running',
  );

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down: no new work; finishing in-flight calls');
      await app.stop().catch((err: Error) => logger.warn({ err: { message: err.message } }, 'receiver stop failed'));
      await deps.inFlight.drain(SHUTDOWN_BUDGET_MS / 2);
      await Promise.all(workers.map((w) => w.close()));
      await deps.status.flush(SHUTDOWN_BUDGET_MS / 4);
      await pollQueue.close();
      await digestQueue.close();
      await docsApi.close();
      await redis.quit().catch(() => redis.disconnect());
      logger.info('shutdown complete');
    })());
  return { deps, stop };
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
    logger.fatal({ err: { name: (err as Error).name, message: (err as Error).message } }, 'could not start');
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
