import type { FinishedStatus } from '../../../platform/metrics.js';
import type { JobRecord } from '../job-record.js';

/** How a job's run ended: the outcome the announcement tells, as recorded, and its metric label. */

/** How a job (or its latest follow-up) ended, as far as the bot is concerned. */
export type JobOutcome =
  | { kind: 'completed'; prLink: string | null }
  | { kind: 'failed' }
  | { kind: 'archived' }
  | { kind: 'timeout'; watchedMs: number };

/** The status label of an outcome in `docs_bot_agent_jobs_finished_total` (completed without a PR: no_change). */
export function finishedStatus(o: JobOutcome): FinishedStatus {
  if (o.kind === 'completed') return o.prLink ? 'completed' : 'no_change';
  return o.kind === 'timeout' ? 'timed_out' : o.kind;
}

/** The outcome the record holds when this cycle's end was recorded but not yet announced. */
export function recordedOutcome(rec: JobRecord): JobOutcome | undefined {
  if (rec.endedAt <= 0) return undefined;
  switch (rec.state) {
    case 'completed':
      return { kind: 'completed', prLink: rec.prLink };
    case 'failed':
    case 'archived':
      return { kind: rec.state };
    case 'timeout':
      return { kind: 'timeout', watchedMs: rec.endedAt - rec.cycleStartedAt };
    default:
      return undefined;
  }
}
