import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  assistantCall,
  feedbackByPageCall,
  feedbackCall,
  searchesCall,
  viewsCall,
  type AnalyticsCall,
  type AnalyticsCallOptions,
  type AssistantQuery,
  type FeedbackByPageQuery,
  type FeedbackQuery,
  type SearchesQuery,
  type ViewsQuery,
} from './analytics-client.js';
import type {
  AssistantConversationsResponse,
  FeedbackByPageResponse,
  FeedbackResponse,
  SearchesResponse,
  ViewsResponse,
} from './analytics-schemas.js';
import { hasCode } from '../errors.js';
import {
  DocsApiCursorRejectedError,
  DocsApiErrorCode,
  DocsApiInvalidResponseError,
  type DocsApiBadRequestError,
} from './errors.js';
import type { DocsApiObserver, DocsApiOperation } from './observer.js';
import { DocsApiTransport, retryTransient } from './transport.js';
import { agentJobSchema, visitorsResponseSchema, type AgentJob, type VisitorsResponse } from './schemas.js';
import {
  previewResponseSchema,
  updateStatusSchema,
  type PreviewResponse,
  type UpdateStatus,
} from './deployments-schemas.js';

export type { DocsApiObserver, DocsApiOperation } from './observer.js';

/** Options of {@link DocsApiClient}. */
export interface DocsApiClientOptions {
  /** The API's base_url, e.g. `https://api.mintlify.com` (spec: servers[0].url). */
  baseUrl: string;
  /** Admin API key (`mint_…`), sent as `Authorization: Bearer`. Never logged or put in errors. */
  apiKey: string;
  /** The project this client acts on (DOCS_PROJECT_ID); {@link DocsApiClient.forProject} gives one for another. */
  projectId: string;
  /** undici dispatcher; tests pass a `MockAgent`. @defaultValue a shared keep-alive `Agent`. */
  dispatcher?: Dispatcher;
  /** Per-request timeout for connect, headers and body, in ms. @defaultValue 10000 */
  timeoutMs?: number;
  /** Retries of the agent-job and visitors GETs on network errors and 5xx (never on 4xx). @defaultValue 2 */
  getRetries?: number;
  /**
   * Retries of the other analytics GETs (views, searches, feedback, assistant) on network errors and
   * 5xx, never on 4xx or 429: each attempt spends one of the 100 analytics requests per organization
   * per hour. @defaultValue 1
   */
  analyticsRetries?: number;
  /** First retry delay in ms (doubles, with jitter). @defaultValue 250 */
  retryMinDelayMs?: number;
  /** Told about every HTTP request (retries included), e.g. to count them in metrics. */
  observer?: DocsApiObserver;
  /**
   * The admin key of another project (DOCS_WORKSPACE_PROJECTS: a workspace's projects may have a
   * key of their own; docs-workspaces.ts). Undefined: `apiKey`. Secret.
   */
  keyFor?: (projectId: string) => string | undefined;
}

/** An agent job as returned by create: the spec makes `id` optional, we require it. */
type CreatedAgentJob = AgentJob & { id: string };

/** Query of GET /v1/analytics/{projectId}/visitors. Dates are `YYYY-MM-DD` or ISO 8601; `dateTo` is exclusive. */
export interface VisitorsQuery {
  dateFrom: string;
  dateTo: string;
  /** 1–250 (spec). */
  limit: number;
  /** ≥ 0 (spec). */
  offset: number;
}

/** The client's calls as features take them: `forProject(id)` then the call (a channel's or a job's project). */
export interface DocsApiProjects<K extends keyof DocsApiClient> {
  forProject(projectId: string): Pick<DocsApiClient, K>;
}

/**
 * The docs API client (admin and analytics endpoints; each endpoint is a method here): requests go
 * through the one transport (transport.ts: one shared undici dispatcher, a timeout on every request,
 * zod-parsed bodies, typed errors of errors.ts). GETs retry transient failures with backoff; POSTs never retry.
 * Each client acts on one project (every path is `…/{projectId}/…`); {@link forProject} gives the
 * client of another project over the same dispatcher and key.
 */
export class DocsApiClient {
  private readonly transport: DocsApiTransport;
  private readonly siblings = new Map<string, DocsApiClient>();

  constructor(private readonly opts: DocsApiClientOptions) {
    this.transport = new DocsApiTransport(opts);
  }

  /** The project this client acts on. */
  get projectId(): string {
    return this.opts.projectId;
  }

  /**
   * The client of project `projectId`: same URL, dispatcher (so connections are reused), retries,
   * and the project's own key (`keyFor`, else this client's); kept per project; its close() does nothing.
   */
  forProject(projectId: string): DocsApiClient {
    if (projectId === this.opts.projectId) return this;
    const apiKey = this.opts.keyFor?.(projectId) ?? this.opts.apiKey;
    const sibling =
      this.siblings.get(projectId) ??
      new DocsApiClient({ ...this.opts, projectId, apiKey, dispatcher: this.transport.dispatcher });
    this.siblings.set(projectId, sibling);
    return sibling;
  }

  /**
   * Starts an agent job: `POST /v2/agent/{projectId}/job` with `{prompt}` (spec → 201 AgentJob).
   * @throws {DocsApiError} subclasses; never retried (a retry could start two jobs).
   */
  async createJob(prompt: string): Promise<CreatedAgentJob> {
    const job = await this.send('create_job', 'POST', this.agentPath('/job'), agentJobSchema, { prompt });
    if (!job.id) throw new DocsApiInvalidResponseError('created job has no id');
    return job as CreatedAgentJob;
  }

  /**
   * Reads a job: `GET /v2/agent/{projectId}/job/{id}` (spec → 200 AgentJob, 404 unknown).
   * @throws {DocsApiNotFoundError} for an unknown job; other {@link DocsApiError}s after retries.
   */
  async getJob(id: string): Promise<AgentJob> {
    return this.withGetRetries(() =>
      this.send('get_job', 'GET', this.agentPath(`/job/${encodeURIComponent(id)}`), agentJobSchema),
    );
  }

  /**
   * Sends a follow-up: `POST /v2/agent/{projectId}/job/{id}/message` with `{prompt}` (spec → 200).
   * @throws {DocsApiError} subclasses; never retried.
   */
  async sendMessage(id: string, prompt: string): Promise<AgentJob> {
    return this.send('send_message', 'POST', this.agentPath(`/job/${encodeURIComponent(id)}/message`), agentJobSchema, {
      prompt,
    });
  }

  /**
   * Unique visitors: `GET /v1/analytics/{projectId}/visitors` (spec: analytics.openapi.json → 200
   * VisitorsByPageResponse, 400 bad query, 500). Always sends both dates.
   * @param opts.onAttempt - called before every HTTP attempt (retries included), so callers can
   *   count requests against the vendor's rate limit.
   * @throws {DocsApiError} subclasses; 5xx and network errors are retried, 429 is not.
   */
  async getVisitors(q: VisitorsQuery, opts: { onAttempt?: () => void } = {}): Promise<VisitorsResponse> {
    const qs = new URLSearchParams({
      dateFrom: q.dateFrom,
      dateTo: q.dateTo,
      limit: String(q.limit),
      offset: String(q.offset),
    });
    const path = `/v1/analytics/${encodeURIComponent(this.opts.projectId)}/visitors?${qs}`;
    return this.withGetRetries(() => {
      opts.onAttempt?.();
      return this.send('get_visitors', 'GET', path, visitorsResponseSchema);
    });
  }

  /**
   * Asks for a preview deployment of `branch` (or a redeploy of its preview): `POST
   * /v1/project/preview/{projectId}` with `{branch}` (spec: deployments-openapi.json → 2xx
   * `{statusId, previewUrl}`; Pro and Enterprise plans; 5 requests a minute per organization).
   * @throws {DocsApiError} subclasses (401/403/404: no previews for this key or plan; 429; 5xx);
   *   never retried here: the caller's durable step retries, each try within the shared limit.
   */
  async requestPreview(branch: string): Promise<PreviewResponse> {
    const path = `/v1/project/preview/${encodeURIComponent(this.opts.projectId)}`;
    return this.send('request_preview', 'POST', path, previewResponseSchema, { branch });
  }

  /**
   * Reads a deployment's status: `GET /v1/project/update-status/{statusId}` (spec → 200: `status`
   * queued | in_progress | success | failure, `summary`, `logs`, screenshots, `commit.filesChanged`).
   * @throws {DocsApiError} subclasses after the GET retries.
   */
  async getUpdateStatus(statusId: string): Promise<UpdateStatus> {
    const path = `/v1/project/update-status/${encodeURIComponent(statusId)}`;
    return this.withGetRetries(() => this.send('get_update_status', 'GET', path, updateStatusSchema));
  }

  /** Page views (events, not people): see {@link viewsCall}; offset paging. @throws {DocsApiError} subclasses. */
  getViews(q: ViewsQuery, opts: AnalyticsCallOptions = {}): Promise<ViewsResponse> {
    return this.analytics(viewsCall(q), opts);
  }

  /**
   * Search terms by hits: see {@link searchesCall}; cursor paging (`nextCursor`, no `hasMore`).
   * @throws {DocsApiCursorRejectedError} when the API refuses `q.cursor`; other {@link DocsApiError}s.
   */
  getSearches(q: SearchesQuery, opts: AnalyticsCallOptions = {}): Promise<SearchesResponse> {
    return this.analytics(searchesCall(q), opts);
  }

  /** 👍/👎 and code counts per page: see {@link feedbackByPageCall}; no paging. @throws {DocsApiError} subclasses. */
  getFeedbackByPage(q: FeedbackByPageQuery, opts: AnalyticsCallOptions = {}): Promise<FeedbackByPageResponse> {
    return this.analytics(feedbackByPageCall(q), opts);
  }

  /**
   * Individual feedback with comments: see {@link feedbackCall}; cursor paging.
   * @throws {DocsApiCursorRejectedError} when the API refuses `q.cursor`; other {@link DocsApiError}s.
   */
  getFeedback(q: FeedbackQuery, opts: AnalyticsCallOptions = {}): Promise<FeedbackResponse> {
    return this.analytics(feedbackCall(q), opts);
  }

  /**
   * Assistant conversations (question, answer, resolution): see {@link assistantCall}; cursor paging.
   * @throws {DocsApiCursorRejectedError} when the API refuses `q.cursor`; other {@link DocsApiError}s.
   */
  getAssistantConversations(
    q: AssistantQuery,
    opts: AnalyticsCallOptions = {},
  ): Promise<AssistantConversationsResponse> {
    return this.analytics(assistantCall(q), opts);
  }

  /** Closes the dispatcher if the client created it. */
  async close(): Promise<void> {
    await this.transport.close();
  }

  private agentPath(suffix: string): string {
    return `/v2/agent/${encodeURIComponent(this.opts.projectId)}${suffix}`;
  }

  /**
   * One analytics GET, retried {@link DocsApiClientOptions.analyticsRetries} times on 5xx and network
   * errors; a 400 to a request with a cursor becomes a {@link DocsApiCursorRejectedError}.
   */
  private async analytics<S extends z.ZodType>(
    call: AnalyticsCall<S>,
    opts: AnalyticsCallOptions,
  ): Promise<z.output<S>> {
    const path = `/v1/analytics/${encodeURIComponent(this.opts.projectId)}${call.endpoint}?${call.query}`;
    try {
      return await this.withGetRetries(() => {
        opts.onAttempt?.();
        return this.send(call.operation, 'GET', path, call.schema);
      }, this.opts.analyticsRetries ?? 1);
    } catch (err) {
      if (call.withCursor && hasCode<DocsApiBadRequestError>(err, DocsApiErrorCode.BadRequest)) {
        throw new DocsApiCursorRejectedError(err.apiMessage, err.details);
      }
      throw err;
    }
  }

  private withGetRetries<T>(fn: () => Promise<T>, retries = this.opts.getRetries ?? 2): Promise<T> {
    return retryTransient(fn, retries, this.opts.retryMinDelayMs ?? 250);
  }

  private send<S extends z.ZodType>(
    operation: DocsApiOperation,
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.output<S>> {
    return this.transport.send(operation, method, path, schema, body);
  }
}
