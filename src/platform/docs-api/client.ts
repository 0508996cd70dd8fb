import pRetry from 'p-retry';
import { Agent, request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  DocsApiBadRequestError,
  DocsApiError,
  DocsApiForbiddenError,
  DocsApiInvalidResponseError,
  DocsApiNotFoundError,
  DocsApiRateLimitedError,
  DocsApiServerError,
  DocsApiUnauthorizedError,
} from './errors.js';
import { networkError } from './network-error.js';
import {
  agentJobSchema,
  apiErrorSchema,
  visitorsResponseSchema,
  type AgentJob,
  type VisitorsResponse,
} from './schemas.js';

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
  /** Retries of GETs on network errors and 5xx (never on 4xx). @defaultValue 2 */
  getRetries?: number;
  /** First retry delay in ms (doubles, with jitter). @defaultValue 250 */
  retryMinDelayMs?: number;
  /** Told about every HTTP request (retries included), e.g. to count them in metrics. */
  observer?: DocsApiObserver;
}

/** The calls of the docs API clients (this one and the discovery client), as named to a {@link DocsApiObserver}. */
export type DocsApiOperation =
  | 'create_job'
  | 'get_job'
  | 'send_message'
  | 'get_visitors'
  | 'assistant_message'
  | 'search_docs'
  | 'get_page';

/** What a {@link DocsApiClient} reports about each HTTP request it makes. */
export interface DocsApiObserver {
  /**
   * @param statusCode - the HTTP status, or undefined when no response came (network error, timeout).
   * @param seconds - from sending the request to having read its body (or failing).
   */
  docsApiRequest(operation: DocsApiOperation, statusCode: number | undefined, seconds: number): void;
}

/** An agent job as returned by create: the spec makes `id` optional, we require it. */
export type CreatedAgentJob = AgentJob & { id: string };

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
 * The docs API client: one shared undici dispatcher, a timeout on every request, zod-parsed bodies
 * and typed errors (see errors.ts). GETs retry transient failures with backoff; POSTs never retry.
 * Each client acts on one project (every path is `…/{projectId}/…`); {@link forProject} gives the
 * client of another project over the same dispatcher and key.
 */
export class DocsApiClient {
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly siblings = new Map<string, DocsApiClient>();

  constructor(private readonly opts: DocsApiClientOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.ownsDispatcher = !opts.dispatcher;
    this.dispatcher =
      opts.dispatcher ??
      new Agent({
        connect: { timeout: this.timeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        keepAliveTimeout: 30_000,
      });
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  /** The project this client acts on. */
  get projectId(): string { return this.opts.projectId; }

  /** The client of project `projectId`: same key, URL, dispatcher, retries (kept per project); its close() does nothing. */
  forProject(projectId: string): DocsApiClient {
    if (projectId === this.opts.projectId) return this;
    const sibling = this.siblings.get(projectId) ?? new DocsApiClient({ ...this.opts, projectId, dispatcher: this.dispatcher });
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

  /** Closes the dispatcher if the client created it. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private agentPath(suffix: string): string {
    return `/v2/agent/${encodeURIComponent(this.opts.projectId)}${suffix}`;
  }

  private withGetRetries<T>(fn: () => Promise<T>): Promise<T> {
    return pRetry(fn, {
      retries: this.opts.getRetries ?? 2,
      minTimeout: this.opts.retryMinDelayMs ?? 250,
      factor: 2,
      randomize: true,
      shouldRetry: ({ error }) =>
        error instanceof DocsApiError &&
        (error.code === 'server_error' || error.code === 'network_error'),
    });
  }

  /** One HTTP request, reported to the observer (status, or none on a network error, and its seconds). */
  private async send<S extends z.ZodType>(
    operation: DocsApiOperation,
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.output<S>> {
    const started = process.hrtime.bigint();
    let status: number | undefined;
    try {
      const res = await this.exchange(method, path, body);
      status = res.status;
      return parseResponse(res.status, res.text, res.retryAfter, schema);
    } finally {
      this.opts.observer?.docsApiRequest(operation, status, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  /** Sends the request and reads the whole body. @throws {DocsApiNetworkError} when no full response came. */
  private async exchange(method: 'GET' | 'POST', path: string, body: unknown): Promise<{ status: number; text: string; retryAfter: string | string[] | undefined }> {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${this.base}${path}`, {
        method,
        dispatcher: this.dispatcher,
        headers: {
          authorization: `Bearer ${this.opts.apiKey}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw networkError(err, 'maybe');
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      // A response had begun: the request certainly arrived.
      throw networkError(err, 'arrived');
    }
    return { status: res.statusCode, text, retryAfter: res.headers['retry-after'] };
  }
}

/** The parsed body of a 2xx answer, else the typed error of the status. */
function parseResponse<S extends z.ZodType>(status: number, text: string, retryAfter: string | string[] | undefined, schema: S): z.output<S> {
  if (status >= 200 && status < 300) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new DocsApiInvalidResponseError(`HTTP ${status} body is not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new DocsApiInvalidResponseError(
        `HTTP ${status} body: ${first ? `${first.path.join('.') || 'body'} ${first.message}` : 'invalid'}`,
      );
    }
    return parsed.data;
  }
  throw errorFor(status, text, retryAfter);
}

function apiMessage(text: string): string {
  try {
    const parsed = apiErrorSchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const details = parsed.data.details?.map((d) => d.message).join('; ');
      return [parsed.data.error, details].filter(Boolean).join(': ') || 'no details';
    }
  } catch {
    // not JSON: fall through
  }
  return 'no details';
}

function errorFor(status: number, text: string, retryAfter: string | string[] | undefined): DocsApiError {
  switch (status) {
    case 400:
      return new DocsApiBadRequestError(apiMessage(text));
    case 401:
      return new DocsApiUnauthorizedError();
    case 403:
      return new DocsApiForbiddenError();
    case 404:
      return new DocsApiNotFoundError(apiMessage(text));
    case 429: {
      const raw = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
      const seconds = raw === undefined ? NaN : Number(raw);
      return new DocsApiRateLimitedError(Number.isFinite(seconds) ? seconds * 1000 : undefined);
    }
    default:
      if (status >= 500) return new DocsApiServerError(status);
      return new DocsApiInvalidResponseError(`unexpected HTTP ${status}`);
  }
}
