import type { Button, KnownBlock } from '@slack/types';
import { SLACK_LIMITS, truncate } from '../../../platform/slack/limits.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { budgetNote, type ReportMessage } from '../blocks.js';
import { formatRange } from '../date-range.js';
import { formatCount } from '../format.js';
import { reportMenu } from '../menu.js';
import type { SignalKind } from '../query.js';
import { ACTION_SIGNAL_IMPROVE_PREFIX, encodeSignalImprove, type Signal } from './improve.js';
import { LAST_WINDOW } from '../signed-state.js';
import { lastWindowStart, SIGNAL_ACTIONS, signSignalState, type SignalAction, type SignalState } from './state.js';

/**
 * The searches, feedback and questions reports (one layout): a header with the range, summary
 * fields, what the rows are, one section per row (a row that points at a gap carries "Improve with
 * agent"), Previous/Next, the menu of reports and a footer. Within Slack's limits for any rows
 * (Block Kit: ≤ 50 blocks, section text ≤ 3000, button value ≤ 2000; and the ~12,000 characters of
 * text behind `msg_blocks_too_long`): at most 20 rows a window, each cut to its share of
 * {@link ROWS_TEXT_BUDGET}.
 */

/** Characters of row text one message carries at most (all rows of a window together). */
export const ROWS_TEXT_BUDGET = 7_000;

/** One row: its mrkdwn (reader text already escaped) and, for a gap, the signal Improve works on. */
export interface SignalRow {
  /** Builds the row's text within `max` characters. */
  text: (max: number) => string;
  improve?: Signal | undefined;
}

/** One API page of a report, ready to show in windows. */
export interface SignalPageView {
  report: SignalKind;
  /** `Docs searches`, … (the header, then the range). */
  title: string;
  /** Summary fields (mrkdwn, ≤ 10). */
  fields: string[];
  /** What the rows are and in which order (context). */
  about: string;
  rows: SignalRow[];
  /** The section shown when there are no rows at all. */
  empty: string;
  /** The API's cursor of the next page; null on the last. */
  nextCursor: string | null;
  /** Rows of the API pages before this one (for row numbers), when known. */
  rowsBefore?: number | undefined;
  /** Which part of the API's answer the rows come from, when numbered per API page ("conversations 1,001–2,000"). */
  batch?: string | undefined;
  /** Extra context lines (how the rows were counted). */
  notes: string[];
}

/** How the message is built: where it is posted, who signs, what the footer says. */
interface SignalMessageOptions {
  /** The channel the message is (or will be) in: bound into every Improve button. */
  channel: string;
  signer: Pick<ValueSigner, 'sign'>;
  budgetUsed?: number | undefined;
  /** Name the project in the footer (the channel is on another project than the default). */
  showProject?: boolean;
}

function button(text: string, actionId: string, value: string): Button {
  return { type: 'button', text: { type: 'plain_text', text, emoji: true }, action_id: actionId, value };
}

/** The window `state` shows of `count` rows. */
function signalWindow(state: SignalState, count: number): { start: number; end: number } {
  const start = state.skip === LAST_WINDOW ? lastWindowStart(count, state.rows) : Math.min(state.skip, count);
  return { start, end: Math.min(count, start + state.rows) };
}

/**
 * Builds one window of one API page of a report.
 * @returns text + blocks (≤ 29 blocks), and the window shown.
 */
export function buildSignalMessage(view: SignalPageView, state: SignalState, o: SignalMessageOptions): ReportMessage {
  const { start, end } = signalWindow(state, view.rows.length);
  const range = formatRange(state);
  const before = view.rowsBefore ?? 0;
  const indicator =
    view.rows.length === 0
      ? 'Nothing to show'
      : `Rows ${formatCount(before + start + 1)}–${formatCount(before + end)}` +
        (view.nextCursor === null && view.rowsBefore !== undefined
          ? ` of ${formatCount(before + view.rows.length)}`
          : '');
  const batch = view.batch ? ` (${view.batch})` : '';
  const blocks: KnownBlock[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: truncate(`${view.title} · ${range}`, SLACK_LIMITS.headerText), emoji: true },
    },
  ];
  if (view.fields.length > 0)
    blocks.push({ type: 'section', fields: view.fields.slice(0, 10).map((text) => ({ type: 'mrkdwn', text })) });
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: truncate(`*${indicator}*${batch} · ${view.about}`, SLACK_LIMITS.sectionText) }],
  });
  blocks.push(...rowBlocks(view, { start, end }, { range, projectId: state.projectId }, o));
  for (const note of view.notes)
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: truncate(note, SLACK_LIMITS.sectionText) }] });
  const nav = navButtons(state, view, { start, end }, o.signer);
  if (nav.length > 0)
    blocks.push({ type: 'actions', block_id: `signals-nav-${state.cursors.length}-${start}`, elements: nav });
  blocks.push(reportMenu(view.report, state, o.channel, o.signer));
  const footer = footerLine(state, o);
  if (footer) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: footer }] });
  const where = (view.rows.length > 0 ? `rows ${before + start + 1}–${before + end}` : 'nothing to show') + batch;
  return { text: `${view.title}, ${range} · ${where}`, blocks, window: { start, end } };
}

/** The rows of the window, each within its share of {@link ROWS_TEXT_BUDGET}; gaps with Improve. */
function rowBlocks(
  view: SignalPageView,
  w: { start: number; end: number },
  of: { range: string; projectId: string | undefined },
  o: SignalMessageOptions,
): KnownBlock[] {
  if (view.rows.length === 0)
    return [{ type: 'section', text: { type: 'mrkdwn', text: truncate(view.empty, SLACK_LIMITS.sectionText) } }];
  const shown = view.rows.slice(w.start, w.end);
  const share = Math.min(SLACK_LIMITS.sectionText, Math.floor(ROWS_TEXT_BUDGET / Math.max(1, shown.length)));
  return shown.map((row, i): KnownBlock => {
    const text = truncate(row.text(share), share);
    const value = row.improve
      ? encodeSignalImprove(
          { signal: row.improve, rangeLabel: of.range, channel: o.channel, projectId: of.projectId },
          o.signer,
        )
      : undefined;
    if (!value) return { type: 'section', text: { type: 'mrkdwn', text } };
    const accessory = button('Improve with agent', `${ACTION_SIGNAL_IMPROVE_PREFIX}${i}`, value);
    return { type: 'section', block_id: `signal-row-${w.start + i}`, text: { type: 'mrkdwn', text }, accessory };
  });
}

/** Previous / Next: the neighbouring window of this API page, else the neighbouring API page (values signed). */
function navButtons(
  state: SignalState,
  view: SignalPageView,
  w: { start: number; end: number },
  signer: Pick<ValueSigner, 'sign'>,
): Button[] {
  const { messageTs: _retryOnly, ...base } = state;
  const nav: Button[] = [];
  const add = (text: string, actionId: SignalAction, s: SignalState) => {
    const value = signSignalState(s, actionId, signer);
    if (value) nav.push(button(text, actionId, value));
  };
  if (w.start > 0) add('← Previous', SIGNAL_ACTIONS.previous, { ...base, skip: Math.max(0, w.start - state.rows) });
  else if (state.cursors.length > 0) {
    add('← Previous', SIGNAL_ACTIONS.previous, {
      ...base,
      cursors: state.cursors.slice(0, -1),
      skip: LAST_WINDOW,
    });
  }
  if (w.end < view.rows.length) add('Next →', SIGNAL_ACTIONS.next, { ...base, skip: w.end });
  else if (view.nextCursor !== null) {
    add('Next →', SIGNAL_ACTIONS.next, { ...base, cursors: [...state.cursors, view.nextCursor], skip: 0 });
  }
  return nav;
}

function footerLine(state: SignalState, o: SignalMessageOptions): string | undefined {
  const footer: string[] = [];
  if (state.requester) footer.push(`Requested by <@${state.requester}>`);
  if (o.showProject && state.projectId) footer.push(`docs project \`${state.projectId}\``);
  footer.push(...budgetNote(o.budgetUsed));
  return footer.length > 0 ? truncate(footer.join(' · '), SLACK_LIMITS.sectionText) : undefined;
}
