import {
  defaultRange,
  isShortcut,
  localDate,
  parseDateArg,
  shortcutRange,
  SHORTCUTS,
  type DateRange,
  type ParsedDate,
  type Shortcut,
} from './date-range.js';
import { quoteToken } from '../../platform/slack/limits.js';
import { REPORT_KINDS, type ReportKind } from './menu.js';

/**
 * Parsing of `/docs-visitors` text. Pure: no clock, no network. Everything a person can get wrong
 * is caught here (or in {@link resolveRange}), so bad input never costs an API call.
 */

/** Fewest rows per page (spec: analytics.openapi.json, `limit` minimum 1). */
export const LIMIT_MIN = 1;
/** Most rows per page (spec: analytics.openapi.json, `limit` maximum 250). */
export const LIMIT_MAX = 250;
/** Rows per page when `limit=N` is not given (spec: analytics.openapi.json, `limit` default 50). */
const LIMIT_DEFAULT = 50;

/** Rows per page `limit=N` may ask of a report: the visitor report's are the API's bounds. */
interface RowBounds {
  min: number;
  max: number;
  default: number;
}

/** The visitor report's `limit` (the API's own bounds). */
const VISITORS_ROWS: RowBounds = { min: LIMIT_MIN, max: LIMIT_MAX, default: LIMIT_DEFAULT };
/**
 * The other reports' rows per page: at most 20 (each row may carry an Improve button: a section of
 * its own, within Slack's 50 blocks), 10 by default. They are read from the API in pages of its own
 * maximum and shown in windows of `limit` rows.
 */
export const SIGNAL_ROWS: RowBounds = { min: 1, max: 20, default: 10 };

/** The reports other than visitors: `/docs-visitors searches|feedback|questions …`. */
export type SignalKind = Exclude<ReportKind, 'visitors'>;

/** Rows per page of a report. */
export function rowBounds(kind: ReportKind): RowBounds {
  return kind === 'visitors' ? VISITORS_ROWS : SIGNAL_ROWS;
}

/** Which dates a report asked for, before the person's time zone is known. */
export type RangeSpec =
  { type: 'default' } | { type: 'shortcut'; shortcut: Shortcut } | { type: 'dates'; from: ParsedDate; to?: ParsedDate };

/** A parsed `/docs-visitors` command. */
export type VisitorsCommand =
  /** The visitor report. */
  | { kind: 'report'; range: RangeSpec; limit: number }
  /** `searches`, `feedback` or `questions`. */
  | { kind: 'signals'; report: SignalKind; range: RangeSpec; limit: number }
  | { kind: 'help' }
  /** A subcommand another feature provides (`subscribe`, …): its name (lower case) and the words after it. */
  | { kind: 'subcommand'; name: string; args: string[] }
  /** `message`: the ephemeral answer (what was wrong, the syntax, an example). */
  | { kind: 'invalid'; message: string };

/** Options of {@link parseVisitorsCommand}. */
interface ParseOptions {
  /** Names of the subcommands other features provide (lower case), e.g. `subscribe`. */
  subcommands: readonly string[];
}

/** The one-line syntax shown with every mistake. */
const REPORT_USAGE =
  '*Usage:* `/docs-visitors [searches|feedback|questions] [FROM] [TO] [limit=N]`: ' +
  'FROM and TO as `YYYY-MM-DD` or ISO 8601, TO exclusive; ' +
  `or one of ${SHORTCUTS.map((s) => `\`${s}\``).join(' ')}; \`limit\` is rows per page ` +
  `(visitors ${LIMIT_MIN}–${LIMIT_MAX}, default ${LIMIT_DEFAULT}; the others ${SIGNAL_ROWS.min}–${SIGNAL_ROWS.max}, ` +
  `default ${SIGNAL_ROWS.default}).\n` +
  '*Example:* `/docs-visitors 2026-11-01 2026-11-08 limit=100` · `/docs-visitors searches last-week` · ' +
  '`/docs-visitors help` for everything else';

/**
 * The full help (`/docs-visitors help`): the report's syntax, then the lines of the subcommands
 * other features provide, then examples.
 *
 * @param subcommandLines - help lines of the subcommands (mrkdwn bullets).
 * @param extraExamples - examples of the subcommands (inline code).
 */
export function helpText(subcommandLines: readonly string[] = [], extraExamples: readonly string[] = []): string {
  const examples = ['`/docs-visitors last-week limit=100`', '`/docs-visitors searches 30d`', ...extraExamples];
  return [
    '*`/docs-visitors`*: what readers of the docs do, in four reports; each has a menu that opens the others.',
    '• `/docs-visitors`: unique visitors (people and AI) and views, page by page, for the last 7 full days',
    '• `/docs-visitors searches`: the top search terms, and those searched often that nobody clicked through',
    '• `/docs-visitors feedback`: pages by 👎, with their latest comments',
    '• `/docs-visitors questions`: questions the docs assistant could not answer, grouped when they recur',
    '• `/docs-visitors FROM [TO] [limit=N]`, and the same after `searches`, `feedback` or `questions`: ' +
      'dates as `YYYY-MM-DD` or ISO 8601 (`2026-11-15T09:00Z`); TO is exclusive, as in the API ' +
      '(default: through today)',
    `• \`${SHORTCUTS.join('|')}\`: N full days, or calendar weeks (Monday first) and months, in your time zone`,
    `• \`limit=N\`: rows per page (visitors ${LIMIT_MIN}–${LIMIT_MAX}, default ${LIMIT_DEFAULT}; ` +
      `the others ${SIGNAL_ROWS.min}–${SIGNAL_ROWS.max}, default ${SIGNAL_ROWS.default}); ` +
      '*Previous* and *Next* page through the rest, for anyone in the channel',
    '• A search nobody clicked through, a page with 👎 and an unanswered question have *Improve with agent*',
    ...subcommandLines,
    `*Examples:* ${examples.join(' · ')}`,
  ].join('\n');
}

const invalid = (problem: string): VisitorsCommand => ({
  kind: 'invalid',
  message: `:warning: ${problem}\n${REPORT_USAGE}`,
});

/**
 * Parses the text after `/docs-visitors`.
 *
 * - empty → the default report (last 7 full days, 50 rows);
 * - `help`; a subcommand named in `opts.subcommands` (its words are parsed by its feature);
 * - otherwise `[FROM] [TO] [limit=N]` or `SHORTCUT [limit=N]`, in any order.
 *
 * @returns the command, or `{kind:'invalid', message}` quoting the first thing that was wrong
 *   (an impossible date, FROM not before TO, limit outside 1–250 or not a number, an unknown word).
 */
export function parseVisitorsCommand(text: string, opts: ParseOptions): VisitorsCommand {
  const tokens = text.trim().split(/\s+/).filter(Boolean);
  const head = tokens[0]?.toLowerCase();
  switch (head) {
    case 'help':
    case '-h':
    case '--help':
    case '?':
      return tokens.length === 1 ? { kind: 'help' } : invalid(`\`help\` takes no arguments.`);
    default:
      if (head && opts.subcommands.includes(head)) return { kind: 'subcommand', name: head, args: tokens.slice(1) };
      if (head && head !== 'visitors' && (REPORT_KINDS as readonly string[]).includes(head)) {
        const parsed = parseReport(tokens.slice(1), SIGNAL_ROWS);
        return parsed.kind === 'report' ? { ...parsed, kind: 'signals', report: head as SignalKind } : parsed;
      }
      return parseReport(head === 'visitors' ? tokens.slice(1) : tokens, VISITORS_ROWS);
  }
}

function parseReport(tokens: string[], bounds: RowBounds): VisitorsCommand {
  let limit: number | undefined;
  let shortcut: Shortcut | undefined;
  const dates: { raw: string; date: ParsedDate }[] = [];
  for (const token of tokens) {
    const lower = token.toLowerCase();
    if (lower.startsWith('limit=') || lower.startsWith('limit:')) {
      const raw = token.slice('limit='.length);
      const shown = quoteToken(token);
      if (limit !== undefined) return invalid(`Give \`limit\` once (\`${shown}\` is a second one).`);
      const span = `${bounds.min} to ${bounds.max}`;
      if (!/^\d+$/.test(raw)) return invalid(`\`${shown}\`: limit must be a whole number from ${span}.`);
      const n = Number(raw);
      if (n < bounds.min || n > bounds.max) return invalid(`\`${shown}\`: limit must be from ${span} here.`);
      limit = n;
      continue;
    }
    if (isShortcut(lower)) {
      if (shortcut) return invalid(`Give one range shortcut only (\`${quoteToken(token)}\` is a second one).`);
      shortcut = lower;
      continue;
    }
    if (/^\d{4}-/.test(token)) {
      const parsed = parseDateArg(token);
      if (!parsed.ok) return invalid(`\`${quoteToken(token)}\` ${parsed.reason}.`);
      if (dates.length === 2)
        return invalid(`Give at most two dates, FROM and TO (\`${quoteToken(token)}\` is a third).`);
      dates.push({ raw: token, date: parsed });
      continue;
    }
    if (/^\d/.test(token) && /\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}/.test(token)) {
      return invalid(
        `\`${quoteToken(token)}\` is not a date I can read: write it as YYYY-MM-DD, for example 2026-11-15.`,
      );
    }
    return invalid(`I don't understand \`${quoteToken(token)}\`.`);
  }
  if (shortcut && dates.length > 0) {
    return invalid(
      `\`${shortcut}\` already sets both FROM and TO; drop \`${quoteToken(dates[0]!.raw)}\` or the shortcut.`,
    );
  }
  const rows = limit ?? bounds.default;
  if (shortcut) return { kind: 'report', range: { type: 'shortcut', shortcut }, limit: rows };
  const [from, to] = dates;
  if (!from) return { kind: 'report', range: { type: 'default' }, limit: rows };
  if (to && from.date.ms >= to.date.ms) {
    return invalid(
      `FROM \`${quoteToken(from.raw)}\` is not before TO \`${quoteToken(to.raw)}\` (TO is exclusive: \`2026-11-15 2026-11-16\` is one day).`,
    );
  }
  return { kind: 'report', range: { type: 'dates', from: from.date, ...(to ? { to: to.date } : {}) }, limit: rows };
}

/** Outcome of {@link resolveRange}. */
type RangeResolution = { ok: true; range: DateRange } | { ok: false; message: string };

/**
 * Turns a {@link RangeSpec} into API dates at `nowMs` (epoch ms) in the person's IANA time zone
 * `zone` (users.info `tz`; `UTC` when unknown). FROM without TO runs through today (TO = tomorrow).
 *
 * @returns the range, or a message (same shape as the parser's) when FROM is not before the
 *   default TO (a FROM after today).
 */
export function resolveRange(spec: RangeSpec, nowMs: number, zone: string): RangeResolution {
  switch (spec.type) {
    case 'default':
      return { ok: true, range: defaultRange(nowMs, zone) };
    case 'shortcut':
      return { ok: true, range: shortcutRange(spec.shortcut, nowMs, zone) };
    case 'dates': {
      if (spec.to) return { ok: true, range: { dateFrom: spec.from.value, dateTo: spec.to.value } };
      const tomorrow = localDate(nowMs, zone, 1);
      const to = parseDateArg(tomorrow);
      if (!to.ok || spec.from.ms >= to.ms) {
        return {
          ok: false,
          message: `:warning: FROM \`${quoteToken(spec.from.value)}\` is after today (${localDate(nowMs, zone)} in ${zone}); give a TO date or an earlier FROM.\n${REPORT_USAGE}`,
        };
      }
      return { ok: true, range: { dateFrom: spec.from.value, dateTo: tomorrow } };
    }
  }
}
