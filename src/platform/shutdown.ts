import type { Logger } from './logger.js';

/** What {@link exitAfterStop} needs. */
interface ExitAfterStopOptions {
  /** How long the graceful stop may take before the process exits anyway, in ms. */
  budgetMs: number;
  logger: Logger;
  /** Ends the process with a code (production: `process.exit`). */
  exit: (code: number) => void;
}

/**
 * Runs a graceful stop and ends the process: exit code 0 once it completed within `budgetMs`;
 * 1 when the budget ran out first (the stop was cut short: in-flight work is left to another
 * replica, and a supervisor should see that it was not clean) or when the stop failed.
 */
export function exitAfterStop(stop: () => Promise<void>, opts: ExitAfterStopOptions): void {
  const timer = setTimeout(() => {
    opts.logger.warn({ budgetMs: opts.budgetMs }, 'shutdown took too long; exiting with code 1');
    opts.exit(1);
  }, opts.budgetMs);
  timer.unref();
  stop().then(
    () => {
      clearTimeout(timer);
      opts.exit(0);
    },
    (err: unknown) => {
      clearTimeout(timer);
      opts.logger.error({ err }, 'shutdown failed; exiting with code 1');
      opts.exit(1);
    },
  );
}
