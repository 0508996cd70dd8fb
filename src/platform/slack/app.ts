import { App, LogLevel } from '@slack/bolt';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import type { InFlight } from '../in-flight.js';
import type { Logger } from '../logger.js';
import { toBoltLogger } from './bolt-logger.js';
import type { Dedupe } from './dedupe.js';
import { webClientRetries } from './web-client.js';

/** What {@link createSlackApp} needs. */
export interface SlackAppOptions {
  config: Pick<Config, 'SLACK_BOT_TOKEN' | 'SLACK_SIGNING_SECRET' | 'SLACK_APP_TOKEN' | 'SLACK_API_URL' | 'PORT'>;
  logger: Logger;
  dedupe: Pick<Dedupe, 'claimEvent'>;
  inFlight: InFlight;
  /** `GET /healthz`. */
  health: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/**
 * Builds the Bolt app, with no feature listeners yet (each feature registers its own): the HTTP
 * receiver on `POST /slack/events` (commands, events, interactivity, with Slack's signature check),
 * or Socket Mode when SLACK_APP_TOKEN is set; `GET /healthz`; a global middleware that acts on each
 * Events API `event_id` once across replicas (Slack retries and redelivers events) and tracks the
 * work of every request in `inFlight` for a graceful shutdown; one error handler that logs with the
 * error's stack.
 */
export function createSlackApp(opts: SlackAppOptions): App {
  const { config, logger } = opts;
  const socketMode = Boolean(config.SLACK_APP_TOKEN);
  const app = new App({
    token: config.SLACK_BOT_TOKEN,
    signingSecret: config.SLACK_SIGNING_SECRET,
    appToken: config.SLACK_APP_TOKEN,
    socketMode,
    port: config.PORT,
    endpoints: '/slack/events',
    customRoutes: [{ path: '/healthz', method: ['GET'], handler: opts.health }],
    logger: toBoltLogger(logger),
    logLevel: LogLevel.INFO,
    clientOptions: { slackApiUrl: config.SLACK_API_URL, retryConfig: webClientRetries },
  });
  app.use(async ({ body, next }) => {
    const eventId = (body as { type?: string; event_id?: string }).event_id;
    if ((body as { type?: string }).type === 'event_callback' && eventId && !(await opts.dedupe.claimEvent(eventId))) {
      logger.info({ eventId }, 'duplicate event delivery; ignored');
      return;
    }
    await opts.inFlight.track(next());
  });
  app.error(async (err) => {
    logger.error({ err }, 'listener failed');
  });
  return app;
}
