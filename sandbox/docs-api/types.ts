/**
 * Public shapes of the fake docs API (see `sandbox/fake-docs-api.ts` for the routes and the
 * vendor specs they follow): its options, the requests it records and the handle tests use.
 */
import type { FakeAgentJob, FakeOutcome } from './agent-jobs.js';
import type { FakeDiscovery, FakeDiscoveryOptions } from './discovery-route.js';
import type { FakePreviews, FakePreviewsOptions } from './previews.js';

/** Options of {@link startFakeDocsApi}. */
export interface FakeDocsApiOptions {
  /** Expected key: requests must send `Authorization: Bearer <apiKey>`, anything else → 401. */
  apiKey: string;
  /** The project id served; other ids (unless in `projectIds`) → 404 `{"error": "Project not found"}`. */
  projectId: string;
  /** More projects served (the same key acts on all of them); a job is found only under its own project. */
  projectIds?: string[];
  /**
   * Projects of other organizations, each with its own admin key (a deployment serving several
   * docs sites: DOCS_WORKSPACE_PROJECTS): served too, and only with that key (`apiKey` → 401 there,
   * as their key → 401 on `apiKey`'s projects).
   */
  projectKeys?: Record<string, string>;
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
  /** Preview deployments: the organization's plan, how long a build takes, the per-minute limit (`./previews.ts`). */
  previews?: FakePreviewsOptions;
  /** The discovery API under `/discovery`: its own assistant key and domain, delays, limit (`./discovery-route.ts`). */
  discovery?: FakeDiscoveryOptions;
  /**
   * How long a cursor of the searches, feedback and assistant endpoints stays valid after it was last
   * handed out, in ms (by `now`); an older one is answered 400. Default 15 minutes (the vendor
   * documents no lifetime).
   */
  cursorTtlMs?: number;
}

/** One request the fake received, with the answer it gave. */
export interface RecordedRequest {
  /** Upper-case HTTP method. */
  method: string;
  /** Path without the query string, as sent (not decoded). */
  path: string;
  /** The project the path names (decoded), when it matched a route; served or not. */
  projectId?: string;
  /** Query parameters (first value of each name). */
  query: Record<string, string>;
  /** Request headers, lower-case names, as sent (the authorization header included). */
  headers: Record<string, string>;
  /** Parsed JSON body; the raw string if it was not JSON; undefined if empty. */
  body: unknown;
  /** Status the fake answered. */
  status: number;
  /** JSON body the fake answered; for an assistant answer stream, the server-sent event text it wrote. */
  responseBody: unknown;
  /** Clock time (ms, from `now`) when the request was handled. */
  at: number;
}

/** A running fake; see {@link startFakeDocsApi}. */
export interface FakeDocsApi {
  /** Base URL, `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  /** Every request received, in order (including failed/injected ones). */
  requests: RecordedRequest[];
  /** Jobs by id. */
  jobs: Map<string, FakeAgentJob>;
  /** The discovery API: its pages, threads, delays and limit, and {@link FakeDiscovery.cutNextAnswers}. */
  discovery: FakeDiscovery;
  /** Preview deployments: their builds, the plan (mutable), `failNextBuilds`, the 429s given (`./previews.ts`). */
  previews: FakePreviews;
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
