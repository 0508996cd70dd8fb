/** What starting a job takes, asks and answers: its dependencies, the request and the result. */
import type { Queue } from 'bullmq';
import type { AccessGate } from '../../../platform/access.js';
import type { DocsApiProjects } from '../../../platform/docs-api/client.js';
import type { Logger } from '../../../platform/logger.js';
import type { BotMetrics } from '../../../platform/metrics.js';
import type { AgentSurface } from '../../../platform/slack/agent-surface.js';
import type { PostOnceClient } from '../../../platform/steps.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import type { PollJobData } from '../poll/index.js';
import type { StatusPresenter } from '../status/index.js';
import type { JobStore } from '../store.js';

/** What starting a job needs. */
export interface StartJobDeps {
  store: Pick<JobStore, 'create' | 'markThreadsPending' | 'clearPendingThreads' | 'saveRestart'>;
  docsApi: DocsApiProjects<'createJob'>;
  /** The docs project of a channel (its settings, else DOCS_PROJECT_ID). @throws the Redis error. */
  projectFor: (channel: string) => Promise<string>;
  /**
   * DOCS_PROJECT_ID then DOCS_PROJECT_IDS: what `project=<id>` may name (absent: `project=` is not
   * read); a function: the current workspace's (DOCS_WORKSPACE_PROJECTS), read at each start.
   */
  projects?: readonly string[] | (() => readonly string[]);
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
  /**
   * Slack's agent surfaces: the job's thread is an agent session, and shows what the bot is doing
   * while it starts (optional; never throws).
   */
  agent?: Pick<AgentSurface, 'session' | 'loading'>;
  /** Signs the "Start it again" button's value. */
  signer: Pick<ValueSigner, 'sign'>;
  /**
   * Runs a start's uncertain window (from "create sent" saved to the job's id saved) when one of the
   * process's few create slots is free (p-limit of {@link JOB_CREATE_CONCURRENCY}): after a restart
   * the recorded starts do not all send their creates at once, so a kill catches few of them.
   * Absent: no limit.
   */
  createSlots?: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** Creates in flight at once per process ({@link StartJobDeps.createSlots}). */
export const JOB_CREATE_CONCURRENCY = 2;

/** A request to start a job from Slack. */
export interface StartJobRequest {
  teamId: string;
  channel: string;
  requester: string;
  /** Already trimmed and non-empty. What the status message shows. */
  instruction: string;
  /** What the agent is asked, when more than the instruction (its Slack context); default the instruction. */
  prompt?: string;
  /**
   * One line saying what the quoted text is about (e.g. Document this: the question), shown under
   * the instruction on the status message and in App Home by the rules of reader text
   * (`escapeReaderText`: quoted text is data). At most `ABOUT_MAX` (job-record.ts) characters are kept.
   */
  about?: string;
  /** Post the status message in this thread (mentions, DMs); default: a new top-level message. */
  threadTs?: string;
  /**
   * Put the state reaction on the status message, not the thread root: for threads the job does not
   * own (a digest's).
   */
  reactOnStatusMessage?: boolean;
  /**
   * The conversations whose messages are in `prompt` (see JobRecord.contextFrom), and how many
   * messages (the plan's "Reading the thread").
   */
  contextFrom?: string[];
  contextMessages?: number;
  /** Unique per request (the intake's id): keys the messages posted at most once, and "Start it again". */
  requestKey?: string;
  /**
   * Epoch ms the request was received (the intake's receipt time): a late retry looks for what it
   * posted from then (postOnce's `since`).
   */
  receivedAt: number;
  /** The docs project from `project=<id>` (already checked against the configured ones); default the channel's. */
  project?: string;
}

/**
 * Outcome of {@link startAgentJob}; on failure, `message` is the sentence to show the person ('' when
 * the thread already says it).
 */
export type StartJobResult =
  | { ok: true; jobId: string; statusTs: string; threadTs: string }
  | { ok: false; reason: 'refused' | 'cannot_post' | 'docs_api' | 'slack' | 'internal' | 'uncertain'; message: string };

/** A start that ended without a tracked job. */
export type StartFailure = Extract<StartJobResult, { ok: false }>;

/** The projects `project=<id>` may name now ({@link StartJobDeps.projects}), or undefined when it is not read. */
export function projectsNow(deps: Pick<StartJobDeps, 'projects'>): readonly string[] | undefined {
  const p = deps.projects;
  return typeof p === 'function' ? p() : p;
}
