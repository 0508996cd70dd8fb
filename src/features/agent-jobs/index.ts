/**
 * The agent-jobs feature: start a docs agent job from Slack, continue it from its thread, watch it
 * with a BullMQ step job and announce its end exactly once. Other features use it only through
 * this module.
 */
import type { App } from '@slack/bolt';
import pLimit from 'p-limit';
import type { Queue, Worker } from 'bullmq';
import type { AccessGate } from '../../platform/access.js';
import { docsProjects, type Config } from '../../platform/config.js';
import { KeyedSerial } from '../../platform/keyed-serial.js';
import type { Logger } from '../../platform/logger.js';
import { Quota } from '../../platform/quota.js';
import type { Platform } from '../../platform/runtime.js';
import type { Steps } from '../../platform/steps.js';
import { registerHandlers, type AgentJobsHandlerDeps } from './handlers.js';
import { HOME_OPENS_PER_MINUTE, register as registerListeners } from './listeners.js';
import { handleIncomingMessage, type IncomingMessage, type MessageReceipt } from './messages.js';
import { createPollQueue, DurationHistory, startPollWorker, type PollJobData } from './poll/index.js';
import { JOB_CREATE_CONCURRENCY, type PromptContext, type StartJobDeps } from './start/index.js';
import { buildPreviews, type Previews } from './preview/build.js';
import { asWorkOf } from './work-of.js';
import { EditBudget, StatusPresenter } from './status/index.js';
import { JobStore, PENDING_THREAD } from './store.js';

export { startAgentJob, type StartJobDeps } from './start/index.js';
export {
  INSTRUCTION_ACTION,
  INSTRUCTION_BLOCK,
  INSTRUCTION_MAX,
  instructionInput,
  jobFormButton,
  jobFormSubmission,
  jobModal,
  openForm,
  openJobForm,
  openSigned,
  refuseUnverified,
  type JobForm,
  type JobFormDeps,
  type JobModal,
} from './job-form.js';
export { EditBudget } from './status/index.js';
export { jobIdCode } from './job-record.js';
export type { IncomingMessage, MessageReceipt } from './messages.js';

/** Who a thread belongs to: a job, a job still being created, or none. */
export type ThreadOwner = { kind: 'job'; jobId: string } | { kind: 'starting' } | undefined;

/** The configuration the feature reads (docs/configuration.md). */
export type AgentJobsConfig = Pick<
  Config,
  | 'DOCS_PROJECT_ID'
  | 'DOCS_PROJECT_IDS'
  | 'AGENT_PROMPT_MAX_CHARS'
  | 'POLL_MIN_INTERVAL_MS'
  | 'POLL_MAX_INTERVAL_MS'
  | 'SLACK_UPDATE_BUDGET_PER_MINUTE'
  | 'JOB_TIMEOUT_MS'
  | 'FOLLOWUP_POLICY'
  | 'FOLLOWUP_IGNORE_PREFIX'
  | 'DIGEST_CRON'
  | 'DIGEST_TZ'
  | 'DOCS_PREVIEWS'
  | 'DOCS_PREVIEWS_WINDOW_MS'
>;

/** What the feature is built from: the platform, its configuration, and what is built before it. */
export interface AgentJobsOptions {
  platform: Pick<
    Platform,
    | 'redis'
    | 'prefix'
    | 'queues'
    | 'intake'
    | 'docsApi'
    | 'slack'
    | 'conversations'
    | 'signer'
    | 'logger'
    | 'metrics'
    | 'now'
    | 'workspaces'
    | 'installations'
  > &
    /** Each workspace's docs projects (DOCS_WORKSPACE_PROJECTS); absent: the configured ones. */
    Partial<Pick<Platform, 'docsWorkspaces'>>;
  config: AgentJobsConfig;
  /** The access gate: every start and follow-up goes through it before anything is posted or sent. */
  access: AccessGate;
  /** Each channel's docs project and follow-up policy (the settings feature). Each @throws the Redis error. */
  channels: {
    projectFor(channel: string): Promise<string>;
    followupPolicyFor(channel: string): Promise<'anyone' | 'requester'>;
  };
  /** Slack context for prompts (the thread-context feature): a mention's thread, message links. */
  context?: PromptContext;
}

/** The running feature, as the composition root holds it. */
export interface AgentJobs {
  /** What other features need to start a job (e.g. "Improve with agent"). */
  start: StartJobDeps;
  /**
   * The owner of the thread rooted at `(channel, ts)` (its first job; the thread index in Redis).
   * @throws the Redis error.
   */
  owner(channel: string, ts: string): Promise<ThreadOwner>;
  pollQueue: Queue<PollJobData>;
  /** The previews' queue (`preview-deployment`); absent when DOCS_PREVIEWS is off. */
  previewQueue?: NonNullable<Previews['queue']>;
  presenter: StatusPresenter;
  /**
   * Acts on a person's message the conversations feature routed here (a job's thread, or a
   * mention or DM taken as a docs change): see `handleIncomingMessage`. @returns whether a job was started.
   */
  handleMessage(
    msg: IncomingMessage,
    botUserId: string | undefined,
    steps: Steps,
    receipt: MessageReceipt,
  ): Promise<{ started: boolean }>;
  /** Registers `/docs-edit`, `/docs-reply`, App Home and the jobs' buttons. */
  register(app: App): void;
  /** Starts the poll worker. */
  startWorkers(): Worker[];
  /** Waits for deferred status edits (shutdown), then closes the queue. */
  close(timeoutMs: number): Promise<void>;
}

/** What the start, follow-up and poll paths share. */
type Common = Pick<
  StartJobDeps,
  'pollQueue' | 'status' | 'access' | 'logger' | 'firstPollDelayMs' | 'now' | 'metrics' | 'agent'
> & {
  store: JobStore;
};

/** The intake handlers' dependencies: starts, follow-ups, App Home, "Start it again" and feedback. */
function handlerDepsOf(
  o: AgentJobsOptions,
  common: Common,
  start: StartJobDeps,
  previews: AgentJobsHandlerDeps['previews'],
): AgentJobsHandlerDeps {
  const { store, logger } = common;
  const { redis, prefix, conversations, signer, metrics, slack, now, workspaces } = o.platform;
  const { config, access } = o;
  const policyFor = (channel: string) => o.channels.followupPolicyFor(channel);
  return {
    store,
    followups: new KeyedSerial(),
    start,
    ...(o.context ? { context: o.context } : {}),
    continue: { ...common, docsApi: o.platform.docsApi, redis, prefix, policyFor, conversations },
    slack: slack.web,
    names: slack.names,
    logger,
    ignorePrefix: config.FOLLOWUP_IGNORE_PREFIX,
    homeDefaults: {
      followupPolicy: config.FOLLOWUP_POLICY,
      ignorePrefix: config.FOLLOWUP_IGNORE_PREFIX,
      digestCron: config.DIGEST_CRON,
      digestTz: config.DIGEST_TZ,
    },
    access,
    feedback: { store, redis, prefix, access, conversations, signer, logger, metrics },
    signer,
    conversations,
    workspaces,
    now,
    previews,
    promptMaxChars: config.AGENT_PROMPT_MAX_CHARS,
  };
}

/** Durations of each docs project's finished jobs: the poll schedule learns from them (one history per project). */
function durationHistories(o: AgentJobsOptions): (projectId: string) => DurationHistory {
  const histories = new Map<string, DurationHistory>();
  const { redis, prefix, now } = o.platform;
  return (projectId) => {
    let h = histories.get(projectId);
    if (!h) histories.set(projectId, (h = new DurationHistory(redis, prefix, projectId, now)));
    return h;
  };
}

/** The status message's one writer, on a Slack client of its own that rejects 429s (it waits out Retry-After itself). */
function statusPresenter(o: AgentJobsOptions, store: JobStore, logger: Logger): StatusPresenter {
  const { redis, prefix, slack, now } = o.platform;
  const budget = new EditBudget({ redis, prefix, perMinute: o.config.SLACK_UPDATE_BUDGET_PER_MINUTE });
  const statusSlack = slack.own({ rejectRateLimitedCalls: true });
  return new StatusPresenter({ redis, prefix, store, slack: statusSlack, logger, now, budget });
}

/** The poll worker over the feature's parts: `poll-agent-job`, watching each run to its end. */
function pollWorker(
  o: AgentJobsOptions,
  parts: { store: JobStore; status: StatusPresenter; logger: Logger },
  previews: Previews,
): Worker {
  const { queues, docsApi, slack, intake, signer, metrics, now } = o.platform;
  const { POLL_MIN_INTERVAL_MS: minMs, POLL_MAX_INTERVAL_MS: maxMs, JOB_TIMEOUT_MS: timeoutMs } = o.config;
  return startPollWorker(
    queues,
    {
      ...parts,
      docsApi,
      slack: slack.web,
      bounds: { minMs, maxMs },
      durations: durationHistories(o),
      timeoutMs,
      now,
      signer,
      metrics,
      agent: slack.agent,
      ...(intake.guard.enabled ? { guard: intake.guard } : {}),
      ...(previews.watch ? { previews: { watch: previews.watch } } : {}),
    },
    asWorkOf(o.platform, parts.store),
  );
}

/** Builds the agent-jobs feature: its store, status presenter, poll queue and use cases. */
export function createAgentJobs(o: AgentJobsOptions): AgentJobs {
  const { redis, prefix, queues, intake, slack, logger: rootLogger, now, metrics } = o.platform;
  const logger = rootLogger.child({ feature: 'agent-jobs' });
  const store = new JobStore(redis, prefix, o.config.DOCS_PROJECT_ID);
  const presenter = statusPresenter(o, store, logger);
  const pollQueue = createPollQueue(queues);
  const previews = buildPreviews(o.platform, o.config, { jobs: store, status: presenter, logger });
  const firstPollDelayMs = o.config.POLL_MIN_INTERVAL_MS;
  const common = { store, pollQueue, status: presenter, access: o.access, logger, firstPollDelayMs, now, metrics };
  const commonWithAgent: Common = { ...common, agent: slack.agent };
  const start: StartJobDeps = {
    ...commonWithAgent,
    docsApi: o.platform.docsApi,
    projectFor: (channel) => o.channels.projectFor(channel),
    projects: o.platform.docsWorkspaces?.mapped
      ? () => o.platform.docsWorkspaces?.current() ?? []
      : docsProjects(o.config),
    slack: slack.web,
    signer: o.platform.signer,
    // One per process, shared by every way a job starts: a kill catches at most this many creates.
    createSlots: pLimit(JOB_CREATE_CONCURRENCY),
  };
  const handlerDeps = handlerDepsOf(o, commonWithAgent, start, previews.store);
  registerHandlers(intake, handlerDeps);
  const homeOpens = new Quota(redis, {
    keyPrefix: `${prefix}:agent-jobs:home-opens`,
    points: HOME_OPENS_PER_MINUTE,
    durationS: 60,
  });
  const promptMaxChars = o.config.AGENT_PROMPT_MAX_CHARS;
  return {
    start,
    owner: threadOwner(store),
    pollQueue,
    ...(previews.queue ? { previewQueue: previews.queue } : {}),
    presenter,
    handleMessage: (msg, botUserId, steps, receipt) =>
      handleIncomingMessage(handlerDeps, msg, botUserId, steps, receipt),
    register: (app) => registerListeners(app, { intake, logger, promptMaxChars, homeOpens }),
    startWorkers: () => {
      const preview = previews.startWorker();
      return [pollWorker(o, { store, status: presenter, logger }, previews), ...(preview ? [preview] : [])];
    },
    close: async (timeoutMs) => {
      await presenter.flush(timeoutMs);
      await pollQueue.close();
      await previews.close();
    },
  };
}

/** Who owns the thread rooted at `(channel, ts)`, from the thread index in Redis. @throws the Redis error. */
function threadOwner(store: Pick<JobStore, 'findByThread'>): (channel: string, ts: string) => Promise<ThreadOwner> {
  return async (channel, ts) => {
    const id = await store.findByThread(channel, ts);
    if (!id) return undefined;
    return id === PENDING_THREAD ? { kind: 'starting' } : { kind: 'job', jobId: id };
  };
}
