import { pino, type Logger } from 'pino';
import { currentRequestContext } from './request-context.js';

/**
 * Paths pino censors in every log line, so secrets (`DOCS_API_KEY`, Slack tokens, the signing
 * secret) never reach the logs even when an object holding them is logged by mistake.
 */
export const REDACT_PATHS = [
  'authorization',
  'Authorization',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  '*.headers.authorization',
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'DOCS_API_KEY',
  '*.DOCS_API_KEY',
  'SLACK_BOT_TOKEN',
  '*.SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  '*.SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  '*.SLACK_SIGNING_SECRET',
];

/**
 * Creates the process logger: pino JSON lines on stdout (one object per line, `time` in ms).
 * Errors logged under `err` go through pino's standard serializer (type, message, stack, and
 * their own fields such as `code` and Slack's `data.error`). A line written while a Slack request
 * (or its intake job) is handled carries that request's `requestId`.
 *
 * @param level - pino level (`info`, `debug`, …, `silent`).
 * @param destination - where lines go; default stdout. Tests pass a stream to read them.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const opts = {
    level,
    base: { service: 'docs-agent-slack' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    mixin: () => ({ ...currentRequestContext() }),
  };
  return destination ? pino(opts, destination as pino.DestinationStream) : pino(opts);
}

export type { Logger };
