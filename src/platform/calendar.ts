import { CronExpressionParser } from 'cron-parser';
import { quoteToken } from './slack/limits.js';

/** @returns whether cron-parser (what BullMQ uses for `pattern`) accepts `pattern` in `tz`. */
export function isValidCron(pattern: string, tz: string): boolean {
  try {
    CronExpressionParser.parse(pattern, { tz });
    return true;
  } catch {
    return false;
  }
}

/** @returns whether `tz` is an IANA time zone this runtime knows (via Intl). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Canonical IANA name (`europe/berlin` → `Europe/Berlin`, `utc` → `UTC`), or undefined. */
export function canonicalTimeZone(token: string): string | undefined {
  if (!isTimeZone(token)) return undefined;
  return new Intl.DateTimeFormat('en-US', { timeZone: token }).resolvedOptions().timeZone;
}

const PLURAL_DAYS = ['Sundays', 'Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays'];

/** A plain weekly (or daily) cron pattern's parts. */
export interface WeeklyParts {
  minute: number;
  hour: number;
  /** Cron day of week (0–6), or undefined for every day (`*`). */
  dow: number | undefined;
}

/** Reads `M H * * D` (or `0 M H * * D`) with plain numbers; undefined for anything fancier. */
export function weeklyParts(pattern: string): WeeklyParts | undefined {
  const fields = pattern.trim().split(/\s+/);
  const [sec, ...rest] = fields.length === 6 ? fields : ['0', ...fields];
  if (sec !== '0' || rest.length !== 5) return undefined;
  const [m, h, dom, mon, dow] = rest as [string, string, string, string, string];
  if (!/^\d{1,2}$/.test(m) || !/^\d{1,2}$/.test(h) || dom !== '*' || mon !== '*') return undefined;
  const minute = Number(m);
  const hour = Number(h);
  if (minute > 59 || hour > 23) return undefined;
  if (dow === '*') return { minute, hour, dow: undefined };
  if (!/^[0-7]$/.test(dow)) return undefined;
  return { minute, hour, dow: Number(dow) % 7 };
}

/**
 * A cron schedule (`pattern` in the zone `tz`) in words, as Slack mrkdwn (a pattern shown in code, cut by `quoteToken`): `Mondays at 09:00 UTC`, `every day at 07:30 Asia/Tokyo`, or for other
 * patterns `on cron \`*\/2 * * * * *\` in UTC`.
 */
export function describeSchedule(s: { pattern: string; tz: string }): string {
  const parts = weeklyParts(s.pattern);
  if (!parts) return `on cron \`${quoteToken(s.pattern)}\` in ${s.tz}`;
  const hhmm = `${String(parts.hour).padStart(2, '0')}:${String(parts.minute).padStart(2, '0')}`;
  const when = parts.dow === undefined ? 'every day' : PLURAL_DAYS[parts.dow];
  return `${when} at ${hhmm} ${s.tz}`;
}
