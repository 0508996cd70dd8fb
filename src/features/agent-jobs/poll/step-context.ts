/**
 * What a run of the poll step works with: its dependencies, the step job's data and result, and
 * the context of one run (the record it read, how to reschedule itself). Shared by step.ts (the
 * poll) and finish.ts (the end and its announcement).
 */
import type { Job } from 'bullmq';
import type { DocsApiProjects } from '../../../platform/docs-api/client.js';
import type { Logger } from '../../../platform/logger.js';
import type { BotMetrics } from '../../../platform/metrics.js';
import type { AgentSurface } from '../../../platform/slack/agent-surface.js';
import type { PinnedStepGuard, PostOnceClient, StepGuard } from '../../../platform/steps.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import type { StatusPresenter } from '../status/index.js';
import type { JobRecord, JobStore } from '../store.js';
import type { DurationHistory } from './durations.js';
import type { PollBounds } from './schedule.js';

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
  /**
   * The job's agent session: `active` once a run ends (it can be continued), `closed` once archived or
   * timed out (optional; never throws).
   */
  agent?: Pick<AgentSurface, 'session'>;
  /** Signs the feedback buttons' values. */
  signer: Pick<ValueSigner, 'sign'>;
  /**
   * Replica acknowledgement (REDIS_WAIT_REPLICAS): the claim and the posting mark are on the
   * replicas before the announcement is posted.
   */
  guard?: StepGuard;
  /**
   * Previews a completed run's pull request (added once the announcement is posted, before it is
   * marked: a crash in between adds it again, which the queue ignores). Absent: previews are off.
   * @param completedAt - when the run was seen completed, epoch ms. @throws Redis errors.
   */
  previews?: { watch(agentJobId: string, cycle: number, completedAt: number): Promise<void> };
}

/** Data of a poll step job (queue `poll-agent-job`). */
export interface PollJobData {
  agentJobId: string;
  /** Follow-up number being watched (0 = the first run). */
  cycle: number;
  /** Polls done so far in this cycle. */
  attempt: number;
  /** When the previous poll ran (epoch ms): the job ended between it and the poll that saw the end. */
  lastPollAt?: number;
  /**
   * When the last poll that saw this cycle still active ran (epoch ms; absent before the first): the
   * end came after it.
   */
  lastActiveAt?: number;
}

/** Result a poll step job completes with (visible in BullMQ, handy for operators and tests). */
export type PollStepResult = 'announced' | 'already-announced' | 'superseded' | 'unknown-job' | 'cannot-post';

/** The poll step job as the step sees it: its data, and how to move itself to the delayed set. */
export type PollJob = Pick<Job<PollJobData>, 'data' | 'updateData' | 'moveToDelayed'>;

/** One run of the step: the record it read, and how to reschedule itself. */
export interface StepContext {
  deps: PollStepDeps;
  rec: JobRecord;
  cycle: number;
  log: Logger;
  /**
   * Saves progress, moves the job to the delayed set for `delayMs` (ms) and throws DelayedError.
   * `activeAt`: when a poll just saw the run still active (epoch ms).
   */
  reschedule: (delayMs: number, activeAt?: number) => Promise<never>;
  /**
   * Reschedules to retry the status edit only (slot, lock, 429, budget): not a poll (backoff and poll
   * count unchanged).
   */
  retryEdit: (delayMs: number) => Promise<never>;
  /**
   * Epoch ms after which the run ended (announcement lateness): the last poll that saw it active, else
   * the cycle's start.
   */
  endedAfter: number;
  /** Delay before the next poll, in ms: planned from finished jobs' durations, else backoff. */
  nextDelayMs: () => Promise<number>;
  /** When the previous poll ran (epoch ms), if known. */
  lastPollAt?: number;
  /**
   * Confirms what this run saved since it began (the claim, the posting mark) is on the replicas,
   * before the announcement: the guard with its mark taken when the run began (see {@link PollStepDeps.guard}).
   */
  guard: PinnedStepGuard | undefined;
}
