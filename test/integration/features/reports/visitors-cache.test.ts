import { beforeEach, describe, expect, it } from 'vitest';
import { DocsApiClient } from '../../../../src/platform/docs-api/client.js';
import {
  DocsApiError,
  DocsApiNetworkError,
  DocsApiRateLimitedError,
  DocsApiServerError,
} from '../../../../src/platform/docs-api/errors.js';
import { tryLock } from '../../../../src/platform/lock.js';
import { VisitorsFetchWaitTimeoutError } from '../../../../src/features/reports/budget.js';
import { createLogger } from '../../../../src/platform/logger.js';
import type { FakeDocsApi } from '../../../../sandbox/fake-docs-api.js';
import {
  ANALYTICS_WINDOW_MS,
  AnalyticsBudget,
  DIGEST_CEILING,
  INTERACTIVE_CEILING,
} from '../../../../src/features/reports/budget.js';
import { AnalyticsBudgetError } from '../../../../src/features/reports/budget.js';
import { analyticsErrorText } from '../../../../src/features/reports/error-text.js';
import { AnalyticsCache, type AnalyticsCacheDeps } from '../../../../src/features/reports/store.js';
import { validateRequest, validateResponse } from '../../../helpers/openapi.js';
import { testRedis } from '../../../helpers/redis.js';
import { useFakeDocsApiOnRedis } from '../../../helpers/fakes-on-redis.js';

const redis = testRedis();
let fake: FakeDocsApi;
let docsApi: DocsApiClient;
let prefix: string;
let clock: number;
let budget: AnalyticsBudget;
let cache: AnalyticsCache;

const week = { dateFrom: '2026-11-15', dateTo: '2026-11-22' };
const visitorCalls = () => fake.requests.filter((r) => r.path.endsWith('/visitors'));
/** An analytics cache of proj_cache over this test's Redis keys, docs client and budget; `over` replaces any. */
const visitorsCache = (over: Partial<AnalyticsCacheDeps> = {}) =>
  new AnalyticsCache({
    docsApi,
    redis,
    keyPrefix: `${prefix}:visitors`,
    projectId: 'proj_cache',
    budget,
    logger: createLogger('silent'),
    ...over,
  });

useFakeDocsApiOnRedis(
  { fake: { apiKey: 'mint_cache_test', projectId: 'proj_cache' }, client: { retryMinDelayMs: 1 }, redis },
  (s) => ({ fake, client: docsApi, prefix } = s),
);
beforeEach(() => {
  clock = Date.parse('2026-11-22T20:00:00Z');
  budget = new AnalyticsBudget(redis, `${prefix}:visitors`, () => clock);
  cache = visitorsCache();
});

describe('visitors cache on real Redis', () => {
  it('a second identical query makes no API call; another offset does; requests match the vendor spec', async () => {
    const first = await cache.get({ ...week, limit: 50, offset: 0 }, 'interactive');
    expect(first.fromCache).toBe(false);
    expect(first.page.visitors).toHaveLength(50);
    expect(first.page.hasMore).toBe(true);
    const again = await cache.get({ ...week, limit: 50, offset: 0 }, 'interactive');
    expect(again.fromCache).toBe(true);
    expect(again.page).toEqual(first.page);
    expect(visitorCalls()).toHaveLength(1);
    await cache.get({ ...week, limit: 50, offset: 50 }, 'interactive');
    expect(visitorCalls()).toHaveLength(2);
    expect(visitorCalls().map((r) => r.query)).toEqual([
      { ...week, limit: '50', offset: '0' },
      { ...week, limit: '50', offset: '50' },
    ]);
    for (const r of visitorCalls()) {
      expect(validateRequest(r)).toEqual([]);
      expect(validateResponse({ method: r.method, path: r.path, status: r.status, body: r.responseBody })).toEqual([]);
    }
    expect(await budget.used()).toBe(2);
    // Keys live under QUEUE_PREFIX and expire after 10 minutes.
    const keys = await redis.keys(`${prefix}:visitors:cache:*`);
    expect(keys).toHaveLength(2);
    const ttl = await redis.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });

  it('single flight: ten concurrent identical queries (two "replicas") make one API call', async () => {
    const other = visitorsCache();
    const q = { ...week, limit: 250, offset: 0 };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other : cache).get(q, 'digest')));
    expect(visitorCalls()).toHaveLength(1);
    expect(results.filter((r) => !r.fromCache)).toHaveLength(1);
    expect(new Set(results.map((r) => r.page.visitors.length))).toEqual(new Set([137]));
  });

  it('a wait for another caller\'s fetch that runs out is a local timeout, not "the docs service is unreachable"', async () => {
    const waiting = visitorsCache({ lockWaitMs: 300 });
    const q = { ...week, limit: 250, offset: 0 };
    // Another replica holds the query's fetch lock and never answers.
    const release = await tryLock(redis, `${waiting.cacheKey(q)}:lock`, 10_000);
    try {
      const err = await waiting.get(q, 'interactive').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VisitorsFetchWaitTimeoutError);
      expect(err).not.toBeInstanceOf(DocsApiError);
      expect(analyticsErrorText(err)).toBe(
        'The same report is already being fetched and is taking a while; try again in a minute.',
      );
      expect(visitorCalls()).toHaveLength(0);
    } finally {
      await release!();
    }
  });

  it('stops at the interactive ceiling without calling the API; digests may use the reserve; the window slides', async () => {
    await budget.record(INTERACTIVE_CEILING);
    const err = await cache.get({ ...week, limit: 50, offset: 0 }, 'interactive').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnalyticsBudgetError);
    expect((err as AnalyticsBudgetError).reason).toBe('budget');
    expect((err as AnalyticsBudgetError).used).toBe(INTERACTIVE_CEILING);
    expect((err as AnalyticsBudgetError).retryInMs).toBe(ANALYTICS_WINDOW_MS);
    expect(visitorCalls()).toHaveLength(0);
    expect(analyticsErrorText(err)).toMatch(
      /^This bot has used 85 of the 100 analytics requests the docs API allows per hour .* new ones will in 1h\.$/,
    );

    await cache.get({ ...week, limit: 50, offset: 0 }, 'digest');
    expect(visitorCalls()).toHaveLength(1);
    await budget.record(DIGEST_CEILING - INTERACTIVE_CEILING - 1);
    await expect(cache.get({ ...week, limit: 50, offset: 50 }, 'digest')).rejects.toBeInstanceOf(AnalyticsBudgetError);

    clock += ANALYTICS_WINDOW_MS + 1; // an hour later everything left the window
    expect(await budget.used()).toBe(0);
    await cache.get({ ...week, limit: 50, offset: 50 }, 'interactive');
    expect(visitorCalls()).toHaveLength(2);
  });

  it('a 429 makes every caller back off (no API call) for Retry-After, or a minute', async () => {
    fake.failNext(/\/visitors$/, 429, 1, { error: 'Too many requests' }, { 'retry-after': '120' });
    const err = await cache.get({ ...week, limit: 50, offset: 0 }, 'interactive').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocsApiRateLimitedError);
    expect(analyticsErrorText(err)).toBe(
      'The docs analytics API is rate limiting us (it allows 100 requests per hour for the whole organization); try again in 2m.',
    );
    const blocked = await cache.get({ ...week, limit: 50, offset: 0 }, 'digest').catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(AnalyticsBudgetError);
    expect((blocked as AnalyticsBudgetError).reason).toBe('rate_limited');
    expect(visitorCalls()).toHaveLength(1);
    expect(await redis.pttl(`${prefix}:visitors:budget:blocked`)).toBeGreaterThan(100_000);
  });

  it('a 5xx (after the client retries) is counted per attempt, and other digests do not repeat it for a moment', async () => {
    fake.failNext(/\/visitors$/, 503, 3);
    const err = await cache.get({ ...week, limit: 250, offset: 0 }, 'digest').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocsApiServerError);
    expect(visitorCalls()).toHaveLength(3);
    expect(await budget.used()).toBe(3);
    await expect(cache.get({ ...week, limit: 250, offset: 0 }, 'digest')).rejects.toBeInstanceOf(DocsApiServerError);
    expect(visitorCalls()).toHaveLength(3);
    // A person pressing Retry does try again.
    const retried = await cache.get({ ...week, limit: 250, offset: 0 }, 'interactive');
    expect(retried.fromCache).toBe(false);
    expect(visitorCalls()).toHaveLength(4);
  });

  it('the docs API unreachable: other digests in the next moment are told so too, without trying (nothing spent)', async () => {
    // Nothing listens on port 1: every connection is refused at once.
    const unreachable = new DocsApiClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'mint_cache_test',
      projectId: 'proj_cache',
      retryMinDelayMs: 1,
    });
    try {
      const c = visitorsCache({ docsApi: unreachable });
      const q = { ...week, limit: 250, offset: 0 };
      const first = await c.get(q, 'digest').catch((e: unknown) => e);
      expect(first).toBeInstanceOf(DocsApiNetworkError);
      const spent = await budget.used();
      expect(spent).toBeGreaterThan(0);
      const second = await c.get(q, 'digest').catch((e: unknown) => e);
      expect(second).toBeInstanceOf(DocsApiNetworkError);
      expect(analyticsErrorText(second, () => clock)).toBe(
        'The docs service could not be reached; try again in a minute.',
      );
      expect(await budget.used()).toBe(spent);
    } finally {
      await unreachable.close();
    }
  });

  it('a 5xx that a client retry recovers from still counts both requests against the budget', async () => {
    fake.failNext(/\/visitors$/, 502, 1);
    const res = await cache.get({ ...week, limit: 50, offset: 0 }, 'interactive');
    expect(res.fromCache).toBe(false);
    expect(visitorCalls()).toHaveLength(2);
    expect(await budget.used()).toBe(2);
  });

  it('a 400 is not cached and costs one request', async () => {
    await expect(
      cache.get({ dateFrom: '2026-11-22', dateTo: '2026-11-15', limit: 50, offset: 0 }, 'interactive'),
    ).rejects.toThrow(/dateFrom must be before dateTo/);
    expect(await redis.keys(`${prefix}:visitors:cache:*`)).toEqual([]);
    expect(await budget.used()).toBe(1);
  });
});
