import type { Button, KnownBlock } from '@slack/types';
import type { VisitorsResponse } from '../../platform/docs-api/schemas.js';
import { SLACK_LIMITS, truncate } from '../../platform/slack/limits.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import { ANALYTICS_HOURLY_LIMIT, BUDGET_NOTE_FROM } from './budget.js';
import { formatRange } from './date-range.js';
import { formatCount, formatShare } from './format.js';
import { reportMenu } from './menu.js';
import { LAST_WINDOW, PAGE_ACTIONS, signPageState, type PageAction, type PageState } from './paging-value.js';
import { codeSections, headingLine, layoutFor, resolveWindow, rowLine, type Row, type ViewsByPath } from './rows.js';

/**
 * The `/docs-visitors` report message: header with the range, totals, one monospace row per page
 * (right-aligned numbers, in the API's order), a page indicator and Previous/Next buttons whose
 * values carry the whole query.
 *
 * It stays inside Slack's limits for any `limit` up to 250 and any path length (Slack Block Kit
 * reference: ≤ 50 blocks, section text ≤ 3000 chars, header ≤ 150, button value ≤ 2000; and the
 * undocumented cumulative limit behind `msg_blocks_too_long`, observed at about 12,000 characters
 * of text (slackapi/bolt-js#2509,
 * slackapi/bolt-js#2867)). Rows go into code blocks of at most 3000 characters;
 * when one API page's rows would pass `ROWS_TEXT_BUDGET` (rows.ts), the page is shown in windows and a
 * "rows continue" note points to Next, which shows the rest of the same (cached) API page first.
 */

/** Characters of text, all blocks together, a report never passes (Slack fails near 12,000). */
export const MESSAGE_TEXT_BUDGET = 9_000;

/** The views of the report's range (GET …/views), or why they are not shown. */
export type ReportViews =
  | { ok: true; byPath: ViewsByPath; totals: { human: number; ai: number; total: number } }
  | { ok: false; reason: string };

/** Input of {@link buildReportMessage}. */
interface ReportInput {
  /** The query and window being shown (`skip` may be {@link LAST_WINDOW}). */
  state: PageState;
  /** The API's answer for `state`'s query. */
  page: VisitorsResponse;
  /** Views beside the visitors (a column and a total); absent: not asked for. */
  views?: ReportViews;
  /** Analytics requests counted in the last hour; from {@link BUDGET_NOTE_FROM} on, the report says so. */
  budgetUsed?: number;
  /** Name the docs project (`state.projectId`) in the footer: the channel is on another project than the default. */
  showProject?: boolean;
  /** Signs the Previous/Next buttons' values and the menu's state. */
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

function button(text: string, actionId: string, value: string): Button {
  return { type: 'button', text: { type: 'plain_text', text, emoji: true }, action_id: actionId, value };
}

/** The window of `page` that `state` shows: its rows' bounds and the page indicator. */
function windowOf(state: PageState, page: VisitorsResponse) {
  const rows = page.visitors;
  const { starts, index } = resolveWindow(rows, state.skip);
  const start = Math.min(starts[index] ?? 0, rows.length);
  const end = index + 1 < starts.length ? starts[index + 1]! : rows.length;
  const firstRow = state.offset + start + 1;
  const lastRow = state.offset + end;
  const totalRows = page.hasMore ? undefined : state.offset + rows.length;
  let indicator: string;
  if (rows.length === 0) {
    indicator = state.offset === 0 ? 'No pages' : `No rows from row ${formatCount(state.offset + 1)} on`;
  } else {
    const of = totalRows !== undefined ? ` of ${formatCount(totalRows)}` : '';
    indicator = `Rows ${formatCount(firstRow)}–${formatCount(lastRow)}${of}`;
  }
  return { starts, index, start, end, firstRow, lastRow, indicator };
}

/** The totals: visitors (human, AI, deduplicated, AI share) and, when read, views. */
function totalsFields(page: VisitorsResponse, views: ReportViews | undefined): KnownBlock {
  const { totals } = page;
  const fields = [
    { type: 'mrkdwn' as const, text: `*Human*\n${formatCount(totals.human)}` },
    { type: 'mrkdwn' as const, text: `*AI*\n${formatCount(totals.ai)}` },
    { type: 'mrkdwn' as const, text: `*Total (deduplicated)*\n${formatCount(totals.total)}` },
    { type: 'mrkdwn' as const, text: `*AI share*\n${formatShare(totals.ai, totals.total)}` },
  ];
  if (views?.ok) {
    const v = views.totals;
    const text = `*Views*\n${formatCount(v.total)} (${formatCount(v.human)} human, ${formatCount(v.ai)} AI)`;
    fields.push({ type: 'mrkdwn', text });
  }
  return { type: 'section', fields };
}

/**
 * Builds the report for one window of one API page. See the module notes for the limits.
 *
 * @returns text + blocks (≤ 13 blocks, ≤ {@link MESSAGE_TEXT_BUDGET} characters of text), and the
 *   window shown.
 */
export function buildReportMessage(input: ReportInput): ReportMessage {
  const { state, page, views } = input;
  const w = windowOf(state, page);
  const rangeLabel = formatRange({ dateFrom: state.dateFrom, dateTo: state.dateTo });
  const how = 'most visited first · Total counts each visitor once, even if seen as both human and AI';
  const viewsNote = views?.ok ? ' · Views counts every page view' : '';
  const blocks: KnownBlock[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: truncate(`Docs visitors · ${rangeLabel}`, SLACK_LIMITS.headerText),
        emoji: true,
      },
    },
    totalsFields(page, views),
    { type: 'context', elements: [{ type: 'mrkdwn', text: `*${w.indicator}* · ${how}${viewsNote}` }] },
    ...rowBlocks(state, page.visitors, w, views?.ok ? views.byPath : undefined),
  ];
  const nav = navButtons(state, page, w, input.signer);
  if (nav.length > 0) {
    blocks.push({ type: 'actions', block_id: `visitors-nav-${state.offset}-${w.start}`, elements: nav });
  }
  blocks.push(reportMenu('visitors', state, state.channel, input.signer));
  const footer = footerLine(input);
  if (footer) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: footer }] });
  const where = page.visitors.length > 0 ? `rows ${w.firstRow}–${w.lastRow}` : w.indicator.toLowerCase();
  const t = page.totals;
  const text =
    `Docs visitors, ${rangeLabel}: ${formatCount(t.total)} visitors ` +
    `(${formatCount(t.human)} human, ${formatCount(t.ai)} AI) · ${where}`;
  return { text, blocks, window: { start: w.start, end: w.end } };
}

/** Who asked, the project when not the default, why views are missing, the budget when it runs low. */
function footerLine(input: ReportInput): string | undefined {
  const { state } = input;
  const footer: string[] = [];
  if (state.requester) footer.push(`Requested by <@${state.requester}>`);
  if (input.showProject && state.projectId) footer.push(`docs project \`${state.projectId}\``);
  if (input.views && !input.views.ok) footer.push(`Views not shown: ${input.views.reason}`);
  footer.push(...budgetNote(input.budgetUsed));
  return footer.length > 0 ? truncate(footer.join(' · '), SLACK_LIMITS.sectionText) : undefined;
}

/** The footer's budget warning, from {@link BUDGET_NOTE_FROM} requests in the last hour on. */
export function budgetNote(used: number | undefined): string[] {
  if (used === undefined || used < BUDGET_NOTE_FROM) return [];
  return [
    `:warning: ${used} of ${ANALYTICS_HOURLY_LIMIT} analytics requests used this hour (shared by the organization); ` +
      'pages already opened are free for 10 minutes',
  ];
}

/** The rows `start`–`end` of the page as code blocks, and where the rest continues (or why there are none). */
function rowBlocks(
  state: PageState,
  rows: readonly Row[],
  w: { start: number; end: number },
  views: ViewsByPath | undefined,
): KnownBlock[] {
  if (rows.length === 0) {
    const text =
      state.offset === 0
        ? 'No visitors were recorded in this range.'
        : 'There are no more rows here (the data may have changed since this report was made). Use *Previous*.';
    return [{ type: 'section', text: { type: 'mrkdwn', text } }];
  }
  const { start, end } = w;
  const layout = layoutFor(rows, views);
  const lines = [headingLine(layout), ...rows.slice(start, end).map((r) => rowLine(r, layout, views))];
  const blocks: KnownBlock[] = codeSections(lines).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } }));
  if (end < rows.length) {
    const lastRow = state.offset + end;
    const text =
      `:arrow_forward: This page has ${formatCount(rows.length)} rows; rows ${formatCount(lastRow + 1)}–` +
      `${formatCount(state.offset + rows.length)} continue on *Next* ` +
      `(one Slack message holds about ${formatCount(end - start)} rows like these).`;
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text }] });
  }
  return blocks;
}

/** Previous / Next: the neighbouring window of this API page, else the neighbouring API page (values signed). */
function navButtons(
  state: PageState,
  page: VisitorsResponse,
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
    // The report keeps its channel and its project: a click must not fall back to DOCS_PROJECT_ID (docs/using.md).
    channel: state.channel,
    projectId: state.projectId,
  };
  const value = (action: PageAction, offset: number, skip: number) =>
    signPageState({ ...base, offset, skip }, action, signer);
  const previous = (offset: number, skip: number) =>
    button('← Previous', PAGE_ACTIONS.previous, value(PAGE_ACTIONS.previous, offset, skip));
  const next = (offset: number, skip: number) =>
    button('Next →', PAGE_ACTIONS.next, value(PAGE_ACTIONS.next, offset, skip));
  const nav: Button[] = [];
  if (index > 0) nav.push(previous(state.offset, starts[index - 1]!));
  else if (state.offset > 0) nav.push(previous(Math.max(0, state.offset - state.limit), LAST_WINDOW));
  if (end < rows.length) nav.push(next(state.offset, end));
  else if (page.hasMore && rows.length > 0) nav.push(next(state.offset + state.limit, 0));
  return nav;
}
