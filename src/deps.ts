import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { DocsApiClient } from './docs-api/client.js';
import type { StatusPresenter } from './agent-jobs/status-presenter.js';
import type { InFlight } from './in-flight.js';
import type { Logger } from './logger.js';
import type { DigestJobData } from './queues/digest-queue.js';
import type { PollJobData } from './queues/poll-queue.js';
import type { Dedupe } from './store/dedupe.js';
import type { JobStore } from './store/job-store.js';
import type { KeyedSerial } from './keyed-serial.js';

/** Everything the listeners and workers share; built once in main.ts (or a test). */
export interface Deps {
  config: Config;
  logger: Logger;
  redis: Redis;
  store: JobStore;
  /** Exactly-once guards for Slack events and messages. */
  dedupe: Dedupe;
  /** Serialises follow-ups per job, in arrival order. */
  followups: KeyedSerial;
  docsApi: DocsApiClient;
  pollQueue: Queue<PollJobData>;
  digestQueue: Queue<DigestJobData>;
  inFlight: InFlight;
  /** The status message + reaction of each job (throttled). */
  status: StatusPresenter;
  /** Clock in epoch ms. */
  now: () => number;
}
