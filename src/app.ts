import { App, LogLevel } from '@slack/bolt';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deps } from './deps.js';
import { register as registerCommands } from './listeners/commands/index.js';
import { register as registerEvents } from './listeners/events/index.js';
import { register as registerVisitors } from './listeners/visitors/index.js';
import { toBoltLogger } from './slack/bolt-logger.js';

/** Milliseconds `/healthz` waits for Redis's PONG before answering 503. */
export const HEALTH_TIMEOUT_MS = 1_000;

/**
 * Answers `GET /healthz`: 200 `{"status":"ok"}` when Redis answers PING within
 * {@link HEALTH_TIMEOUT_MS}, else 503 `{"status":"unavailable","redis":"down"}`.
 */
export function healthHandler(deps: Pick<Deps, 'redis'>) {
  return async (_req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let ok = false;
    try {
      const pong = await Promise.race([
        deps.redis.ping(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), HEALTH_TIMEOUT_MS).unref()),
      ]);
      ok = pong === 'PONG';
    } catch {
      ok = false;
    }
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { status: 'ok' } : { status: 'unavailable', redis: 'down' }));
  };
}

/**
 * Builds the Bolt app: HTTP receiver on `POST /slack/events` (commands, events, interactivity,
 * with Slack's signature check) or Socket Mode when SLACK_APP_TOKEN is set; `GET /healthz`;
 * every listener. Work that goes on after `ack` is tracked in `deps.inFlight` for shutdown.
 */
export function createApp(deps: Deps): App {
  const { config } = deps;
  const socketMode = Boolean(config.SLACK_APP_TOKEN);
  const app = new App({
    token: config.SLACK_BOT_TOKEN,
    signingSecret: config.SLACK_SIGNING_SECRET,
    appToken: config.SLACK_APP_TOKEN,
    socketMode,
    port: config.PORT,
    endpoints: '/slack/events',
    customRoutes: [{ path: '/healthz', method: ['GET'], handler: healthHandler(deps) }],
    logger: toBoltLogger(deps.logger),
    logLevel: LogLevel.INFO,
    clientOptions: {
      slackApiUrl: config.SLACK_API_URL,
      // Slack's documented retry advice: honour Retry-After on 429, a few retries on 5xx.
      retryConfig: { retries: 4, factor: 2, minTimeout: 500, maxTimeout: 5_000, randomize: true },
    },
  });
  app.use(async ({ body, next }) => {
    // Slack retries events and may redeliver them: act on each event_id once, across replicas.
    const eventId = (body as { type?: string; event_id?: string }).event_id;
    if ((body as { type?: string }).type === 'event_callback' && eventId && !(await deps.dedupe.claimEvent(eventId))) {
      deps.logger.info({ eventId }, 'duplicate event delivery; ignored');
      return;
    }
    await deps.inFlight.track(next());
  });
  app.error(async (error) => {
    deps.logger.error({ err: { name: error.name, message: error.message, code: error.code } }, 'listener failed');
  });
  registerCommands(app, deps);
  registerEvents(app, deps);
  registerVisitors(app, deps);
  return app;
}
