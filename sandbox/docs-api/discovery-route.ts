/**
 * The discovery endpoints of the fake docs API, served under `/discovery` (spec:
 * test/fixtures/mintlify/discovery-openapi.json, server https://api.mintlify.com/discovery;
 * vendor guide guides/assistant-embed.mdx):
 * - POST /v2/assistant/{domain}/message → 200, an AI SDK v5 UI message stream (see
 *   `./discovery-answer.ts`). A message without `threadId` starts a thread: the answer carries
 *   `X-Thread-Id` and, only then, `X-Thread-Key`; a `threadId` without its `threadKey`, with a
 *   wrong one, or unknown → 404 `{message}`. Every answer carries `X-Thread-Id`.
 * - POST /v1/search/{domain} → 200 `[{content, path, metadata: {title}}]` (keyword match, at most
 *   `pageSize`, default 10; `scoreThreshold` is checked but narrows nothing). Both honour `filter`
 *   (`version`, `language`, `groups`: see `passesFilter` in `./discovery-pages.ts`; `tag` is checked only).
 * - POST /v1/page/{domain} → 200 `{path, content}`, or 404 `{message: "Page not found"}`.
 * Beyond the spec (from the vendor's pages): a missing or wrong `Authorization: Bearer <assistant
 * key>` → 401; each endpoint allows `hourlyLimit` requests (default 10,000 per organization per
 * hour) in any sliding hour of the injected clock, then 429 `{message}` without `Retry-After` (none
 * is documented); a body the spec's schema refuses → 400 `{message}`; an unknown domain → 404.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerChunks, planAnswer, writeAnswer } from './discovery-answer.js';
import {
  FAKE_DISCOVERY_PAGES,
  matchPages,
  searchResult,
  type FakeDocPage,
  type FakeFilter,
} from './discovery-pages.js';
import { assistantMessageProblem, lastQuestion, pageProblem, searchProblem } from './discovery-validate.js';
import type { Reply } from './reply.js';

/** The assistant API key the fake accepts unless told another. */
export const FAKE_ASSISTANT_KEY = 'mint_dsc_sandbox_assistant_key';
/** The docs site domain the fake serves unless told another. */
export const FAKE_DOCS_DOMAIN = 'acme';
const HOUR_MS = 3_600_000;

/** Options of the fake discovery API (part of `FakeDocsApiOptions`). */
export interface FakeDiscoveryOptions {
  /** The accepted assistant key; default {@link FAKE_ASSISTANT_KEY}. The admin key is refused (401). */
  apiKey?: string;
  /** The `{domain}` served; default {@link FAKE_DOCS_DOMAIN}; others → 404. */
  domain?: string;
  /** The docs the answers come from; default {@link FAKE_DISCOVERY_PAGES}. */
  pages?: FakeDocPage[];
  /** Wait before the first text delta of each answer, in ms (real time); default 0. */
  firstTokenDelayMs?: number;
  /** Wait before each later text delta, in ms (real time); default 0. */
  chunkDelayMs?: number;
  /** Requests per endpoint in any sliding hour before 429; default 10,000 (the vendor's limit). */
  hourlyLimit?: number;
}

/**
 * A conversation the fake assistant remembers: its id and secret key, the `fp` that began it, each
 * question and the paths it answered from.
 */
export interface FakeAssistantThread {
  id: string;
  key: string;
  fp: string;
  turns: Array<{ question: string; paths: string[] }>;
}

/** `fake.discovery`, for tests and the sandbox: settings that may change between requests, threads, the cut. */
export interface FakeDiscovery {
  readonly apiKey: string;
  readonly domain: string;
  pages: FakeDocPage[];
  firstTokenDelayMs: number;
  chunkDelayMs: number;
  hourlyLimit: number;
  /** Threads by id. */
  readonly threads: Map<string, FakeAssistantThread>;
  /** The next `times` (default 1) answers are cut after `afterTextChunks` text deltas (the connection destroyed). */
  cutNextAnswers(afterTextChunks: number, times?: number): void;
}

/** What the fake answered: a JSON reply to send, or a stream it already wrote (its SSE text, for the request log). */
export type DiscoveryOutcome = { kind: 'json'; reply: Reply } | { kind: 'stream'; status: 200; sse: string };

/** One request for the discovery routes: the path below `/discovery`, the headers and the raw body. */
export interface DiscoveryRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  rawBody: string;
  at: number;
}

const ROUTES = {
  message: /^\/v2\/assistant\/([^/]+)\/message$/,
  search: /^\/v1\/search\/([^/]+)$/,
  page: /^\/v1\/page\/([^/]+)$/,
} as const;
type Route = keyof typeof ROUTES;

const json = (status: number, body: unknown, headers?: Record<string, string>): DiscoveryOutcome => ({
  kind: 'json',
  reply: { status, body, headers },
});
const problem = (status: number, message: string): DiscoveryOutcome => json(status, { message });

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The fake discovery API; see the module doc. */
export class FakeDiscoveryRoutes implements FakeDiscovery {
  readonly apiKey: string;
  readonly domain: string;
  pages: FakeDocPage[];
  firstTokenDelayMs: number;
  chunkDelayMs: number;
  hourlyLimit: number;
  readonly threads = new Map<string, FakeAssistantThread>();
  private readonly cuts: number[] = [];
  private readonly recent: Record<Route, number[]> = { message: [], search: [], page: [] };
  private answers = 0;

  constructor(opts: FakeDiscoveryOptions = {}) {
    this.apiKey = opts.apiKey ?? FAKE_ASSISTANT_KEY;
    this.domain = opts.domain ?? FAKE_DOCS_DOMAIN;
    this.pages = opts.pages ?? FAKE_DISCOVERY_PAGES;
    this.firstTokenDelayMs = opts.firstTokenDelayMs ?? 0;
    this.chunkDelayMs = opts.chunkDelayMs ?? 0;
    this.hourlyLimit = opts.hourlyLimit ?? 10_000;
  }

  cutNextAnswers(afterTextChunks: number, times = 1): void {
    for (let i = 0; i < times; i++) this.cuts.push(afterTextChunks);
  }

  /** Routing, auth, domain, JSON body, spec checks and the hourly limit, then the endpoint. */
  async serve(req: DiscoveryRequest, res: ServerResponse): Promise<DiscoveryOutcome> {
    const route = (Object.keys(ROUTES) as Route[]).find((r) => ROUTES[r].test(req.path));
    if (!route) return problem(404, 'Not found');
    if (req.method !== 'POST') return json(405, { message: 'Method not allowed' }, { allow: 'POST' });
    if (req.headers.authorization !== `Bearer ${this.apiKey}`)
      return problem(401, 'Invalid or missing assistant API key');
    if (decode(ROUTES[route].exec(req.path)?.[1] ?? '') !== this.domain) return problem(404, 'Domain not found');
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
      return problem(400, 'Content-Type must be application/json');
    let body: unknown;
    try {
      body = JSON.parse(req.rawBody);
    } catch {
      return problem(400, 'Body is not valid JSON');
    }
    const invalid =
      route === 'message'
        ? assistantMessageProblem(body)
        : route === 'search'
          ? searchProblem(body)
          : pageProblem(body);
    if (invalid) return problem(400, invalid);
    if (!this.admit(route, req.at)) return problem(429, 'Rate limit exceeded');
    if (route === 'search') return this.search(body as { query: string; pageSize?: number; filter?: FakeFilter });
    if (route === 'page') return this.page((body as { path: string }).path);
    return this.message(body as Parameters<FakeDiscoveryRoutes['message']>[0], res);
  }

  /** Counts a request in the sliding hour of its endpoint; false when the limit is reached. */
  private admit(route: Route, at: number): boolean {
    const times = this.recent[route].filter((t) => t > at - HOUR_MS);
    this.recent[route] = times;
    if (times.length >= this.hourlyLimit) return false;
    times.push(at);
    return true;
  }

  private search(body: { query: string; pageSize?: number; filter?: FakeFilter }): DiscoveryOutcome {
    const found = matchPages(this.pages, body.query, body.pageSize ?? 10, body.filter);
    return json(
      200,
      found.map((p) => searchResult(p)),
    );
  }

  private page(path: string): DiscoveryOutcome {
    const wanted = path.startsWith('/') ? path : `/${path}`;
    const page = this.pages.find((p) => p.path === wanted);
    return page ? json(200, { path: page.path, content: page.content }) : problem(404, 'Page not found');
  }

  private async message(
    body: {
      fp: string;
      messages: unknown[];
      threadId?: string | null;
      threadKey?: string | null;
      retrievalPageSize?: number;
      filter?: FakeFilter | null;
    },
    res: ServerResponse,
  ): Promise<DiscoveryOutcome> {
    const question = lastQuestion(body);
    if (question === '') return problem(400, 'messages must end with a user message with text');
    let thread: FakeAssistantThread | undefined;
    if (body.threadId) {
      thread = this.threads.get(body.threadId);
      if (!thread || !body.threadKey || body.threadKey !== thread.key) return problem(404, 'Thread not found');
    }
    const created = !thread;
    thread ??= { id: randomUUID(), key: randomBytes(24).toString('base64url'), fp: body.fp, turns: [] };
    this.threads.set(thread.id, thread);
    const plan = planAnswer(
      this.pages,
      question,
      thread.turns.map((t) => t.question),
      body.retrievalPageSize ?? 5,
      body.filter,
    );
    thread.turns.push({ question, paths: plan.pages.map((p) => p.path) });
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-vercel-ai-ui-message-stream': 'v1',
      'x-thread-id': thread.id,
      ...(created ? { 'x-thread-key': thread.key } : {}),
    });
    res.flushHeaders();
    this.answers += 1;
    const timing = {
      firstTokenDelayMs: this.firstTokenDelayMs,
      chunkDelayMs: this.chunkDelayMs,
      cutAfterTextChunks: this.cuts.shift(),
    };
    const { sse } = await writeAnswer(res, answerChunks(plan, this.answers), timing);
    return { kind: 'stream', status: 200, sse };
  }
}
