import { DelayedError, type Job } from 'bullmq';
import type { DocsApiProjects } from '../../../platform/docs-api/client.js';
import { DocsApiNotFoundError } from '../../../platform/docs-api/errors.js';
import { isTerminal, type AgentJob, type TerminalStatus } from '../../../platform/docs-api/schemas.js';
import type { Logger } from '../../../platform/logger.js';
import type { AgentSurface } from '../../../platform/slack/agent-surface.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import type { BotMetrics, FinishedStatus } from '../../../platform/metrics.js';
import type { KnownBlock } from '@slack/types';
import { classifySlackError, CONTENT_CODES, slackErrorCode } from '../../../platform/slack/errors.js';
import { SLACK_LIMITS, truncate } from '../../../platform/slack/limits.js';
import { UnreplicatedStepError, type ReplicaGuard } from '../../../platform/replica-guard.js';
import { postOnce, type PostOnceClient } from '../../../platform/slack/post-once.js';
import { buildAnnouncement } from '../status/blocks.js';
import { finishedStatus, recordedOutcome, type JobOutcome } from './outcome.js';
import { noteSource } from './source.js';
import type { StatusPresenter } from '../status/presenter.js';
import type { DurationHistory } from './durations.js';
import { editRetryDelay, nextPollDelayMs, type PollBounds } from './schedule.js';
import { ANNOUNCE_LEASE_MS, type JobRecord, type JobStore, type StatusState } from '../store.js';

/** What the poll step needs; injected so tests can drive it with fakes and a controlled clock. */
export interface PollStepDeps {
  store: Pick<
    JobStore,
    | 'get'
    | 'update'
    | 'wasAnnounced'
    | 'claimAnnouncement'
    | 'updateIfCycle'
    | 'releaseAnnouncement'
    | 'markAnnounced'
    | 'announcementSteps'
  >;
  /** Polls the job's own project (kept in its record). */
  docsApi: DocsApiProjects<'getJob'>;
  /** Posts the announcement in the job's thread (at most once: found again by its metadata after a crash). */
  slack: PostOnceClient;
  /**
   * Shows state changes on the status message and the thread root's reaction. It never waits: an
   * edit that must wait says how long (`retryInMs`), and the step reschedules itself for then.
   */
  status: Pick<StatusPresenter, 'show' | 'isCurrent'>;
  logger: Logger;
  bounds: PollBounds;
  /**
   * Durations of a docs project's finished jobs: the schedule is planned from the history of the
   * job's own project, and each end adds one there. Absent: backoff only.
   */
  durations?: (projectId: string) => Pick<DurationHistory, 'plan' | 'record'>;
  /** JOB_TIMEOUT_MS: stop watching a cycle this long after it started, in ms. */
  timeoutMs: number;
  /** Clock in epoch ms. */
  now: () => number;
  random?: () => number;
  /** Counts ends by status and their lateness (optional). */
  metrics?: Pick<BotMetrics, 'agentJobFinished'>;
  /** The job's agent session: `active` once a run ends (it can be continued), `closed` once archived or timed out (optional; never throws). */
  agent?: Pick<AgentSurface, 'session'>;
  /** Signs the feedback buttons' values. */
  signer: Pick<ValueSigner, 'sign'>;
  /**
   * Replica acknowledgement (REDIS_WAIT_REPLICAS): the claim and the posting mark are on the
   * replicas before the announcement is posted.
   */
  guard?: Pick<ReplicaGuard, 'mark' | 'confirmSteps'>;
}

/** ms before an announcement whose claim was not confirmed on the Redis replicas is tried again. */
const REPLICAS_RETRY_MS = 1_000;

/** Data of a poll step job (queue `poll-agent-job`). */
export interface PollJobData {
  agentJobId: string;
  /** Follow-up number being watched (0 = the first run). */
  cycle: number;
  /** Polls done so far in this cycle. */
  attempt: number;
  /** When the previous poll ran (epoch ms): the job ended between it and the poll that saw the end. */
  lastPollAt?: number;
  /** When the last poll that saw this cycle still active ran (epoch ms; absent before the first): the end came after it. */
  lastActiveAt?: number;
}

/** Result a poll step job completes with (visible in BullMQ, handy for operators and tests). */
export type PollStepResult = 'announced' | 'already-announced' | 'superseded' | 'unknown-job' | 'cannot-post';

/** The poll step job as the step sees it: its data, and how to move itself to the delayed set. */
export type PollJob = Pick<Job<PollJobData>, 'data' | 'updateData' | 'moveToDelayed'>;

/** One run of the step: the record it read, and how to reschedule itself. */
interface StepContext {
  deps: PollStepDeps;
  rec: JobRecord;
  cycle: number;
  log: Logger;
  /**
   * Saves progress, moves the job to the delayed set for `delayMs` (ms) and throws DelayedError.
   * `activeAt`: when a poll just saw the run still active (epoch ms).
   */
  reschedule: (delayMs: number, activeAt?: number) => Promise<never>;
  /** Reschedules to retry the status edit only (slot, lock, 429, budget): not a poll (backoff and poll count unchanged). */
  retryEdit: (delayMs: number) => Promise<never>;
  /** Epoch ms after which the run ended (announcement lateness): the last poll that saw it active, else the cycle's start. */
  endedAfter: number;
  /** Delay before the next poll, in ms: planned from finished jobs' durations, else backoff. */
  nextDelayMs: () => Promise<number>;
  /** When the previous poll ran (epoch ms), if known. */
  lastPollAt?: number;
  /** Confirms what this run saved is on the replicas, before the announcement (see {@link PollStepDeps.guard}). */
  confirm: ((what: string) => Promise<void>) | undefined;
}

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
    const { agentJobId, cycle, attempt, lastPollAt, lastActiveAt } = job.data;
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
    const ctx: StepContext = {
      deps,
      rec,
      cycle,
      log,
      lastPollAt,
      confirm: confirmSince(deps.guard),
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
    // This cycle's end is already recorded (an announcement that Slack refused before): announce that end.
    const recorded = recordedOutcome(rec);
    if (recorded) return finish(ctx, rec.state, recorded);
    const watchedMs = deps.now() - rec.cycleStartedAt;
    if (watchedMs >= deps.timeoutMs) return finish(ctx, 'timeout', { kind: 'timeout', watchedMs });

    let agentJob: AgentJob;
    const polledAt = deps.now();
    try {
      agentJob = await deps.docsApi.forProject(rec.projectId).getJob(agentJobId);
    } catch (err) {
      if (err instanceof DocsApiNotFoundError) {
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
  };
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

/** Saves progress (when `polled`: one poll more, its time; the last time seen active), moves the step job to the delayed set for `delayMs` (ms), throws DelayedError. */
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

/**
 * Announces the end the API reported. An archived job's `archivedAt` (the spec's only end time)
 * anchors the announcement's lateness when it falls within this cycle.
 */
function finishEnded(ctx: StepContext, status: TerminalStatus, agentJob: AgentJob): Promise<PollStepResult> {
  const prLink = agentJob.prLink ?? null;
  const archivedAt = status === 'archived' ? Date.parse(agentJob.archivedAt ?? '') : NaN;
  if (archivedAt >= ctx.rec.cycleStartedAt && archivedAt <= ctx.deps.now()) ctx.endedAfter = archivedAt;
  return finish(ctx, status, status === 'completed' ? { kind: 'completed', prLink } : { kind: status }, prLink);
}

/**
 * The announcement could not be posted. A place that is gone (channel deleted or archived, bot
 * removed) or a permanent refusal ends the watch with one error line; anything transient is tried
 * again later with backoff.
 */
async function announceFailed(ctx: StepContext, err: unknown, finished: FinishedStatus): Promise<PollStepResult> {
  const info = classifySlackError(err);
  if (info.kind === 'transient') {
    ctx.log.warn({ err, slackError: info.code }, 'could not post the announcement; will try again');
    return ctx.reschedule(await ctx.nextDelayMs());
  }
  const what =
    info.kind === 'gone' ? 'the bot can no longer post in this channel' : 'Slack refused the announcement for good';
  ctx.log.error(
    { slackError: info.code, slackMethod: info.method ?? 'chat.postMessage' },
    `${what}; the end of the job is not announced`,
  );
  ctx.deps.metrics?.agentJobFinished(finished);
  await ctx.deps.status.show(ctx.rec.jobId);
  return 'cannot-post';
}

/** Confirms, before the announcement, what this run saved since it began (see {@link PollStepDeps.guard}). */
function confirmSince(guard: PollStepDeps['guard']): StepContext['confirm'] {
  if (!guard) return undefined;
  const mark = guard.mark();
  return (what) => guard.confirmSteps(mark, what);
}

/**
 * Records the end of the cycle and announces it once. The end is recorded only while the record is
 * still on this cycle (a follow-up that began meanwhile owns the thread: `superseded`).
 */
async function finish(
  ctx: StepContext,
  state: StatusState,
  outcome: JobOutcome,
  prLink: string | null = ctx.rec.prLink,
): Promise<PollStepResult> {
  const { deps, rec, cycle, log } = ctx;
  if (!(await deps.store.claimAnnouncement(rec.jobId, cycle))) {
    if (await deps.store.wasAnnounced(rec.jobId, cycle)) return 'already-announced';
    // Another run claimed it and has not finished (or crashed): look again once its lease lapses.
    return ctx.reschedule(ANNOUNCE_LEASE_MS);
  }
  const endedPrLink = prLink ?? rec.prLink;
  // The end replaces any "interrupted by a follow-up" note: it no longer applies.
  const endedAt = rec.endedAt > 0 ? rec.endedAt : deps.now();
  if (!(await deps.store.updateIfCycle(rec.jobId, cycle, { state, prLink: endedPrLink, endedAt, note: '' }))) {
    await deps.store.releaseAnnouncement(rec.jobId, cycle);
    return 'superseded';
  }
  // The author of this cycle, and of any follow-up it interrupted, each hear how it ended.
  const mention = [...new Set([rec.cycleRequester, ...rec.alsoMention.split(',').filter(Boolean)])];
  const msg = buildAnnouncement({ mention, jobId: rec.jobId, outcome }, deps.signer);
  try {
    const steps = await deps.store.announcementSteps(rec.jobId, cycle, ctx.confirm);
    const post = (m: { text: string; blocks?: KnownBlock[] }, key: string) =>
      postOnce(deps.slack, steps, {
        channel: rec.channel,
        thread_ts: rec.threadTs,
        ...m,
        key,
        since: rec.cycleStartedAt,
      });
    await post(msg, `announce:${rec.jobId}:${cycle}`).catch(async (err: unknown) => {
      // Slack refused the message itself (blocks, length): the same news as plain text.
      if (!CONTENT_CODES.has(slackErrorCode(err) ?? '')) throw err;
      log.warn({ err }, 'Slack refused the announcement; sending it as plain text');
      await post({ text: truncate(msg.text, SLACK_LIMITS.sectionText) }, `announce-text:${rec.jobId}:${cycle}`);
    });
  } catch (err) {
    await deps.store.releaseAnnouncement(rec.jobId, cycle);
    if (err instanceof UnreplicatedStepError) {
      const msg = "the announcement's claim is not on the Redis replicas yet; nothing posted, looking again shortly";
      log.info({ reason: err.reason }, msg);
      return ctx.retryEdit(REPLICAS_RETRY_MS);
    }
    return announceFailed(ctx, err, finishedStatus(outcome));
  }
  const announcedAt = deps.now();
  await deps.store.markAnnounced(rec.jobId, cycle);
  // A timeout is not the job's end: it has no lateness.
  deps.metrics?.agentJobFinished(
    finishedStatus(outcome),
    outcome.kind === 'timeout' ? undefined : (announcedAt - ctx.endedAfter) / 1000,
  );
  if (rec.endedAt <= 0 && (state === 'completed' || state === 'failed')) await learnDuration(ctx, endedAt);
  log.info({ state, prLink: endedPrLink }, 'announced the end of the job');
  await deps.agent?.session(
    { channel: rec.channel, threadTs: rec.threadTs },
    state === 'archived' || state === 'timeout' ? 'closed' : 'active',
  );
  // The final edit is never dropped: when it must wait (slot, 429, the edit budget), look again then.
  const { retryInMs } = await deps.status.show(rec.jobId);
  if (retryInMs !== undefined) return ctx.retryEdit(retryInMs);
  return 'announced';
}

/**
 * Adds the duration of this cycle to the project's history: it ended between the previous poll
 * and `seenAt` (epoch ms), so the midpoint is the estimate. Never throws (the end is announced).
 */
async function learnDuration(ctx: StepContext, seenAt: number): Promise<void> {
  const endedAt = ctx.lastPollAt ? (ctx.lastPollAt + seenAt) / 2 : seenAt;
  await ctx.deps
    .durations?.(ctx.rec.projectId)
    .record(endedAt - ctx.rec.cycleStartedAt)
    .catch((err: unknown) => {
      ctx.log.warn({ err }, 'could not record the job duration');
    });
}
