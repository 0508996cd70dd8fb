import type { Redis } from 'ioredis';
import type { z } from 'zod';
import type { DocsApiClient, DocsApiProjects, VisitorsQuery } from '../../platform/docs-api/client.js';
import {
  DocsApiErrorCode,
  DocsApiNetworkError,
  DocsApiServerError,
  isDocsApiError,
  type DocsApiRateLimitedError,
} from '../../platform/docs-api/errors.js';
import { hasCode } from '../../platform/errors.js';
import { visitorsResponseSchema, type VisitorsResponse } from '../../platform/docs-api/schemas.js';
import { tryLock } from '../../platform/lock.js';
import { readStoredJson } from '../../platform/stored-json.js';
import type { Logger } from '../../platform/logger.js';
import {
  RATE_LIMITED_BACKOFF_MS,
  VisitorsFetchWaitTimeoutError,
  type AnalyticsBudget,
  type BudgetPurpose,
} from './budget.js';

/**
 * Read-through Redis cache of the analytics API (GET /v1/analytics/{projectId}/visitors, …/views,
 * …/searches, …/feedback/by-page, …/feedback, …/assistant), keyed by the endpoint and the full query
 * (project, dates, limit, offset or cursor, filters), so paging back and forth and digests for many
 * channels cost one API call per distinct query per {@link CACHE_TTL_MS}. Channels on different docs
 * projects (channel settings) get different entries; the budget stays one for all of them and all
 * endpoints, as the vendor counts analytics requests per organization, not per project or endpoint.
 *
 * Single flight across replicas: the first caller takes a Redis lock (a redis-semaphore mutex) and fetches;
 * the others wait for the cached answer instead of calling too. Every real call is counted against
 * the {@link AnalyticsBudget} first.
 */

/** How long a response is reused, in ms (10 minutes). */
const CACHE_TTL_MS = 600_000;
/** Lock lifetime, in ms: longer than a GET with its retries (3 × 10 s timeout + backoff). */
const FETCH_LOCK_TTL_MS = 45_000;
/** How often a waiting caller looks for the other caller's answer, in ms. */
const WAIT_POLL_MS = 100;
/** A digest fetch that failed with a 5xx or network error is not repeated by other digests for this long, in ms. */
const FAILURE_MEMORY_MS = 15_000;

/** The analytics calls of the docs API client the cache makes. */
export type AnalyticsApiCall =
  'getVisitors' | 'getViews' | 'getSearches' | 'getFeedbackByPage' | 'getFeedback' | 'getAssistantConversations';

/** The client of one docs project, as the cache calls it. */
export type AnalyticsApi = Pick<DocsApiClient, AnalyticsApiCall>;

/** What {@link AnalyticsCache} needs. */
export interface AnalyticsCacheDeps {
  /** The analytics calls (tests may give only those they use). */
  docsApi: DocsApiProjects<AnalyticsApiCall> | DocsApiProjects<'getVisitors'>;
  redis: Redis;
  /** `${QUEUE_PREFIX}:visitors`. */
  keyPrefix: string;
  /** DOCS_PROJECT_ID: the project of a query that names none. The project is part of every cache key. */
  projectId: string;
  budget: AnalyticsBudget;
  logger: Logger;
  /**
   * How long a caller waits for another caller's fetch of the same query, in ms.
   * @defaultValue FETCH_LOCK_TTL_MS + 5000
   */
  lockWaitMs?: number;
}

/** One cached answer and where it came from. */
export interface Cached<T> {
  page: T;
  /** True when no API call was made for it. */
  fromCache: boolean;
  /** Analytics requests counted in the last hour (after this one, if it was made). */
  budgetUsed: number;
}

/** One page of visitors and where it came from. */
type CachedVisitors = Cached<VisitorsResponse>;

/**
 * One analytics query as the cache reads it: its key, the schema its stored answer is read back
 * with, and the call that fetches it.
 */
export interface CachedQuery<T> {
  /** The endpoint, for logs (`visitors`, `searches`, …). */
  endpoint: string;
  /** The query's part of the Redis key (after `…:cache:`): the endpoint and every parameter sent. */
  id: string;
  /** Reads a stored answer back (the platform's tolerant schema: its output parses again to itself). */
  schema: z.ZodType<T, unknown>;
  /** The API call; `onAttempt` is called before every HTTP attempt (retries included). */
  fetch: (api: AnalyticsApi, onAttempt: () => void) => Promise<T>;
  /** For the log line: what was asked (dates, limit, offset or cursor). Never reader text. */
  query: object;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The query's parts as one key segment (each part URI-encoded, joined with `|`). */
export function keyParts(parts: readonly (string | number | undefined)[]): string {
  return parts.map((p) => encodeURIComponent(String(p ?? ''))).join('|');
}

/** See the module notes. */
export class AnalyticsCache {
  constructor(private readonly deps: AnalyticsCacheDeps) {}

  /** DOCS_PROJECT_ID: the project of a query that names none. */
  get defaultProjectId(): string {
    return this.deps.projectId;
  }

  /** The Redis key of a visitors query's cached response (of project `projectId`, default DOCS_PROJECT_ID). */
  cacheKey(q: VisitorsQuery, projectId = this.deps.projectId): string {
    return `${this.deps.keyPrefix}:cache:${keyParts([projectId, q.dateFrom, q.dateTo, q.limit, q.offset])}`;
  }

  /**
   * The visitors page for `q`: from Redis when any replica fetched it in the last 10 minutes, else
   * from the API (one caller at a time per query; the others wait up to {@link FETCH_LOCK_TTL_MS}).
   *
   * @param purpose - whose budget ceiling applies (`interactive` reports stop earlier than digests).
   * @param projectId - the docs project (a channel's); default DOCS_PROJECT_ID.
   * @param user - who asked (interactive): a call that reaches the API counts against their hourly
   *   share; a cache hit costs them nothing.
   * @throws as {@link read}.
   */
  async get(
    q: VisitorsQuery,
    purpose: BudgetPurpose,
    projectId = this.deps.projectId,
    user?: string,
  ): Promise<CachedVisitors> {
    const query: CachedQuery<VisitorsResponse> = {
      endpoint: 'visitors',
      id: keyParts([projectId, q.dateFrom, q.dateTo, q.limit, q.offset]),
      schema: visitorsResponseSchema,
      fetch: (api, onAttempt) => api.getVisitors(q, { onAttempt }),
      query: q,
    };
    return this.read(query, purpose, projectId, user);
  }

  /**
   * Any analytics query through the cache (see {@link get} for the parameters).
   * @throws {AnalyticsBudgetError} when the budget or the person's share is spent, or a 429
   *   back-off runs (nothing sent).
   * @throws {VisitorsFetchWaitTimeoutError} when another caller's fetch of the same query outlasted
   *   the wait (a local timeout: nothing was sent by this caller).
   * @throws {DocsApiError} subclasses from the API call (a 429 also starts the back-off for everyone;
   *   a refused cursor is a DocsApiCursorRejectedError).
   * @throws Redis errors.
   */
  async read<T>(
    query: CachedQuery<T>,
    purpose: BudgetPurpose,
    projectId = this.deps.projectId,
    user?: string,
  ): Promise<Cached<T>> {
    const key = `${this.deps.keyPrefix}:cache:${query.id}`;
    const lockKey = `${key}:lock`;
    const failKey = `${key}:failed`;
    const waitMs = this.deps.lockWaitMs ?? FETCH_LOCK_TTL_MS + 5_000;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const hit = await readStoredJson(this.deps.redis, key, query.schema);
      if (hit) return { page: hit, fromCache: true, budgetUsed: await this.deps.budget.used() };
      if (purpose === 'digest') await this.rethrowRecentFailure(failKey);
      const release = await tryLock(this.deps.redis, lockKey, FETCH_LOCK_TTL_MS, this.deps.logger);
      if (release) {
        try {
          const again = await readStoredJson(this.deps.redis, key, query.schema);
          if (again) return { page: again, fromCache: true, budgetUsed: await this.deps.budget.used() };
          return await this.fetch(query, { projectId, user, purpose }, key, failKey);
        } finally {
          await release();
        }
      }
      if (Date.now() > deadline) throw new VisitorsFetchWaitTimeoutError(waitMs);
      await sleep(WAIT_POLL_MS);
    }
  }

  private async fetch<T>(
    query: CachedQuery<T>,
    who: { projectId: string; user?: string | undefined; purpose: BudgetPurpose },
    key: string,
    failKey: string,
  ): Promise<Cached<T>> {
    const { budget, docsApi, redis, logger } = this.deps;
    const used = await budget.reserve(who.purpose, 1, who.user);
    let page: T;
    // The reservation covers the first attempt; every retry the client makes counts too.
    let attempts = 0;
    const countRetries = async () => {
      if (attempts > 1) await budget.record(attempts - 1);
    };
    const api = docsApi.forProject(who.projectId) as AnalyticsApi;
    const log = { endpoint: query.endpoint, query: query.query, projectId: who.projectId };
    try {
      page = await query.fetch(api, () => void attempts++);
      await countRetries();
    } catch (err) {
      await countRetries();
      if (hasCode<DocsApiRateLimitedError>(err, DocsApiErrorCode.RateLimited)) {
        await budget.blockFor(err.retryAfterMs ?? RATE_LIMITED_BACKOFF_MS);
      } else if (isDocsApiError(err) && (err.code === 'server_error' || err.code === 'network_error')) {
        await redis.set(failKey, JSON.stringify({ code: err.code, status: err.status }), 'PX', FAILURE_MEMORY_MS);
      }
      logger.warn({ err, ...log }, `${query.endpoint} request failed`);
      throw err;
    }
    await redis.set(key, JSON.stringify(page), 'PX', CACHE_TTL_MS);
    logger.info({ ...log, budgetUsed: used }, `fetched ${query.endpoint}`);
    return { page, fromCache: false, budgetUsed: used };
  }

  private async rethrowRecentFailure(failKey: string): Promise<void> {
    const raw = await this.deps.redis.get(failKey);
    if (!raw) return;
    const seen = JSON.parse(raw) as { code?: string; status?: number };
    if (seen.code === 'server_error') throw new DocsApiServerError(seen.status ?? 500);
    throw new DocsApiNetworkError('failed moments ago for another digest');
  }
}
