/**
 * The fake docs API's HTTP server: injected failures, the bearer-key check, routing to the agent-job
 * and analytics handlers and, under `/discovery`, to the discovery API (`./discovery-route.ts`), and
 * the request log (see `sandbox/fake-docs-api.ts` for the routes and the vendor specs they follow).
 */
import { EventEmitter } from 'node:events';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentJobs, defaultFakeOutcome, type FakeAgentJob } from './agent-jobs.js';
import { CursorBook } from './cursors.js';
import { FakeDiscoveryRoutes, type DiscoveryOutcome } from './discovery-route.js';
import { FakePreviews } from './previews.js';
import { errorReply, type Reply } from './reply.js';
import { SignalsRoutes } from './signals-routes.js';
import type { FakeDocsApi, FakeDocsApiOptions, RecordedRequest } from './types.js';
import { viewsReply, visitorsReply } from './visitors-route.js';

const DEFAULT_REPOSITORY = 'https://github.com/acme/docs';
/** Where the discovery API lives on the fake, as on the vendor's server (spec: servers[0].url ends in /discovery). */
const DISCOVERY_BASE = '/discovery';
const MAX_BODY_BYTES = 1024 * 1024;

const ROUTES = {
  createJob: /^\/v2\/agent\/([^/]+)\/job$/,
  job: /^\/v2\/agent\/([^/]+)\/job\/([^/]+)$/,
  message: /^\/v2\/agent\/([^/]+)\/job\/([^/]+)\/message$/,
  visitors: /^\/v1\/analytics\/([^/]+)\/visitors$/,
  views: /^\/v1\/analytics\/([^/]+)\/views$/,
  searches: /^\/v1\/analytics\/([^/]+)\/searches$/,
  feedbackByPage: /^\/v1\/analytics\/([^/]+)\/feedback\/by-page$/,
  feedback: /^\/v1\/analytics\/([^/]+)\/feedback$/,
  assistant: /^\/v1\/analytics\/([^/]+)\/assistant$/,
  preview: /^\/v1\/project\/preview\/([^/]+)$/,
} as const;

/** GET /v1/project/update-status/{statusId}: names no project (deployments-openapi.json). */
const UPDATE_STATUS = /^\/v1\/project\/update-status\/([^/]+)$/;

type AnalyticsRoute = 'visitors' | 'views' | 'searches' | 'feedbackByPage' | 'feedback' | 'assistant';

const ROUTE_METHODS: Record<keyof typeof ROUTES, string> = {
  createJob: 'POST',
  job: 'GET',
  message: 'POST',
  visitors: 'GET',
  views: 'GET',
  searches: 'GET',
  feedbackByPage: 'GET',
  feedback: 'GET',
  assistant: 'GET',
  preview: 'POST',
};

/** How long a cursor of the fake's cursor-paged analytics endpoints stays valid by default: 15 minutes. */
export const DEFAULT_CURSOR_TTL_MS = 15 * 60_000;

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

async function readBody(req: IncomingMessage): Promise<{ raw: string; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(buf);
  }
  return { raw: Buffer.concat(chunks).toString('utf8'), tooLarge };
}

/** A request as {@link RecordedRequest} keeps it: body parsed as JSON when it is JSON, headers and query flattened. */
function describeRequest(
  req: IncomingMessage,
  url: URL,
  raw: string,
): Pick<RecordedRequest, 'path' | 'query' | 'headers' | 'body'> {
  let body: unknown;
  if (raw !== '') {
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      body = raw;
    }
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
  return { path: url.pathname, query, headers, body };
}

function send(res: ServerResponse, reply: Reply): void {
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...reply.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

interface FailRule {
  pattern: RegExp;
  status: number;
  remaining: number;
  body: unknown;
  headers: Record<string, string>;
}

class FakeDocsApiServer implements FakeDocsApi {
  url = '';
  readonly requests: RecordedRequest[] = [];
  readonly jobs: Map<string, FakeAgentJob>;
  readonly discovery: FakeDiscoveryRoutes;
  readonly previews: FakePreviews;

  private readonly now: () => number;
  private readonly agentJobs: AgentJobs;
  private readonly failRules: FailRule[] = [];
  private readonly events = new EventEmitter();
  private readonly server: Server;
  private readonly projects: ReadonlySet<string>;
  private readonly analytics: Record<AnalyticsRoute, (query: URLSearchParams, at: number) => Reply>;
  private closing: Promise<void> | undefined;

  constructor(private readonly opts: FakeDocsApiOptions) {
    this.now = opts.now ?? Date.now;
    this.projects = new Set([opts.projectId, ...(opts.projectIds ?? []), ...Object.keys(opts.projectKeys ?? {})]);
    this.agentJobs = new AgentJobs({
      repository: (opts.repository ?? DEFAULT_REPOSITORY).replace(/\/+$/, '').replace(/\.git$/, ''),
      jobDurationMs: opts.jobDurationMs ?? 3000,
      decideOutcome: opts.outcome ?? defaultFakeOutcome,
    });
    this.jobs = this.agentJobs.jobs;
    this.discovery = new FakeDiscoveryRoutes(opts.discovery);
    this.previews = new FakePreviews(this.jobs, opts.previews);
    const signals = new SignalsRoutes(new CursorBook(opts.cursorTtlMs ?? DEFAULT_CURSOR_TTL_MS));
    this.analytics = {
      visitors: visitorsReply,
      views: viewsReply,
      searches: (q, at) => signals.searches(q, at),
      feedbackByPage: (q, at) => signals.feedbackByPage(q, at),
      feedback: (q, at) => signals.feedback(q, at),
      assistant: (q, at) => signals.assistant(q, at),
    };
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        console.error('fake docs API: handler crashed', err);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'Internal server error' }));
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port ?? 0, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
  }

  failNext(pathPattern: RegExp, status: number, times = 1, body?: unknown, headers: Record<string, string> = {}): void {
    if (times < 1) return;
    this.failRules.push({
      pattern: pathPattern,
      status,
      remaining: times,
      body: body ?? { error: status === 429 ? 'Rate limit exceeded' : (STATUS_CODES[status] ?? 'Error') },
      headers,
    });
  }

  waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs = 5000): Promise<RecordedRequest> {
    return new Promise<RecordedRequest>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void): void => {
        settled = true;
        clearTimeout(timer);
        this.events.off('request', check);
        outcome();
      };
      const check = (r: RecordedRequest): void => {
        if (settled) return;
        try {
          if (pred(r)) settle(() => resolve(r));
        } catch (err) {
          settle(() => reject(err instanceof Error ? err : new Error(String(err))));
        }
      };
      const timer = setTimeout(() => {
        settle(() =>
          reject(
            new Error(`waitForRequest: no matching request within ${timeoutMs} ms (${this.requests.length} recorded)`),
          ),
        );
      }, timeoutMs);
      this.events.on('request', check);
      for (const r of this.requests) check(r);
    });
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve, reject) => {
      this.server.close((err) => (err ? reject(err) : resolve()));
      this.server.closeAllConnections();
    });
    return this.closing;
  }

  private takeFailure(path: string): Reply | undefined {
    const rule = this.failRules.find((r) => {
      r.pattern.lastIndex = 0;
      return r.pattern.test(path);
    });
    if (!rule) return undefined;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.failRules.splice(this.failRules.indexOf(rule), 1);
    return { status: rule.status, body: rule.body, headers: rule.headers };
  }

  /** Injected failure, then auth (401), then routing (404 / 405 / project check), then the route's handler. */
  private route(
    method: string,
    path: string,
    query: URLSearchParams,
    headers: IncomingMessage['headers'],
    rawBody: string,
    at: number,
  ): Reply & { projectId?: string } {
    const name = (Object.keys(ROUTES) as (keyof typeof ROUTES)[]).find((k) => ROUTES[k].test(path));
    const [, rawProject, jobId = ''] = name ? (ROUTES[name].exec(path) ?? []) : [];
    const projectId = rawProject === undefined ? undefined : safeDecode(rawProject);
    const reply = this.answer({ name, method, path, query, headers, rawBody, at, projectId, jobId: safeDecode(jobId) });
    return { ...reply, ...(projectId === undefined ? {} : { projectId }) };
  }

  /**
   * Whether `authorization` carries the key of `projectId`: its own (`projectKeys`), else `apiKey`;
   * a path without a project (a preview's status) takes any key the fake knows.
   */
  private keyFits(authorization: string | undefined, projectId: string | undefined): boolean {
    const own = this.opts.projectKeys ?? {};
    if (projectId === undefined)
      return [this.opts.apiKey, ...Object.values(own)].some((k) => authorization === `Bearer ${k}`);
    return authorization === `Bearer ${Object.hasOwn(own, projectId) ? own[projectId] : this.opts.apiKey}`;
  }

  private answer(r: {
    name: keyof typeof ROUTES | undefined;
    method: string;
    path: string;
    query: URLSearchParams;
    headers: IncomingMessage['headers'];
    rawBody: string;
    at: number;
    projectId: string | undefined;
    jobId: string;
  }): Reply {
    const { name, method, path, query, headers, rawBody, at, projectId, jobId } = r;
    const injected = this.takeFailure(path);
    if (injected) return injected;
    if (!this.keyFits(headers.authorization, projectId)) {
      return errorReply(
        401,
        headers.authorization ? 'Invalid API key' : 'Missing Authorization header (expected "Bearer <api key>")',
      );
    }
    const statusId = UPDATE_STATUS.exec(path)?.[1];
    if (statusId !== undefined) {
      if (method !== 'GET') return errorReply(405, 'Method not allowed', { allow: 'GET' });
      return this.previews.status(safeDecode(statusId), at);
    }
    if (!name || projectId === undefined) return errorReply(404, 'Not found');
    if (method !== ROUTE_METHODS[name]) return errorReply(405, 'Method not allowed', { allow: ROUTE_METHODS[name] });
    if (!this.projects.has(projectId)) return errorReply(404, 'Project not found');
    if (name === 'createJob' || name === 'job' || name === 'message') {
      return this.agentJobs.reply(name, projectId, jobId, headers, rawBody, at);
    }
    if (name === 'preview') return this.previews.request(projectId, rawBody, at);
    return this.analytics[name](query, at);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    const { raw, tooLarge } = await readBody(req);
    const at = this.now();
    if (!tooLarge && url.pathname.startsWith(`${DISCOVERY_BASE}/`)) {
      await this.serveDiscovery(req, res, { url, method, raw, at });
      return;
    }
    const { projectId, ...reply }: Reply & { projectId?: string } = tooLarge
      ? errorReply(413, 'Payload too large')
      : this.route(method, url.pathname, url.searchParams, req.headers, raw, at);
    const described = { method, ...describeRequest(req, url, raw), ...(projectId === undefined ? {} : { projectId }) };
    this.record({ ...described, status: reply.status, responseBody: reply.body, at });
    if (this.previews.answerDelayMs > 0 && method === 'POST' && url.pathname.startsWith('/v1/project/preview/'))
      await new Promise((r) => setTimeout(r, this.previews.answerDelayMs));
    send(res, reply);
  }

  /**
   * An injected failure, else the discovery routes (which stream an answer themselves); recorded
   * once answered (a stream once it ended, its SSE text as the body).
   */
  private async serveDiscovery(
    req: IncomingMessage,
    res: ServerResponse,
    r: { url: URL; method: string; raw: string; at: number },
  ): Promise<void> {
    const injected = this.takeFailure(r.url.pathname);
    const path = r.url.pathname.slice(DISCOVERY_BASE.length);
    const request = { method: r.method, path, headers: req.headers, rawBody: r.raw, at: r.at };
    const outcome: DiscoveryOutcome = injected
      ? { kind: 'json', reply: injected }
      : await this.discovery.serve(request, res);
    if (outcome.kind === 'json') send(res, outcome.reply);
    const answered =
      outcome.kind === 'json'
        ? { status: outcome.reply.status, responseBody: outcome.reply.body }
        : { status: outcome.status, responseBody: outcome.sse };
    this.record({ method: r.method, ...describeRequest(req, r.url, r.raw), ...answered, at: r.at });
  }

  private record(record: RecordedRequest): void {
    this.requests.push(record);
    this.events.emit('request', record);
  }
}

/**
 * Starts the fake docs API on 127.0.0.1 (see the module docs of `sandbox/fake-docs-api.ts` for
 * the routes and the specs they follow).
 *
 * Agent jobs: create → 201 `active` job (`prLink` null); once `now() ≥ activeUntil` a GET shows the
 * outcome: 'pr' → `completed` with `prLink` `<repository>/pull/<n>` (n = 101, 102, … per new PR),
 * 'no-changes' → `completed` with `prLink` null, 'failed' → `failed`, 'archived' → `archived` with
 * `archivedAt` = end of the run. A follow-up message makes the job `active` again for
 * `jobDurationMs` with the outcome of the new prompt; a job keeps its PR across later runs (so
 * 'no-changes' after a PR still shows the PR), and a 'pr' run on a job without one opens a new PR.
 * As the spec says, `prLink` is null while the job is `active`. Bodies must be JSON with
 * `content-type: application/json` and a string `prompt` of length ≥ 1 (blank "   " is accepted), else 400.
 *
 * Analytics: GET /v1/analytics/{projectId}/visitors and …/views with `limit` (1..250, default 50),
 * `offset` (≥ 0, default 0), `dateFrom`/`dateTo` (YYYY-MM-DD or ISO 8601, dateTo exclusive, dateFrom <
 * dateTo). Counts are deterministic: 137 pages (FAKE_DOC_PAGES) with Zipf-like popularity, some pages
 * rising or falling week to week, and FAKE_NEW_PAGES at zero before FAKE_NEW_PAGES_SINCE;
 * per-page values are sums of seeded per-(page, UTC day) counts (`./visitors-data.ts`).
 * …/searches, …/feedback/by-page, …/feedback and …/assistant take the same dates, their own `limit`
 * ranges, the feedback filters `source` and `status`, and `cursor` (`./signals-routes.ts`); cursors
 * expire `cursorTtlMs` after they were last handed out.
 *
 * @returns the running fake once it listens.
 * @throws the listen error (e.g. EADDRINUSE) if the port cannot be bound.
 */
export async function startFakeDocsApi(opts: FakeDocsApiOptions): Promise<FakeDocsApi> {
  const fake = new FakeDocsApiServer(opts);
  await fake.listen();
  return fake;
}
