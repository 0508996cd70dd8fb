/**
 * The bot's Prometheus metrics as data: each metric's name, help text, labels and (histograms)
 * buckets. `BotMetrics` (metrics.ts) registers one prom-client metric per entry; docs/operations.md
 * ("Monitoring") explains each. Names follow Prometheus' conventions (`docs_bot_` prefix, `_total`
 * counters, `_seconds` units).
 */

/** Slack's 3-second ack deadline sits between buckets. */
const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
/** The announcement goal (lateness p95 ≤ 20 s, max ≤ 30 s; docs/performance.md "Poll economy") sits on bucket bounds. */
const LATENESS_BUCKETS = [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600];
/** The performance goal (first streamed text ≤ 300 ms after the assistant's first token) sits near the low buckets. */
const FIRST_TEXT_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30];
/** A preview build takes minutes; a burst waits in line 5 a minute. */
const PREVIEW_BUCKETS = [10, 20, 30, 45, 60, 90, 120, 180, 300, 600, 1200];
/** The docs API client times out after 10 s. */
const DOCS_API_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Slack's codes refusing the bot's token or a scope (docs.slack.dev, common errors of every method),
 * counted again by `docs_bot_slack_auth_errors_total{error}`: one series each, started at 0, so an
 * alert's `increase()` sees the first refusal after a restart (a `{method,error}` series of
 * `docs_bot_slack_api_errors_total` only exists from its first error on).
 */
export const SLACK_AUTH_ERRORS = [
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'missing_scope',
] as const;

/** Docs API statuses refusing a key: their `{operation,status_code}` series start at 0 (DocsBotDocsApiKeyRefused). */
export const REFUSED_KEY_STATUSES = ['401', '403'] as const;

/**
 * Every metric of the bot, keyed by the {@link BotMetrics} field that holds it. `labelNames` are
 * tuples (`as const`), so each metric's label names are typed.
 */
export const METRICS = {
  slackRequests: {
    name: 'docs_bot_slack_requests_total',
    help:
      'Requests from Slack (HTTP or Socket Mode) by type and how the bot answered: acked, unhandled (no ' +
      'listener; answered politely), malformed (400), rejected (bad signature or outside the 5-minute ' +
      'window: 401), busy (no ack within 2.5 s: could not record it), failed (a listener threw).',
    labelNames: ['type', 'outcome'],
  },
  ackSeconds: {
    name: 'docs_bot_ack_seconds',
    help: "Seconds from receiving a Slack request to answering it (Slack's deadline: 3 s).",
    labelNames: ['type'],
    buckets: ACK_BUCKETS,
  },
  agentJobsStarted: {
    name: 'docs_bot_agent_jobs_started_total',
    help: 'Agent job runs started at the docs API: kind=new (a job created) or follow_up (a message sent to a job).',
    labelNames: ['kind'],
  },
  agentJobsFinished: {
    name: 'docs_bot_agent_jobs_finished_total',
    help:
      'Agent job runs that ended, by status: completed (a PR), no_change, failed, archived, timed_out ' +
      '(stopped watching after JOB_TIMEOUT_MS). Counted once, when the end was announced (or Slack refused ' +
      'the announcement for good).',
    labelNames: ['status'],
  },
  announcementLateness: {
    name: 'docs_bot_announcement_lateness_seconds',
    help:
      "Seconds from the end of an agent job's run to its announcement in Slack: from the API's end time " +
      'when it gives one (archivedAt), else from the previous poll (the first that could have seen the ' +
      'end).',
    buckets: LATENESS_BUCKETS,
  },
  docsApiRequests: {
    name: 'docs_bot_docs_api_requests_total',
    help:
      'HTTP requests to the docs API (retries included) by operation and status code (network_error when no' +
      ' response came).',
    labelNames: ['operation', 'status_code'],
  },
  docsApiRequestSeconds: {
    name: 'docs_bot_docs_api_request_seconds',
    help: 'Seconds per docs API request, until the body was read or the request failed.',
    labelNames: ['operation'],
    buckets: DOCS_API_BUCKETS,
  },
  slackApiErrors: {
    name: 'docs_bot_slack_api_errors_total',
    help: "Slack Web API calls that failed after the client's retries, by method and Slack's error code.",
    labelNames: ['method', 'error'],
  },
  slackAuthErrors: {
    name: 'docs_bot_slack_auth_errors_total',
    help:
      "Slack Web API calls refused for the bot's token or a scope (invalid_auth, not_authed, token_revoked, " +
      'token_expired, account_inactive, missing_scope), by error code; each series starts at 0.',
    labelNames: ['error'],
  },
  agentBudgetRemaining: {
    name: 'docs_bot_agent_budget_remaining',
    help:
      'Agent requests (creates and follow-ups) the project may still make in the current hour of the ' +
      "vendor's limit, read from Redis when scraped (at most every 5 s); in OAuth mode per installation too (installation: " +
      'team:T… or enterprise:E…; the first 100 installations only, later ones get no series).',
    labelNames: ['project', 'installation'],
  },
  agentFeedbackTotal: {
    name: 'docs_bot_agent_feedback_total',
    help:
      "Ratings of agent jobs' results from the feedback buttons under each announcement, by docs project " +
      "and rating (positive 👍, negative 👎): a person's first rating of a job (a change of mind is audited, " +
      'not counted again).',
    labelNames: ['project', 'rating'],
  },
  queueJobs: {
    name: 'docs_bot_queue_jobs',
    help: 'Jobs in each BullMQ queue by state (waiting, active, delayed, failed), read from Redis at scrape time.',
    labelNames: ['queue', 'state'],
  },
  queueJobsCleaned: {
    name: 'docs_bot_queue_jobs_cleaned_total',
    help:
      "Finished BullMQ jobs deleted by the hourly clean because they were older than their queue's age " +
      "(removeOnComplete / removeOnFail), by queue and state (completed, failed); BullMQ's own deletions, when a " +
      'later job finishes, are not counted.',
    labelNames: ['queue', 'state'],
  },
  redisReconnects: {
    name: 'docs_bot_redis_reconnects_total',
    help:
      'Times a Redis connection was lost (a failover, a restart, a network cut) or dropped because a write ' +
      'met READONLY (the server was demoted), counted once per outage at the first reconnect attempt, by ' +
      'connection: state (records, claims, budgets), intake (the recording before the ack), queue, worker.',
    labelNames: ['connection'],
  },
  intakeUnreplicated: {
    name: 'docs_bot_intake_unreplicated_total',
    help:
      'Requests recorded although fewer replicas than REDIS_WAIT_REPLICAS confirmed their record within ' +
      'REDIS_WAIT_TIMEOUT_MS (acknowledged: a failover at that moment could lose them), or no WAIT could ' +
      'answer at all (answered that the bot cannot tell whether it took them).',
  },
  intakeDeferrals: {
    name: 'docs_bot_intake_deferred_total',
    help:
      'Times this replica left a recorded request for another because it does not handle its kind (unknown_kind) ' +
      'or its version (newer_version): a rolling upgrade under way.',
    labelNames: ['reason'],
  },
  intakeRejections: {
    name: 'docs_bot_intake_rejected_total',
    help:
      'Recorded requests given up: invalid (the payload does not match its schema), unknown_kind / newer_version ' +
      '(no replica handled it within 15 minutes), or unreplicated (its handler held 2 minutes in all because its ' +
      'saved steps could not be confirmed on the Redis replicas). The person is told where the record says how, ' +
      'when someone waits on it.',
    labelNames: ['reason'],
  },
  stepsUnreplicated: {
    name: 'docs_bot_steps_unreplicated_total',
    help:
      'Saved steps not confirmed on the Redis replicas before an irreversible step (REDIS_WAIT_REPLICAS above 0): ' +
      'held (tried again later: the connection failed, or a replica left the primary a moment ago) or went_ahead ' +
      '(fewer replicas than REDIS_WAIT_REPLICAS had it).',
    labelNames: ['outcome'],
  },
  askTotal: {
    name: 'docs_bot_ask_total',
    help:
      'Questions to the docs, by how they ended: answered (with pages), unanswered (the docs had nothing: ' +
      'no pages, or the assistant said so), failed (the API or Slack failed, or the answer was cut off), ' +
      'refused (not configured, not allowed, budget spent).',
    labelNames: ['outcome'],
  },
  askFirstTextSeconds: {
    name: 'docs_bot_ask_first_text_seconds',
    help: 'Seconds from the start of handling a question to its first text in Slack (streamed or posted).',
    buckets: FIRST_TEXT_BUCKETS,
  },
  askFeedbackTotal: {
    name: 'docs_bot_ask_feedback_total',
    help: "Ratings of the docs assistant's answers from their 👍/👎 buttons: each person's first rating of an answer.",
    labelNames: ['rating'],
  },
  previewsRequested: {
    name: 'docs_bot_previews_requested_total',
    help: "Preview deployments asked for (a run's pull request, or its rebuild after a follow-up), accepted by the docs API.",
  },
  previewsFinished: {
    name: 'docs_bot_previews_finished_total',
    help:
      'Previews that ended, by outcome: built, failed (the build failed), slow (still not built at the ' +
      'ceiling: "taking longer than usual"), not_started (the request failed after its retries), ' +
      'uncertain (a crash cut the request off; not asked again).',
    labelNames: ['outcome'],
  },
  previewReadySeconds: {
    name: 'docs_bot_preview_ready_seconds',
    help: 'Seconds from a run seen completed to its preview shown ready in Slack (queueing and the build included).',
    buckets: PREVIEW_BUCKETS,
  },
  socketModeConnected: {
    name: 'docs_bot_socket_mode_connected',
    help:
      "Socket Mode only: 1 while the bot's WebSocket to Slack is open (after Slack's hello), 0 while it is " +
      'closed or reconnecting (no requests reach this replica meanwhile).',
  },
} as const;
