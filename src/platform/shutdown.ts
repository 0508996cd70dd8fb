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

/** The drain's default in HTTP mode, in ms: a load balancer keeps sending for a few seconds after SIGTERM. */
export const HTTP_DRAIN_MS = 5_000;

/**
 * SHUTDOWN_DRAIN_MS, or its mode's default: {@link HTTP_DRAIN_MS} in HTTP mode, 0 in Socket Mode
 * (Slack holds the WebSocket and sends its envelopes to another connection once this one closes).
 * @returns milliseconds.
 */
export function shutdownDrainMs(c: { SHUTDOWN_DRAIN_MS?: number | undefined; SLACK_APP_TOKEN?: string | undefined }) {
  return c.SHUTDOWN_DRAIN_MS ?? (c.SLACK_APP_TOKEN ? 0 : HTTP_DRAIN_MS);
}

/**
 * A replica's drain before it stops. A load balancer (or Kubernetes, whose endpoint removal is
 * asynchronous) keeps sending requests for a few seconds after SIGTERM, and Slack retries events but
 * not slash commands or interactivity: so for `ms` the replica reports not-ready (`/healthz` reads
 * {@link draining}) while it still takes and acks requests, and only then closes its port.
 */
export class Drain {
  #started = false;
  #ended = false;
  #finish: (() => void) | undefined;

  /** @param ms - the drain's length in ms (0: none). */
  constructor(readonly ms: number) {}

  /** Whether the drain has begun (it stays true until the process exits). */
  get draining(): boolean {
    return this.#started;
  }

  /** Begins the drain; resolves after `ms`, or at once when {@link end} was or is called. */
  run(): Promise<void> {
    this.#started = true;
    if (this.#ended || this.ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#finish?.(), this.ms);
      this.#finish = () => {
        clearTimeout(timer);
        this.#finish = undefined;
        resolve();
      };
    });
  }

  /** Ends the drain now (a second SIGTERM or SIGINT): the port closes and the stop goes on. */
  end(): void {
    this.#ended = true;
    this.#finish?.();
  }
}
