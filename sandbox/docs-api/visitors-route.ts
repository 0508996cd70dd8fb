/**
 * GET /v1/analytics/{projectId}/visitors of the fake docs API: query validation the way the vendor
 * reports it, and one page of rows from the deterministic data in `./visitors-data.ts`
 * (spec: test/fixtures/mintlify/analytics.openapi.json).
 */
import type { Reply } from './reply.js';
import { DAY_MS, visitorsForDays } from './visitors-data.js';

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

/**
 * GET /v1/analytics/{projectId}/visitors (spec: analytics.openapi.json → 200 VisitorsByPageResponse,
 * 400 AnalyticsErrorResponse with one `details` entry per problem). Dates cover whole UTC days:
 * `[floor(dateFrom), ceil(dateTo))`; defaults: `dateTo` = today 00:00 UTC, `dateFrom` = dateTo − 7 days.
 */
export function visitorsReply(query: URLSearchParams, nowMs: number): Reply {
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

