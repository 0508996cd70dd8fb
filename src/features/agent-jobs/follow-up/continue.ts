/** Sending a follow-up to a job and watching the cycle it begins (see {@link continueAgentJob}). */
import pRetry from 'p-retry';
import type { AgentCall } from '../../../platform/access.js';
import { audit } from '../../../platform/audit.js';
import { docsApiErrorText } from '../../../platform/docs-api/error-text.js';
import {
  DocsApiErrorCode,
  type DocsApiNetworkError,
  type DocsApiRateLimitedError,
} from '../../../platform/docs-api/errors.js';
import { hasCode } from '../../../platform/errors.js';
import type { Logger } from '../../../platform/logger.js';
import { confirmStep, memorySteps, type Steps } from '../../../platform/steps.js';
import { sessionTitle } from '../job-record.js';
import { watchAgentJob } from '../poll/index.js';
import type { JobRecord } from '../store.js';
import { withJobLock } from './job-lock.js';
import {
  authorRefusal,
  EMPTY_FOLLOWUP_TEXT,
  STALE_FOLLOWUP_TEXT,
  UNCERTAIN_FOLLOWUP_TEXT,
  unknownJobText,
} from './refusals.js';
import type { ContinueJobDeps, ContinueJobRequest, ContinueJobResult, Refused } from './request.js';
import { errorCode, PlatformErrorCode } from '../../../platform/errors.js';
import { AgentJobsErrorCode } from '../errors.js';

export type { ContinueJobDeps, ContinueJobRequest, ContinueJobResult } from './request.js';

/**
 * Sends a follow-up instruction to an existing job (`POST /v2/agent/{projectId}/job/{id}/message`),
 * then starts a new cycle: the status message shows the job working again (saying so when the
 * follow-up interrupted a run still active), and a poller watches this cycle, whose end is
 * announced mentioning `author`. Follow-ups to one job are sent one at a time across replicas (a
 * Redis lock per job), in no promised order: the lock is not a queue. Resumable like a start: a
 * retry after a crash never sends twice, and says so when it cannot tell whether the message
 * arrived. The text is read (`req.prompt` called) only after the job is found, the request comes
 * from its conversation and the author passed the access policy: a refused person costs no
 * users.info call.
 *
 * @returns a result; never throws for docs API or Slack failures, nor for Redis failures before
 *   anything was sent.
 * @throws {@link FollowUpUnrecordedError} when it was sent but not recorded, and UnreplicatedStepError
 *   when its "sending" mark could not be confirmed (nothing sent), unless `steps.finalAttempt`: the
 *   intake tries again.
 */
export async function continueAgentJob(
  deps: ContinueJobDeps,
  req: ContinueJobRequest,
  steps: Steps = memorySteps(),
): Promise<ContinueJobResult> {
  try {
    const rec = await deps.store.get(req.jobId);
    if (!rec) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
    if (req.fromChannel !== undefined && req.fromChannel !== rec.channel) {
      // Only people in the job's conversation may continue it (a private channel's job stays there),
      // and the answer is the unknown id's: nobody learns that the id exists elsewhere.
      deps.logger.info(
        { jobId: req.jobId, fromChannel: req.fromChannel },
        '/docs-reply for a job of another conversation; answered as unknown',
      );
      return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
    }
    return await withJobLock(deps.redis, deps.prefix, req.jobId, () => sendFollowUp(deps, req, steps));
  } catch (err) {
    const code = errorCode(err);
    if (code === AgentJobsErrorCode.FollowUpUnrecorded || code === PlatformErrorCode.StepUnreplicated) throw err;
    deps.logger.warn({ jobId: req.jobId, err }, 'follow-up failed');
    return {
      ok: false,
      reason: 'internal',
      message: 'Your follow-up was not sent: I could not reach my storage. Try again in a moment.',
    };
  }
}

/**
 * Sent, but Redis would not record it: like a start, the intake tries again (the retry does not
 * send again, begins the cycle once and watches it); on the last try, the person is told.
 * @throws {@link FollowUpUnrecordedError} before the last try.
 */
function sentButUnrecorded(steps: Steps, log: Logger, err: unknown): Refused {
  if (!steps.finalAttempt) throw new FollowUpUnrecordedError({ cause: err });
  log.error({ err }, 'sent a follow-up but could not record it');
  const message =
    'Your follow-up was sent to the agent, but I could not keep track of it (a storage problem on my side), ' +
    'so I may not announce when it ends.';
  return { ok: false, reason: 'internal', message };
}

/**
 * A follow-up was sent to the agent but Redis would not record it (its cycle, its watch): thrown
 * before the last try, so the intake tries again (the retry does not send it again).
 */
export class FollowUpUnrecordedError extends Error {
  readonly code = AgentJobsErrorCode.FollowUpUnrecorded;
  constructor(options: { cause: unknown }) {
    super('sent a follow-up but could not record it', options);
    this.name = 'FollowUpUnrecordedError';
  }
}

/** The follow-up under its job's lock: who may, the text, the budget, the send, then the new cycle. */
async function sendFollowUp(deps: ContinueJobDeps, req: ContinueJobRequest, steps: Steps): Promise<ContinueJobResult> {
  const log = deps.logger.child({ jobId: req.jobId, author: req.author });
  const p = steps.progress as {
    sent?: 'sending' | 'done';
    fromCycle?: number;
    interrupted?: boolean;
    admitted?: boolean;
  };
  const rec = await deps.store.get(req.jobId);
  if (!rec) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
  const refusal = await authorRefusal(deps, rec, req.author, p);
  if (refusal) return refusal;
  if (req.expectCycle !== undefined && p.sent === undefined && rec.cycle !== req.expectCycle) {
    log.info({ cycle: rec.cycle, expectCycle: req.expectCycle }, 'a follow-up for a cycle the job has left; not sent');
    return { ok: false, reason: 'stale', message: STALE_FOLLOWUP_TEXT };
  }
  const prompt = typeof req.prompt === 'string' ? req.prompt : await req.prompt();
  if (!prompt) return { ok: false, reason: 'empty', message: EMPTY_FOLLOWUP_TEXT };
  if (p.sent !== 'done') {
    const failed = await admitAndSend(deps, req, steps, { rec, prompt, log });
    if (failed) return failed;
  }
  const interrupted = p.interrupted ?? rec.state === 'active';
  const note = interrupted
    ? `:leftwards_arrow_with_hook: <@${req.author}> sent a follow-up while the agent was working; it interrupts the current run.`
    : '';
  // An interrupted follow-up never ends on its own: its author hears about the run that replaced it.
  const alsoMention = interrupted
    ? [...new Set([rec.cycleRequester, ...rec.alsoMention.split(',')])].filter((u) => u && u !== req.author).join(',')
    : '';
  let cycle: number | undefined;
  try {
    cycle = await deps.store.beginCycle(req.jobId, req.author, deps.now(), note, alsoMention, p.fromCycle);
    if (cycle !== undefined) await watchAgentJob(deps.pollQueue, req.jobId, cycle, deps.firstPollDelayMs);
  } catch (err) {
    return sentButUnrecorded(steps, log, err);
  }
  if (cycle === undefined) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
  // Both never throw; awaited so that a quick end's `active` can't be overtaken by this `processing`.
  await deps.status.show(req.jobId);
  await deps.agent?.session({ channel: rec.channel, threadTs: rec.threadTs }, 'processing', {
    title: sessionTitle(rec),
    initiator: rec.requester,
  });
  audit(deps.logger, {
    actor: req.author,
    channel: rec.channel,
    action: 'continue_job',
    outcome: 'ok',
    jobId: req.jobId,
    cycle,
    interrupted,
    instructionChars: prompt.length,
  });
  return { ok: true, rec, cycle, interrupted, prompt };
}

/**
 * Takes one request from the agent budget (once: saved as `admitted`), then sends the follow-up to
 * the agent once (`POST …/job/{id}/message`): saves "sending" (confirmed on the replicas) first,
 * "done" after. @returns the failure to tell the person, or undefined once sent.
 * @throws {@link FollowUpUnrecordedError} as {@link sentButUnrecorded}; UnreplicatedStepError.
 */
async function admitAndSend(
  deps: ContinueJobDeps,
  req: ContinueJobRequest,
  steps: Steps,
  at: { rec: JobRecord; prompt: string; log: Logger },
): Promise<Refused | undefined> {
  const { rec, prompt, log } = at;
  const call: AgentCall = {
    actor: { user: req.author },
    channel: rec.channel,
    action: 'continue_job',
    project: rec.projectId,
    promptChars: prompt.length,
  };
  if (!steps.progress.admitted) {
    const decision = await deps.access.admitAgentCall(call);
    if (!decision.allowed) return { ok: false, reason: 'refused', message: decision.text };
    await steps.save({ admitted: true });
  }
  await steps.save({ sent: 'sending', fromCycle: rec.cycle, interrupted: rec.state === 'active' });
  await confirmStep(steps, 'follow-up', { sent: undefined }, log);
  try {
    await deps.docsApi.forProject(rec.projectId).sendMessage(req.jobId, prompt);
    deps.metrics?.agentJobStarted('follow_up');
  } catch (err) {
    // No answer after it may have arrived: it may have been delivered. A connection never made sent nothing.
    if (hasCode<DocsApiNetworkError>(err, DocsApiErrorCode.NetworkError) && err.sent)
      return { ok: false, reason: 'uncertain', message: UNCERTAIN_FOLLOWUP_TEXT };
    await steps.save({ sent: undefined });
    if (hasCode<DocsApiRateLimitedError>(err, DocsApiErrorCode.RateLimited))
      await deps.access.noteRateLimited(call, err.retryAfterMs);
    if (hasCode(err, DocsApiErrorCode.NotFound))
      return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
    log.warn({ err }, 'could not send the follow-up');
    return { ok: false, reason: 'docs_api', message: `Your follow-up was not sent. ${docsApiErrorText(err)}` };
  }
  try {
    // Sent: ride out a failover (~3 s) to keep that; a retry that finds only "sending" can't tell.
    await pRetry(() => steps.save({ sent: 'done' }), { retries: 4, minTimeout: 200, factor: 2 });
  } catch (err) {
    return sentButUnrecorded(steps, log, err);
  }
  return undefined;
}
