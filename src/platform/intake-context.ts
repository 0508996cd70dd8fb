/**
 * What an intake handler gets besides its payload: the request's ids, the steps earlier runs saved
 * (kept on the BullMQ job's data, so a retry on any replica resumes from them), and whether this
 * is the last attempt.
 */
import type { Job } from 'bullmq';
import type { IntakeData } from './intake-kind.js';
import type { Logger } from './logger.js';

/** What a handler gets besides its payload. */
export interface IntakeContext {
  requestId: string;
  /** The intake's BullMQ job id: unique per request, the same on every retry (keys what is done at most once). */
  jobId: string;
  /** Epoch ms when the request was recorded. */
  receivedAt: number;
  /** Steps saved by earlier runs of this intake (empty on the first). */
  progress: Record<string, unknown>;
  /** Saves more steps (merged into `progress`) durably, before the step they guard. @throws on Redis errors. */
  save(patch: Record<string, unknown>): Promise<void>;
  /**
   * Before an irreversible step (REDIS_WAIT_REPLICAS above 0): the steps saved so far are on the
   * replicas, so a failover now cannot make a retry repeat it. No-op without replication.
   * @throws UnreplicatedStepError when they can't be confirmed (BullMQ retries the handler).
   */
  confirm(what: string): Promise<void>;
  /** True on the last attempt BullMQ will make: a handler tells the person before giving up. */
  finalAttempt: boolean;
  log: Logger;
}

/** Handles one kind of recorded request; throwing makes BullMQ retry it (with backoff). */
export type IntakeHandler<T> = (payload: T, ctx: IntakeContext) => Promise<void>;

/**
 * The context of one run of a handler over intake job `job`: its saved steps, `save` writing more
 * of them onto the job's data (`job.updateData`), and `confirm` (replica acknowledgement of them).
 */
export function handlerContext(
  job: Job<IntakeData>,
  log: Logger,
  confirm: (what: string) => Promise<void>,
): IntakeContext {
  const data = job.data;
  const progress = { ...data.progress };
  return {
    requestId: data.requestId,
    jobId: String(job.id),
    receivedAt: data.receivedAt,
    progress,
    save: async (patch) => {
      Object.assign(progress, patch);
      await job.updateData({ ...data, progress });
    },
    confirm,
    finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
    log,
  };
}
