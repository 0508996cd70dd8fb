/**
 * GET /v1/analytics/{projectId}/visitors and …/views of the fake docs API: query validation the way
 * the vendor reports it, and one page of rows from the deterministic data in `./visitors-data.ts`
 * (spec: test/fixtures/mintlify/analytics.openapi.json).
 */
import { QueryCheck } from './query-params.js';
import type { Reply } from './reply.js';
import { viewsForDays, visitorsForDays } from './visitors-data.js';

/** limit (integer 1–250, default 50), offset (integer ≥ 0, default 0) and the day range; or the 400. */
function offsetQuery(
  query: URLSearchParams,
  nowMs: number,
): Reply | { limit: number; offset: number; fromDay: number; toDay: number } {
  const check = new QueryCheck(query);
  const limit = check.integer('limit', 50, 1, 250, 'limit must be between 1 and 250');
  const offset = check.integer('offset', 0, 0, Number.MAX_SAFE_INTEGER, 'offset must be greater than or equal to 0');
  const range = check.dayRange(nowMs);
  return check.reply() ?? { limit, offset, ...range };
}

/**
 * GET /v1/analytics/{projectId}/visitors (spec: analytics.openapi.json → 200 VisitorsByPageResponse,
 * 400 AnalyticsErrorResponse with one `details` entry per problem). Dates cover whole UTC days:
 * `[floor(dateFrom), ceil(dateTo))`; defaults: `dateTo` = today 00:00 UTC, `dateFrom` = dateTo − 7 days.
 */
export function visitorsReply(query: URLSearchParams, nowMs: number): Reply {
  const q = offsetQuery(query, nowMs);
  if ('status' in q) return q;
  const { totals, rows } = visitorsForDays(q.fromDay, q.toDay);
  const visitors = rows.slice(q.offset, q.offset + q.limit);
  return { status: 200, body: { totals, visitors, hasMore: q.offset + q.limit < rows.length } };
}

/**
 * GET /v1/analytics/{projectId}/views (spec → 200 ViewsByPageResponse, 400): content view events per
 * page, the same query rules as visitors.
 */
export function viewsReply(query: URLSearchParams, nowMs: number): Reply {
  const q = offsetQuery(query, nowMs);
  if ('status' in q) return q;
  const { totals, rows } = viewsForDays(q.fromDay, q.toDay);
  const views = rows.slice(q.offset, q.offset + q.limit);
  return { status: 200, body: { totals, views, hasMore: q.offset + q.limit < rows.length } };
}
