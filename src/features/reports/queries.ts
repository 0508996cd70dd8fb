import type { FeedbackByPageQuery, SearchesQuery, ViewsQuery } from '../../platform/docs-api/analytics-client.js';
import {
  feedbackByPageResponseSchema,
  searchesResponseSchema,
  viewsResponseSchema,
  type FeedbackByPageResponse,
  type SearchesResponse,
  type ViewsResponse,
} from '../../platform/docs-api/analytics-schemas.js';
import type { BudgetPurpose } from './budget.js';
import { keyParts, type AnalyticsCache, type Cached, type CachedQuery } from './store.js';

/**
 * The analytics queries beyond visitors, read through the {@link AnalyticsCache} (one budget, one
 * cache, single flight for all of them). Each key holds the endpoint and every parameter sent, so a
 * page with a cursor is its own entry; a cursor the API refuses is never cached.
 */

/** Who asks and for which project: see {@link AnalyticsCache.get}. */
export interface QueryCaller {
  purpose: BudgetPurpose;
  /** The docs project; default DOCS_PROJECT_ID. */
  projectId?: string | undefined;
  /** The person (interactive): an API call counts against their hourly share. */
  user?: string | undefined;
}

function run<T>(cache: AnalyticsCache, q: CachedQuery<T>, who: QueryCaller): Promise<Cached<T>> {
  return cache.read(q, who.purpose, who.projectId ?? cache.defaultProjectId, who.user);
}

function project(cache: AnalyticsCache, who: QueryCaller): string {
  return who.projectId ?? cache.defaultProjectId;
}

/** GET …/views through the cache. @throws as AnalyticsCache.read. */
export function readViews(cache: AnalyticsCache, q: ViewsQuery, who: QueryCaller): Promise<Cached<ViewsResponse>> {
  const id = `views:${keyParts([project(cache, who), q.dateFrom, q.dateTo, q.limit, q.offset])}`;
  const fetch: CachedQuery<ViewsResponse>['fetch'] = (api, onAttempt) => api.getViews(q, { onAttempt });
  return run(cache, { endpoint: 'views', id, schema: viewsResponseSchema, fetch, query: q }, who);
}

/** GET …/searches through the cache. @throws as AnalyticsCache.read (a refused cursor: DocsApiCursorRejectedError). */
export function readSearches(
  cache: AnalyticsCache,
  q: SearchesQuery,
  who: QueryCaller,
): Promise<Cached<SearchesResponse>> {
  const id = `searches:${keyParts([project(cache, who), q.dateFrom, q.dateTo, q.limit, q.cursor])}`;
  const fetch: CachedQuery<SearchesResponse>['fetch'] = (api, onAttempt) => api.getSearches(q, { onAttempt });
  return run(cache, { endpoint: 'searches', id, schema: searchesResponseSchema, fetch, query: q }, who);
}

/** GET …/feedback/by-page through the cache. @throws as AnalyticsCache.read. */
export function readFeedbackByPage(
  cache: AnalyticsCache,
  q: FeedbackByPageQuery,
  who: QueryCaller,
): Promise<Cached<FeedbackByPageResponse>> {
  const filters = [q.source, q.status?.join(',')];
  const id = `feedback-by-page:${keyParts([project(cache, who), q.dateFrom, q.dateTo, q.limit, ...filters])}`;
  const fetch: CachedQuery<FeedbackByPageResponse>['fetch'] = (api, onAttempt) =>
    api.getFeedbackByPage(q, { onAttempt });
  return run(cache, { endpoint: 'feedback-by-page', id, schema: feedbackByPageResponseSchema, fetch, query: q }, who);
}
