import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../logger.js';

/** Bolt's line when `authorize` throws (App.processEvent), said again with detail by oauth.ts. */
const BOLT_AUTHORIZE_FAILED = 'Authorization of incoming event did not succeed. No listeners will be called.';

/**
 * Adapts our pino logger to the `Logger` interface Bolt and `@slack/web-api` expect, so their
 * lines are JSON like ours (and pass through pino's redaction).
 */
export function toBoltLogger(logger: Logger): BoltLogger {
  let level: LogLevel = LogLevel.INFO;
  const child = logger.child({ component: 'slack' });
  // Bolt and the Web API client log whole objects (requests, responses): flatten them to text and
  // scrub anything token-shaped, since pino's path-based redaction cannot see inside a string.
  const fmt = (msg: unknown[]) =>
    redactSecrets(
      msg
        .map((m) => (typeof m === 'string' ? m : m instanceof Error ? `${m.name}: ${m.message}` : JSON.stringify(m)))
        .join(' '),
    );
  return {
    debug: (...msg) => child.debug(fmt(msg)),
    info: (...msg) => child.info(fmt(msg)),
    // OAuth mode: an unknown installation's request gets the one warn line of oauth.ts instead.
    warn: (...msg) => (msg[0] === BOLT_AUTHORIZE_FAILED ? child.debug(fmt(msg)) : child.warn(fmt(msg))),
    error: (...msg) => child.error(fmt(msg)),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/**
 * Replaces what looks like a secret in free text: Slack tokens (`xoxb-…`, `xoxp-…`, `xapp-…`),
 * docs API keys (`mint_…`), `Bearer …` credentials and `token=`/`"token":` values.
 */
function redactSecrets(text: string): string {
  return text
    .replace(/\bxox[a-z]-[A-Za-z0-9-]+/g, '[redacted]')
    .replace(/\bxapp-[A-Za-z0-9-]+/g, '[redacted]')
    .replace(/\bmint_[A-Za-z0-9_-]+/g, '[redacted]')
    .replace(/\bBearer\s+[^\s"',]+/gi, 'Bearer [redacted]')
    .replace(/("?(?:token|signing_?secret|client_secret)"?\s*[:=]\s*"?)[^\s"',&}]+/gi, '$1[redacted]');
}
