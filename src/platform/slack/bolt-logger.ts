import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../logger.js';

/**
 * Adapts our pino logger to the `Logger` interface Bolt and `@slack/web-api` expect, so their
 * lines are JSON like ours (and pass through pino's redaction).
 */
export function toBoltLogger(logger: Logger): BoltLogger {
  let level: LogLevel = LogLevel.INFO;
  const child = logger.child({ component: 'slack' });
  const fmt = (msg: unknown[]) => msg.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join(' ');
  return {
    debug: (...msg) => child.debug(fmt(msg)),
    info: (...msg) => child.info(fmt(msg)),
    warn: (...msg) => child.warn(fmt(msg)),
    error: (...msg) => child.error(fmt(msg)),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
