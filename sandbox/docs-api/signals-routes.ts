/**
 * The fake's reader-signal endpoints (spec: test/fixtures/mintlify/analytics.openapi.json):
 * GET /v1/analytics/{projectId}/searches, …/feedback/by-page, …/feedback and …/assistant. Each
 * validates its query the way the visitors endpoint does (400 with one `details` entry per problem),
 * serves the deterministic data of `./searches-data.ts`, `./feedback-data.ts` and
 * `./assistant-data.ts`, and pages by cursor (see `./cursors.ts`): a cursor the fake does not accept
 * is answered 400 `{error: "Invalid cursor", details: [{message}]}`.
 */
import { conversationsForDays } from './assistant-data.js';
import { CURSOR_REJECTED_DETAIL, type CursorBook } from './cursors.js';
import {
  FAKE_FEEDBACK_SOURCES,
  FAKE_FEEDBACK_STATUSES,
  feedbackByPageForDays,
  feedbackForDays,
} from './feedback-data.js';
import { QueryCheck } from './query-params.js';
import type { Reply } from './reply.js';
import { searchesForDays } from './searches-data.js';

/** spec: the assistant `cursor` has `format: ulid`. */
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/** One page of `rows` from the cursor's position: the page, `nextCursor` (null on the last) and `hasMore`. */
interface Paged<T> {
  rows: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** The cursor-paged endpoints of one fake server, sharing its {@link CursorBook} and clock. */
export class SignalsRoutes {
  constructor(private readonly cursors: CursorBook) {}

  /** GET …/searches: `limit` 1–100 (default 50), opaque `cursor`; rows by hits desc. */
  searches(query: URLSearchParams, now: number): Reply {
    const check = new QueryCheck(query);
    const limit = check.number('limit', 50, 1, 100);
    const range = check.dayRange(now);
    const bad = check.reply();
    if (bad) return bad;
    const { rows, totalSearches } = searchesForDays(range.fromDay, range.toDay);
    const page = this.page('searches', { ...range, limit }, query.get('cursor'), rows, limit, now);
    if ('status' in page) return page;
    return { status: 200, body: { searches: page.rows, totalSearches, nextCursor: page.nextCursor } };
  }

  /** GET …/feedback/by-page: `limit` 1–100 (default 10), `source`, `status` filters; no cursor (spec). */
  feedbackByPage(query: URLSearchParams, now: number): Reply {
    const check = new QueryCheck(query);
    const limit = check.number('limit', 10, 1, 100);
    const source = check.oneOf('source', FAKE_FEEDBACK_SOURCES);
    const status = check.listOf('status', FAKE_FEEDBACK_STATUSES);
    const range = check.dayRange(now);
    const bad = check.reply();
    if (bad) return bad;
    const rows = feedbackByPageForDays(range.fromDay, range.toDay, { source, status });
    return { status: 200, body: { feedback: rows.slice(0, limit), hasMore: rows.length > limit } };
  }

  /** GET …/feedback: `limit` 1–100 (default 50), `source`, `status` filters, opaque `cursor`; newest first. */
  feedback(query: URLSearchParams, now: number): Reply {
    const check = new QueryCheck(query);
    const limit = check.number('limit', 50, 1, 100);
    const source = check.oneOf('source', FAKE_FEEDBACK_SOURCES);
    const status = check.listOf('status', FAKE_FEEDBACK_STATUSES);
    const range = check.dayRange(now);
    const bad = check.reply();
    if (bad) return bad;
    const rows = feedbackForDays(range.fromDay, range.toDay, { source, status });
    const page = this.page('feedback', { ...range, limit, source, status }, query.get('cursor'), rows, limit, now);
    if ('status' in page) return page;
    return { status: 200, body: { feedback: page.rows, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  /**
   * GET …/assistant: `limit` 1–1000 (default 100), `cursor` a ULID (the id of the last turn of the
   * page before); newest first.
   */
  assistant(query: URLSearchParams, now: number): Reply {
    const check = new QueryCheck(query);
    const limit = check.number('limit', 100, 1, 1000);
    const cursor = query.get('cursor');
    if (cursor !== null && !ULID.test(cursor)) check.details.push({ message: 'cursor must be a ULID' });
    const range = check.dayRange(now);
    const bad = check.reply();
    if (bad) return bad;
    const rows = conversationsForDays(range.fromDay, range.toDay);
    const page = this.page('assistant', { ...range, limit }, cursor, rows, limit, now, (row) => row.id);
    if ('status' in page) return page;
    return { status: 200, body: { conversations: page.rows, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }

  /**
   * The page of `rows` that `cursor` (null: the first) points at under this query, and the cursor of
   * the next; the 400 when the cursor is not one this fake issued for this query, or has expired.
   * @param tokenOf - the cursor of a page ending with this row (default: an opaque token).
   */
  private page<T>(
    endpoint: string,
    q: object,
    cursor: string | null,
    rows: T[],
    limit: number,
    now: number,
    tokenOf?: (row: T) => string,
  ): Paged<T> | Reply {
    const fingerprint = JSON.stringify(q);
    let start = 0;
    if (cursor !== null) {
      const position = this.cursors.redeem(endpoint, fingerprint, cursor, now);
      if (position === undefined)
        return { status: 400, body: { error: 'Invalid cursor', details: [{ message: CURSOR_REJECTED_DETAIL }] } };
      start = position;
    }
    const slice = rows.slice(start, start + limit);
    const hasMore = start + limit < rows.length;
    const last = slice[slice.length - 1];
    const nextCursor =
      hasMore && last !== undefined
        ? this.cursors.issue(endpoint, fingerprint, start + limit, now, tokenOf?.(last))
        : null;
    return { rows: slice, nextCursor, hasMore };
  }
}
