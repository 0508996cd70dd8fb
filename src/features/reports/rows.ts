import type { VisitorsResponse } from '../../platform/docs-api/schemas.js';
import { SLACK_LIMITS, truncate } from '../../platform/slack/limits.js';
import { codeSafe, displayWidth, formatCount, pad, readerPath } from './format.js';
import { LAST_WINDOW } from './paging-value.js';

/**
 * The visitors report's table: one monospace row per page (path, human, AI and total visitors, and
 * the page's views), right-aligned numbers, in code blocks of at most 3000 characters (Slack: section
 * text ≤ 3000), and how an API page too big for one message is split into windows.
 */

/** Characters of row text (code blocks) one message may carry. */
export const ROWS_TEXT_BUDGET = 6_500;
/** Widest the path column gets, in code points; longer paths are cut in the middle. */
const PATH_COLUMN_MAX = 48;
/** Widest the views column is assumed to be when windows are planned (`999,999,999`). */
const VIEWS_WIDTH_MAX = 11;

const CODE_FENCE = '```';
const COLUMN_GAP = '  ';
const HEADINGS = { path: 'Page', human: 'Human', ai: 'AI', total: 'Total', views: 'Views' } as const;

/** One row of the visitors API page. */
export type Row = VisitorsResponse['visitors'][number];

/**
 * Views per path (GET …/views `views[].total`, content view events) for the report's range; a path
 * missing from it shows `–` (beyond the views the API returned).
 */
export type ViewsByPath = ReadonlyMap<string, number>;

/** Column widths of one API page (code points), shared by all its windows. */
interface RowLayout {
  path: number;
  human: number;
  ai: number;
  total: number;
  /** 0: no views column (views could not be read). */
  views: number;
}

function viewsCell(row: Row, views: ViewsByPath): string {
  const n = views.get(row.path);
  return n === undefined ? '–' : formatCount(n);
}

/**
 * Widths fitting every row of `rows` (path capped at {@link PATH_COLUMN_MAX}).
 * @param views - the views column's numbers; undefined: no views column.
 */
export function layoutFor(rows: readonly Row[], views?: ViewsByPath): RowLayout {
  const widest = (pick: (r: Row) => string, heading: string) =>
    rows.reduce((w, r) => Math.max(w, displayWidth(pick(r))), heading.length);
  return {
    path: Math.min(
      PATH_COLUMN_MAX,
      widest((r) => readerPath(r.path, PATH_COLUMN_MAX), HEADINGS.path),
    ),
    human: widest((r) => formatCount(r.human), HEADINGS.human),
    ai: widest((r) => formatCount(r.ai), HEADINGS.ai),
    total: widest((r) => formatCount(r.total), HEADINGS.total),
    views: views ? widest((r) => viewsCell(r, views), HEADINGS.views) : 0,
  };
}

type Cells = { path: string; human: string; ai: string; total: string; views: string };

function line(cells: Cells, layout: RowLayout): string {
  const columns = [
    pad(readerPath(cells.path, layout.path), layout.path, 'left'),
    pad(cells.human, layout.human, 'right'),
    pad(cells.ai, layout.ai, 'right'),
    pad(cells.total, layout.total, 'right'),
  ];
  if (layout.views > 0) columns.push(pad(cells.views, layout.views, 'right'));
  return codeSafe(columns.join(COLUMN_GAP));
}

/** The column-heading line of a layout (already mrkdwn-safe). */
export function headingLine(layout: RowLayout): string {
  return line(HEADINGS, layout);
}

/** One page row as a monospace line (already mrkdwn-safe: `&<>` escaped, backticks replaced). */
export function rowLine(row: Row, layout: RowLayout, views: ViewsByPath = new Map()): string {
  const cells = {
    path: row.path,
    human: formatCount(row.human),
    ai: formatCount(row.ai),
    total: formatCount(row.total),
  };
  return line({ ...cells, views: viewsCell(row, views) }, layout);
}

/**
 * Splits an API page into windows that each fit one message: the 0-based start row of every
 * window, `[0, …]` (just `[0]` for an empty page). Deterministic for the same rows (whether or not
 * the views column could be read: it is planned at its widest), so any replica serving a click
 * computes the same windows.
 */
export function planWindows(rows: readonly Row[]): number[] {
  const layout = { ...layoutFor(rows), views: VIEWS_WIDTH_MAX };
  const budget = ROWS_TEXT_BUDGET - (headingLine(layout).length + 1);
  const starts = [0];
  let used = 0;
  for (let i = 0; i < rows.length; i++) {
    const cost = rowLine(rows[i]!, layout).length + 1;
    if (used + cost > budget && used > 0) {
      starts.push(i);
      used = 0;
    }
    used += cost;
  }
  return starts;
}

/** Resolves `skip` to a window start of this page ({@link LAST_WINDOW} → the last window). */
export function resolveWindow(rows: readonly Row[], skip: number): { starts: number[]; index: number } {
  const starts = planWindows(rows);
  if (skip === LAST_WINDOW) return { starts, index: starts.length - 1 };
  let index = 0;
  for (let i = 0; i < starts.length; i++) if (starts[i]! <= skip) index = i;
  return { starts, index };
}

/** Packs lines into code-block section texts of at most 3000 characters each (Slack: section text ≤ 3000). */
export function codeSections(lines: string[]): string[] {
  const max = SLACK_LIMITS.sectionText - (CODE_FENCE.length * 2 + 2);
  const out: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const l of lines) {
    const cost = l.length + 1;
    if (size + cost > max && current.length > 0) {
      out.push(current.join('\n'));
      current = [];
      size = 0;
    }
    current.push(truncate(l, max));
    size += cost;
  }
  if (current.length > 0) out.push(current.join('\n'));
  return out.map((body) => `${CODE_FENCE}\n${body}\n${CODE_FENCE}`);
}
