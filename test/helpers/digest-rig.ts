import type { WebClient } from '@slack/web-api';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { FakeDocsApi } from '../../sandbox/fake-docs-api.js';
import type { DigestDeps } from '../../src/features/reports/digests/service.js';
import type { DigestJobData } from '../../src/features/reports/digests/store.js';
import { createDigestQueue } from '../../src/features/reports/digests/worker.js';
import { createReportServices } from '../../src/features/reports/service.js';
import type { DocsApiClient } from '../../src/platform/docs-api/client.js';
import type { Logger } from '../../src/platform/logger.js';
import { fakeDocsApiClient } from './fake-docs-api-client.js';
import { TEST_REDIS_URL } from './redis.js';
import { TEST_SIGNER } from './signer.js';

/** A digest run's dependencies and the two of them that must be closed. */
export interface DigestRig {
  docsApi: DocsApiClient;
  digestQueue: Queue<DigestJobData>;
  deps: DigestDeps;
}

/**
 * A digest run's dependencies over real Redis (`prefix`), a Slack client and the fake docs API: a
 * client of the fake with `apiKey` and `projectId` (retrying at once), the digest queue, the report
 * services at the clock `now`, the test signer, UTC for a run that names no time zone, and every
 * channel on `projectId` unless `projectFor` says otherwise. Close with {@link closeDigestRig}.
 */
export function digestRig(o: {
  docs: Pick<FakeDocsApi, 'url'>;
  apiKey: string;
  projectId: string;
  redis: Redis;
  prefix: string;
  slack: WebClient;
  now: () => number;
  logger: Logger;
  projectFor?: DigestDeps['projectFor'];
}): DigestRig {
  const { apiKey, projectId, redis, prefix, logger, now } = o;
  const docsApi = fakeDocsApiClient(o.docs, { apiKey, projectId, retryMinDelayMs: 1 });
  const digestQueue = createDigestQueue({ connection: { url: TEST_REDIS_URL }, prefix, logger });
  const deps: DigestDeps = {
    visitors: createReportServices({ redis, prefix, docsApi, projectId, logger, now, signer: TEST_SIGNER }),
    signer: TEST_SIGNER,
    redis,
    prefix,
    digestQueue,
    slack: o.slack,
    defaultTz: 'UTC',
    projectFor: o.projectFor ?? (async () => projectId),
    logger,
  };
  return { docsApi, digestQueue, deps };
}

/** Closes the digest queue, then the docs API client. */
export async function closeDigestRig({
  digestQueue,
  docsApi,
}: Pick<DigestRig, 'digestQueue' | 'docsApi'>): Promise<void> {
  await digestQueue.close();
  await docsApi.close();
}
