/**
 * The agent-jobs feature: start a docs agent job from Slack, continue it from its thread, watch it
 * with a BullMQ step job and announce its end exactly once. Other features use it only through
 * this module.
 */
import type { WebClient } from '@slack/web-api';
import type { App } from '@slack/bolt';
import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DocsApiProjects } from '../../platform/docs-api/client.js';
import type { AccessGate } from '../../platform/access.js';
import { KeyedSerial } from '../../platform/keyed-serial.js';
import type { Logger } from '../../platform/logger.js';
import type { BotMetrics } from '../../platform/metrics.js';
import type { Intake } from '../../platform/intake.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import type { QueueContext } from '../../platform/queues.js';
import { Quota } from '../../platform/quota.js';
import type { AgentSurface } from '../../platform/slack/agent-surface.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import type { UserNames } from '../../platform/slack/user-names.js';
import type { HomeDefaults } from './home/index.js';
import { registerHandlers, type AgentJobsHandlerDeps } from './handlers.js';
import { HOME_OPENS_PER_MINUTE, register as registerListeners } from './listeners.js';
import type { PromptContext } from './start/index.js';
import { handleIncomingMessage, type IncomingMessage, type MessageReceipt } from './messages.js';
import type { Steps } from '../../platform/slack/post-once.js';
import type { PollJobData } from './poll/index.js';
import { StatusPresenter } from './status/index.js';
import type { PollBounds } from './poll/index.js';
import type { StartJobDeps } from './start/index.js';
import { DurationHistory } from './poll/index.js';
import { EditBudget } from './status/index.js';
import { JobStore, PENDING_THREAD } from './store.js';
import { createPollQueue } from './poll/index.js';
import { startPollWorker } from './poll/index.js';

export { startAgentJob, type StartJobDeps, type StartJobRequest, type StartJobResult } from './start/index.js';
export { INTAKE as AGENT_JOBS_INTAKE, type StartIntake } from './intake.js';
export {
  FORM_CHECK_WITHIN_MS,
  formRefusal,
  submitFollowUpForm,
  submitJobStartForm,
  type FormFollowUp,
  type FormStartDeps,
} from './form-start.js';
export { EditBudget, type BudgetGrant } from './status/index.js';
export { decide, type IncomingMessage, type MessageDecision, type MessageReceipt } from './messages.js';

/** Who a thread belongs to: a job, a job still being created, or none. */
export type ThreadOwner = { kind: 'job'; jobId: string } | { kind: 'starting' } | undefined;

/**
 * The owner of the thread rooted at `(channel, ts)` (its first job; the thread index in Redis).
 * @throws the Redis error.
 */
export function threadOwner(redis: Redis, prefix: string): (channel: string, ts: string) => Promise<ThreadOwner> {
  const store = new JobStore(redis, prefix);
  return async (channel, ts) => {
    const id = await store.findByThread(channel, ts);
    if (!id) return undefined;
    return id === PENDING_THREAD ? { kind: 'starting' } : { kind: 'job', jobId: id };
  };
}
export type { PromptContext, PromptContextRequest, PromptContextResult } from './start/index.js';

/** What the feature is built from (platform pieces and its configuration). */
export interface AgentJobsOptions {
  queues: QueueContext;
  /** The state connection (records, claims, locks). */
  redis: Redis;
  /** QUEUE_PREFIX. */
  prefix: string;
  docsApi: DocsApiProjects<'createJob' | 'sendMessage' | 'getJob'>;
  /** DOCS_PROJECT_ID: the project of job records written before each job kept its own. */
  projectId: string;
  /** The docs project of a channel (the settings feature). */
  projectFor: (channel: string) => Promise<string>;
  /** The configured docs projects (DOCS_PROJECT_ID, then DOCS_PROJECT_IDS): what `project=<id>` may name. */
  projects: readonly string[];
  /** Who may continue a job in a channel (the settings feature; FOLLOWUP_POLICY by default). */
  followupPolicyFor: (channel: string) => Promise<'anyone' | 'requester'>;
  /** The bot's Web API client. */
  slack: WebClient;
  /** People's names for mentions (users.info on a client of their own, cached). */
  names: Pick<UserNames, 'lookup'>;
  /** A client that rejects 429s, for status edits (the presenter waits out Retry-After itself). */
  statusSlack: WebClient;
  /** Where listeners record requests; the feature registers its handlers on it. */
  intake: Intake;
  /** The access gate: every start and follow-up goes through it before anything is posted or sent. */
  access: AccessGate;
  /** AGENT_PROMPT_MAX_CHARS: `/docs-edit` answers a longer instruction in its ack. */
  promptMaxChars: number;
  logger: Logger;
  /** POLL_MIN_INTERVAL_MS, POLL_MAX_INTERVAL_MS. */
  poll: PollBounds;
  /** SLACK_UPDATE_BUDGET_PER_MINUTE: status edits (chat.update) per workspace per minute, shared by every replica. */
  updateBudgetPerMinute: number;
  /** JOB_TIMEOUT_MS. */
  timeoutMs: number;
  /** FOLLOWUP_IGNORE_PREFIX. */
  ignorePrefix: string;
  /** Shown in App Home. */
  homeDefaults: HomeDefaults;
  /** Clock in epoch ms. */
  now: () => number;
  /** Slack context for prompts (the thread-context feature): a mention's thread, message links. */
  context?: PromptContext;
  /** Counts runs started and ended, and how late ends are announced (optional). */
  metrics?: Pick<BotMetrics, 'agentJobStarted' | 'agentJobFinished' | 'agentFeedback'>;
  /**
   * Membership of conversations: a follow-up to a job with Slack context needs its author in each
   * of them; a feedback click or "Start it again" needs the person in the job's conversation.
   */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Signs the values of the feedback and "Start it again" buttons, and checks them when clicked. */
  signer: ValueSigner;
  /** Slack's agent surfaces: a session per job's thread, loading lines while a job starts (optional). */
  agent?: AgentSurface;
}

/** The running feature, as the composition root holds it. */
export interface AgentJobs {
  /** What other features need to start a job (e.g. "Improve with agent"). */
  start: StartJobDeps;
  pollQueue: Queue<PollJobData>;
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
function handlerDepsOf(o: AgentJobsOptions, common: Common, start: StartJobDeps): AgentJobsHandlerDeps {
  const { store, logger } = common;
  const { redis, prefix, access, conversations, signer } = o;
  const metrics = o.metrics ? { metrics: o.metrics } : {};
  return {
    store,
    followups: new KeyedSerial(),
    start,
    ...(o.context ? { context: o.context } : {}),
    continue: { ...common, docsApi: o.docsApi, redis, prefix, policyFor: o.followupPolicyFor, conversations },
    slack: o.slack,
    names: o.names,
    logger,
    ignorePrefix: o.ignorePrefix,
    homeDefaults: o.homeDefaults,
    access,
    feedback: { store, redis, prefix, access, conversations, signer, logger, ...metrics },
    signer,
    conversations,
    now: o.now,
  };
}

/** Durations of each docs project's finished jobs: the poll schedule learns from them (one history per project). */
function durationHistories(o: AgentJobsOptions): (projectId: string) => DurationHistory {
  const histories = new Map<string, DurationHistory>();
  return (projectId) => {
    let h = histories.get(projectId);
    if (!h) histories.set(projectId, (h = new DurationHistory(o.redis, o.prefix, projectId, o.now)));
    return h;
  };
}

/** Builds the agent-jobs feature: its store, status presenter, poll queue and use cases. */
export function createAgentJobs(o: AgentJobsOptions): AgentJobs {
  const logger = o.logger.child({ feature: 'agent-jobs' });
  const store = new JobStore(o.redis, o.prefix, o.projectId);
  const budget = new EditBudget({ redis: o.redis, prefix: o.prefix, perMinute: o.updateBudgetPerMinute });
  const presenter = new StatusPresenter({
    redis: o.redis,
    prefix: o.prefix,
    store,
    slack: o.statusSlack,
    logger,
    now: o.now,
    budget,
  });
  const pollQueue = createPollQueue(o.queues);
  const common = {
    store,
    pollQueue,
    status: presenter,
    access: o.access,
    logger,
    firstPollDelayMs: o.poll.minMs,
    now: o.now,
    ...(o.metrics ? { metrics: o.metrics } : {}),
    ...(o.agent ? { agent: o.agent } : {}),
  };
  const { docsApi, projectFor, projects, slack, signer } = o;
  const start: StartJobDeps = { ...common, docsApi, projectFor, projects, slack, signer };
  const handlerDeps = handlerDepsOf(o, common, start);
  registerHandlers(o.intake, handlerDeps);
  const durationsByProject = durationHistories(o);
  const homeOpens = new Quota(o.redis, {
    keyPrefix: `${o.prefix}:agent-jobs:home-opens`,
    points: HOME_OPENS_PER_MINUTE,
    durationS: 60,
  });
  return {
    start,
    pollQueue,
    presenter,
    handleMessage: (msg, botUserId, steps, receipt) =>
      handleIncomingMessage(handlerDeps, msg, botUserId, steps, receipt),
    register: (app) =>
      registerListeners(app, { intake: o.intake, logger, promptMaxChars: o.promptMaxChars, homeOpens }),
    startWorkers: () => [
      startPollWorker(o.queues, {
        store,
        docsApi: o.docsApi,
        slack: o.slack,
        status: presenter,
        logger,
        bounds: o.poll,
        durations: durationsByProject,
        timeoutMs: o.timeoutMs,
        now: o.now,
        signer: o.signer,
        ...(o.metrics ? { metrics: o.metrics } : {}),
        ...(o.agent ? { agent: o.agent } : {}),
        ...(o.intake.guard.enabled ? { guard: o.intake.guard } : {}),
      }),
    ],
    close: async (timeoutMs) => {
      await presenter.flush(timeoutMs);
      await pollQueue.close();
    },
  };
}
