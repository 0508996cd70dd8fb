import type { z } from 'zod';
import {
  assistantConversationsResponseSchema,
  feedbackByPageResponseSchema,
  feedbackResponseSchema,
  searchesResponseSchema,
  viewsResponseSchema,
  type FeedbackSource,
  type FeedbackStatus,
} from './analytics-schemas.js';
import type { DocsApiOperation } from './observer.js';

/**
 * The analytics endpoints' queries and how each becomes a request (spec: analytics.openapi.json).
 * The client (client.ts) sends them; this module says what is sent.
 *
 * Facts every query shares: dates are `YYYY-MM-DD` or ISO 8601, `dateTo` is exclusive ("Results
 * include dates before, but not on, the specified date"), and both are always sent, since the default
 * range is undocumented. `limit` is always sent too (each endpoint has its own default), so equal
 * queries are equal requests. All analytics endpoints share one budget: 100 requests per organization
 * per hour (vendor docs).
 */

/** The date range of every analytics query. */
export interface AnalyticsDateRange {
  /** First day (inclusive): `YYYY-MM-DD` or ISO 8601. */
  dateFrom: string;
  /** End (exclusive): `YYYY-MM-DD` or ISO 8601. */
  dateTo: string;
}

/** Query of GET …/views: offset paging like visitors (next page: `offset + limit` while `hasMore`). */
export interface ViewsQuery extends AnalyticsDateRange {
  /** Integer 1–250 (spec; default 50). */
  limit: number;
  /** Integer ≥ 0 (spec). */
  offset: number;
}

/** Query of GET …/searches: cursor paging. */
export interface SearchesQuery extends AnalyticsDateRange {
  /** 1–100 terms (spec; default 50). */
  limit: number;
  /** `nextCursor` of the previous page (opaque); absent for the first page. */
  cursor?: string | undefined;
}

/** Filters the two feedback endpoints share. */
interface FeedbackFilters {
  /** Only feedback of this origin (spec enum); absent: all. */
  source?: FeedbackSource | undefined;
  /** Only feedback in these review statuses (sent comma-separated, as the spec asks); absent or empty: all. */
  status?: readonly FeedbackStatus[] | undefined;
}

/** Query of GET …/feedback/by-page. The spec has no cursor or offset here: only the first `limit` pages. */
export interface FeedbackByPageQuery extends AnalyticsDateRange, FeedbackFilters {
  /** 1–100 pages (spec; default 10). */
  limit: number;
}

/** Query of GET …/feedback (individual feedback with its comment): cursor paging. */
export interface FeedbackQuery extends AnalyticsDateRange, FeedbackFilters {
  /** 1–100 entries (spec; default 50). */
  limit: number;
  /** `nextCursor` of the previous page (opaque); absent for the first page. */
  cursor?: string | undefined;
}

/** Query of GET …/assistant (assistant conversations): cursor paging. */
export interface AssistantQuery extends AnalyticsDateRange {
  /** 1–1000 turns (spec; default 100). */
  limit: number;
  /** `nextCursor` of the previous page (a ULID, spec); absent for the first page. */
  cursor?: string | undefined;
}

/** Options of every analytics call. */
export interface AnalyticsCallOptions {
  /** Called before every HTTP attempt (retries included), so callers can count requests against the shared budget. */
  onAttempt?: () => void;
}

/** One analytics request as the client sends it. */
export interface AnalyticsCall<S extends z.ZodType> {
  /** The name metrics and the observer see. */
  operation: DocsApiOperation;
  /** The path after `/v1/analytics/{projectId}`. */
  endpoint: '/views' | '/searches' | '/feedback/by-page' | '/feedback' | '/assistant';
  /** The query string, in a fixed order. */
  query: URLSearchParams;
  /** The shape of its 200 answer. */
  schema: S;
  /** True when the query carries a cursor: a 400 then means the cursor was refused. */
  withCursor: boolean;
}

function dates(q: AnalyticsDateRange, limit: number): URLSearchParams {
  return new URLSearchParams({ dateFrom: q.dateFrom, dateTo: q.dateTo, limit: String(limit) });
}

function withOptional(params: URLSearchParams, extra: Record<string, string | undefined>): URLSearchParams {
  for (const [name, value] of Object.entries(extra)) if (value !== undefined && value !== '') params.set(name, value);
  return params;
}

/** GET /v1/analytics/{projectId}/views (spec → 200 ViewsByPageResponse, 400, 500). */
export function viewsCall(q: ViewsQuery): AnalyticsCall<typeof viewsResponseSchema> {
  const query = withOptional(dates(q, q.limit), { offset: String(q.offset) });
  return { operation: 'get_views', endpoint: '/views', query, schema: viewsResponseSchema, withCursor: false };
}

/**
 * GET /v1/analytics/{projectId}/searches (spec → 200 SearchesResponse, 400 "Invalid query parameters or
 * cursor", 500).
 */
export function searchesCall(q: SearchesQuery): AnalyticsCall<typeof searchesResponseSchema> {
  const query = withOptional(dates(q, q.limit), { cursor: q.cursor });
  return {
    operation: 'get_searches',
    endpoint: '/searches',
    query,
    schema: searchesResponseSchema,
    withCursor: Boolean(q.cursor),
  };
}

/** GET /v1/analytics/{projectId}/feedback/by-page (spec → 200 FeedbackGroupedByPageResponse, 400, 500). */
export function feedbackByPageCall(q: FeedbackByPageQuery): AnalyticsCall<typeof feedbackByPageResponseSchema> {
  const query = withOptional(dates(q, q.limit), { source: q.source, status: q.status?.join(',') });
  return {
    operation: 'get_feedback_by_page',
    endpoint: '/feedback/by-page',
    query,
    schema: feedbackByPageResponseSchema,
    withCursor: false,
  };
}

/** GET /v1/analytics/{projectId}/feedback (spec → 200 FeedbackResponse, 400, 500). */
export function feedbackCall(q: FeedbackQuery): AnalyticsCall<typeof feedbackResponseSchema> {
  const query = withOptional(dates(q, q.limit), { source: q.source, status: q.status?.join(','), cursor: q.cursor });
  return {
    operation: 'get_feedback',
    endpoint: '/feedback',
    query,
    schema: feedbackResponseSchema,
    withCursor: Boolean(q.cursor),
  };
}

/** GET /v1/analytics/{projectId}/assistant (spec → 200 AssistantConversationsResponse, 400, 500). */
export function assistantCall(q: AssistantQuery): AnalyticsCall<typeof assistantConversationsResponseSchema> {
  const query = withOptional(dates(q, q.limit), { cursor: q.cursor });
  return {
    operation: 'get_assistant_conversations',
    endpoint: '/assistant',
    query,
    schema: assistantConversationsResponseSchema,
    withCursor: Boolean(q.cursor),
  };
}
