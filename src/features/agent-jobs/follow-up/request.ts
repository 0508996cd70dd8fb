/** What continuing a job takes, asks and answers: its dependencies, the request and the result. */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AccessGate } from '../../../platform/access.js';
import type { DocsApiProjects } from '../../../platform/docs-api/client.js';
import type { Logger } from '../../../platform/logger.js';
import type { BotMetrics } from '../../../platform/metrics.js';
import type { AgentSurface } from '../../../platform/slack/agent-surface.js';
import type { ConversationDirectory } from '../../../platform/slack/conversations.js';
import type { PollJobData } from '../poll/index.js';
import type { StatusPresenter } from '../status/index.js';
import type { JobRecord, JobStore } from '../store.js';

/** What a follow-up needs. */
export interface ContinueJobDeps {
  store: Pick<JobStore, 'get' | 'beginCycle'>;
  /** Redis and QUEUE_PREFIX, for the per-job lock that keeps replicas from interleaving follow-ups. */
  redis: Redis;
  prefix: string;
  /** Sends to the job's own project (kept in its record). */
  docsApi: DocsApiProjects<'sendMessage'>;
  pollQueue: Pick<Queue<PollJobData>, 'add'>;
  status: Pick<StatusPresenter, 'show'>;
  /**
   * Who may continue a job here (asked before the follow-up's text is read), and the agent budget
   * (before it is sent).
   */
  access: Pick<AccessGate, 'authorize' | 'admitAgentCall' | 'noteRateLimited'>;
  logger: Logger;
  /**
   * Who may continue a job in a channel: `anyone`, or only the `requester` (the channel's settings,
   * else FOLLOWUP_POLICY). @throws the Redis error.
   */
  policyFor: (channel: string) => Promise<'anyone' | 'requester'>;
  firstPollDelayMs: number;
  now: () => number;
  /** Counts follow-ups sent (optional). */
  metrics?: Pick<BotMetrics, 'agentJobStarted'>;
  /**
   * Membership of the conversations a job's context came from; without it, such jobs take follow-ups
   * from their requester only.
   */
  conversations?: Pick<ConversationDirectory, 'isMember'>;
  /** The job's agent session goes back to `processing` with each follow-up (optional; never throws). */
  agent?: Pick<AgentSurface, 'session'>;
}

/** Outcome of {@link continueAgentJob}; on failure `message` is the sentence for the person. */
export type ContinueJobResult =
  | { ok: true; rec: JobRecord; cycle: number; interrupted: boolean; prompt: string }
  | {
      ok: false;
      reason:
        | 'unknown_job'
        | 'not_allowed'
        | 'not_a_reader'
        | 'refused'
        | 'empty'
        | 'stale'
        | 'docs_api'
        | 'internal'
        | 'uncertain';
      message: string;
    };

/** A follow-up that did not go through: why, and the sentence for the person. */
export type Refused = Extract<ContinueJobResult, { ok: false }>;

/** A follow-up: who sends what to which job, and (for `/docs-reply`) from which channel. */
export interface ContinueJobRequest {
  jobId: string;
  author: string;
  /**
   * The instruction as plain text, or how to make it from the Slack markup (mentions → names costs
   * users.info calls): called only once the job is found and the author may continue it.
   */
  prompt: string | (() => Promise<string>);
  /** Where a `/docs-reply` was typed: it must be the job's own channel. */
  fromChannel?: string;
  /**
   * The cycle the request was made against (a fix click names its failed build's cycle): checked
   * under the job's lock, before the budget is taken, so two clicks on one button send once. When the
   * job is at another cycle the follow-up is refused with reason `stale` (nothing spent). A retry of
   * a follow-up already being sent is not checked (its own send moved the cycle).
   */
  expectCycle?: number;
}
