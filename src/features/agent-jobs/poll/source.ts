import type { AgentJob } from '../../../platform/docs-api/schemas.js';
import type { Logger } from '../../../platform/logger.js';
import type { JobRecord, JobStore } from '../store.js';

/**
 * Keeps (in the record, and in `rec`) the repository and branch the API's `source` reports (spec:
 * AgentJob.source.repository, `.ref`); the poll step then shows them (the record no longer matches
 * what the message shows). A Redis failure costs only the display (logged).
 */
export async function noteSource(
  store: Pick<JobStore, 'update'>,
  rec: JobRecord,
  agentJob: AgentJob,
  log: Logger,
): Promise<void> {
  const repository = agentJob.source?.repository ?? '';
  const branch = agentJob.source?.ref ?? '';
  const fields = {
    ...(repository && repository !== rec.repository ? { repository } : {}),
    ...(branch && branch !== rec.branch ? { branch } : {}),
  };
  if (Object.keys(fields).length === 0) return;
  try {
    await store.update(rec.jobId, fields);
    Object.assign(rec, fields);
  } catch (err) {
    log.warn({ err }, "could not keep the job's repository and branch");
    return;
  }
}
