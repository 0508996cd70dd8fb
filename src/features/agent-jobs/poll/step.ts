/** The poll step: one run of the `poll-agent-job` step job (see {@link createPollStep}). */
import { DelayedError } from 'bullmq';
import { DocsApiErrorCode } from '../../../platform/docs-api/errors.js';
import { isTerminal, type AgentJob } from '../../../platform/docs-api/schemas.js';
import { hasCode } from '../../../platform/errors.js';
import type { Logger } from '../../../platform/logger.js';
import { guardSince } from '../../../platform/steps.js';
import type { JobRecord } from '../store.js';
import { finish, finishEnded } from './finish.js';
import { recordedOutcome } from './outcome.js';
import { editRetryDelay, nextPollDelayMs } from './schedule.js';
import { noteSource } from './source.js';
import type { PollJob, PollStepDeps, PollStepResult, StepContext } from './step-context.js';

export type { PollJob, PollJobData, PollStepDeps, PollStepResult } from './step-context.js';

/**
 * The BullMQ processor of `poll-agent-job`, written as a step job (BullMQ guide "Process step
 * jobs"): each run polls `GET /v2/agent/{projectId}/job/{id}` once; while the job is active it
 * saves its progress with `job.updateData`, reschedules itself with `job.moveToDelayed` and
 * throws `DelayedError`, so one BullMQ job watches the agent job from start to end.
 *
 * When the status is terminal (or JOB_TIMEOUT_MS has passed) it posts exactly one announcement in
 * the thread, guarded by {@link JobStore.claimAnnouncement}, and shows the end on the status message.
 *
 * @throws DelayedError to reschedule (expected); other errors (Redis) make BullMQ retry the step.
 */
export function createPollStep(deps: PollStepDeps) {
  return async function pollStep(job: PollJob, token?: string): Promise<PollStepResult> {
    const { agentJobId, cycle, attempt, lastActiveAt } = job.data;
    const log = deps.logger.child({ jobId: agentJobId, cycle, attempt });
    const rec = await deps.store.get(agentJobId);
    if (!rec) {
      log.warn('no record for this agent job; not watching it');
      return 'unknown-job';
    }
    if (rec.cycle > cycle) return 'superseded';
    if (await deps.store.wasAnnounced(agentJobId, cycle)) {
      // A crash may have cut the last edit short, or it had to wait (slot, 429, the edit budget).
      const { retryInMs } = await deps.status.show(agentJobId);
      if (retryInMs !== undefined)
        return rescheduleJob(job, deps, token, editRetryDelay(retryInMs), lastActiveAt, false);
      return 'already-announced';
    }
    const ctx = stepContext(deps, job, token, rec, log);
    // This cycle's end is already recorded (an announcement that Slack refused before): announce that end.
    const recorded = recordedOutcome(rec);
    if (recorded) return finish(ctx, rec.state, recorded);
    const watchedMs = deps.now() - rec.cycleStartedAt;
    if (watchedMs >= deps.timeoutMs) return finish(ctx, 'timeout', { kind: 'timeout', watchedMs });
    return pollOnce(ctx, agentJobId);
  };
}

/**
 * The context of one run of the step over `rec`: how to reschedule itself, plan the next poll and
 * confirm its steps.
 */
function stepContext(
  deps: PollStepDeps,
  job: PollJob,
  token: string | undefined,
  rec: JobRecord,
  log: Logger,
): StepContext {
  const { cycle, attempt, lastPollAt, lastActiveAt } = job.data;
  return {
    deps,
    rec,
    cycle,
    log,
    lastPollAt,
    // Confirms, before the announcement, what this run saved since it began (see PollStepDeps.guard).
    guard: deps.guard && guardSince(deps.guard),
    reschedule: (delayMs, activeAt = lastActiveAt) => rescheduleJob(job, deps, token, delayMs, activeAt),
    retryEdit: (delayMs) => rescheduleJob(job, deps, token, editRetryDelay(delayMs), lastActiveAt, false),
    nextDelayMs: async () => {
      // A Redis hiccup reading the history costs the plan for one poll, never the poll.
      const plan = await deps
        .durations?.(rec.projectId)
        .plan()
        .catch(
          (err: unknown) => void log.warn({ err }, 'could not read the duration history; backoff only for this poll'),
        );
      return nextPollDelayMs(
        { attempt: attempt + 1, elapsedMs: deps.now() - rec.cycleStartedAt, plan },
        deps.bounds,
        deps.random,
      );
    },
    endedAfter: lastActiveAt ?? rec.cycleStartedAt,
  };
}

/**
 * Polls the job once (`GET /v2/agent/{projectId}/job/{id}`): an end is announced; a job the API no
 * longer knows is archived; a failed poll, or a job still active, reschedules the step.
 */
async function pollOnce(ctx: StepContext, agentJobId: string): Promise<PollStepResult> {
  const { deps, rec, log } = ctx;
  let agentJob: AgentJob;
  const polledAt = deps.now();
  try {
    agentJob = await deps.docsApi.forProject(rec.projectId).getJob(agentJobId);
  } catch (err) {
    if (hasCode(err, DocsApiErrorCode.NotFound)) {
      log.warn('the docs API no longer knows this job');
      return finish(ctx, 'archived', { kind: 'archived' });
    }
    log.warn({ err }, 'poll failed; will try again');
    return ctx.reschedule(await ctx.nextDelayMs());
  }
  await noteSource(deps.store, rec, agentJob, log);
  const status = agentJob.status;
  if (isTerminal(status)) return finishEnded(ctx, status, agentJob);
  // Still active: the status message shows when it started, so it changes only when an earlier
  // edit did not land (dropped for the budget, rate limited): then show it, and poll no later
  // than when that edit may be tried again.
  return ctx.reschedule(Math.min(await ctx.nextDelayMs(), await editDueInMs(deps, rec)), polledAt);
}

/**
 * ms until a pending edit of an active job's status message may be tried again (Infinity: none
 * pending). A render that Redis failed waits for the next poll instead: while the state
 * connection is down, polls keep their pace (no docs API GET every few seconds for the edit).
 */
async function editDueInMs(deps: PollStepDeps, rec: JobRecord): Promise<number> {
  if (deps.status.isCurrent(rec)) return Infinity;
  const shown = await deps.status.show(rec.jobId);
  return shown.renderFailed ? Infinity : (shown.retryInMs ?? Infinity);
}

/**
 * Saves progress (when `polled`: one poll more, its time; the last time seen active), moves the step
 * job to the delayed set for `delayMs` (ms), throws DelayedError.
 */
async function rescheduleJob(
  job: PollJob,
  deps: PollStepDeps,
  token: string | undefined,
  delayMs: number,
  activeAt = job.data.lastActiveAt,
  polled = true,
): Promise<never> {
  const { agentJobId, cycle, attempt, lastPollAt } = job.data;
  const progress = polled
    ? { attempt: attempt + 1, lastPollAt: deps.now() }
    : { attempt, ...(lastPollAt === undefined ? {} : { lastPollAt }) };
  await job.updateData({
    agentJobId,
    cycle,
    ...progress,
    ...(activeAt === undefined ? {} : { lastActiveAt: activeAt }),
  });
  await job.moveToDelayed(Date.now() + delayMs, token);
  throw new DelayedError();
}
