/**
 * What an intake handler gets besides its payload: the request's ids, the steps earlier runs saved
 * (kept on the BullMQ job's data, so a retry on any replica resumes from them), and whether this
 * is the last attempt.
 */
import type { Job } from 'bullmq';
import type { IntakeData } from './intake-kind.js';
import type { Logger } from './logger.js';
import { stepsOf, type Steps } from './steps.js';

/** What a handler gets besides its payload: the request's ids, and its steps (platform/steps.ts). */
export interface IntakeContext extends Steps {
  requestId: string;
  /** The intake's BullMQ job id: unique per request, the same on every retry (keys what is done at most once). */
  jobId: string;
  /** Epoch ms when the request was recorded. */
  receivedAt: number;
  /** Steps saved by earlier runs of this intake (empty on the first); `save` adds more, durably, before the step they guard. */
  progress: Record<string, unknown>;
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
 * The context of one run of a handler over intake job `job`: its steps ({@link stepsOf}: kept on
 * the job's data) and `confirm` (replica acknowledgement of them).
 */
export function handlerContext(
  job: Job<IntakeData>,
  log: Logger,
  confirm: (what: string) => Promise<void>,
): IntakeContext {
  const steps = stepsOf(job, confirm);
  return {
    ...steps,
    confirm,
    requestId: job.data.requestId,
    jobId: String(job.id),
    receivedAt: job.data.receivedAt,
    log,
  };
}
