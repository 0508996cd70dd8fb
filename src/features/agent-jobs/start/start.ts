/** Starting a job, resumably, from a request made in Slack (see {@link startAgentJob}). */
import pRetry from 'p-retry';
import type { AgentCall } from '../../../platform/access.js';
import { audit } from '../../../platform/audit.js';
import { docsApiErrorText } from '../../../platform/docs-api/error-text.js';
import {
  DocsApiErrorCode,
  type DocsApiNetworkError,
  type DocsApiRateLimitedError,
} from '../../../platform/docs-api/errors.js';
import type { Logger } from '../../../platform/logger.js';
import { CANNOT_POST, slackErrorCode } from '../../../platform/slack/errors.js';
import { postOnce, confirmStep, memorySteps, stepKeys, type Steps } from '../../../platform/steps.js';
import { newJobRecord, sessionTitle } from '../job-record.js';
import { watchAgentJob } from '../poll/index.js';
import { buildStatusMessage } from '../status/index.js';
import { clearPending, retirePlaceholder, uncertain, untracked } from './failures.js';
import type { StartFailure, StartJobDeps, StartJobRequest, StartJobResult } from './request.js';
import { hasCode, PlatformErrorCode } from '../../../platform/errors.js';

export { JOB_CREATE_CONCURRENCY, type StartJobDeps, type StartJobRequest, type StartJobResult } from './request.js';

/** Sentence for a channel the bot cannot post in (not a member, archived, …). */
export const CANNOT_POST_TEXT =
  "I can't post in this channel yet. Invite me with `/invite @Docs Agent`, then run the command again. Nothing was started.";

/**
 * Starts an agent job from Slack, resumably (each step is saved in `steps` before the next, so a
 * retry after a crash picks up where the last try stopped):
 * 0. asks the access gate (policy, prompt cap, one request from the agent budget): a refusal is
 *    returned before anything is posted or sent;
 * 1. posts the status message (at most once; a channel the bot cannot post in costs no job);
 * 2. marks its thread "starting" (replies meanwhile are answered);
 * 3. in one of the process's few create slots, saves "create sent" with the channel's docs project,
 *    chosen once (a retry uses the same one), creates the job
 *    (`POST /v2/agent/{projectId}/job`) and saves its id: the uncertain window, with nothing else
 *    in it; 4. records and watches it.
 * A retry that finds "create sent" without an id cannot know whether the job exists (the docs API
 * has no idempotency key): it never creates again, but posts one notice in the thread with the
 * instruction and "Start it again"; so does a create that got no answer after it was sent. A
 * create that fails for sure (an HTTP error, or a connection never made: refused, DNS) removes the
 * placeholder and says plainly that nothing was started.
 *
 * @returns a result; Slack refusals, docs API errors and a created-but-unrecorded job are results.
 * @throws Redis errors, and transient Slack errors before the last try, so the caller retries.
 */
export async function startAgentJob(
  deps: StartJobDeps,
  req: StartJobRequest,
  steps: Steps = memorySteps(),
): Promise<StartJobResult> {
  const p = steps.progress as {
    failure?: StartFailure;
    retire?: string;
    jobId?: string;
    statusTs?: string;
    create?: 'sent';
    projectId?: string;
    admitted?: boolean;
  };
  // A failed start whose placeholder could not be removed yet (rate limited) removes it now.
  if (p.failure)
    return p.retire
      ? retirePlaceholder(deps, steps, { teamId: req.teamId, channel: req.channel, statusTs: p.retire }, p.failure)
      : p.failure;
  // Chosen once; its budget applies.
  const projectId = p.projectId ?? req.project ?? (await deps.projectFor(req.channel));
  const call: AgentCall = {
    actor: { user: req.requester, teamId: req.teamId },
    channel: req.channel,
    action: 'start_job',
    project: projectId,
    promptChars: req.instruction.length,
  };
  if (!p.admitted) {
    const decision = await deps.access.admitAgentCall(call);
    if (!decision.allowed) return { ok: false, reason: 'refused', message: decision.text };
    await steps.save({ admitted: true, projectId });
  }
  const key = req.requestKey ?? `start-${req.channel}-${deps.now()}`;
  const log = deps.logger.child({ channel: req.channel, requester: req.requester });
  const posted = await postStatus(deps, req, steps, { key, projectId, call, log });
  if ('failure' in posted) return posted.failure;
  const statusTs = posted.ts;
  const threadTs = req.threadTs ?? statusTs;
  const threads = [...new Set([threadTs, statusTs])];
  if (p.jobId) return record(deps, req, { jobId: p.jobId, projectId, statusTs, threadTs }, steps.finalAttempt);
  if (p.create === 'sent') return uncertain(deps, req, steps, { key, statusTs, threadTs, threads, projectId });
  return createJob(deps, req, steps, { key, projectId, call, log, statusTs, threadTs, threads });
}

/**
 * Where a start is when it creates the job: its request key, project, agent call, log and the status
 * message's thread.
 */
interface CreateAt {
  key: string;
  projectId: string;
  call: AgentCall;
  log: Logger;
  statusTs: string;
  threadTs: string;
  /** The thread root and the status message: marked "starting" until the job is recorded. */
  threads: string[];
}

/** What came of the uncertain window ({@link sendCreate}): the job's id (saved, or not), or the create's error. */
type Sent = { jobId: string; unsaved?: unknown } | { error: unknown };

/**
 * The uncertain window, and nothing that could come before or after it: saves "create sent" with
 * the project (confirmed on the replicas), creates the job (`POST /v2/agent/{projectId}/job`) and saves its id
 * (riding out a failover, ~3 s). A process killed in it leaves a start nobody can settle; run it
 * in one of the process's create slots ({@link StartJobDeps.createSlots}), so a kill catches few.
 * @throws Redis errors and UnreplicatedStepError before the create is sent (nothing sent then).
 */
async function sendCreate(
  steps: Steps,
  projectId: string,
  send: () => Promise<{ id: string }>,
  logger: Logger,
): Promise<Sent> {
  await steps.save({ create: 'sent', projectId });
  await confirmStep(steps, 'create', { create: undefined }, logger);
  let jobId: string;
  try {
    jobId = (await send()).id;
  } catch (error) {
    return { error };
  }
  try {
    await pRetry(() => steps.save({ jobId }), { retries: 4, minTimeout: 200, factor: 2 });
  } catch (unsaved) {
    return { jobId, unsaved };
  }
  return { jobId };
}

/**
 * Steps 2–4: marks the threads "starting", then (in a create slot) the
 * uncertain window ({@link sendCreate}), then records and watches the job. No answer after the
 * request may have arrived is an uncertain start; a failure for sure removes the placeholder.
 */
async function createJob(
  deps: StartJobDeps,
  req: StartJobRequest,
  steps: Steps,
  at: CreateAt,
): Promise<StartJobResult> {
  const { key, projectId, call, log, statusTs, threadTs, threads } = at;
  await deps.store.markThreadsPending(req.channel, threads);
  const api = deps.docsApi.forProject(projectId);
  const prompt = req.prompt ?? req.instruction;
  const window = () => sendCreate(steps, projectId, () => api.createJob(prompt), deps.logger);
  const sent = await (deps.createSlots ? deps.createSlots(window) : window());
  if ('error' in sent) {
    const err = sent.error;
    log.warn({ err }, 'could not create the agent job');
    // No answer after the request may have arrived: the job may exist. A connection never made
    // (refused, DNS) sent nothing: a plain failure.
    if (hasCode<DocsApiNetworkError>(err, DocsApiErrorCode.NetworkError) && err.sent)
      return uncertain(deps, req, steps, { key, statusTs, threadTs, threads, projectId });
    if (hasCode<DocsApiRateLimitedError>(err, DocsApiErrorCode.RateLimited))
      await deps.access.noteRateLimited(call, err.retryAfterMs);
    await clearPending(deps, req.channel, threads);
    const failure: StartFailure = {
      ok: false,
      reason: 'docs_api',
      message: `Nothing was started. ${docsApiErrorText(err)}`,
    };
    await steps.save({ failure, retire: statusTs });
    return retirePlaceholder(deps, steps, { teamId: req.teamId, channel: req.channel, statusTs }, failure);
  }
  const { jobId } = sent;
  deps.metrics?.agentJobStarted('new');
  if ('unsaved' in sent) return untracked(deps, req, { jobId, statusTs }, sent.unsaved);
  return record(deps, req, { jobId, projectId, statusTs, threadTs }, steps.finalAttempt);
}

type StatusPost = { key: string; projectId: string; call: AgentCall; log: Logger };
type Posted = { ts: string } | { failure: StartFailure };

/**
 * Step 1: posts the status message (at most once). A channel the bot cannot post in gives the
 * agent call back; a Slack failure on the last try says so. @returns its ts, or the failure (saved).
 * @throws transient Slack errors before the last try, Redis errors, UnreplicatedStepError.
 */
async function postStatus(deps: StartJobDeps, req: StartJobRequest, steps: Steps, at: StatusPost): Promise<Posted> {
  const fail = async (failure: StartFailure) => {
    await steps.save({ failure });
    return { failure };
  };
  const { requester, instruction } = req;
  const about = req.about ? { about: req.about } : {};
  const starting = {
    requester,
    instruction,
    ...about,
    projectId: at.projectId,
    state: 'starting' as const,
    elapsedMs: 0,
  };
  const placeholder = buildStatusMessage(starting);
  try {
    const key = stepKeys(at.key, 'status').status;
    const where = { channel: req.channel, thread_ts: req.threadTs };
    return { ts: await postOnce(deps.slack, steps, { ...where, ...placeholder, key, since: req.receivedAt }) };
  } catch (err) {
    // Nothing was posted: the intake tries again shortly.
    if (hasCode(err, PlatformErrorCode.StepUnreplicated)) throw err;
    const code = slackErrorCode(err);
    if (code && CANNOT_POST.has(code)) {
      await deps.access.refund(at.call);
      return fail({ ok: false, reason: 'cannot_post', message: CANNOT_POST_TEXT });
    }
    if (!steps.finalAttempt) throw err;
    at.log.warn({ err, slackError: code }, 'could not post the status message');
    const message = 'Slack would not take my message; nothing was started. Try again in a moment.';
    return fail({ ok: false, reason: 'slack', message });
  }
}

/**
 * Step 4: the job exists (id saved); record and watch it (idempotent). Redis failing throws for a
 * retry; the last try leaves it untracked.
 */
async function record(
  deps: StartJobDeps,
  req: StartJobRequest,
  at: { jobId: string; projectId: string; statusTs: string; threadTs: string },
  finalAttempt: boolean,
): Promise<StartJobResult> {
  const { projectId, ...ids } = at;
  try {
    await deps.store.create(newJobRecord(req, { ...ids, projectId, now: deps.now() }));
    await watchAgentJob(deps.pollQueue, ids.jobId, 0, deps.firstPollDelayMs);
  } catch (err) {
    if (!finalAttempt) throw err;
    return untracked(deps, req, ids, err);
  }
  await deps.status.show(ids.jobId);
  await deps.agent?.session({ channel: req.channel, threadTs: ids.threadTs }, 'processing', {
    title: sessionTitle(req),
    initiator: req.requester,
  });
  audit(deps.logger, {
    actor: req.requester,
    channel: req.channel,
    action: 'start_job',
    outcome: 'ok',
    jobId: ids.jobId,
    projectId,
    instructionChars: req.instruction.length,
  });
  return { ok: true, ...ids };
}
