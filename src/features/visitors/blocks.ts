import type { Button, KnownBlock } from '@slack/types';
import type { VisitorsResponse } from '../../platform/docs-api/schemas.js';
import { SLACK_LIMITS, truncate } from '../../platform/slack/limits.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import { ANALYTICS_HOURLY_LIMIT, BUDGET_NOTE_FROM } from './budget.js';
import { formatRange } from './date-range.js';
import { codeSafe, displayWidth, formatCount, formatShare, middleTruncate, pad } from './format.js';
import { LAST_WINDOW, signPageState, type PageState } from './paging-value.js';

/**
 * The `/docs-visitors` report message: header with the range, totals, one monospace row per page
 * (right-aligned numbers, in the API's order), a page indicator and Previous/Next buttons whose
 * values carry the whole query.
 *
 * It stays inside Slack's limits for any `limit` up to 250 and any path length (Slack Block Kit
 * reference: ≤ 50 blocks, section text ≤ 3000 chars, header ≤ 150, button value ≤ 2000; and the
 * undocumented cumulative limit behind `msg_blocks_too_long`, observed at about 12,000 characters
 * of text (slackapi/bolt-js#2509, #2867)). Rows go into code blocks of at most 3000 characters;
 * when one API page's rows would pass {@link ROWS_TEXT_BUDGET}, the page is shown in windows and a
 * "rows continue" note points to Next, which shows the rest of the same (cached) API page first.
 */

/** Characters of row text (code blocks) one message may carry. */
export const ROWS_TEXT_BUDGET = 6_500;
/** Characters of text, all blocks together, a report never passes (Slack fails near 12,000). */
export const MESSAGE_TEXT_BUDGET = 9_000;
/** Widest the path column gets, in code points; longer paths are cut in the middle. */
export const PATH_COLUMN_MAX = 48;
/** `action_id` of the report's Previous button (registered in src/listeners/visitors). */
export const ACTION_PREVIOUS = 'visitors.page.previous';
/** `action_id` of the report's Next button (registered in src/listeners/visitors). */
export const ACTION_NEXT = 'visitors.page.next';

const CODE_FENCE = '```';
const COLUMN_GAP = '  ';
const HEADINGS = { path: 'Page', human: 'Human', ai: 'AI', total: 'Total' } as const;

type Row = VisitorsResponse['visitors'][number];

/** Column widths of one API page (code points), shared by all its windows. */
export interface RowLayout {
  path: number;
  human: number;
  ai: number;
  total: number;
}

/** Widths fitting every row of `rows` (path capped at {@link PATH_COLUMN_MAX}). */
export function layoutFor(rows: readonly Row[]): RowLayout {
  const widest = (pick: (r: Row) => string, heading: string) => rows.reduce((w, r) => Math.max(w, displayWidth(pick(r))), heading.length);
  return {
    path: Math.min(PATH_COLUMN_MAX, widest((r) => r.path, HEADINGS.path)),
    human: widest((r) => formatCount(r.human), HEADINGS.human),
    ai: widest((r) => formatCount(r.ai), HEADINGS.ai),
    total: widest((r) => formatCount(r.total), HEADINGS.total),
  };
}

function line(cells: { path: string; human: string; ai: string; total: string }, layout: RowLayout): string {
  return codeSafe(
    [
      pad(middleTruncate(cells.path, layout.path), layout.path, 'left'),
      pad(cells.human, layout.human, 'right'),
      pad(cells.ai, layout.ai, 'right'),
      pad(cells.total, layout.total, 'right'),
    ].join(COLUMN_GAP),
  );
}

/** The column-heading line of a layout (already mrkdwn-safe). */
export function headingLine(layout: RowLayout): string {
  return line(HEADINGS, layout);
}

/** One page row as a monospace line (already mrkdwn-safe: `&<>` escaped, backticks replaced). */
export function rowLine(row: Row, layout: RowLayout): string {
  return line({ path: row.path, human: formatCount(row.human), ai: formatCount(row.ai), total: formatCount(row.total) }, layout);
}

/**
 * Splits an API page into windows that each fit one message: the 0-based start row of every
 * window, `[0, …]` (just `[0]` for an empty page). Deterministic for the same rows, so any replica
 * serving a click computes the same windows.
 */
export function planWindows(rows: readonly Row[]): number[] {
  const layout = layoutFor(rows);
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

/** Packs lines into code-block section texts of at most 3000 characters each (Slack: section text ≤ 3000). */
function codeSections(lines: string[]): string[] {
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

/** Input of {@link buildReportMessage}. */
export interface ReportInput {
  /** The query and window being shown (`skip` may be {@link LAST_WINDOW}). */
  state: PageState;
  /** The API's answer for `state`'s query. */
  page: VisitorsResponse;
  /** Analytics requests counted in the last hour; from {@link BUDGET_NOTE_FROM} on, the report says so. */
  budgetUsed?: number;
  /** Name the docs project (`state.projectId`) in the footer: the channel is on another project than the default. */
  showProject?: boolean;
  /** Signs the Previous/Next buttons' values. */
  signer: Pick<ValueSigner, 'sign'>;
}

/** A report ready for chat.postMessage / chat.update, and the window it shows. */
export interface ReportMessage {
  /** Notification / accessibility fallback. */
  text: string;
  blocks: KnownBlock[];
  /** First row shown (0-based within the API page) and the row after the last one shown. */
  window: { start: number; end: number };
}

/** Resolves `skip` to a window start of this page ({@link LAST_WINDOW} → the last window). */
export function resolveWindow(rows: readonly Row[], skip: number): { starts: number[]; index: number } {
  const starts = planWindows(rows);
  if (skip === LAST_WINDOW) return { starts, index: starts.length - 1 };
  let index = 0;
  for (let i = 0; i < starts.length; i++) if (starts[i]! <= skip) index = i;
  return { starts, index };
}

function button(text: string, actionId: string, value: string): Button {
  return { type: 'button', text: { type: 'plain_text', text, emoji: true }, action_id: actionId, value };
}

/**
 * Builds the report for one window of one API page. See the module notes for the limits.
 *
 * @returns text + blocks (≤ 12 blocks, ≤ {@link MESSAGE_TEXT_BUDGET} characters of text), and the
 *   window shown.
 */
export function buildReportMessage(input: ReportInput): ReportMessage {
  const { state, page } = input;
  const rows = page.visitors;
  const { starts, index } = resolveWindow(rows, state.skip);
  const start = Math.min(starts[index] ?? 0, rows.length);
  const end = index + 1 < starts.length ? starts[index + 1]! : rows.length;
  const rangeLabel = formatRange({ dateFrom: state.dateFrom, dateTo: state.dateTo });
  const firstRow = state.offset + start + 1;
  const lastRow = state.offset + end;
  const totalRows = page.hasMore ? undefined : state.offset + rows.length;
  const { totals } = page;

  let indicator: string;
  if (rows.length === 0) {
    indicator = state.offset === 0 ? 'No pages' : `No rows from row ${formatCount(state.offset + 1)} on`;
  } else {
    indicator = `Rows ${formatCount(firstRow)}–${formatCount(lastRow)}${totalRows !== undefined ? ` of ${formatCount(totalRows)}` : ''}`;
  }
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(`Docs visitors · ${rangeLabel}`, SLACK_LIMITS.headerText), emoji: true } },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Human*\n${formatCount(totals.human)}` },
        { type: 'mrkdwn', text: `*AI*\n${formatCount(totals.ai)}` },
        { type: 'mrkdwn', text: `*Total (deduplicated)*\n${formatCount(totals.total)}` },
        { type: 'mrkdwn', text: `*AI share*\n${formatShare(totals.ai, totals.total)}` },
      ],
    },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `*${indicator}* · most visited first · Total counts each visitor once, even if seen as both human and AI` }] },
    ...rowBlocks(state, rows, start, end),
  ];
  const nav = navButtons(state, page, { starts, index, end }, input.signer);
  if (nav.length > 0) blocks.push({ type: 'actions', block_id: `visitors-nav-${state.offset}-${start}`, elements: nav });
  const footer: string[] = [];
  if (state.requester) footer.push(`Requested by <@${state.requester}>`);
  if (input.showProject && state.projectId) footer.push(`docs project \`${state.projectId}\``);
  if (input.budgetUsed !== undefined && input.budgetUsed >= BUDGET_NOTE_FROM) {
    footer.push(`:warning: ${input.budgetUsed} of ${ANALYTICS_HOURLY_LIMIT} analytics requests used this hour (shared by the organization); pages already opened are free for 10 minutes`);
  }
  if (footer.length > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: truncate(footer.join(' · '), SLACK_LIMITS.sectionText) }] });

  const where = rows.length > 0 ? `rows ${firstRow}–${lastRow}` : indicator.toLowerCase();
  const text = `Docs visitors, ${rangeLabel}: ${formatCount(totals.total)} visitors (${formatCount(totals.human)} human, ${formatCount(totals.ai)} AI) · ${where}`;
  return { text, blocks, window: { start, end } };
}

/** The rows `start`–`end` of the page as code blocks, and where the rest continues (or why there are none). */
function rowBlocks(state: PageState, rows: readonly Row[], start: number, end: number): KnownBlock[] {
  if (rows.length === 0) {
    const text = state.offset === 0 ? 'No visitors were recorded in this range.' : 'There are no more rows here (the data may have changed since this report was made). Use *Previous*.';
    return [{ type: 'section', text: { type: 'mrkdwn', text } }];
  }
  const layout = layoutFor(rows);
  const lines = [headingLine(layout), ...rows.slice(start, end).map((r) => rowLine(r, layout))];
  const blocks: KnownBlock[] = codeSections(lines).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } }));
  if (end < rows.length) {
    const lastRow = state.offset + end;
    const text = `:arrow_forward: This page has ${formatCount(rows.length)} rows; rows ${formatCount(lastRow + 1)}–${formatCount(state.offset + rows.length)} continue on *Next* (one Slack message holds about ${formatCount(end - start)} rows like these).`;
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text }] });
  }
  return blocks;
}

/** Previous / Next: the neighbouring window of this API page, else the neighbouring API page (values signed). */
function navButtons(
  state: PageState,
  page: ReportInput['page'],
  at: { starts: number[]; index: number; end: number },
  signer: Pick<ValueSigner, 'sign'>,
): Button[] {
  const { starts, index, end } = at;
  const rows = page.visitors;
  const base = {
    dateFrom: state.dateFrom,
    dateTo: state.dateTo,
    limit: state.limit,
    ...(state.requester ? { requester: state.requester } : {}),
    // The report keeps its project: a click must not fall back to DOCS_PROJECT_ID (docs/using.md).
    ...(state.projectId ? { projectId: state.projectId } : {}),
  };
  const value = (offset: number, skip: number) => signPageState({ ...base, offset, skip }, signer);
  const previous = (offset: number, skip: number) => button('← Previous', ACTION_PREVIOUS, value(offset, skip));
  const next = (offset: number, skip: number) => button('Next →', ACTION_NEXT, value(offset, skip));
  const nav: Button[] = [];
  if (index > 0) nav.push(previous(state.offset, starts[index - 1]!));
  else if (state.offset > 0) nav.push(previous(Math.max(0, state.offset - state.limit), LAST_WINDOW));
  if (end < rows.length) nav.push(next(state.offset, end));
  else if (page.hasMore && rows.length > 0) nav.push(next(state.offset + state.limit, 0));
  return nav;
}
