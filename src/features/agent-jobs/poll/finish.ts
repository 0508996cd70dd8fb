/**
 * The end of a run: recorded once on the job's record (only while it is still on this cycle),
 * announced once in its thread (a claim per cycle, the post's steps kept in Redis), then shown on
 * the status message; a failed announcement is tried again or given up with one error line.
 */
import type { KnownBlock } from '@slack/types';
import type { TerminalStatus, AgentJob } from '../../../platform/docs-api/schemas.js';
import type { FinishedStatus } from '../../../platform/metrics.js';
import type { UnreplicatedStepError } from '../../../platform/replica-guard.js';
import { classifySlackError, CONTENT_CODES, slackErrorCode } from '../../../platform/slack/errors.js';
import { SLACK_LIMITS, truncate } from '../../../platform/slack/limits.js';
import { postOnce } from '../../../platform/steps.js';
import { ANNOUNCE_LEASE_MS, type StatusState } from '../store.js';
import { buildAnnouncement } from './blocks.js';
import { finishedStatus, type JobOutcome } from './outcome.js';
import type { PollStepResult, StepContext } from './step-context.js';
import { hasCode, PlatformErrorCode } from '../../../platform/errors.js';

/** ms before an announcement whose claim was not confirmed on the Redis replicas is tried again. */
const REPLICAS_RETRY_MS = 1_000;

/**
 * Announces the end the API reported. An archived job's `archivedAt` (the spec's only end time)
 * anchors the announcement's lateness when it falls within this cycle.
 */
export function finishEnded(ctx: StepContext, status: TerminalStatus, agentJob: AgentJob): Promise<PollStepResult> {
  const prLink = agentJob.prLink ?? null;
  const archivedAt = status === 'archived' ? Date.parse(agentJob.archivedAt ?? '') : NaN;
  if (archivedAt >= ctx.rec.cycleStartedAt && archivedAt <= ctx.deps.now()) ctx.endedAfter = archivedAt;
  return finish(ctx, status, status === 'completed' ? { kind: 'completed', prLink } : { kind: status }, prLink);
}

/**
 * Records the end of the cycle and announces it once. The end is recorded only while the record is
 * still on this cycle (a follow-up that began meanwhile owns the thread: `superseded`).
 */
export async function finish(
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
    await postAnnouncement(ctx, msg);
  } catch (err) {
    await deps.store.releaseAnnouncement(rec.jobId, cycle);
    if (hasCode<UnreplicatedStepError>(err, PlatformErrorCode.StepUnreplicated)) {
      const msg = "the announcement's claim is not on the Redis replicas yet; nothing posted, looking again shortly";
      log.info({ reason: err.reason }, msg);
      return ctx.retryEdit(REPLICAS_RETRY_MS);
    }
    return announceFailed(ctx, err, finishedStatus(outcome));
  }
  const announcedAt = deps.now();
  // Before the mark: a crash in between finds the announcement again and adds the preview again (once, by its id).
  if (outcome.kind === 'completed' && endedPrLink) await deps.previews?.watch(rec.jobId, cycle, endedAt);
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
 * Posts the announcement in the job's thread, at most once (its steps kept in Redis; see postOnce).
 * A message Slack refuses for its content (blocks, length) goes again as plain text.
 * @throws what postOnce throws (Slack, Redis, UnreplicatedStepError).
 */
async function postAnnouncement(ctx: StepContext, msg: { text: string; blocks: KnownBlock[] }): Promise<void> {
  const { deps, rec, cycle, log } = ctx;
  const steps = await deps.store.announcementSteps(rec.jobId, cycle, ctx.guard);
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
