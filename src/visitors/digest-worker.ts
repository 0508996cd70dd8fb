import type { WebClient } from '@slack/web-api';
import type { ConnectionOptions, Worker } from 'bullmq';
import type { Deps } from '../deps.js';

/** Starts the worker that sends weekly digests (queue `send-digest`). */
export function startDigestWorker(_deps: Deps, _slack: WebClient, _connection: ConnectionOptions): Worker | undefined {
  return undefined; // filled in by the visitors feature
}
