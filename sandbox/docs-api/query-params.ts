/**
 * Query validation shared by the fake analytics endpoints, answering the way the vendor reports bad
 * queries: 400 AnalyticsErrorResponse `{error: "Invalid query parameters", details: [{message}, …]}`,
 * one detail per problem (spec: test/fixtures/mintlify/analytics.openapi.json).
 */
import type { Reply } from './reply.js';
import { DAY_MS } from './seed.js';

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses `YYYY-MM-DD` (UTC midnight) or ISO 8601 date-time (no offset = UTC) to ms; undefined if
 * malformed or not a real calendar date/time (e.g. 2026-02-30, 24:00).
 */
export function parseDate(value: string): number | undefined {
  const m = DATE_ONLY.exec(value) ?? DATE_TIME.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, hh = '00', mi = '00', ss = '00', frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const midnight = Date.UTC(year, month - 1, day);
  const check = new Date(midnight);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    return undefined;
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59) return undefined;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const ms = Date.parse(`${y}-${mo}-${d}T${hh}:${mi}:${ss}.${frac.padEnd(3, '0').slice(0, 3)}${offset}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Collects the problems of one query; {@link QueryCheck.reply} is the 400 when there are any. */
export class QueryCheck {
  readonly details: { message: string }[] = [];

  constructor(private readonly query: URLSearchParams) {}

  /**
   * An integer parameter (spec `type: integer`) within [min, max]; `fallback` when absent.
   * @param rangeMessage - the detail when it is out of range.
   */
  integer(name: string, fallback: number, min: number, max: number, rangeMessage: string): number {
    const raw = this.query.get(name);
    if (raw === null) return fallback;
    const n = /^-?\d+$/.test(raw) ? Number(raw) : undefined;
    if (n === undefined) this.details.push({ message: `${name} must be an integer` });
    else if (n < min || n > max) this.details.push({ message: rangeMessage });
    return n ?? fallback;
  }

  /** A number parameter (spec `type: number`, e.g. the cursor-paged `limit`) within [min, max], floored. */
  number(name: string, fallback: number, min: number, max: number): number {
    const raw = this.query.get(name);
    if (raw === null) return fallback;
    const n = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : undefined;
    if (n === undefined) this.details.push({ message: `${name} must be a number` });
    else if (n < min || n > max) this.details.push({ message: `${name} must be between ${min} and ${max}` });
    return n === undefined ? fallback : Math.floor(n);
  }

  /** A string parameter that must be one of `values` (spec enum); undefined when absent. */
  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const raw = this.query.get(name);
    if (raw === null) return undefined;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    this.details.push({ message: `${name} must be one of: ${values.join(', ')}` });
    return undefined;
  }

  /** A comma-separated list of `values` (the feedback `status` filter); undefined when absent or empty. */
  listOf<T extends string>(name: string, values: readonly T[]): T[] | undefined {
    const raw = this.query.get(name);
    if (raw === null || raw.trim() === '') return undefined;
    const items = raw.split(',').map((s) => s.trim());
    const unknown = items.filter((s) => !(values as readonly string[]).includes(s));
    if (unknown.length > 0)
      this.details.push({ message: `${name} must be a comma-separated list of: ${values.join(', ')}` });
    return items.filter((s): s is T => (values as readonly string[]).includes(s));
  }

  /**
   * `dateFrom`/`dateTo` as whole UTC day numbers `[floor(dateFrom), ceil(dateTo))`; defaults: `dateTo`
   * = today 00:00 UTC, `dateFrom` = dateTo − 7 days (the vendor documents none; the bot always sends both).
   */
  dayRange(nowMs: number): { fromDay: number; toDay: number } {
    const date = (name: string): number | undefined => {
      const raw = this.query.get(name);
      if (raw === null) return undefined;
      const ms = parseDate(raw);
      if (ms === undefined) this.details.push({ message: `${name} must be a date in YYYY-MM-DD or ISO 8601 format` });
      return ms;
    };
    const from = date('dateFrom');
    const to = date('dateTo');
    if (from !== undefined && to !== undefined && from >= to)
      this.details.push({ message: 'dateFrom must be before dateTo' });
    const toMs = to ?? Math.floor(nowMs / DAY_MS) * DAY_MS;
    const fromMs = from ?? toMs - 7 * DAY_MS;
    return { fromDay: Math.floor(fromMs / DAY_MS), toDay: Math.ceil(toMs / DAY_MS) };
  }

  /** The 400 answer when any check failed, else undefined. */
  reply(): Reply | undefined {
    return this.details.length > 0
      ? { status: 400, body: { error: 'Invalid query parameters', details: this.details } }
      : undefined;
  }
}
