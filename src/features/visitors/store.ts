import type { Redis } from 'ioredis';
import type { DocsApiProjects, VisitorsQuery } from '../../platform/docs-api/client.js';
import { DocsApiError, DocsApiNetworkError, DocsApiRateLimitedError, DocsApiServerError } from '../../platform/docs-api/errors.js';
import { visitorsResponseSchema, type VisitorsResponse } from '../../platform/docs-api/schemas.js';
import { tryLock } from '../../platform/lock.js';
import type { Logger } from '../../platform/logger.js';
import { RATE_LIMITED_BACKOFF_MS, type AnalyticsBudget, type BudgetPurpose } from './budget.js';
import { VisitorsFetchWaitTimeoutError } from './fetch-wait-timeout-error.js';

/**
 * Read-through Redis cache of GET /v1/analytics/{projectId}/visitors, keyed by the full query
 * (project, dateFrom, dateTo, limit, offset), so paging back and forth and digests for many
 * channels cost one API call per distinct query per {@link CACHE_TTL_MS}. Channels on different
 * docs projects (channel settings) get different entries; the budget stays one for all of them,
 * as the vendor counts analytics requests per organization, not per project.
 *
 * Single flight across replicas: the first caller takes a Redis lock (a redis-semaphore mutex) and fetches;
 * the others wait for the cached answer instead of calling too. Every real call is counted against
 * the {@link AnalyticsBudget} first.
 */

/** How long a response is reused, in ms (10 minutes). */
export const CACHE_TTL_MS = 600_000;
/** Lock lifetime, in ms: longer than a GET with its retries (3 × 10 s timeout + backoff). */
export const FETCH_LOCK_TTL_MS = 45_000;
/** How often a waiting caller looks for the other caller's answer, in ms. */
export const WAIT_POLL_MS = 100;
/** A digest fetch that failed with a 5xx or network error is not repeated by other digests for this long, in ms. */
export const FAILURE_MEMORY_MS = 15_000;

/** What {@link VisitorsCache} needs. */
export interface VisitorsCacheDeps {
  docsApi: DocsApiProjects<'getVisitors'>;
  redis: Redis;
  /** `${QUEUE_PREFIX}:visitors`. */
  keyPrefix: string;
  /** DOCS_PROJECT_ID: the project of a query that names none. The project is part of every cache key. */
  projectId: string;
  budget: AnalyticsBudget;
  logger: Logger;
  /** How long a caller waits for another caller's fetch of the same query, in ms. @defaultValue FETCH_LOCK_TTL_MS + 5000 */
  lockWaitMs?: number;
}

/** One page of visitors and where it came from. */
export interface CachedVisitors {
  page: VisitorsResponse;
  /** True when no API call was made for it. */
  fromCache: boolean;
  /** Analytics requests counted in the last hour (after this one, if it was made). */
  budgetUsed: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** See the module notes. */
export class VisitorsCache {
  constructor(private readonly deps: VisitorsCacheDeps) {}

  /** The Redis key of a query's cached response (of project `projectId`, default DOCS_PROJECT_ID). */
  cacheKey(q: VisitorsQuery, projectId = this.deps.projectId): string {
    const id = [projectId, q.dateFrom, q.dateTo, q.limit, q.offset].map((p) => encodeURIComponent(String(p))).join('|');
    return `${this.deps.keyPrefix}:cache:${id}`;
  }

  /**
   * The page for `q`: from Redis when any replica fetched it in the last 10 minutes, else from the
   * API (one caller at a time per query; the others wait up to {@link FETCH_LOCK_TTL_MS}).
   *
   * @param purpose - whose budget ceiling applies (`interactive` reports stop earlier than digests).
   * @param projectId - the docs project (a channel's); default DOCS_PROJECT_ID.
   * @param user - who asked (interactive): a call that reaches the API counts against their hourly
   *   share; a cache hit costs them nothing.
   * @throws {AnalyticsBudgetError} when the budget or the person's share is spent, or a 429
   *   back-off runs (nothing sent).
   * @throws {VisitorsFetchWaitTimeoutError} when another caller's fetch of the same query outlasted
   *   the wait (a local timeout: nothing was sent by this caller).
   * @throws {DocsApiError} subclasses from the API call (a 429 also starts the back-off for everyone).
   */
  async get(q: VisitorsQuery, purpose: BudgetPurpose, projectId = this.deps.projectId, user?: string): Promise<CachedVisitors> {
    const key = this.cacheKey(q, projectId);
    const lockKey = `${key}:lock`;
    const failKey = `${key}:failed`;
    const waitMs = this.deps.lockWaitMs ?? FETCH_LOCK_TTL_MS + 5_000;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const hit = await this.read(key);
      if (hit) return { page: hit, fromCache: true, budgetUsed: await this.deps.budget.used() };
      if (purpose === 'digest') await this.rethrowRecentFailure(failKey);
      const release = await tryLock(this.deps.redis, lockKey, FETCH_LOCK_TTL_MS, this.deps.logger);
      if (release) {
        try {
          const again = await this.read(key);
          if (again) return { page: again, fromCache: true, budgetUsed: await this.deps.budget.used() };
          return await this.fetch({ q, projectId, user }, purpose, key, failKey);
        } finally {
          await release();
        }
      }
      if (Date.now() > deadline) throw new VisitorsFetchWaitTimeoutError(waitMs);
      await sleep(WAIT_POLL_MS);
    }
  }

  private async read(key: string): Promise<VisitorsResponse | undefined> {
    const raw = await this.deps.redis.get(key);
    if (!raw) return undefined;
    try {
      const parsed = visitorsResponseSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private async fetch({ q, projectId, user }: { q: VisitorsQuery; projectId: string; user?: string | undefined }, purpose: BudgetPurpose, key: string, failKey: string): Promise<CachedVisitors> {
    const { budget, docsApi, redis, logger } = this.deps;
    const used = await budget.reserve(purpose, 1, user);
    let page: VisitorsResponse;
    // The reservation covers the first attempt; every retry the client makes counts too.
    let attempts = 0;
    const countRetries = async () => {
      if (attempts > 1) await budget.record(attempts - 1);
    };
    try {
      page = await docsApi.forProject(projectId).getVisitors(q, { onAttempt: () => void attempts++ });
      await countRetries();
    } catch (err) {
      await countRetries();
      if (err instanceof DocsApiRateLimitedError) {
        await budget.blockFor(err.retryAfterMs ?? RATE_LIMITED_BACKOFF_MS);
      } else if (err instanceof DocsApiError && (err.code === 'server_error' || err.code === 'network_error')) {
        await redis.set(failKey, JSON.stringify({ code: err.code, status: err.status }), 'PX', FAILURE_MEMORY_MS);
      }
      logger.warn({ err, query: q, projectId }, 'visitors request failed');
      throw err;
    }
    await redis.set(key, JSON.stringify(page), 'PX', CACHE_TTL_MS);
    logger.info({ query: q, projectId, rows: page.visitors.length, budgetUsed: used }, 'fetched visitors');
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
