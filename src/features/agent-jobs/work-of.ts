/**
 * Which installation an agent job's background work (its poller, status edits, previews) belongs
 * to: OAuth mode reads it from the job's record (`teamId`, `enterpriseId`, `enterpriseInstall`,
 * recorded when the job started), so that work posts with that workspace's token only.
 */
import type { Platform } from '../../platform/runtime.js';
import type { JobStore } from './store.js';

/** Runs `fn` as work of agent job `agentJobId`'s installation. */
export type AsWorkOf = <T>(agentJobId: string, fn: () => Promise<T>) => Promise<T>;

/**
 * The {@link AsWorkOf} of the platform's mode: single-token mode just runs `fn` (nothing read);
 * OAuth mode reads the job's record first (a job without one runs with no installation: its Slack
 * calls fail with `installation_not_found`, and the step handles that as a permanent Slack error).
 * @throws Redis errors (the step is retried).
 */
export function asWorkOf(platform: Pick<Platform, 'slack' | 'installations'>, store: Pick<JobStore, 'get'>): AsWorkOf {
  if (!platform.installations) return (_id, fn) => fn();
  return async (agentJobId, fn) => {
    const rec = await store.get(agentJobId);
    const ref = rec
      ? {
          teamId: rec.teamId,
          ...(rec.enterpriseId ? { enterpriseId: rec.enterpriseId } : {}),
          ...(rec.enterpriseInstall !== undefined ? { enterpriseInstall: rec.enterpriseInstall } : {}),
        }
      : {};
    return platform.slack.forWork(ref, `agent-job-${agentJobId}`, fn);
  };
}
