/**
 * A fake of the Mintlify docs API for tests and the local sandbox: agent jobs (admin API v2) and the
 * unique-visitors analytics endpoint, served by `node:http` on 127.0.0.1.
 *
 * Shapes and status codes follow the vendor specs copied to `test/fixtures/mintlify/`:
 * - admin-openapi.json (OpenAPI 3.0.1): POST /v2/agent/{projectId}/job → 201 AgentJob | 400 | 429;
 *   GET /v2/agent/{projectId}/job/{id} → 200 AgentJob | 404;
 *   POST /v2/agent/{projectId}/job/{id}/message → 200 AgentJob | 400 | 404 | 429.
 * - analytics.openapi.json (OpenAPI 3.1.0): GET /v1/analytics/{projectId}/visitors → 200
 *   VisitorsByPageResponse | 400 AnalyticsErrorResponse | 500.
 * Beyond the specs: a missing or wrong `Authorization: Bearer <key>` answers 401 `{"error": …}` (the
 * vendor's pages say a bad key answers 401; the specs declare no 401), an unknown project id answers
 * 404 `{"error": "Project not found"}`, unknown routes 404 and known routes with another method 405.
 *
 * Job status is computed lazily from the injected clock on every read (no timers), so tests can
 * drive it with `now: () => t`.
 */
import { EventEmitter } from 'node:events';
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** How a (fake) agent run ends; see {@link defaultFakeOutcome}. */
export type FakeOutcome = 'pr' | 'no-changes' | 'failed' | 'archived';

/** Options of {@link startFakeDocsApi}. */
export interface FakeDocsApiOptions {
  /** Expected key: requests must send `Authorization: Bearer <apiKey>`, anything else → 401. */
  apiKey: string;
  /** The only project id served; other ids → 404 `{"error": "Project not found"}`. */
  projectId: string;
  /** TCP port on 127.0.0.1; default 0 (a random free port). */
  port?: number;
  /** How long a job (and each follow-up) stays `active`, in ms; default 3000. */
  jobDurationMs?: number;
  /** Clock in ms since the epoch; default `Date.now`. Read on every request. */
  now?: () => number;
  /** Decides each run's outcome from its prompt; default {@link defaultFakeOutcome}. */
  outcome?: (prompt: string) => FakeOutcome;
  /** Repository URL reported in `source.repository` and used for PR links; default "https://github.com/acme/docs". */
  repository?: string;
}

/** One request the fake received, with the answer it gave. */
export interface RecordedRequest {
  /** Upper-case HTTP method. */
  method: string;
  /** Path without the query string, as sent (not decoded). */
  path: string;
  /** Query parameters (first value of each name). */
  query: Record<string, string>;
  /** Request headers, lower-case names, as sent (the authorization header included). */
  headers: Record<string, string>;
  /** Parsed JSON body; the raw string if it was not JSON; undefined if empty. */
  body: unknown;
  /** Status the fake answered. */
  status: number;
  /** JSON body the fake answered. */
  responseBody: unknown;
  /** Clock time (ms, from `now`) when the request was handled. */
  at: number;
}

/** Internal state of one agent job. Tests may read it (and mutate it, e.g. `activeUntil`). */
export interface FakeAgentJob {
  /** `job_` + 12 lowercase alphanumerics. */
  id: string;
  /** Git branch reported as `source.ref`: `mintlify/agent-<8 chars of the id>`. */
  ref: string;
  model: string;
  /** Creation time, ms. */
  createdAt: number;
  /** The job reads as `active` while `now() < activeUntil` (ms). */
  activeUntil: number;
  /** Outcome of the latest run (creation or follow-up), applied once it stops being active. */
  outcome: FakeOutcome;
  /** PR number once a run produced a PR (kept across later runs), else null. */
  prNumber: number | null;
  /** Prompts in order: the creation prompt, then each follow-up. */
  messages: string[];
}

/** A running fake; see {@link startFakeDocsApi}. */
export interface FakeDocsApi {
  /** Base URL, `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  /** Every request received, in order (including failed/injected ones). */
  requests: RecordedRequest[];
  /** Jobs by id. */
  jobs: Map<string, FakeAgentJob>;
  /**
   * Make the next `times` (default 1) requests whose path (without query) matches `pathPattern`
   * answer `status` with `body` (default `{"error": <reason phrase>}`) and optional extra headers
   * (e.g. `{"retry-after": "1"}`), before auth or routing. For injecting 429 / 500 / 503 etc.
   */
  failNext(pathPattern: RegExp, status: number, times?: number, body?: unknown, headers?: Record<string, string>): void;
  /**
   * Resolves with the first recorded request (already recorded or future) matching `pred`.
   * Rejects with an Error after `timeoutMs` (default 5000 ms), or if `pred` throws.
   */
  waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** Stops listening and drops open connections. Idempotent. */
  close(): Promise<void>;
}

/** JSON body of an AgentJob (spec: admin-openapi.json, components.schemas.AgentJob). */
export interface FakeAgentJobBody {
  id: string;
  status: 'active' | 'completed' | 'archived' | 'failed';
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
}

/** One row of VisitorsByPageResponse.visitors (spec: analytics.openapi.json). */
export interface FakeVisitorRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

const DEFAULT_REPOSITORY = 'https://github.com/acme/docs';
const DEFAULT_MODEL = 'claude-sonnet-4-5';
const FIRST_PR_NUMBER = 101;
const MAX_BODY_BYTES = 1024 * 1024;
const DAY_MS = 86_400_000;

/**
 * Default outcome rule: a prompt containing `[fail]` → 'failed', `[no-changes]` → 'no-changes',
 * `[archive]` → 'archived' (checked in that order), anything else → 'pr'.
 */
export function defaultFakeOutcome(prompt: string): FakeOutcome {
  if (prompt.includes('[fail]')) return 'failed';
  if (prompt.includes('[no-changes]')) return 'no-changes';
  if (prompt.includes('[archive]')) return 'archived';
  return 'pr';
}

// ---------------------------------------------------------------------------------------------
// Analytics data: a fixed catalogue of doc pages with deterministic, seeded daily counts.
// ---------------------------------------------------------------------------------------------

/** Pages in {@link FAKE_NEW_PAGES} have no visitors on UTC days before this date. */
export const FAKE_NEW_PAGES_SINCE = '2026-11-10';

/** Pages that only get visitors from {@link FAKE_NEW_PAGES_SINCE} on. */
export const FAKE_NEW_PAGES: readonly string[] = [
  '/ai/agent',
  '/api-reference/endpoint/send-message',
  '/guides/agent-workflows-from-slack-to-pull-request',
  '/integrations/slack/docs-agent-bot',
];

const FAKE_PAGE_COUNT = 137;

function buildCatalogue(): string[] {
  const sections: [string, string[]][] = [
    ['', ['introduction', 'quickstart', 'installation', 'development', 'authentication', 'pricing', 'faq', 'support', 'changelog']],
    [
      'guides',
      [
        'writing-content', 'navigation', 'themes', 'custom-domain', 'analytics', 'search', 'seo', 'redirects',
        'versioning', 'localization', 'openapi-setup', 'mdx-components', 'code-blocks', 'images-and-embeds',
        'reusable-snippets', 'custom-css-and-js', 'github-integration', 'gitlab-integration', 'preview-deployments',
        'broken-links', 'llms-txt', 'mcp-server', 'ai-assistant', 'feedback', 'hidden-pages', 'monorepo-setup',
        'migrating-from-readme', 'migrating-from-gitbook', 'migrating-from-docusaurus',
        'migrating-from-legacy-authentication-to-oauth-2-with-pkce-for-single-page-apps',
        'agent-workflows-from-slack-to-pull-request',
      ],
    ],
    [
      'api-reference',
      [
        'introduction', 'authentication', 'rate-limits', 'errors', 'endpoint/create-job', 'endpoint/get-job',
        'endpoint/send-message', 'endpoint/list-jobs', 'endpoint/trigger-update', 'endpoint/get-update-status',
        'endpoint/visitors', 'endpoint/views', 'endpoint/feedback', 'endpoint/feedback-by-page', 'endpoint/searches',
        'endpoint/assistant-conversations', 'endpoint/assistant-thread', 'endpoint/assistant-caller-stats',
        'endpoint/create-assistant-message', 'endpoint/search-documentation', 'endpoint/create-agent-job-v1',
        'endpoint/get-agent-job-v1',
      ],
    ],
    [
      'components',
      [
        'accordions', 'banner', 'badges', 'callouts', 'cards', 'code-groups', 'columns', 'examples', 'expandables',
        'fields', 'frames', 'icons', 'mermaid-diagrams', 'panel', 'response-fields', 'steps', 'tabs', 'tiles',
        'tooltips', 'tree', 'update', 'color',
      ],
    ],
    [
      'integrations',
      [
        'analytics/amplitude', 'analytics/clearbit', 'analytics/fathom', 'analytics/google-analytics',
        'analytics/google-tag-manager', 'analytics/heap', 'analytics/hotjar', 'analytics/logrocket',
        'analytics/mixpanel', 'analytics/plausible', 'analytics/posthog', 'analytics/segment', 'support/intercom',
        'support/front', 'privacy/osano', 'sdks/speakeasy', 'sdks/stainless', 'slack/docs-agent-bot',
      ],
    ],
    [
      'settings',
      [
        'global', 'navigation', 'custom-domain', 'custom-scripts', 'seo', 'broken-links', 'github', 'gitlab',
        'ci-checks', 'preview-deployments', 'versioning', 'redirects',
        'authentication-personalization/authentication-setup',
        'authentication-personalization/personalization-setup',
        'authentication-personalization/partial-authentication',
        'authentication-personalization/sending-data-from-your-identity-provider-to-personalize-content',
      ],
    ],
    ['ai', ['assistant', 'contextual-menu', 'llmstxt', 'model-context-protocol', 'agent']],
  ];
  const pages = sections.flatMap(([section, slugs]) => slugs.map((slug) => (section ? `/${section}/${slug}` : `/${slug}`)));
  // Pad with monthly changelog pages (2025-01, 2025-02, …) up to the fixed size.
  for (let month = 0; pages.length < FAKE_PAGE_COUNT; month++) {
    pages.push(`/changelog/${2025 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}`);
  }
  if (pages.length !== FAKE_PAGE_COUNT || new Set(pages).size !== FAKE_PAGE_COUNT) {
    throw new Error('fake docs catalogue must hold 137 distinct pages');
  }
  return pages;
}

/** The fixed catalogue of 137 doc page paths the fake analytics report on. */
export const FAKE_DOC_PAGES: readonly string[] = buildCatalogue();

/** Deterministic hash of the parts to [0, 1): FNV-1a followed by the murmur3 finaliser. */
function hash01(...parts: (string | number)[]): number {
  const s = parts.join('|');
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

interface PageModel {
  path: string;
  /** Mean human visitors per weekday at the reference week. */
  base: number;
  /** AI visitors relative to human ones. */
  aiShare: number;
  /** Growth per week (log scale): > 0 risers, < 0 fallers, 0 steady. */
  slope: number;
  /** First UTC day number with visitors (new pages), else -Infinity. */
  sinceDay: number;
}

/** Day number (days since 1970-01-01 UTC) of the Monday of the week trends are anchored on (2026-11-02). */
const TREND_REFERENCE_DAY = Date.UTC(2026, 10, 2) / DAY_MS;
const NEW_PAGES_SINCE_DAY = Date.parse(`${FAKE_NEW_PAGES_SINCE}T00:00:00Z`) / DAY_MS;
/** The most visited pages, in order; the rest are ranked by a seeded shuffle. */
const HEAD_PAGES = ['/quickstart', '/introduction', '/installation', '/api-reference/introduction', '/guides/navigation', '/components/cards'];

const PAGE_MODELS: readonly PageModel[] = (() => {
  const tail = FAKE_DOC_PAGES.filter((p) => !HEAD_PAGES.includes(p)).sort((a, b) => hash01(a, 'rank') - hash01(b, 'rank'));
  return [...HEAD_PAGES, ...tail].map((path, index) => {
    const trend = hash01(path, 'trend');
    return {
      path,
      // Zipf-like popularity: rank 1 ≈ 1800 humans per weekday, rank 137 ≈ 8.
      base: 1800 / Math.pow(index + 1, 1.1),
      aiShare: path.startsWith('/api-reference/') ? 0.4 + 0.6 * hash01(path, 'ai') : 0.05 + 0.35 * hash01(path, 'ai'),
      slope: trend < 0.12 ? 0.1 + 0.1 * hash01(path, 'slope') : trend < 0.24 ? -0.05 - 0.1 * hash01(path, 'slope') : 0,
      sinceDay: FAKE_NEW_PAGES.includes(path) ? NEW_PAGES_SINCE_DAY : -Infinity,
    };
  });
})();

/** Visitors of one page on one UTC day (`total` = human + ai − overlap, overlap ≤ min(human, ai)). */
function dailyVisitors(page: PageModel, day: number): FakeVisitorRow {
  if (day < page.sinceDay) return { path: page.path, human: 0, ai: 0, total: 0 };
  const week = Math.floor((day - TREND_REFERENCE_DAY) / 7);
  const trend = Math.min(4, Math.max(0.25, Math.exp(page.slope * week)));
  const weekNoise = 0.75 + 0.5 * hash01(page.path, week, 'week');
  const dayOfWeek = (((day + 4) % 7) + 7) % 7; // 0 = Sunday (1970-01-01 was a Thursday)
  const weekend = dayOfWeek === 0 || dayOfWeek === 6 ? 0.55 : 1;
  const level = page.base * trend * weekNoise;
  const human = Math.floor(level * weekend * (0.85 + 0.3 * hash01(page.path, day, 'h')) + hash01(page.path, day, 'hd'));
  const ai = Math.floor(level * page.aiShare * (0.7 + 0.6 * hash01(page.path, day, 'a')) + hash01(page.path, day, 'ad'));
  const overlap = Math.floor(Math.min(human, ai) * (0.05 + 0.25 * hash01(page.path, day, 'o')));
  return { path: page.path, human, ai, total: human + ai - overlap };
}

/**
 * Visitors per page summed over the UTC days `[fromDay, toDay)` (day numbers since the epoch), rows
 * with total 0 omitted, sorted by total desc then path asc; plus site-wide totals (fewer than the sum
 * of pages, since visitors see several pages, but never below the busiest page; human/ai/total keep
 * `max(human, ai) ≤ total ≤ human + ai`).
 */
function visitorsForDays(fromDay: number, toDay: number): { totals: Omit<FakeVisitorRow, 'path'>; rows: FakeVisitorRow[] } {
  const rows: FakeVisitorRow[] = [];
  for (const page of PAGE_MODELS) {
    const sum: FakeVisitorRow = { path: page.path, human: 0, ai: 0, total: 0 };
    for (let day = fromDay; day < toDay; day++) {
      const d = dailyVisitors(page, day);
      sum.human += d.human;
      sum.ai += d.ai;
      sum.total += d.total;
    }
    if (sum.total > 0) rows.push(sum);
  }
  rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const sumOf = (key: 'human' | 'ai' | 'total'): number => rows.reduce((acc, r) => acc + r[key], 0);
  const maxOf = (key: 'human' | 'ai' | 'total'): number => rows.reduce((acc, r) => Math.max(acc, r[key]), 0);
  const human = Math.max(Math.round(sumOf('human') * 0.62), maxOf('human'));
  const ai = Math.max(Math.round(sumOf('ai') * 0.7), maxOf('ai'));
  const total = Math.min(human + ai, Math.max(Math.round(sumOf('total') * 0.6), maxOf('total'), human, ai));
  return { totals: { human, ai, total }, rows };
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses `YYYY-MM-DD` (UTC midnight) or ISO 8601 date-time (no offset = UTC) to ms; undefined if
 * malformed or not a real calendar date/time (e.g. 2026-02-30, 24:00).
 */
function parseDate(value: string): number | undefined {
  const m = DATE_ONLY.exec(value) ?? DATE_TIME.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, hh = '00', mi = '00', ss = '00', frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const midnight = Date.UTC(year, month - 1, day);
  const check = new Date(midnight);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59) return undefined;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const ms = Date.parse(`${y}-${mo}-${d}T${hh}:${mi}:${ss}.${frac.padEnd(3, '0').slice(0, 3)}${offset}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Parses a non-negative or negative integer query value; undefined if not an integer literal. */
function parseInteger(value: string): number | undefined {
  return /^-?\d+$/.test(value) ? Number(value) : undefined;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const error = (status: number, message: string, headers?: Record<string, string>): Reply => ({ status, body: { error: message }, headers });

/**
 * GET /v1/analytics/{projectId}/visitors (spec: analytics.openapi.json → 200 VisitorsByPageResponse,
 * 400 AnalyticsErrorResponse with one `details` entry per problem). Dates cover whole UTC days:
 * `[floor(dateFrom), ceil(dateTo))`; defaults: `dateTo` = today 00:00 UTC, `dateFrom` = dateTo − 7 days.
 */
function visitorsReply(query: URLSearchParams, nowMs: number): Reply {
  const details: { message: string }[] = [];
  const intParam = (name: string, fallback: number, min: number, max: number, rangeMessage: string): number => {
    const raw = query.get(name);
    if (raw === null) return fallback;
    const n = parseInteger(raw);
    if (n === undefined) details.push({ message: `${name} must be an integer` });
    else if (n < min || n > max) details.push({ message: rangeMessage });
    return n ?? fallback;
  };
  const limit = intParam('limit', 50, 1, 250, 'limit must be between 1 and 250');
  const offset = intParam('offset', 0, 0, Number.MAX_SAFE_INTEGER, 'offset must be greater than or equal to 0');
  const dateParam = (name: string): number | undefined => {
    const raw = query.get(name);
    if (raw === null) return undefined;
    const ms = parseDate(raw);
    if (ms === undefined) details.push({ message: `${name} must be a date in YYYY-MM-DD or ISO 8601 format` });
    return ms;
  };
  const from = dateParam('dateFrom');
  const to = dateParam('dateTo');
  if (from !== undefined && to !== undefined && from >= to) details.push({ message: 'dateFrom must be before dateTo' });
  if (details.length > 0) return { status: 400, body: { error: 'Invalid query parameters', details } };

  const toMs = to ?? Math.floor(nowMs / DAY_MS) * DAY_MS;
  const fromMs = from ?? toMs - 7 * DAY_MS;
  const { totals, rows } = visitorsForDays(Math.floor(fromMs / DAY_MS), Math.ceil(toMs / DAY_MS));
  return {
    status: 200,
    body: { totals, visitors: rows.slice(offset, offset + limit), hasMore: offset + limit < rows.length },
  };
}

// ---------------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------------

const ROUTES = {
  createJob: /^\/v2\/agent\/([^/]+)\/job$/,
  job: /^\/v2\/agent\/([^/]+)\/job\/([^/]+)$/,
  message: /^\/v2\/agent\/([^/]+)\/job\/([^/]+)\/message$/,
  visitors: /^\/v1\/analytics\/([^/]+)\/visitors$/,
} as const;

const ROUTE_METHODS: Record<keyof typeof ROUTES, string> = { createJob: 'POST', job: 'GET', message: 'POST', visitors: 'GET' };

function randomId(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((b) => alphabet[b % alphabet.length]).join('');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Checks a `{prompt}` body the way the vendor's (zod) validation reports it; returns the prompt or a 400. */
function readPrompt(body: unknown): string | Reply {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return error(400, `Expected object, received ${body === null ? 'null' : Array.isArray(body) ? 'array' : typeof body}`);
  }
  const prompt = (body as { prompt?: unknown }).prompt;
  if (prompt === undefined) return error(400, 'prompt: Required');
  if (typeof prompt !== 'string') return error(400, `prompt: Expected string, received ${prompt === null ? 'null' : typeof prompt}`);
  if (prompt.length < 1) return error(400, 'prompt: String must contain at least 1 character(s)');
  return prompt;
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

interface FailRule {
  pattern: RegExp;
  status: number;
  remaining: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * Starts the fake docs API on 127.0.0.1 (see the module docs for the routes and the specs they follow).
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
 * Analytics: GET /v1/analytics/{projectId}/visitors with `limit` (1..250, default 50), `offset`
 * (≥ 0, default 0), `dateFrom`/`dateTo` (YYYY-MM-DD or ISO 8601, dateTo exclusive, dateFrom < dateTo).
 * Counts are deterministic: 137 pages ({@link FAKE_DOC_PAGES}) with Zipf-like popularity, some pages
 * rising or falling week to week, and {@link FAKE_NEW_PAGES} at zero before {@link FAKE_NEW_PAGES_SINCE};
 * per-page values are sums of seeded per-(page, UTC day) counts.
 *
 * @returns the running fake once it listens.
 * @throws the listen error (e.g. EADDRINUSE) if the port cannot be bound.
 */
export async function startFakeDocsApi(opts: FakeDocsApiOptions): Promise<FakeDocsApi> {
  const now = opts.now ?? Date.now;
  const jobDurationMs = opts.jobDurationMs ?? 3000;
  const decideOutcome = opts.outcome ?? defaultFakeOutcome;
  const repository = (opts.repository ?? DEFAULT_REPOSITORY).replace(/\/+$/, '').replace(/\.git$/, '');
  const requests: RecordedRequest[] = [];
  const jobs = new Map<string, FakeAgentJob>();
  const failRules: FailRule[] = [];
  const events = new EventEmitter();
  let nextPrNumber = FIRST_PR_NUMBER;

  const startRun = (job: FakeAgentJob, prompt: string, at: number): void => {
    job.messages.push(prompt);
    job.outcome = decideOutcome(prompt);
    job.activeUntil = at + jobDurationMs;
    if (job.outcome === 'pr' && job.prNumber === null) job.prNumber = nextPrNumber++;
  };

  const view = (job: FakeAgentJob, at: number): FakeAgentJobBody => {
    const active = at < job.activeUntil;
    const status = active ? 'active' : job.outcome === 'pr' || job.outcome === 'no-changes' ? 'completed' : job.outcome;
    return {
      id: job.id,
      status,
      source: { repository, ref: job.ref },
      model: job.model,
      prLink: !active && job.prNumber !== null ? `${repository}/pull/${job.prNumber}` : null,
      createdAt: new Date(job.createdAt).toISOString(),
      archivedAt: status === 'archived' ? new Date(job.activeUntil).toISOString() : null,
    };
  };

  const takeFailure = (path: string): Reply | undefined => {
    const rule = failRules.find((r) => {
      r.pattern.lastIndex = 0;
      return r.pattern.test(path);
    });
    if (!rule) return undefined;
    rule.remaining -= 1;
    if (rule.remaining <= 0) failRules.splice(failRules.indexOf(rule), 1);
    return { status: rule.status, body: rule.body, headers: rule.headers };
  };

  const route = (method: string, path: string, query: URLSearchParams, headers: IncomingMessage['headers'], rawBody: string, at: number): Reply => {
    const injected = takeFailure(path);
    if (injected) return injected;

    if (headers.authorization !== `Bearer ${opts.apiKey}`) {
      return error(401, headers.authorization ? 'Invalid API key' : 'Missing Authorization header (expected "Bearer <api key>")');
    }

    const name = (Object.keys(ROUTES) as (keyof typeof ROUTES)[]).find((k) => ROUTES[k].test(path));
    if (!name) return error(404, 'Not found');
    if (method !== ROUTE_METHODS[name]) return error(405, 'Method not allowed', { allow: ROUTE_METHODS[name] });
    const [, projectId = '', jobId = ''] = ROUTES[name].exec(path) ?? [];
    if (safeDecode(projectId) !== opts.projectId) return error(404, 'Project not found');

    if (name === 'visitors') return visitorsReply(query, at);

    const job = name === 'createJob' ? undefined : jobs.get(safeDecode(jobId));
    if (name !== 'createJob' && !job) return error(404, 'Job not found');
    if (name === 'job' && job) return { status: 200, body: view(job, at) };

    // POST with a {prompt} body: create or follow-up.
    const mediaType = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json') return error(400, 'Content-Type must be application/json');
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawBody) as unknown;
    } catch {
      return error(400, 'Invalid JSON body');
    }
    const prompt = readPrompt(parsed);
    if (typeof prompt !== 'string') return prompt;

    if (job) {
      startRun(job, prompt, at);
      return { status: 200, body: view(job, at) };
    }
    const id = `job_${randomId(12)}`;
    const created: FakeAgentJob = {
      id,
      ref: `mintlify/agent-${id.slice(4, 12)}`,
      model: DEFAULT_MODEL,
      createdAt: at,
      activeUntil: at,
      outcome: 'pr',
      prNumber: null,
      messages: [],
    };
    startRun(created, prompt, at);
    jobs.set(id, created);
    return { status: 201, body: view(created, at) };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    const { raw, tooLarge } = await readBody(req);
    const at = now();
    const reply = tooLarge ? error(413, 'Payload too large') : route(method, url.pathname, url.searchParams, req.headers, raw, at);

    let recordedBody: unknown;
    if (raw !== '') {
      try {
        recordedBody = JSON.parse(raw) as unknown;
      } catch {
        recordedBody = raw;
      }
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
    const record: RecordedRequest = { method, path: url.pathname, query, headers, body: recordedBody, status: reply.status, responseBody: reply.body, at };
    requests.push(record);
    events.emit('request', record);

    const payload = JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...reply.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
    });
    res.end(payload);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('fake docs API: handler crashed', err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Internal server error' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    jobs,
    failNext(pathPattern, status, times = 1, body, headers = {}) {
      if (times < 1) return;
      failRules.push({
        pattern: pathPattern,
        status,
        remaining: times,
        body: body ?? { error: status === 429 ? 'Rate limit exceeded' : (STATUS_CODES[status] ?? 'Error') },
        headers,
      });
    },
    waitForRequest(pred, timeoutMs = 5000) {
      return new Promise<RecordedRequest>((resolve, reject) => {
        let settled = false;
        const settle = (outcome: () => void): void => {
          settled = true;
          clearTimeout(timer);
          events.off('request', check);
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
          settle(() => reject(new Error(`waitForRequest: no matching request within ${timeoutMs} ms (${requests.length} recorded)`)));
        }, timeoutMs);
        events.on('request', check);
        for (const r of requests) check(r);
      });
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
