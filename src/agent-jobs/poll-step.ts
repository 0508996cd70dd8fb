import type { WebClient } from '@slack/web-api';
import { DelayedError, type Job } from 'bullmq';
import type { DocsApiClient } from '../docs-api/client.js';
import { DocsApiNotFoundError } from '../docs-api/errors.js';
import { isTerminal, type AgentJob } from '../docs-api/schemas.js';
import type { Logger } from '../logger.js';
import { buildAnnouncement, type JobOutcome } from '../slack/announcement.js';
import { CANNOT_POST, slackErrorCode } from '../slack/slack-errors.js';
import type { StatusState } from '../slack/status-message.js';
import { ANNOUNCE_LEASE_MS, type JobStore, type JobRecord } from '../store/job-store.js';
import type { PollJobData } from '../queues/poll-queue.js';
import { nextPollDelayMs, type PollBounds } from './poll-schedule.js';
import type { StatusPresenter } from './status-presenter.js';

/** What the poll step needs; injected so tests can drive it with a controlled clock. */
export interface PollStepDeps {
  store: JobStore;
  docsApi: Pick<DocsApiClient, 'getJob'>;
  slack: WebClient;
  /** Shows state changes on the status message and the thread root's reaction. */
  status: Pick<StatusPresenter, 'show'>;
  logger: Logger;
  bounds: PollBounds;
  /** JOB_TIMEOUT_MS: stop watching a cycle this long after it started. */
  timeoutMs: number;
  /** Clock in epoch ms. */
  now: () => number;
  random?: () => number;
}

/** Result a poll step job completes with (visible in BullMQ, handy for operators and tests). */
export type PollStepResult = 'announced' | 'already-announced' | 'superseded' | 'unknown-job' | 'cannot-post';

/**
 * The BullMQ processor of `poll-agent-job`, written as a step job (BullMQ guide "Process step
 * jobs"): each run polls `GET /v2/agent/{projectId}/job/{id}` once; while the job is active it
 * saves its progress with `job.updateData`, reschedules itself with `job.moveToDelayed` and
 * throws `DelayedError`, so one BullMQ job watches the agent job from start to end.
 *
 * When the status is terminal (or JOB_TIMEOUT_MS has passed) it edits the status message and
 * posts exactly one announcement in the thread, guarded by {@link JobStore.claimAnnouncement}.
 *
 * @throws DelayedError to reschedule (expected); other errors make BullMQ retry the step.
 */
export function createPollStep(deps: PollStepDeps) {
  return async function pollStep(job: Job<PollJobData>, token?: string): Promise<PollStepResult> {
    const { agentJobId, cycle, attempt } = job.data;
    const log = deps.logger.child({ jobId: agentJobId, cycle, attempt });
    const rec = await deps.store.get(agentJobId);
    if (!rec) {
      log.warn('no record for this agent job; not watching it');
      return 'unknown-job';
    }
    if (rec.cycle > cycle) return 'superseded';
    if (await deps.store.wasAnnounced(agentJobId, cycle)) {
      await deps.status.show(agentJobId); // a crash may have cut the last edit short
      return 'already-announced';
    }

    const reschedule = async (delayMs: number): Promise<never> => {
      await job.updateData({ agentJobId, cycle, attempt: attempt + 1 });
      await job.moveToDelayed(Date.now() + delayMs, token);
      throw new DelayedError();
    };

    const now = deps.now();
    if (now - rec.cycleStartedAt >= deps.timeoutMs) {
      return finish(deps, rec, cycle, 'timeout', { kind: 'timeout', watchedMs: now - rec.cycleStartedAt }, reschedule, attempt);
    }

    let agentJob: AgentJob;
    try {
      agentJob = await deps.docsApi.getJob(agentJobId);
    } catch (err) {
      if (err instanceof DocsApiNotFoundError) {
        log.warn('the docs API no longer knows this job');
        return finish(deps, rec, cycle, 'archived', { kind: 'archived' }, reschedule, attempt);
      }
      log.warn({ err: { name: (err as Error).name, message: (err as Error).message } }, 'poll failed; will try again');
      return reschedule(nextPollDelayMs(attempt + 1, deps.bounds, deps.random));
    }

    const status = agentJob.status;
    if (isTerminal(status)) {
      const outcome: JobOutcome =
        status === 'completed' ? { kind: 'completed', prLink: agentJob.prLink ?? null } : { kind: status };
      return finish(deps, rec, cycle, status, outcome, reschedule, attempt, agentJob.prLink ?? null);
    }

    // Still active: show how long it has run (throttled, in the background), then wait with backoff.
    void deps.status.show(agentJobId);
    return reschedule(nextPollDelayMs(attempt + 1, deps.bounds, deps.random));
  };
}

async function finish(
  deps: PollStepDeps,
  rec: JobRecord,
  cycle: number,
  state: StatusState,
  outcome: JobOutcome,
  reschedule: (delayMs: number) => Promise<never>,
  attempt: number,
  prLink: string | null = rec.prLink,
): Promise<PollStepResult> {
  const log = deps.logger.child({ jobId: rec.jobId, cycle });
  const now = deps.now();
  const ended: JobRecord = { ...rec, state, prLink: prLink ?? rec.prLink, endedAt: now };
  // A follow-up may have started a new cycle meanwhile: then that cycle's poller owns the thread.
  const latest = await deps.store.get(rec.jobId);
  if (latest && latest.cycle > cycle) return 'superseded';

  if (!(await deps.store.claimAnnouncement(rec.jobId, cycle))) {
    if (await deps.store.wasAnnounced(rec.jobId, cycle)) return 'already-announced';
    // Another run claimed it and has not finished (or crashed): look again once its lease lapses.
    return reschedule(ANNOUNCE_LEASE_MS);
  }
  // Record the end only if no follow-up began in between (atomic check of the cycle).
  if (!(await deps.store.updateIfCycle(rec.jobId, cycle, { state, prLink: ended.prLink, endedAt: now }))) {
    await deps.store.releaseAnnouncement(rec.jobId, cycle);
    return 'superseded';
  }
  // The author of this cycle, and of any follow-up it interrupted, each hear how it ended.
  const mention = [...new Set([rec.cycleRequester, ...rec.alsoMention.split(',').filter(Boolean)])];
  const msg = buildAnnouncement({ mention, jobId: rec.jobId, outcome });
  try {
    await deps.slack.chat.postMessage({
      channel: rec.channel,
      thread_ts: rec.threadTs,
      text: msg.text,
      blocks: msg.blocks,
      unfurl_links: false,
    });
  } catch (err) {
    await deps.store.releaseAnnouncement(rec.jobId, cycle);
    const code = slackErrorCode(err);
    if (code && CANNOT_POST.has(code)) {
      log.error({ slackError: code }, 'the bot can no longer post in this channel; the end of the job is not announced');
      await deps.status.show(rec.jobId);
      return 'cannot-post';
    }
    // Slack trouble: try again later rather than give up after a few quick retries.
    log.warn({ slackError: code }, 'could not post the announcement; will try again');
    return reschedule(nextPollDelayMs(attempt + 1, deps.bounds, deps.random));
  }
  await deps.store.markAnnounced(rec.jobId, cycle);
  log.info({ state, prLink: ended.prLink }, 'announced the end of the job');
  await deps.status.show(rec.jobId);
  return 'announced';
}
