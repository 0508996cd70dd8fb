import type { Logger } from './logger.js';
import { hasCode, PlatformErrorCode } from './errors.js';

/**
 * An expected reason the bot cannot start (a token Slack refuses, Slack out of reach, a Redis that
 * refuses what the configuration needs): `message` is the one line an operator needs, `fields`
 * its log fields (the variable it names, never a secret). `main` logs it without a stack and
 * exits with code 1.
 */
export class StartupError extends Error {
  readonly code = PlatformErrorCode.StartupRefused;
  constructor(
    message: string,
    readonly fields: { variable: string } & Record<string, string>,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}

/**
 * Logs why the bot could not start, at fatal: a {@link StartupError} (an expected failure) as its
 * one line with its fields and no stack; anything else as `could not start` with its stack.
 */
export function logStartFailure(logger: Logger, err: unknown): void {
  if (hasCode<StartupError>(err, PlatformErrorCode.StartupRefused)) logger.fatal(err.fields, err.message);
  else logger.fatal({ err }, 'could not start');
}
