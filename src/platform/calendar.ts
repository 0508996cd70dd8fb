import { CronExpressionParser } from 'cron-parser';

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
