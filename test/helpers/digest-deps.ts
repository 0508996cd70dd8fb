import { createReportServices, type ReportServicesOptions } from '../../src/features/reports/service.js';
import type { DigestDeps } from '../../src/features/reports/digests/service.js';
import { TEST_SIGNER } from './signer.js';

/**
 * A digest run's dependencies: the report services of `projectId` over `redis` and `docsApi` at the
 * clock `now`, the test signer, UTC for a run that names no time zone, and every channel on
 * `projectId` unless `projectFor` says otherwise.
 */
export function digestDeps(
  o: Omit<ReportServicesOptions, 'signer' | 'analyticsPerUser'> &
    Pick<DigestDeps, 'slack' | 'digestQueue'> &
    Partial<Pick<DigestDeps, 'projectFor'>>,
): DigestDeps {
  const { redis, prefix, docsApi, projectId, logger, now } = o;
  return {
    visitors: createReportServices({ redis, prefix, docsApi, projectId, logger, now, signer: TEST_SIGNER }),
    signer: TEST_SIGNER,
    redis,
    prefix,
    digestQueue: o.digestQueue,
    slack: o.slack,
    defaultTz: 'UTC',
    projectFor: o.projectFor ?? (async () => projectId),
    logger,
  };
}
