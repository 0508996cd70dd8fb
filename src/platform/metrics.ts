import { REDIS_ROLES, type RedisObserver, type RedisRole } from './redis.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { DOCS_API_OPERATIONS, type DocsApiObserver, type DocsApiOperation } from './docs-api/observer.js';
import type { EdgeObserver, EdgeOutcome } from './slack/edge.js';
import type { SlackRequestKind } from './slack/payloads.js';
import type { DeferReason, IntakeObserver, RejectReason } from './intake-kind.js';
import { METRICS, REFUSED_KEY_STATUSES, SLACK_AUTH_ERRORS } from './metrics-catalog.js';
import { SeriesBound } from './metric-series.js';
import { BudgetSeries, type BudgetReader, type BudgetSeriesOptions } from './budget-series.js';
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
const FINISHED_STATUSES: readonly FinishedStatus[] = ['completed', 'no_change', 'failed', 'archived', 'timed_out'];

/** A person's rating of a job's result (the feedback buttons), as counted by `docs_bot_agent_feedback_total{project,rating}`. */
export type AgentRating = 'positive' | 'negative';
/** How a preview ended (`docs_bot_previews_finished_total{outcome}`). */
type PreviewOutcome = 'built' | 'failed' | 'slow' | 'not_started' | 'uncertain';
const PREVIEW_OUTCOMES: readonly PreviewOutcome[] = ['built', 'failed', 'slow', 'not_started', 'uncertain'];

/** How a question to the docs ended, as counted by `docs_bot_ask_total{outcome}`. */
export type AskOutcome = 'answered' | 'unanswered' | 'failed' | 'refused';
/** Every {@link AskOutcome} (their series start at 0). */
const ASK_OUTCOMES: readonly AskOutcome[] = ['answered', 'unanswered', 'failed', 'refused'];

/** What started a run of an agent job: a new job (`POST …/job`) or a follow-up (`POST …/message`). */
type RunKind = 'new' | 'follow_up';

/** What {@link BotMetrics} reads a queue's depth from (a BullMQ `Queue`). */
export interface QueueDepthSource {
  name: string;
  getJobCounts(...types: QueueState[]): Promise<Record<string, number>>;
}

/** Queue states reported by `docs_bot_queue_jobs{queue,state}`. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** One of {@link QUEUE_STATES}. */
export type QueueState = (typeof QUEUE_STATES)[number];

/** Options of {@link BotMetrics} (the agent budget's: budget-series.ts). */
interface BotMetricsOptions extends BudgetSeriesOptions {
  /** The registry every metric is registered on (one per bot). */
  registry: Registry;
  /** Also collect prom-client's default process and Node.js metrics. @defaultValue true */
  defaultMetrics?: boolean;
  /** Longest wait for Redis when reading queue depths and agent budgets during a scrape, in ms. @defaultValue 1000 */
  queueTimeoutMs?: number;
  /** Most distinct `{method,error}` pairs of Slack errors; later pairs count as `other`. @defaultValue 200 */
  maxSlackErrorSeries?: number;
}

const SLACK_METHOD = /^[a-z]+(\.[A-Za-z]+){1,3}$/;
const SLACK_ERROR = /^[a-z0-9_]{1,64}$/;

/**
 * The registry-backed recorder. Its methods are the observers the platform and features call
 * (`onReply` for the Slack edge, {@link docsApiRequest} for the docs API client, {@link slackApiError}
 * for the Web API clients, {@link agentJobStarted}/{@link agentJobFinished} for the agent-jobs
 * feature); its public metric objects can be set directly, e.g. the agent budget:
 *
 * ```ts
 * metrics.agentBudget(config.DOCS_PROJECT_ID, remaining);
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
  /** `docs_bot_slack_api_errors_total{method,error}`, and its token refusals by code alone: `docs_bot_slack_auth_errors_total{error}`. */
  readonly slackApiErrors: Counter<'method' | 'error'>;
  readonly slackAuthErrors: Counter<'error'>;
  /** `docs_bot_queue_jobs{queue,state}`, read from Redis at each scrape. */
  readonly queueJobs: Gauge<'queue' | 'state'>;
  /** `docs_bot_agent_budget_remaining{project}`, in OAuth mode `{project,installation}`: budget-series.ts. */
  readonly agentBudgetRemaining: Gauge<'project' | 'installation'>;
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
  /** `docs_bot_previews_requested_total`, `docs_bot_previews_finished_total{outcome}`, `docs_bot_preview_ready_seconds`. */
  readonly previews: { requested: Counter; finished: Counter<'outcome'>; readySeconds: Histogram };

  private queues: QueueDepthSource[] = [];
  private readonly budget: BudgetSeries;
  private readonly slackErrorSeries = new SeriesBound(() => this.opts.maxSlackErrorSeries ?? 200);

  constructor(private readonly opts: BotMetricsOptions) {
    const registers = [opts.registry];
    this.registry = opts.registry;
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: opts.registry });
    this.slackRequests = new Counter({ ...METRICS.slackRequests, registers });
    this.ackSeconds = new Histogram({ ...METRICS.ackSeconds, registers });
    this.agentJobsStarted = new Counter({ ...METRICS.agentJobsStarted, registers });
    this.agentJobsFinished = new Counter({ ...METRICS.agentJobsFinished, registers });
    this.announcementLateness = new Histogram({ ...METRICS.announcementLateness, registers });
    this.docsApiRequests = new Counter({ ...METRICS.docsApiRequests, registers });
    this.docsApiRequestSeconds = new Histogram({ ...METRICS.docsApiRequestSeconds, registers });
    this.slackApiErrors = new Counter({ ...METRICS.slackApiErrors, registers });
    this.slackAuthErrors = new Counter({ ...METRICS.slackAuthErrors, registers });
    this.budget = new BudgetSeries(opts);
    this.agentBudgetRemaining = this.budget.gauge;
    this.agentFeedbackTotal = new Counter({ ...METRICS.agentFeedbackTotal, registers });
    this.queueJobs = new Gauge({
      ...METRICS.queueJobs,
      registers,
      collect: () => this.collectQueues(this.queueJobs),
    });
    this.redisReconnects = new Counter({ ...METRICS.redisReconnects, registers });
    this.intakeUnreplicated = new Counter({ ...METRICS.intakeUnreplicated, registers });
    this.intakeDeferrals = new Counter({ ...METRICS.intakeDeferrals, registers });
    this.intakeRejections = new Counter({ ...METRICS.intakeRejections, registers });
    this.stepsUnreplicated = new Counter({ ...METRICS.stepsUnreplicated, registers });
    this.askTotal = new Counter({ ...METRICS.askTotal, registers });
    this.askFirstTextSeconds = new Histogram({ ...METRICS.askFirstTextSeconds, registers });
    this.askFeedbackTotal = new Counter({ ...METRICS.askFeedbackTotal, registers });
    this.previews = {
      requested: new Counter({ ...METRICS.previewsRequested, registers }),
      finished: new Counter({ ...METRICS.previewsFinished, registers }),
      readySeconds: new Histogram({ ...METRICS.previewReadySeconds, registers }),
    };
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
    for (const outcome of PREVIEW_OUTCOMES) this.previews.finished.inc({ outcome }, 0);
    for (const operation of DOCS_API_OPERATIONS)
      for (const status_code of REFUSED_KEY_STATUSES) this.docsApiRequests.inc({ operation, status_code }, 0);
    for (const error of SLACK_AUTH_ERRORS) this.slackAuthErrors.inc({ error }, 0);
  }

  /** {@link RedisObserver}: a connection lost its server. */
  redisReconnect(role: RedisRole): void {
    this.redisReconnects.inc({ connection: role });
  }

  /** Reports the depth of these queues at every scrape (replaces any earlier list). */
  watchQueues(queues: QueueDepthSource[]): void {
    this.queues = [...queues];
  }

  /** Reads every budget with a series when scraped, at most every 5 s (else the gauge keeps what {@link agentBudget} set). */
  watchBudget(read: BudgetReader): void {
    this.budget.watch(read);
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
    if (!this.slackErrorSeries.admits(`${method} ${error}`)) [method, error] = ['other', 'other'];
    this.slackApiErrors.inc({ method, error });
    if ((SLACK_AUTH_ERRORS as readonly string[]).includes(info.code)) this.slackAuthErrors.inc({ error: info.code });
  }

  /** Agent requests `project` may still make this hour: label `project`, and in OAuth mode `installation` (metric-series.ts). */
  agentBudget(project: string, remaining: number, installation?: string): void {
    this.budget.set(project, remaining, installation);
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

  /** A preview deployment was asked for (the API accepted the request). */
  previewRequested(): void {
    this.previews.requested.inc();
  }

  /** A preview ended; `readySeconds` from its run seen completed to the preview shown ready. */
  previewFinished(outcome: PreviewOutcome, readySeconds?: number): void {
    this.previews.finished.inc({ outcome });
    if (readySeconds !== undefined) this.previews.readySeconds.observe(Math.max(0, readySeconds));
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
        // Not read (or not in time): no series this scrape beats a wrong one; nothing to log per scrape.
        const counts = await withinTime(q.getJobCounts(...QUEUE_STATES), timeoutMs, () => undefined).catch(
          () => undefined,
        );
        if (!counts) return;
        for (const state of QUEUE_STATES) gauge.set({ queue: q.name, state }, counts[state] ?? 0);
      }),
    );
  }
}
