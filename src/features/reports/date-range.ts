import { TZDate, tz } from '@date-fns/tz';
// date-fns by subpath: its root module loads every function, a second of start-up on a busy machine.
import { addDays } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { format } from 'date-fns/format';
import { isValid } from 'date-fns/isValid';
import { parseISO } from 'date-fns/parseISO';
import { startOfDay } from 'date-fns/startOfDay';
import { startOfMonth } from 'date-fns/startOfMonth';
import { startOfWeek } from 'date-fns/startOfWeek';
import { subDays } from 'date-fns/subDays';

/**
 * Date ranges of the reports and the digest. All calendar math goes through date-fns and
 * @date-fns/tz (no hand-rolled day arithmetic), so weeks that cross a DST change are still 7
 * calendar days.
 *
 * The API's `dateTo` is exclusive (spec: analytics.openapi.json, "Results include dates before, but
 * not on, the specified date"), and its default range is undocumented, so a {@link DateRange}
 * always holds both ends. Shortcuts and defaults produce `YYYY-MM-DD` calendar days computed in the
 * person's time zone (which calendar day "today" is depends on it); dates people type are sent as
 * they typed them (`YYYY-MM-DD` or ISO 8601).
 */

/** The range shortcuts `/docs-visitors` understands. */
export const SHORTCUTS = ['7d', '30d', '90d', 'this-week', 'last-week', 'this-month', 'last-month'] as const;
/** One of {@link SHORTCUTS}. */
export type Shortcut = (typeof SHORTCUTS)[number];

/** A range exactly as sent to GET /v1/analytics/{projectId}/visitors (`dateTo` exclusive). */
export interface DateRange {
  dateFrom: string;
  dateTo: string;
}

/** A date argument that parsed: `value` is what gets sent, `ms` the instant it stands for. */
export interface ParsedDate {
  /** The date as sent to the API: `YYYY-MM-DD`, or ISO 8601 date-time upper-cased (`T`, `Z`). */
  value: string;
  /** Epoch ms; a date-only value counts as 00:00 UTC (how the API reads it), a date-time without offset as UTC. */
  ms: number;
  dateOnly: boolean;
}

/** Outcome of {@link parseDateArg}; `reason` completes a sentence quoting the argument. */
type DateParse = ({ ok: true } & ParsedDate) | { ok: false; reason: string };

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/;
/** Years outside this span are refused before any API call (a typo such as 20266-01-01 or 0026). */
const MIN_YEAR = 1970;
const MAX_YEAR = 2100;
const UTC = tz('UTC');

/** @returns whether `s` is one of {@link SHORTCUTS} (case-sensitive; callers lower-case first). */
export function isShortcut(s: string): s is Shortcut {
  return (SHORTCUTS as readonly string[]).includes(s);
}

/**
 * Parses a FROM/TO argument: `YYYY-MM-DD` or an ISO 8601 date-time
 * (`YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH:MM]`), the forms the API accepts (spec: "Date in ISO 8601 or
 * YYYY-MM-DD format"). Impossible calendar dates (2026-02-30) and times (25:00) are refused.
 *
 * @returns the parsed date, or `{ok:false, reason}` such as "is not a real calendar date".
 */
export function parseDateArg(raw: string): DateParse {
  const value = raw.toUpperCase();
  const dateOnly = DATE_ONLY.test(value);
  const m = dateOnly ? DATE_ONLY.exec(value) : DATE_TIME.exec(value);
  if (!m)
    return {
      ok: false,
      reason: 'is not a date: use YYYY-MM-DD or ISO 8601 (for example 2026-11-15 or 2026-11-15T09:00Z)',
    };
  const year = Number(m[1]);
  if (year < MIN_YEAR || year > MAX_YEAR) return { ok: false, reason: `is outside the years ${MIN_YEAR}–${MAX_YEAR}` };
  const parsed = parseISO(value, { in: UTC });
  // parseISO rejects 2026-02-30 and 25:00; a zone-less date-time is read as UTC, like the API does.
  if (!isValid(parsed)) return { ok: false, reason: 'is not a real calendar date or time' };
  return { ok: true, value, ms: parsed.getTime(), dateOnly };
}

/** Epoch ms of an API date string (date-only = 00:00 UTC). NaN when unparseable. */
export function dateMs(value: string): number {
  const parsed = parseDateArg(value);
  return parsed.ok ? parsed.ms : NaN;
}

/** The calendar date (`YYYY-MM-DD`) `offsetDays` days from today in time zone `zone` at `nowMs`. */
export function localDate(nowMs: number, zone: string, offsetDays = 0): string {
  const today = startOfDay(new TZDate(nowMs, zone));
  return format(addDays(today, offsetDays), 'yyyy-MM-dd');
}

/**
 * The range a shortcut stands for at `nowMs` in IANA time zone `zone` (from users.info; `UTC` when
 * unknown). With `today` the person's calendar date: `7d`/`30d`/`90d` are the last N full days
 * `[today−N, today)`; `this-week` is Monday through today; `last-week` the previous Monday–Sunday;
 * `this-month` the 1st through today; `last-month` the whole previous month.
 */
export function shortcutRange(s: Shortcut, nowMs: number, zone: string): DateRange {
  const today = startOfDay(new TZDate(nowMs, zone));
  const day = (d: Date) => format(d, 'yyyy-MM-dd');
  const monday = startOfWeek(today, { weekStartsOn: 1 });
  const first = startOfMonth(today);
  switch (s) {
    case '7d':
      return { dateFrom: day(subDays(today, 7)), dateTo: day(today) };
    case '30d':
      return { dateFrom: day(subDays(today, 30)), dateTo: day(today) };
    case '90d':
      return { dateFrom: day(subDays(today, 90)), dateTo: day(today) };
    case 'this-week':
      return { dateFrom: day(monday), dateTo: day(addDays(today, 1)) };
    case 'last-week':
      return { dateFrom: day(subDays(monday, 7)), dateTo: day(monday) };
    case 'this-month':
      return { dateFrom: day(first), dateTo: day(addDays(today, 1)) };
    case 'last-month':
      return { dateFrom: day(addMonths(first, -1)), dateTo: day(first) };
  }
}

/** The default report range: the last 7 full days in `zone` (same as `7d`). */
export function defaultRange(nowMs: number, zone: string): DateRange {
  return shortcutRange('7d', nowMs, zone);
}

/**
 * The digest's two weeks at `nowMs` in `zone`: `current` = the last 7 full days, `previous` = the
 * 7 days before. Date-only, so every channel whose local date is the same asks the same query (and
 * shares one API call through the cache).
 */
export function digestRanges(nowMs: number, zone: string): { current: DateRange; previous: DateRange } {
  const current = shortcutRange('7d', nowMs, zone);
  return { current, previous: { dateFrom: localDateBefore(current.dateFrom, 7), dateTo: current.dateFrom } };
}

function localDateBefore(date: string, days: number): string {
  return format(subDays(parseISO(date, { in: UTC }), days), 'yyyy-MM-dd');
}

function monthDay(d: Date): string {
  return format(d, 'MMM d');
}

function instantLabel(ms: number): string {
  return format(new TZDate(ms, 'UTC'), "MMM d, yyyy HH:mm 'UTC'");
}

/**
 * The range in human terms, with the exclusive `dateTo` shown as the last included day:
 * `Nov 15 – Nov 21, 2026`, `Dec 28, 2026 – Jan 3, 2027`, `Nov 21, 2026` (one day). Date-times are
 * shown in UTC: `Nov 15, 2026 09:00 UTC – Nov 16, 2026 09:00 UTC`.
 */
export function formatRange(r: DateRange): string {
  const from = parseDateArg(r.dateFrom);
  const to = parseDateArg(r.dateTo);
  if (!from.ok || !to.ok) return `${r.dateFrom} – ${r.dateTo}`;
  if (from.dateOnly && to.dateOnly) {
    const first = new TZDate(from.ms, 'UTC');
    const last = subDays(new TZDate(to.ms, 'UTC'), 1);
    if (last.getTime() <= first.getTime()) return format(first, 'MMM d, yyyy');
    if (first.getFullYear() === last.getFullYear())
      return `${monthDay(first)} – ${monthDay(last)}, ${format(last, 'yyyy')}`;
    return `${format(first, 'MMM d, yyyy')} – ${format(last, 'MMM d, yyyy')}`;
  }
  const fromLabel = from.dateOnly ? format(new TZDate(from.ms, 'UTC'), 'MMM d, yyyy') : instantLabel(from.ms);
  const toLabel = to.dateOnly ? format(subDays(new TZDate(to.ms, 'UTC'), 1), 'MMM d, yyyy') : instantLabel(to.ms);
  return `${fromLabel} – ${toLabel}`;
}

/** Number of calendar days in a date-only range (7 for a week); undefined for date-time ranges. */
export function rangeDays(r: DateRange): number | undefined {
  const from = parseDateArg(r.dateFrom);
  const to = parseDateArg(r.dateTo);
  if (!from.ok || !to.ok || !from.dateOnly || !to.dateOnly) return undefined;
  return differenceInCalendarDays(new TZDate(to.ms, 'UTC'), new TZDate(from.ms, 'UTC'));
}
