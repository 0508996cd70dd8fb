import pRetry from 'p-retry';
import type { Queue } from 'bullmq';
import type { DocsApiProjects } from '../../../platform/docs-api/client.js';
import type { AccessGate, AgentCall } from '../../../platform/access.js';
import { audit } from '../../../platform/audit.js';
import { docsApiErrorText } from '../../../platform/docs-api/error-text.js';
import { DocsApiNetworkError, DocsApiRateLimitedError } from '../../../platform/docs-api/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { AgentSurface } from '../../../platform/slack/agent-surface.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import type { BotMetrics } from '../../../platform/metrics.js';
import { CANNOT_POST, slackErrorCode } from '../../../platform/slack/errors.js';
import { UnreplicatedStepError } from '../../../platform/replica-guard.js';
import {
  confirmStep,
  memorySteps,
  postOnce,
  type PostOnceClient,
  type Steps,
} from '../../../platform/slack/post-once.js';
import { buildStatusMessage, buildUncertainNotice } from '../status/blocks.js';
import type { PollJobData } from '../poll/step.js';
import type { StatusChange, StatusPresenter, StatusTarget } from '../status/presenter.js';
import { newJobRecord } from '../job-record.js';
import type { JobStore } from '../store.js';
import { watchAgentJob } from '../poll/queue.js';

/** What starting a job needs. */
export interface StartJobDeps {
  store: Pick<JobStore, 'create' | 'markThreadsPending' | 'clearPendingThreads' | 'saveRestart'>;
  docsApi: DocsApiProjects<'createJob'>;
  /** The docs project of a channel (its settings, else DOCS_PROJECT_ID). @throws the Redis error. */
  projectFor: (channel: string) => Promise<string>;
  /** DOCS_PROJECT_ID then DOCS_PROJECT_IDS: what `project=<id>` may name (absent: `project=` is not read). */
  projects?: readonly string[];
  /** Posts the status message; finds it again after a crash (history scopes). */
  slack: PostOnceClient;
  pollQueue: Pick<Queue<PollJobData>, 'add'>;
  /** The status message's one writer: every later edit or removal goes through it. */
  status: Pick<StatusPresenter, 'show' | 'settleUnrecorded'>;
  /** Who may start a job here, and the agent budget: asked before anything is posted or sent. */
  access: Pick<AccessGate, 'authorize' | 'admitAgentCall' | 'refund' | 'noteRateLimited'>;
  logger: Logger;
  /** POLL_MIN_INTERVAL_MS: delay of the first poll, in ms. */
  firstPollDelayMs: number;
  /** Clock in epoch ms. */
  now: () => number;
  /** Counts jobs created (optional). */
  metrics?: Pick<BotMetrics, 'agentJobStarted'>;
  /** Slack's agent surfaces: the job's thread is an agent session, and shows what the bot is doing while it starts (optional; never throws). */
  agent?: Pick<AgentSurface, 'session' | 'loading'>;
  /** Signs the "Start it again" button's value. */
  signer: Pick<ValueSigner, 'sign'>;
}

/** A request to start a job from Slack. */
export interface StartJobRequest {
  teamId: string;
  channel: string;
  requester: string;
  /** Already trimmed and non-empty. What the status message shows. */
  instruction: string;
  /** What the agent is asked, when more than the instruction (its Slack context); default the instruction. */
  prompt?: string;
  /** Post the status message in this thread (mentions, DMs); default: a new top-level message. */
  threadTs?: string;
  /** Put the state reaction on the status message, not the thread root: for threads the job does not own (a digest's). */
  reactOnStatusMessage?: boolean;
  /** The conversations whose messages are in `prompt` (see JobRecord.contextFrom), and how many messages (the plan's "Reading the thread"). */
  contextFrom?: string[];
  contextMessages?: number;
  /** Unique per request (the intake's id): keys the messages posted at most once, and "Start it again". */
  requestKey?: string;
  /** Epoch ms the request was received (the intake's receipt time): a late retry looks for what it posted from then (postOnce's `since`). */
  receivedAt: number;
  /** The docs project from `project=<id>` (already checked against the configured ones); default the channel's. */
  project?: string;
}

/** Outcome of {@link startAgentJob}; on failure, `message` is the sentence to show the person ('' when the thread already says it). */
export type StartJobResult =
  | { ok: true; jobId: string; statusTs: string; threadTs: string }
  | { ok: false; reason: 'refused' | 'cannot_post' | 'docs_api' | 'slack' | 'internal' | 'uncertain'; message: string };

type StartFailure = Extract<StartJobResult, { ok: false }>;

/** Sentence for a channel the bot cannot post in (not a member, archived, …). */
export const CANNOT_POST_TEXT =
  "I can't post in this channel yet. Invite me with `/invite @Docs Agent`, then run the command again. Nothing was started.";

/**
 * Starts an agent job from Slack, resumably (each step is saved in `steps` before the next, so a
 * retry after a crash picks up where the last try stopped):
 * 0. asks the access gate (policy, prompt cap, one request from the agent budget): a refusal is
 *    returned before anything is posted or sent;
 * 1. posts the status message (at most once; a channel the bot cannot post in costs no job);
 * 2. marks its thread "starting" (replies meanwhile are answered) and saves "create sent" with the
 *    channel's docs project, chosen once (a retry uses the same one);
 * 3. creates the job (`POST /v2/agent/{projectId}/job`) and saves its id; 4. records and watches it.
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
  const projectId = p.projectId ?? req.project ?? (await deps.projectFor(req.channel)); // chosen once; its budget applies
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

  await deps.store.markThreadsPending(req.channel, threads);
  await steps.save({ create: 'sent', projectId });
  await confirmStep(steps, 'create', { create: undefined }, deps.logger);
  let jobId: string;
  try {
    jobId = (await deps.docsApi.forProject(projectId).createJob(req.prompt ?? req.instruction)).id;
    deps.metrics?.agentJobStarted('new');
  } catch (err) {
    log.warn({ err }, 'could not create the agent job');
    // No answer after the request may have arrived: the job may exist. A connection never made
    // (refused, DNS) sent nothing: a plain failure.
    if (err instanceof DocsApiNetworkError && err.sent)
      return uncertain(deps, req, steps, { key, statusTs, threadTs, threads, projectId });
    if (err instanceof DocsApiRateLimitedError) await deps.access.noteRateLimited(call, err.retryAfterMs);
    await clearPending(deps, req.channel, threads);
    const failure: StartFailure = {
      ok: false,
      reason: 'docs_api',
      message: `Nothing was started. ${docsApiErrorText(err)}`,
    };
    await steps.save({ failure, retire: statusTs });
    return retirePlaceholder(deps, steps, { teamId: req.teamId, channel: req.channel, statusTs }, failure);
  }
  try {
    await pRetry(() => steps.save({ jobId }), { retries: 4, minTimeout: 200, factor: 2 }); // the id is known only here: ride out a failover (~3 s)
  } catch (err) {
    return untracked(deps, req, { jobId, statusTs }, err);
  }
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
  const starting = { requester, instruction, projectId: at.projectId, state: 'starting' as const, elapsedMs: 0 };
  const placeholder = buildStatusMessage(starting);
  try {
    const key = `${at.key}:status`;
    const where = { channel: req.channel, thread_ts: req.threadTs };
    return { ts: await postOnce(deps.slack, steps, { ...where, ...placeholder, key, since: req.receivedAt }) };
  } catch (err) {
    if (err instanceof UnreplicatedStepError) throw err; // nothing was posted: the intake tries again shortly
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

/** Step 4: the job exists (id saved); record and watch it (idempotent). Redis failing throws for a retry; the last try leaves it untracked. */
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
    title: req.instruction,
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

/** The job runs at the vendor, but Redis would not record it: say so where people look, with its id. */
async function untracked(
  deps: StartJobDeps,
  req: StartJobRequest,
  ids: { jobId: string; statusTs: string },
  err: unknown,
): Promise<StartFailure> {
  deps.logger.error({ jobId: ids.jobId, err }, 'created a job but could not record it');
  const note = `:warning: Job \`${ids.jobId}\` started, but I could not keep track of it, so I won't report its end here. Look for its pull request on the docs platform.`;
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
    message: `Job \`${ids.jobId}\` started, but I could not keep track of it (a storage problem on my side), so I won't report when it ends. Tell the admin if this keeps happening.`,
  };
}

/**
 * The create request was in flight when the process died, or got no answer: the job may or may not
 * exist. The status message says so, and one notice in the thread offers "Start it again".
 */
async function uncertain(
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
  });
  const status = buildStatusMessage({
    requester: req.requester,
    instruction: req.instruction,
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
  const restart = { requester: req.requester, instruction: req.instruction, restartId: at.key };
  const notice = buildUncertainNotice(restart, deps.signer);
  await postOnce(deps.slack, steps, {
    channel: req.channel,
    thread_ts: at.threadTs,
    ...notice,
    key: `${at.key}:uncertain`,
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

/** Removes the placeholder of a start that failed for sure (see {@link settleStatus}), then forgets it; resolves with `failure`. */
async function retirePlaceholder(
  deps: StartJobDeps,
  steps: Steps,
  target: StatusTarget,
  failure: StartFailure,
): Promise<StartFailure> {
  await settleStatus(deps, steps, target, { delete: true });
  await steps.save({ retire: undefined });
  return failure;
}

/** Clears the "starting" marks of a start that ended without a job; they lapse on their own (TTL) if Redis fails now. */
async function clearPending(deps: StartJobDeps, channel: string, threads: string[]): Promise<void> {
  await deps.store.clearPendingThreads(channel, threads).catch((err: unknown) => {
    deps.logger.warn({ err, channel }, 'could not clear the "starting" marks; they expire on their own');
  });
}

/** The status message's last change must wait `retryInMs` (ms): thrown so the intake tries again. */
export class StatusChangeDeferredError extends Error {
  constructor(readonly retryInMs: number) {
    super(`the status message change must wait ${retryInMs} ms`);
    this.name = 'StatusChangeDeferredError';
  }
}
