/**
 * Cursor pagination as Slack does it (docs.slack.dev/apis/web-api/pagination): a method takes `limit`
 * and `cursor`; a response carries `response_metadata.next_cursor` pointing at the next portion, and an
 * empty `next_cursor` (or none) at the end. Cursors are opaque base64 strings; Slack's own decode to
 * e.g. "next_ts:1512085861000543" (conversations.history example) or "user_id:W1234567"
 * (conversations.members), and the fake's look the same. A cursor the method did not hand out answers
 * `invalid_cursor`; a `limit` that is not a positive number answers `invalid_limit`.
 */
import { fail, type Json } from './method.js';

/** How one method pages: its cursor prefix, default and maximum `limit`, and how items are keyed. */
export interface PageSpec<T> {
  /** Cursor prefix, e.g. "next_ts" or "user_id". */
  prefix: string;
  defaultLimit: number;
  maxLimit: number;
  /** The key a cursor points at (a ts, a user id). */
  key: (item: T) => string;
  /**
   * Index of the first item of the page a cursor with `key` points at, or -1 when it points nowhere
   * (default: the item with exactly that key).
   */
  startAt?: (items: T[], key: string) => number;
}

/** One page: the items, whether more follow, and the cursor of the next page ("" at the end). */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string;
}

/**
 * `args.limit` as a page size: absent, "" or 0 → `defaultLimit`; above `maxLimit` → `maxLimit`.
 * @throws `invalid_limit` for a negative or non-numeric limit.
 */
export function parseLimit(raw: unknown, defaultLimit: number, maxLimit: number): number {
  if (raw === undefined || raw === null || raw === '') return defaultLimit;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) fail('invalid_limit');
  if (n === 0) return defaultLimit;
  return Math.min(Math.floor(n), maxLimit);
}

/** An opaque cursor for `key` ("<prefix>:<key>", base64). */
export function encodeCursor(prefix: string, key: string): string {
  return Buffer.from(`${prefix}:${key}`).toString('base64');
}

/**
 * The key inside a cursor this method handed out; undefined for no cursor.
 * @throws `invalid_cursor` for anything else.
 */
export function decodeCursor(raw: unknown, prefix: string): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string') fail('invalid_cursor');
  const text = Buffer.from(raw as string, 'base64').toString('utf8');
  if (!text.startsWith(`${prefix}:`) || text.length === prefix.length + 1) fail('invalid_cursor');
  return text.slice(prefix.length + 1);
}

/**
 * The page of `items` (already filtered and in answer order) that `args.cursor` / `args.limit` ask for.
 * @throws `invalid_cursor`, `invalid_limit`.
 */
export function paginate<T>(items: T[], args: Json, spec: PageSpec<T>): Page<T> {
  const limit = parseLimit(args.limit, spec.defaultLimit, spec.maxLimit);
  const key = decodeCursor(args.cursor, spec.prefix);
  let start = 0;
  if (key !== undefined) {
    start = spec.startAt ? spec.startAt(items, key) : items.findIndex((item) => spec.key(item) === key);
    if (start < 0) fail('invalid_cursor');
  }
  const page = items.slice(start, start + limit);
  const next = items[start + limit];
  return {
    items: page,
    hasMore: next !== undefined,
    nextCursor: next === undefined ? '' : encodeCursor(spec.prefix, spec.key(next)),
  };
}

/** Slack ts ("1700000000.000100") → microseconds since the epoch, for ordering. NaN when malformed. */
export function tsMicros(ts: string): number {
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(ts);
  if (!m?.[1]) return Number.NaN;
  return Number(m[1]) * 1_000_000 + Number((m[2] ?? '').padEnd(6, '0'));
}
