import type { WebClient } from '@slack/web-api';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { FakeDocsApi } from '../../sandbox/fake-docs-api.js';
import type { DigestDeps } from '../../src/features/reports/digests/service.js';
import type { DigestJobData } from '../../src/features/reports/digests/store.js';
import { createDigestQueue } from '../../src/features/reports/digests/worker.js';
import { createReportServices } from '../../src/features/reports/service.js';
import type { DocsApiClient } from '../../src/platform/docs-api/client.js';
import { createLogger, type Logger } from '../../src/platform/logger.js';
import { fakeDocsApiClient } from './fake-docs-api-client.js';
import { dropPrefix, randomPrefix, TEST_REDIS_URL } from './redis.js';
import { TEST_SIGNER } from './signer.js';
import { closeSlackAndDocsFakes, startSlackAndDocsFakes, type SlackAndDocsFakes } from './slack-and-docs-fakes.js';

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

/** What {@link useDigestRig} hands each test: the fakes, the test's Redis prefix and its digest rig. */
export interface DigestTest extends SlackAndDocsFakes, DigestRig {
  prefix: string;
}

/**
 * The set-up the digest runs' test files share, as vitest hooks (call it at the top of a file):
 * `beforeAll` starts the fake Slack (bot token `token`) and the fake docs API (`apiKey`,
 * `projectId` and any more `projectIds`); `beforeEach` empties the fake docs API's request log,
 * takes a fresh Redis prefix and a silent {@link digestRig} over `redis` at the clock `now`, and
 * hands all to `use`; `afterEach` closes the rig and drops the prefix; `afterAll` closes the fakes
 * and disconnects `redis`.
 */
export function useDigestRig(
  o: {
    token: string;
    apiKey: string;
    projectId: string;
    projectIds?: string[];
    redis: Redis;
    now: () => number;
    projectFor?: DigestDeps['projectFor'];
  },
  use: (t: DigestTest) => void,
): void {
  const { token, apiKey, projectId, redis } = o;
  let fakes: SlackAndDocsFakes;
  let test: DigestTest;
  beforeAll(async () => {
    fakes = await startSlackAndDocsFakes(token, {
      apiKey,
      projectId,
      ...(o.projectIds ? { projectIds: o.projectIds } : {}),
    });
  });
  afterAll(async () => {
    await closeSlackAndDocsFakes(fakes);
    redis.disconnect();
  });
  beforeEach(() => {
    const prefix = randomPrefix();
    fakes.docs.requests.length = 0;
    const rig = digestRig({
      docs: fakes.docs,
      apiKey,
      projectId,
      redis,
      prefix,
      slack: fakes.web,
      now: o.now,
      logger: createLogger('silent'),
      ...(o.projectFor ? { projectFor: o.projectFor } : {}),
    });
    test = { ...fakes, ...rig, prefix };
    use(test);
  });
  afterEach(async () => {
    await closeDigestRig(test);
    await dropPrefix(redis, test.prefix);
  });
}
