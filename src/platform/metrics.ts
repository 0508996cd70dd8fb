import { REDIS_ROLES, type RedisObserver, type RedisRole } from './redis.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DocsApiObserver, DocsApiOperation } from './docs-api/client.js';
import type { EdgeObserver, EdgeOutcome } from './slack/edge.js';
import type { SlackRequestKind } from './slack/payloads.js';
import type { DeferReason, IntakeObserver, RejectReason } from './intake-kind.js';
import { withinTime } from './time-limit.js';

/**
 * The bot's Prometheus metrics (prom-client), all on one {@link Registry} that the composition root
 * creates and serves on `GET /metrics` (never prom-client's global registry, so tests and several
 * bots in one process don't collide). Names follow Prometheus' conventions (`docs_bot_` prefix,
 * `_total` counters, `_seconds` units); every label has a small, fixed set of values (no user,
 * channel or job ids). docs/operations.md ("Monitoring") explains each metric.
 */

/** How an agent job's run ended, as counted by `docs_bot_agent_jobs_finished_total{status}`. */
export type FinishedStatus = 'completed' | 'no_change' | 'failed' | 'archived' | 'timed_out';
/** Every {@link FinishedStatus} (their series start at 0). */
export const FINISHED_STATUSES: readonly FinishedStatus[] = [
  'completed',
  'no_change',
  'failed',
  'archived',
  'timed_out',
];

/** A person's rating of a job's result (the feedback buttons), as counted by `docs_bot_agent_feedback_total{project,rating}`. */
export type AgentRating = 'positive' | 'negative';

/** How a question to the docs ended, as counted by `docs_bot_ask_total{outcome}`. */
export type AskOutcome = 'answered' | 'unanswered' | 'failed' | 'refused';
/** Every {@link AskOutcome} (their series start at 0). */
export const ASK_OUTCOMES: readonly AskOutcome[] = ['answered', 'unanswered', 'failed', 'refused'];

/** What started a run of an agent job: a new job (`POST …/job`) or a follow-up (`POST …/message`). */
export type RunKind = 'new' | 'follow_up';

/** What {@link BotMetrics} reads a queue's depth from (a BullMQ `Queue`). */
export interface QueueDepthSource {
  name: string;
  getJobCounts(...types: QueueState[]): Promise<Record<string, number>>;
}

/** Queue states reported by `docs_bot_queue_jobs{queue,state}`. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** One of {@link QUEUE_STATES}. */
export type QueueState = (typeof QUEUE_STATES)[number];

/** Options of {@link BotMetrics}. */
export interface BotMetricsOptions {
  /** The registry every metric is registered on (one per bot). */
  registry: Registry;
  /** Also collect prom-client's default process and Node.js metrics. @defaultValue true */
  defaultMetrics?: boolean;
  /** Longest wait for Redis when reading queue depths during a scrape, in ms. @defaultValue 1000 */
  queueTimeoutMs?: number;
  /** Most distinct `{method,error}` pairs of Slack errors; later pairs count as `other`. @defaultValue 200 */
  maxSlackErrorSeries?: number;
}

/** Slack's 3-second ack deadline sits between buckets. */
const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
/** The announcement goal (lateness p95 ≤ 20 s, max ≤ 30 s; docs/performance.md "Poll economy") sits on bucket bounds. */
const LATENESS_BUCKETS = [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600];
/** The performance goal (first streamed text ≤ 300 ms after the assistant's first token) sits near the low buckets. */
const FIRST_TEXT_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30];
/** The docs API client times out after 10 s. */
const DOCS_API_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const SLACK_METHOD = /^[a-z]+(\.[A-Za-z]+){1,3}$/;
const SLACK_ERROR = /^[a-z0-9_]{1,64}$/;

/**
 * The registry-backed recorder. Its methods are the observers the platform and features call
 * (`onReply` for the Slack edge, {@link docsApiRequest} for the docs API client, {@link slackApiError}
 * for the Web API clients, {@link agentJobStarted}/{@link agentJobFinished} for the agent-jobs
 * feature); its public metric objects can be set directly, e.g. the agent budget:
 *
 * ```ts
 * metrics.agentBudgetRemaining.set({ project: config.DOCS_PROJECT_ID }, remaining);
 * ```
 */
export class BotMetrics implements EdgeObserver, DocsApiObserver, RedisObserver, IntakeObserver {
  readonly registry: Registry;
  /** `docs_bot_slack_requests_total{type,outcome}`. */
  readonly slackRequests: Counter<'type' | 'outcome'>;
  /** `docs_bot_ack_seconds{type}`. */
  readonly ackSeconds: Histogram<'type'>;
  /** `docs_bot_agent_jobs_started_total{kind}`. */
  readonly agentJobsStarted: Counter<'kind'>;
  /** `docs_bot_agent_jobs_finished_total{status}`. */
  readonly agentJobsFinished: Counter<'status'>;
  /** `docs_bot_announcement_lateness_seconds`. */
  readonly announcementLateness: Histogram;
  /** `docs_bot_docs_api_requests_total{operation,status_code}`. */
  readonly docsApiRequests: Counter<'operation' | 'status_code'>;
  /** `docs_bot_docs_api_request_seconds{operation}`. */
  readonly docsApiRequestSeconds: Histogram<'operation'>;
  /** `docs_bot_slack_api_errors_total{method,error}`. */
  readonly slackApiErrors: Counter<'method' | 'error'>;
  /** `docs_bot_queue_jobs{queue,state}`, read from Redis at each scrape. */
  readonly queueJobs: Gauge<'queue' | 'state'>;
  /**
   * `docs_bot_agent_budget_remaining{project}`: agent requests (creates and follow-ups) the project
   * may still make in the vendor's hourly window. Set it with
   * `metrics.agentBudgetRemaining.set({ project }, n)` whenever the budget changes.
   */
  readonly agentBudgetRemaining: Gauge<'project'>;
  /** `docs_bot_redis_reconnects_total{connection}`. */
  readonly redisReconnects: Counter<'connection'>;
  /** `docs_bot_intake_unreplicated_total`. */
  readonly intakeUnreplicated: Counter;
  /** `docs_bot_agent_feedback_total{project,rating}`. */
  readonly agentFeedbackTotal: Counter<'project' | 'rating'>;
  /** `docs_bot_intake_deferred_total{reason}`. */
  readonly intakeDeferrals: Counter<'reason'>;
  /** `docs_bot_intake_rejected_total{reason}`. */
  readonly intakeRejections: Counter<'reason'>;
  /** `docs_bot_steps_unreplicated_total{outcome}`. */
  readonly stepsUnreplicated: Counter<'outcome'>;
  /** `docs_bot_ask_total{outcome}`. */
  readonly askTotal: Counter<'outcome'>;
  /** `docs_bot_ask_first_text_seconds`. */
  readonly askFirstTextSeconds: Histogram;
  /** `docs_bot_ask_feedback_total{rating}`. */
  readonly askFeedbackTotal: Counter<'rating'>;

  private queues: QueueDepthSource[] = [];
  private readonly slackErrorSeries = new Set<string>();

  constructor(private readonly opts: BotMetricsOptions) {
    const registers = [opts.registry];
    this.registry = opts.registry;
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: opts.registry });
    this.slackRequests = new Counter({
      name: 'docs_bot_slack_requests_total',
      help: 'Requests from Slack (HTTP or Socket Mode) by type and how the bot answered: acked, unhandled (no listener; answered politely), malformed (400), rejected (bad signature or outside the 5-minute window: 401), busy (no ack within 2.5 s: could not record it), failed (a listener threw).',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.ackSeconds = new Histogram({
      name: 'docs_bot_ack_seconds',
      help: "Seconds from receiving a Slack request to answering it (Slack's deadline: 3 s).",
      labelNames: ['type'],
      buckets: ACK_BUCKETS,
      registers,
    });
    this.agentJobsStarted = new Counter({
      name: 'docs_bot_agent_jobs_started_total',
      help: 'Agent job runs started at the docs API: kind=new (a job created) or follow_up (a message sent to a job).',
      labelNames: ['kind'],
      registers,
    });
    this.agentJobsFinished = new Counter({
      name: 'docs_bot_agent_jobs_finished_total',
      help: 'Agent job runs that ended, by status: completed (a PR), no_change, failed, archived, timed_out (stopped watching after JOB_TIMEOUT_MS). Counted once, when the end was announced (or Slack refused the announcement for good).',
      labelNames: ['status'],
      registers,
    });
    this.announcementLateness = new Histogram({
      name: 'docs_bot_announcement_lateness_seconds',
      help: "Seconds from the end of an agent job's run to its announcement in Slack: from the API's end time when it gives one (archivedAt), else from the previous poll (the first that could have seen the end).",
      buckets: LATENESS_BUCKETS,
      registers,
    });
    this.docsApiRequests = new Counter({
      name: 'docs_bot_docs_api_requests_total',
      help: 'HTTP requests to the docs API (retries included) by operation and status code (network_error when no response came).',
      labelNames: ['operation', 'status_code'],
      registers,
    });
    this.docsApiRequestSeconds = new Histogram({
      name: 'docs_bot_docs_api_request_seconds',
      help: 'Seconds per docs API request, until the body was read or the request failed.',
      labelNames: ['operation'],
      buckets: DOCS_API_BUCKETS,
      registers,
    });
    this.slackApiErrors = new Counter({
      name: 'docs_bot_slack_api_errors_total',
      help: "Slack Web API calls that failed after the client's retries, by method and Slack's error code.",
      labelNames: ['method', 'error'],
      registers,
    });
    this.agentBudgetRemaining = new Gauge({
      name: 'docs_bot_agent_budget_remaining',
      help: "Agent requests (creates and follow-ups) the project may still make in the current hour of the vendor's limit.",
      labelNames: ['project'],
      registers,
    });
    this.agentFeedbackTotal = new Counter({
      name: 'docs_bot_agent_feedback_total',
      help: "Ratings of agent jobs' results from the feedback buttons under each announcement, by docs project and rating (positive 👍, negative 👎): a person's first rating of a job (a change of mind is audited, not counted again).",
      labelNames: ['project', 'rating'],
      registers,
    });
    this.queueJobs = new Gauge({
      name: 'docs_bot_queue_jobs',
      help: 'Jobs in each BullMQ queue by state (waiting, active, delayed, failed), read from Redis at scrape time.',
      labelNames: ['queue', 'state'],
      registers,
      collect: () => this.collectQueues(this.queueJobs),
    });
    this.redisReconnects = new Counter({
      name: 'docs_bot_redis_reconnects_total',
      help: 'Times a Redis connection was lost (a failover, a restart, a network cut) or dropped because a write met READONLY (the server was demoted), counted once per outage at the first reconnect attempt, by connection: state (records, claims, budgets), intake (the recording before the ack), queue, worker.',
      labelNames: ['connection'],
      registers,
    });
    this.intakeUnreplicated = new Counter({
      name: 'docs_bot_intake_unreplicated_total',
      help: 'Requests recorded although fewer replicas than REDIS_WAIT_REPLICAS confirmed their record within REDIS_WAIT_TIMEOUT_MS (acknowledged: a failover at that moment could lose them), or no WAIT could answer at all (answered that the bot cannot tell whether it took them).',
      registers,
    });
    this.intakeDeferrals = new Counter({
      name: 'docs_bot_intake_deferred_total',
      help:
        'Times this replica left a recorded request for another because it does not handle its kind (unknown_kind) ' +
        'or its version (newer_version): a rolling upgrade under way.',
      labelNames: ['reason'],
      registers,
    });
    this.intakeRejections = new Counter({
      name: 'docs_bot_intake_rejected_total',
      help:
        'Recorded requests given up: invalid (the payload does not match its schema), unknown_kind / newer_version ' +
        '(no replica handled it within 15 minutes), or unreplicated (its handler held 2 minutes in all because its ' +
        'saved steps could not be confirmed on the Redis replicas). The person is told where the record says how, ' +
        'when someone waits on it.',
      labelNames: ['reason'],
      registers,
    });
    this.stepsUnreplicated = new Counter({
      name: 'docs_bot_steps_unreplicated_total',
      help:
        'Saved steps not confirmed on the Redis replicas before an irreversible step (REDIS_WAIT_REPLICAS above 0): ' +
        'held (tried again later: the connection failed, or a replica left the primary a moment ago) or went_ahead ' +
        '(fewer replicas than REDIS_WAIT_REPLICAS had it).',
      labelNames: ['outcome'],
      registers,
    });
    this.askTotal = new Counter({
      name: 'docs_bot_ask_total',
      help: 'Questions to the docs, by how they ended: answered (with pages), unanswered (the docs had nothing: no pages, or the assistant said so), failed (the API or Slack failed, or the answer was cut off), refused (not configured, not allowed, budget spent).',
      labelNames: ['outcome'],
      registers,
    });
    this.askFirstTextSeconds = new Histogram({
      name: 'docs_bot_ask_first_text_seconds',
      help: 'Seconds from the start of handling a question to its first text in Slack (streamed or posted).',
      buckets: FIRST_TEXT_BUCKETS,
      registers,
    });
    this.askFeedbackTotal = new Counter({
      name: 'docs_bot_ask_feedback_total',
      help: "Ratings of the docs assistant's answers from their 👍/👎 buttons: each person's first rating of an answer.",
      labelNames: ['rating'],
      registers,
    });
    this.zeroLabelledSeries();
  }

  /** Starts every series of a small, fixed label set at 0, so rates and alerts see them before the first event. */
  private zeroLabelledSeries(): void {
    for (const outcome of ASK_OUTCOMES) this.askTotal.inc({ outcome }, 0);
    for (const rating of ['positive', 'negative'] as const) this.askFeedbackTotal.inc({ rating }, 0);
    for (const connection of REDIS_ROLES) this.redisReconnects.inc({ connection }, 0);
    for (const reason of ['unknown_kind', 'newer_version'] as const) this.intakeDeferrals.inc({ reason }, 0);
    for (const reason of ['invalid', 'unknown_kind', 'newer_version', 'unreplicated'] as const) {
      this.intakeRejections.inc({ reason }, 0);
    }
    for (const outcome of ['held', 'went_ahead'] as const) this.stepsUnreplicated.inc({ outcome }, 0);
    for (const status of FINISHED_STATUSES) this.agentJobsFinished.inc({ status }, 0);
    for (const kind of ['new', 'follow_up'] as const) this.agentJobsStarted.inc({ kind }, 0);
  }

  /** {@link RedisObserver}: a connection lost its server. */
  redisReconnect(role: RedisRole): void {
    this.redisReconnects.inc({ connection: role });
  }

  /** Reports the depth of these queues at every scrape (replaces any earlier list). */
  watchQueues(queues: QueueDepthSource[]): void {
    this.queues = [...queues];
  }

  /** {@link EdgeObserver}: one Slack request answered; `kind` undefined when it could not be classified. */
  onReply(kind: SlackRequestKind | undefined, outcome: EdgeOutcome, seconds: number): void {
    const type = kind ?? 'unknown';
    this.slackRequests.inc({ type, outcome });
    this.ackSeconds.observe({ type }, seconds);
  }

  /**
   * One HTTP request to the docs API.
   * @param statusCode - the HTTP status, or undefined when no response came (network error, timeout).
   * @param seconds - from sending to having read the body (or failing).
   */
  docsApiRequest(operation: DocsApiOperation, statusCode: number | undefined, seconds: number): void {
    this.docsApiRequests.inc({
      operation,
      status_code: statusCode === undefined ? 'network_error' : String(statusCode),
    });
    this.docsApiRequestSeconds.observe({ operation }, seconds);
  }

  /**
   * One failed Slack Web API call (after the client's retries). Codes that are not Slack-shaped,
   * and pairs past `maxSlackErrorSeries`, count as `other` so the series stay few.
   */
  slackApiError(info: { method: string; code: string }): void {
    let method = SLACK_METHOD.test(info.method) ? info.method : 'other';
    let error = SLACK_ERROR.test(info.code) ? info.code : 'other';
    const key = `${method} ${error}`;
    if (!this.slackErrorSeries.has(key)) {
      if (this.slackErrorSeries.size >= (this.opts.maxSlackErrorSeries ?? 200)) [method, error] = ['other', 'other'];
      else this.slackErrorSeries.add(key);
    }
    this.slackApiErrors.inc({ method, error });
  }

  /** A run of an agent job started at the docs API. */
  agentJobStarted(kind: RunKind): void {
    this.agentJobsStarted.inc({ kind });
  }

  /**
   * The end of a run was announced.
   * @param latenessSeconds - from the end (or the first poll that could have seen it) to the
   *   announcement; undefined when it does not apply (a timeout is not an end of the job).
   */
  agentJobFinished(status: FinishedStatus, latenessSeconds?: number): void {
    this.agentJobsFinished.inc({ status });
    if (latenessSeconds !== undefined) this.announcementLateness.observe(Math.max(0, latenessSeconds));
  }

  /** {@link IntakeObserver}: a record left for another replica. */
  intakeDeferred(reason: DeferReason): void {
    this.intakeDeferrals.inc({ reason });
  }

  /** {@link IntakeObserver}: a record given up. */
  intakeRejected(reason: RejectReason): void {
    this.intakeRejections.inc({ reason });
  }

  /** A person rated a job's result for the first time. `project` is a configured docs project id. */
  agentFeedback(project: string, rating: AgentRating): void {
    this.agentFeedbackTotal.inc({ project, rating });
  }

  /**
   * A question ended (see {@link AskOutcome}); `firstTextSeconds` from the start of its handling
   * to its first text in Slack, when any text was shown.
   */
  askEnded(outcome: AskOutcome, firstTextSeconds?: number): void {
    this.askTotal.inc({ outcome });
    if (firstTextSeconds !== undefined) this.askFirstTextSeconds.observe(Math.max(0, firstTextSeconds));
  }

  /** A person rated an answer for the first time. */
  askFeedback(rating: AgentRating): void {
    this.askFeedbackTotal.inc({ rating });
  }

  /** Reads every watched queue's counts (bounded by `queueTimeoutMs`); a queue that can't be read is left out of this scrape. */
  private async collectQueues(gauge: Gauge<'queue' | 'state'>): Promise<void> {
    gauge.reset();
    const timeoutMs = this.opts.queueTimeoutMs ?? 1_000;
    await Promise.all(
      this.queues.map(async (q) => {
        // A queue that can't be read (or not in time) is left out of this scrape: no series beats a wrong one.
        // A failed read is a missing series in this scrape (the scrape itself is the alarm); nothing to log per scrape.
        const counts = await withinTime(q.getJobCounts(...QUEUE_STATES), timeoutMs, () => undefined).catch(
          () => undefined,
        );
        if (!counts) return;
        for (const state of QUEUE_STATES) gauge.set({ queue: q.name, state }, counts[state] ?? 0);
      }),
    );
  }
}
