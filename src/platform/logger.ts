import { pino, type Logger } from 'pino';
import { currentRequestContext } from './request-context.js';

/**
 * Paths pino censors in every log line, so secrets (`DOCS_API_KEY`, Slack tokens, the signing
 * secret) never reach the logs even when an object holding them is logged by mistake.
 */
const REDACT_PATHS = [
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
  'DOCS_ASSISTANT_API_KEY',
  '*.DOCS_ASSISTANT_API_KEY',
  // DOCS_WORKSPACE_PROJECTS' keys, read from the variables its entries name (config.ts).
  'docsWorkspaces',
  '*.docsWorkspaces',
  'SLACK_BOT_TOKEN',
  '*.SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  '*.SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  '*.SLACK_SIGNING_SECRET',
  'SLACK_CLIENT_SECRET',
  '*.SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  '*.SLACK_STATE_SECRET',
  'SLACK_INSTALLATION_KEY',
  '*.SLACK_INSTALLATION_KEY',
  'SLACK_INSTALLATION_KEY_PREVIOUS',
  '*.SLACK_INSTALLATION_KEY_PREVIOUS',
  'password',
  '*.password',
  'sentinelPassword',
  '*.sentinelPassword',
  'REDIS_PASSWORD',
  '*.REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
  '*.REDIS_SENTINEL_PASSWORD',
  'REDIS_URL',
  '*.REDIS_URL',
];

/**
 * pino's error serializer, without the arguments of a failed Redis command: ioredis puts the
 * command on its errors (`err.command = { name, args }`), and its arguments can hold a password
 * (`HELLO 3 AUTH <user> <password>` when Redis refuses the credentials) or a recorded request
 * (a BullMQ `add` refused with READONLY or NOREPLICAS carries the job's data: people's text).
 * Only `command.name` is kept, in `err` and in the errors it wraps (`cause`, Bolt's `original(s)`, …).
 */
function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown;
  scrubCommands(out, 0);
  return out;
}

function scrubCommands(value: unknown, depth: number): void {
  if (depth > 5 || value === null || typeof value !== 'object') return;
  const v = value as Record<string, unknown>;
  const command = v.command;
  if (command !== null && typeof command === 'object') {
    const name = (command as { name?: unknown }).name;
    v.command = typeof name === 'string' ? { name } : {};
  }
  for (const key of ['cause', 'previousErrors', 'lastNodeError', 'original', 'originals']) {
    const next = v[key];
    if (Array.isArray(next)) next.forEach((e) => scrubCommands(e, depth + 1));
    else scrubCommands(next, depth + 1);
  }
}

/**
 * Creates the process logger: pino JSON lines on stdout (one object per line, `time` in ms).
 * Errors logged under `err` go through pino's standard serializer (type, message, stack, and
 * their own fields such as `code` and Slack's `data.error`), less a failed Redis command's
 * arguments ({@link serializeError}). A line written while a Slack request
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
    serializers: { err: serializeError },
    mixin: () => ({ ...currentRequestContext() }),
  };
  return destination ? pino(opts, destination as pino.DestinationStream) : pino(opts);
}

export type { Logger };
