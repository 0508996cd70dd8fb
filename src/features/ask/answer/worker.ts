import type { Job, Queue, Worker } from 'bullmq';
import { createQueue, createWorker, type QueueContext } from '../../../platform/queues.js';
import { currentEnterpriseRef } from '../../../platform/request-context.js';
import type { SlackClients } from '../../../platform/runtime.js';
import type { Logger } from '../../../platform/logger.js';
import { stepsOf, type StepGuard, type Steps } from '../../../platform/steps.js';
import { tellPrivately, type TellDeps } from '../../../platform/slack/tell.js';
import type { TellTarget } from '../intake.js';
import type { AskStore } from '../store.js';
import { COULD_NOT_ANSWER_TEXT } from '../texts.js';
import { writeAnswer, type AnswerDeps, type Question } from './write.js';

/**
 * The answers' own queue: an admitted question (recorded, allowed, within budget, its question
 * posted) becomes one BullMQ job here, id derived from its intake record, and a worker of any
 * replica streams its answer. Answers take seconds to minutes while the assistant writes; they run
 * here, not in the intake worker, so that a burst of questions never keeps commands and clicks
 * waiting. The job carries the answer's saved steps (a retry after a crash resumes from them:
 * `./final.ts`' endCutAnswer).
 */

/** BullMQ queue of answers being written. */
export const ANSWER_QUEUE = 'ask-answer';

/** Answers one replica writes at once (each mostly waits on the assistant's stream). */
export const ANSWER_CONCURRENCY = 50;

/** Tries of an answer whose writing threw (Slack or Redis trouble), backoff doubling from 1 s. */
const ATTEMPTS = 5;

/** What writing a queued answer needs: answering (its store also frees the asker's answer slot once written: `answerKeep`). */
export type AnswerJobDeps = AnswerDeps;

/** What the worker needs: writing answers, and telling. */
export interface WorkerDeps {
  answer: AnswerJobDeps;
  tell: TellDeps;
  /**
   * The intake's replica guard (REDIS_WAIT_REPLICAS above 0): before an irreversible step (the
   * stream started, a message posted) the steps saved since the job began are confirmed on the
   * replicas, so a retry after a failover can't repeat it. Absent: nothing to confirm.
   */
  guard?: StepGuard;
  /**
   * Runs each answer as work of the asker's installation (`SlackClients.forWork`: OAuth mode writes
   * it with that workspace's token; single-token mode just runs it).
   */
  work: Pick<SlackClients, 'forWork'>;
}

/** One answer to write: the question, where to tell the asker, and the steps saved so far. */
export interface AnswerJobData {
  q: Question;
  to: TellTarget;
  /** OAuth mode: the Grid org of the asker's installation (with `q.teamId`, whose token the answer is written with). */
  enterpriseId?: string;
  /** OAuth mode: that installation is org-wide. */
  enterpriseInstall?: boolean;
  progress?: Record<string, unknown>;
}

/** BullMQ job id of the answer to the question recorded as intake `key` (no `:` in BullMQ ids). */
export function answerJobId(key: string): string {
  return `answer-${key}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 200);
}

/** Creates the answers' queue (kept a day once done, a week when every try failed). */
export function createAnswerQueue(ctx: QueueContext): Queue<AnswerJobData> {
  return createQueue<AnswerJobData>(ctx, ANSWER_QUEUE, {
    attempts: ATTEMPTS,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { age: 24 * 3600 },
    removeOnFail: { age: 7 * 24 * 3600 },
  });
}

/**
 * Adds the answer of `q` to the queue, once (a second add of the same question is ignored). @throws
 * the Redis error.
 */
export async function enqueueAnswer(
  queue: Pick<Queue<AnswerJobData>, 'add'>,
  q: Question,
  to: TellTarget,
): Promise<void> {
  await queue.add('answer', { q, to, ...currentEnterpriseRef() }, { jobId: answerJobId(q.key) });
}

/**
 * Starts the worker that writes answers: {@link ANSWER_CONCURRENCY} at once; a job's lock (10 s)
 * is renewed while it runs, so a killed replica's answers are taken over within about 15 s and
 * resumed from their steps. On the last try a failure is told to the asker ("couldn't answer").
 */
export function startAnswerWorker(ctx: QueueContext, deps: WorkerDeps): Worker<AnswerJobData> {
  const run = (job: Job<AnswerJobData>) =>
    deps.work.forWork({ ...job.data, teamId: job.data.q.teamId }, `answer-${job.id ?? ''}`, () =>
      answerJob(deps.answer, job.data, stepsOf(job, deps.guard), (text) => tellPrivately(deps.tell, job.data.to, text)),
    );
  return createWorker<AnswerJobData, void>(ctx, ANSWER_QUEUE, run, {
    concurrency: ANSWER_CONCURRENCY,
    lockDuration: 10_000,
    stalledInterval: 5_000,
    maxStalledCount: 50,
  });
}

/**
 * Writes the answer of one queued question (the worker's processor, with the job's steps):
 * {@link writeAnswer}, then tells the asker what the answer could not show (`tell`, which never
 * throws), and frees their answer slot. @throws what `writeAnswer` throws, but on the last try
 * (`steps.finalAttempt`): then the asker is told "couldn't answer" instead.
 */
export async function answerJob(
  deps: AnswerJobDeps,
  data: Pick<AnswerJobData, 'q'>,
  steps: Steps,
  tell: (text: string) => Promise<void>,
): Promise<void> {
  const q = data.q;
  try {
    const result = await writeAnswer(deps, q, steps);
    if (result.tell) await tell(result.tell);
  } catch (err) {
    if (!steps.finalAttempt) throw err;
    deps.logger.error({ err, channel: q.channel }, 'could not write an answer, even after retries; told the asker');
    await tell(COULD_NOT_ANSWER_TEXT);
  }
  await deps.store
    .answerKeep(q)
    .releaseSlot()
    .catch((err: unknown) => deps.logger.warn({ err }, SLOT_NOT_FREED));
}

/** The warn line when an answer slot could not be freed (it lapses by itself). */
const SLOT_NOT_FREED = 'could not free an answer slot; it lapses in 10 minutes';

/** Frees the answer slot of a question that will not be (or was) answered (best effort: a slot lapses by itself). */
export async function releaseSlot(
  deps: { store: Pick<AskStore, 'releaseAnswerSlot'>; logger: Logger },
  req: { teamId: string; user: string; key: string },
): Promise<void> {
  await deps.store
    .releaseAnswerSlot(req.teamId, req.user, req.key)
    .catch((err: unknown) => deps.logger.warn({ err }, SLOT_NOT_FREED));
}
