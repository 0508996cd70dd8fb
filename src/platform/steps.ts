/**
 * Resumable work: the steps a piece of work (an intake's handler, an answer, an announcement) saved
 * durably before the step they guard, so a retry on any replica resumes it and never repeats an
 * irreversible step. One home for their shape ({@link Steps}), where they are kept (a BullMQ job's
 * data: {@link stepsOf}; elsewhere: {@link stepsOver}; nowhere: {@link memorySteps}), what confirms
 * them on the Redis replicas (a {@link StepGuard}) and how their keys are named ({@link stepKeys}). CONTRIBUTING.md, "Adding a resumable step", says how to use it.
 */
import type { Job } from 'bullmq';
import type { Logger } from './logger.js';
import type { ReplicaGuard } from './replica-guard.js';

/** Progress of resumable work: steps saved durably before the step they guard. */
export interface Steps {
  progress: Record<string, unknown>;
  /** Saves steps durably (merged into `progress`). @throws on Redis errors. */
  save(patch: Record<string, unknown>): Promise<void>;
  /** True on the last try: report instead of throwing for another. */
  finalAttempt: boolean;
  /**
   * Before an irreversible step (`what` names it in logs): the steps saved so far would survive a
   * Redis failover (on the replicas, REDIS_WAIT_REPLICAS), so a retry after one cannot repeat the
   * step. Absent: nothing to confirm (no replication, or steps kept in memory).
   * @throws UnreplicatedStepError when they can't be confirmed: act later, not now.
   */
  confirm?(what: string): Promise<void>;
}

/**
 * What confirms saved steps on the Redis replicas (REDIS_WAIT_REPLICAS): a {@link ReplicaGuard}, or
 * one whose mark was taken earlier ({@link guardSince}).
 */
export type StepGuard = Pick<ReplicaGuard, 'mark' | 'confirmSteps'>;

/**
 * Steps over `progress` (what earlier tries saved; merged into by each save), made durable by
 * `write(progress, patch)` after the merge. With `guard`, `confirm` waits for the replicas to hold
 * what was written since the steps were made (the guard's mark, taken now); without, there is none.
 */
export function stepsOver(
  progress: Record<string, unknown>,
  write: (progress: Record<string, unknown>, patch: Record<string, unknown>) => Promise<void>,
  o: { finalAttempt: boolean; guard?: StepGuard | undefined },
): Steps {
  const confirm = o.guard && confirmSince(o.guard);
  return {
    progress,
    save: async (patch) => {
      Object.assign(progress, patch);
      await write(progress, patch);
    },
    finalAttempt: o.finalAttempt,
    ...(confirm ? { confirm } : {}),
  };
}

/** Steps that live only in memory: a single try (tests, and callers with nothing to resume). */
export function memorySteps(): Steps {
  return stepsOver({}, async () => undefined, { finalAttempt: true });
}

/** What {@link stepsOf} reads of a BullMQ job: its data (with the steps on `progress`) and its tries. */
type StepsJob<D> = Pick<Job<D>, 'data' | 'updateData' | 'attemptsMade' | 'opts'>;
type StepsData = { progress?: Record<string, unknown> | undefined };

/**
 * The steps of the BullMQ job `job`: kept on its data's `progress` (`job.updateData`, so a retry on
 * any replica resumes from them), the last try when BullMQ will make no other. With `guard`,
 * `confirm` covers what was written since the steps were made (the guard's mark, taken now);
 * without, there is nothing to confirm.
 * @throws from `save`: the Redis error of `job.updateData`.
 */
export function stepsOf<D extends StepsData>(
  job: StepsJob<D>,
  guard: StepGuard,
): Steps & Required<Pick<Steps, 'confirm'>>;
export function stepsOf<D extends StepsData>(job: StepsJob<D>, guard?: StepGuard): Steps;
export function stepsOf<D extends StepsData>(job: StepsJob<D>, guard?: StepGuard): Steps {
  const data = job.data;
  const write = (progress: Record<string, unknown>) => job.updateData({ ...data, progress });
  return stepsOver({ ...data.progress }, write, {
    finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
    guard,
  });
}

/**
 * `Steps.confirm` for the steps saved from now on: `guard`'s mark taken now, and each confirm waits
 * for the Redis replicas to hold what was written up to it (REDIS_WAIT_REPLICAS).
 */
function confirmSince(guard: StepGuard): (what: string) => Promise<void> {
  const mark = guard.mark();
  return (what) => guard.confirmSteps(mark, what);
}

/**
 * `guard` with its mark taken now, for steps made later that must also cover what was written
 * before them (the poller's announcement: the claim it wrote before its steps were read).
 */
export function guardSince(guard: StepGuard): StepGuard {
  const mark = guard.mark();
  return { mark: () => mark, confirmSteps: (m, what) => guard.confirmSteps(m, what) };
}

/**
 * The keys of the steps `names` of the work `scope` (an intake's job id, a message's key): each
 * `<scope>:<name>`, typed by name, so a step is named in one place and read and written by the same
 * key (`stepKeys(q.key, 'done', 'answer:final')['answer:final']`).
 */
export function stepKeys<const N extends string>(scope: string, ...names: N[]): Record<N, string> {
  return Object.fromEntries(names.map((n) => [n, `${scope}:${n}`])) as Record<N, string>;
}

/**
 * Before an irreversible step: the mark just saved in `steps` is on the Redis replicas
 * (`steps.confirm`), so a retry after a failover finds it. When it can't be confirmed, `undo`
 * takes the mark back (the step was not taken; best effort, a failure is one warning: a mark that
 * outlives the failover reads as "may have happened", never as "do it again"), and the error is
 * thrown for the caller to try again later.
 * @throws UnreplicatedStepError from `steps.confirm`.
 */
export async function confirmStep(
  steps: Steps,
  what: string,
  undo: Record<string, unknown>,
  logger: Logger,
): Promise<void> {
  try {
    await steps.confirm?.(what);
  } catch (err) {
    await steps.save(undo).catch((saveErr: unknown) => {
      logger.warn({ err: saveErr, step: what }, 'could not take back a step mark that was not confirmed');
    });
    throw err;
  }
}
