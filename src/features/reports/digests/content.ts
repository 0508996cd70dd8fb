import type { VisitorsResponse } from '../../../platform/docs-api/schemas.js';
import { percentChange } from '../format.js';
import { type DateRange } from '../date-range.js';

/**
 * What a weekly digest says, computed from two weeks of visitors (pure; no Slack, no API):
 * totals with week-over-week change, the top 10 pages, the biggest risers and fallers among human
 * readers, and pages that are new this week.
 */

/** Pages in the top list (the issue: "the top 10 pages"). */
const TOP_PAGES = 10;
/** Risers and fallers shown, each. */
const MOVERS = 5;
/** A page needs this many human readers last week to count as rising or falling (fewer is noise). */
const MOVER_MIN_BASE = 20;
/** …and a change of at least this many percent. */
export const MOVER_MIN_CHANGE_PCT = 10;

/** Visitors of one page or the whole site. */
export interface Counts {
  human: number;
  ai: number;
  total: number;
}

/** A number this week, last week and the change in percent (null: last week was 0). */
export interface Change {
  current: number;
  previous: number;
  pct: number | null;
}

/** One page in the digest. `previous` is undefined when it had no visitors last week. */
export interface PageChange {
  path: string;
  current: Counts;
  previous?: Counts;
  /** Change of all visitors (deduplicated total). */
  total: Change;
  /** Change of human readers. */
  human: Change;
}

/** Everything the digest message shows. */
export interface DigestContent {
  current: DateRange;
  previous: DateRange;
  totals: { human: Change; ai: Change; total: Change };
  /** Most visited pages this week, in the API's order (total visitors, descending). */
  top: PageChange[];
  /** Biggest gains of human readers (absolute), at most {@link MOVERS}. */
  risers: PageChange[];
  /** Biggest losses of human readers (absolute), at most {@link MOVERS}. */
  fallers: PageChange[];
  /** Pages with visitors this week and none last week, most visited first. */
  newPages: PageChange[];
  /** Pages with visitors this week. */
  pageCount: number;
  /** True when a week had more pages than were fetched (comparisons cover the fetched ones). */
  truncated: boolean;
}

/** One week of visitors: site totals and every page (all API pages concatenated). */
export interface WeekOfVisitors {
  range: DateRange;
  totals: VisitorsResponse['totals'];
  rows: VisitorsResponse['visitors'];
  /** True when rows stop before the last page (a fetch cap was hit). */
  truncated: boolean;
}

function change(current: number, previous: number): Change {
  return { current, previous, pct: percentChange(current, previous) };
}

/**
 * Compares `current` with `previous` (the 7 days before).
 * @returns the digest content; deterministic for the same input (ties broken by path).
 */
export function buildDigestContent(current: WeekOfVisitors, previous: WeekOfVisitors): DigestContent {
  const before = new Map(previous.rows.map((r) => [r.path, r]));
  const pages: PageChange[] = current.rows.map((r) => {
    const p = before.get(r.path);
    const hadVisitors = p !== undefined && p.total > 0;
    return {
      path: r.path,
      current: { human: r.human, ai: r.ai, total: r.total },
      ...(hadVisitors ? { previous: { human: p.human, ai: p.ai, total: p.total } } : {}),
      total: change(r.total, hadVisitors ? p.total : 0),
      human: change(r.human, hadVisitors ? p.human : 0),
    };
  });
  // Pages that had readers last week and none now are fallers too (-100%).
  const seen = new Set(current.rows.map((r) => r.path));
  const vanished: PageChange[] = previous.rows
    .filter((p) => !seen.has(p.path) && p.total > 0 && !current.truncated)
    .map((p) => ({
      path: p.path,
      current: { human: 0, ai: 0, total: 0 },
      previous: { human: p.human, ai: p.ai, total: p.total },
      total: change(0, p.total),
      human: change(0, p.human),
    }));

  const byPath = (a: PageChange, b: PageChange) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const delta = (p: PageChange) => p.human.current - p.human.previous;
  const movers = [...pages, ...vanished].filter(
    (p) =>
      p.previous !== undefined &&
      p.human.previous >= MOVER_MIN_BASE &&
      p.human.pct !== null &&
      Math.abs(p.human.pct) >= MOVER_MIN_CHANGE_PCT,
  );
  const risers = movers
    .filter((p) => delta(p) > 0)
    .sort((a, b) => delta(b) - delta(a) || byPath(a, b))
    .slice(0, MOVERS);
  const fallers = movers
    .filter((p) => delta(p) < 0)
    .sort((a, b) => delta(a) - delta(b) || byPath(a, b))
    .slice(0, MOVERS);
  const newPages = previous.truncated ? [] : pages.filter((p) => p.previous === undefined && p.current.total > 0);

  return {
    current: current.range,
    previous: previous.range,
    totals: {
      human: change(current.totals.human, previous.totals.human),
      ai: change(current.totals.ai, previous.totals.ai),
      total: change(current.totals.total, previous.totals.total),
    },
    top: pages.slice(0, TOP_PAGES),
    risers,
    fallers,
    newPages,
    pageCount: current.rows.filter((r) => r.total > 0).length,
    truncated: current.truncated || previous.truncated,
  };
}

/**
 * The instruction Improve with agent on a falling page pre-fills (editable): plain guidance, with
 * the page and its numbers left out (they go with it as quoted data and show under it).
 */
export const IMPROVE_GUIDANCE =
  'Check whether the page named below is outdated, unclear, incomplete or hard to find (title, description, ' +
  'navigation, links from related pages), and improve it. Keep its URL unchanged.';
