/**
 * How a start that did not end in a tracked job is closed: a job created but not recorded
 * (untracked), a create whose answer was lost (uncertain: one notice with "Start it again"), a
 * placeholder removed after a failure for sure, the "starting" marks cleared.
 */
import { postOnce, stepKeys, type Steps } from '../../../platform/steps.js';
import { jobIdCode } from '../job-record.js';
import { buildStatusMessage, type StatusChange, type StatusTarget } from '../status/index.js';
import { buildUncertainNotice } from './blocks.js';
import type { StartFailure, StartJobDeps, StartJobRequest } from './request.js';
import { AgentJobsErrorCode } from '../errors.js';

/** The job runs at the vendor, but Redis would not record it: say so where people look, with its id. */
export async function untracked(
  deps: StartJobDeps,
  req: StartJobRequest,
  ids: { jobId: string; statusTs: string },
  err: unknown,
): Promise<StartFailure> {
  deps.logger.error({ jobId: ids.jobId, err }, 'created a job but could not record it');
  const note = `:warning: Job ${jobIdCode(ids.jobId)} started, but I could not keep track of it, so I won't report its end here. Look for its pull request on the docs platform.`;
  const failed = buildStatusMessage({
    requester: req.requester,
    instruction: req.instruction,
    jobId: ids.jobId,
    ...(req.project ? { projectId: req.project } : {}),
    state: 'start_failed',
    elapsedMs: 0,
    note,
  });
  // Storage is failing: this is the last word on the message, sent now (the presenter logs a failure).
  await deps.status.settleUnrecorded(
    { teamId: req.teamId, channel: req.channel, statusTs: ids.statusTs },
    { text: failed.text, blocks: failed.blocks },
    { force: true },
  );
  return {
    ok: false,
    reason: 'internal',
    message: `Job ${jobIdCode(ids.jobId)} started, but I could not keep track of it (a storage problem on my side), so I won't report when it ends. Tell the admin if this keeps happening.`,
  };
}

/**
 * The create request was in flight when the process died, or got no answer: the job may or may not
 * exist. The status message says so, and one notice in the thread offers "Start it again".
 */
export async function uncertain(
  deps: StartJobDeps,
  req: StartJobRequest,
  steps: Steps,
  at: { key: string; statusTs: string; threadTs: string; threads: string[]; projectId: string },
): Promise<StartFailure> {
  deps.logger.warn({ channel: req.channel }, 'cannot tell whether the agent job started; asking the person');
  await deps.store.saveRestart(at.key, {
    teamId: req.teamId,
    channel: req.channel,
    requester: req.requester,
    instruction: req.instruction,
    ...(req.prompt ? { prompt: req.prompt } : {}),
    ...(req.threadTs ? { threadTs: req.threadTs } : {}),
    ...(req.reactOnStatusMessage ? { reactOnStatusMessage: true } : {}),
    ...(req.contextFrom?.length ? { contextFrom: req.contextFrom } : {}),
    ...(req.project ? { project: req.project } : {}),
    ...(req.about ? { about: req.about } : {}),
  });
  const status = buildStatusMessage({
    requester: req.requester,
    instruction: req.instruction,
    ...(req.about ? { about: req.about } : {}),
    projectId: at.projectId,
    state: 'uncertain',
    elapsedMs: 0,
  });
  await settleStatus(
    deps,
    steps,
    { teamId: req.teamId, channel: req.channel, statusTs: at.statusTs },
    { text: status.text, blocks: status.blocks },
  );
  const restart = {
    requester: req.requester,
    instruction: req.instruction,
    restartId: at.key,
    projectId: at.projectId,
  };
  const notice = buildUncertainNotice(restart, deps.signer);
  await postOnce(deps.slack, steps, {
    channel: req.channel,
    thread_ts: at.threadTs,
    ...notice,
    key: stepKeys(at.key, 'uncertain').uncertain,
    since: req.receivedAt,
  });
  await clearPending(deps, req.channel, at.threads);
  const failure: StartFailure = { ok: false, reason: 'uncertain', message: '' };
  await steps.save({ failure });
  return failure;
}

/**
 * The status message's last change, through the presenter (its slot, lock and edit budget). When
 * it must wait (rate limited, budget spent), throws {@link StatusChangeDeferredError} so the
 * intake tries again later, unless this is the last try: then it is sent regardless.
 */
async function settleStatus(
  deps: StartJobDeps,
  steps: Steps,
  target: StatusTarget,
  change: StatusChange,
): Promise<void> {
  const { retryInMs } = await deps.status.settleUnrecorded(target, change, { force: steps.finalAttempt });
  if (retryInMs !== undefined) throw new StatusChangeDeferredError(retryInMs);
}

/**
 * Removes the placeholder of a start that failed for sure (see {@link settleStatus}), then forgets it;
 * resolves with `failure`.
 */
export async function retirePlaceholder(
  deps: StartJobDeps,
  steps: Steps,
  target: StatusTarget,
  failure: StartFailure,
): Promise<StartFailure> {
  await settleStatus(deps, steps, target, { delete: true });
  await steps.save({ retire: undefined });
  return failure;
}

/**
 * Clears the "starting" marks of a start that ended without a job; they lapse on their own (TTL) if
 * Redis fails now.
 */
export async function clearPending(deps: StartJobDeps, channel: string, threads: string[]): Promise<void> {
  await deps.store.clearPendingThreads(channel, threads).catch((err: unknown) => {
    deps.logger.warn({ err, channel }, 'could not clear the "starting" marks; they expire on their own');
  });
}

/** The status message's last change must wait `retryInMs` (ms): thrown so the intake tries again. */
export class StatusChangeDeferredError extends Error {
  readonly code = AgentJobsErrorCode.StatusChangeDeferred;
  constructor(readonly retryInMs: number) {
    super(`the status message change must wait ${retryInMs} ms`);
    this.name = 'StatusChangeDeferredError';
  }
}
