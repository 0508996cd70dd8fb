import { CronExpressionParser } from 'cron-parser';
import { canonicalTimeZone, isValidCron, weeklyParts } from '../../../platform/calendar.js';
import { quoteToken } from '../../../platform/slack/limits.js';
import { SECTIONS_USAGE } from './sections.js';

/**
 * The weekly digest's schedule: a BullMQ cron `pattern` (5 fields, or 6 with seconds first, as
 * BullMQ's cron-parser reads them) and an IANA time zone.
 */
export interface DigestSchedule {
  pattern: string;
  tz: string;
}

/** Outcome of {@link parseScheduleArgs}; `message` says what was wrong (mrkdwn). */
type ScheduleParse = { ok: true; schedule: DigestSchedule } | { ok: false; message: string };

/** Day names people may type (`mon`, `monday`, `tues`…), by cron day-of-week (0 = Sunday). */
const DAY_NAMES: Record<string, number> = {
  sun: 0,
  sunday: 0,
  sundays: 0,
  mon: 1,
  monday: 1,
  mondays: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  tuesdays: 2,
  wed: 3,
  weds: 3,
  wednesday: 3,
  wednesdays: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  thursdays: 4,
  fri: 5,
  friday: 5,
  fridays: 5,
  sat: 6,
  saturday: 6,
  saturdays: 6,
};
/** Fallback day and time when DIGEST_CRON is not a plain weekly pattern: Monday 09:00. */
const FALLBACK = { minute: 0, hour: 9, dow: 1 };

/** Usage line of `subscribe` (shown with errors), with its sections option as the full help has it. */
const SUBSCRIBE_USAGE =
  '`/docs-visitors subscribe [DAY] [HH:MM] [TIME_ZONE] [sections=…]`, for example `/docs-visitors subscribe fri 16:30 Europe/Berlin`; ' +
  SECTIONS_USAGE;

/** Parses `HH:MM` (24-hour) or `9am` / `5:30pm`; undefined when it is not a time. */
function parseTime(token: string): { hour: number; minute: number } | undefined {
  const h24 = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(token);
  if (h24) return { hour: Number(h24[1]), minute: Number(h24[2]) };
  const h12 = /^(1[0-2]|0?[1-9])(?::([0-5]\d))?(am|pm)$/i.exec(token);
  if (h12) {
    const base = Number(h12[1]) % 12;
    return { hour: h12[3]?.toLowerCase() === 'pm' ? base + 12 : base, minute: Number(h12[2] ?? 0) };
  }
  return undefined;
}

/**
 * Parses the arguments of `/docs-visitors subscribe [DAY] [HH:MM] [TIME_ZONE]`, in any order.
 * With none, the schedule is `defaults` (DIGEST_CRON and DIGEST_TZ). A DAY or time builds a weekly
 * cron `M H * * D`; a part not given comes from DIGEST_CRON when it is a plain weekly pattern, else
 * Monday 09:00.
 *
 * @param args - the words after `subscribe`.
 * @param defaults - `{pattern: DIGEST_CRON, tz: DIGEST_TZ}`.
 */
export function parseScheduleArgs(args: string[], defaults: DigestSchedule): ScheduleParse {
  let day: number | undefined;
  let time: { hour: number; minute: number } | undefined;
  let zone: string | undefined;
  const fail = (problem: string): ScheduleParse => ({ ok: false, message: `${problem}\n*Usage:* ${SUBSCRIBE_USAGE}.` });
  for (const raw of args) {
    const token = raw.trim();
    if (!token) continue;
    const lower = token.toLowerCase();
    const asDay = DAY_NAMES[lower];
    if (asDay !== undefined) {
      if (day !== undefined) return fail(`:warning: Give one day only (\`${quoteToken(token)}\` is a second one).`);
      day = asDay;
      continue;
    }
    const asTime = parseTime(lower);
    if (asTime) {
      if (time) return fail(`:warning: Give one time only (\`${quoteToken(token)}\` is a second one).`);
      time = asTime;
      continue;
    }
    if (/^\d{1,2}:\d{2}$/.test(token))
      return fail(`:warning: \`${quoteToken(token)}\` is not a time of day (use 24-hour HH:MM, 00:00–23:59).`);
    const asZone = canonicalTimeZone(token);
    if (asZone) {
      if (zone) return fail(`:warning: Give one time zone only (\`${quoteToken(token)}\` is a second one).`);
      zone = asZone;
      continue;
    }
    if (token.includes('/'))
      return fail(
        `:warning: \`${quoteToken(token)}\` is not a time zone I know (use an IANA name such as \`Europe/Berlin\` or \`UTC\`).`,
      );
    return fail(
      `:warning: I don't understand \`${quoteToken(token)}\`: expected a day (\`mon\`…\`sun\`), a time (\`HH:MM\`) or a time zone (\`Europe/Berlin\`).`,
    );
  }
  let pattern = defaults.pattern.trim();
  if (day !== undefined || time) {
    const base = weeklyParts(pattern) ?? FALLBACK;
    const minute = time?.minute ?? base.minute;
    const hour = time?.hour ?? base.hour;
    const dow = day ?? base.dow ?? FALLBACK.dow;
    pattern = `${minute} ${hour} * * ${dow}`;
  }
  const schedule = { pattern, tz: zone ?? defaults.tz };
  if (!isValidCron(schedule.pattern, schedule.tz)) {
    return {
      ok: false,
      message: `:warning: The digest schedule \`${quoteToken(schedule.pattern)}\` is not a valid cron pattern; tell the admin (DIGEST_CRON).`,
    };
  }
  return { ok: true, schedule };
}

/**
 * Next fire time of the schedule strictly after `afterMs`, in epoch ms (cron-parser, as BullMQ
 * computes it). Undefined for an invalid pattern.
 */
export function nextRunAfter(s: DigestSchedule, afterMs: number): number | undefined {
  try {
    return CronExpressionParser.parse(s.pattern, { tz: s.tz, currentDate: new Date(afterMs) })
      .next()
      .getTime();
  } catch {
    return undefined;
  }
}
