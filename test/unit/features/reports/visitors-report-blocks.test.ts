import { describe, expect, it } from 'vitest';
import type { VisitorsResponse } from '../../../../src/platform/docs-api/schemas.js';
import { SLACK_LIMITS } from '../../../../src/platform/slack/limits.js';
import {
  openPageState,
  PAGE_ACTIONS,
  type PageAction,
  type PageState,
} from '../../../../src/features/reports/paging-value.js';
import {
  buildReportMessage,
  MESSAGE_TEXT_BUDGET,
  type ReportMessage,
} from '../../../../src/features/reports/blocks.js';
import { planWindows } from '../../../../src/features/reports/rows.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { expectSlackTakesMessage } from '../../../helpers/block-kit.js';

/** The channel and docs project every report is bound to. */
const WHERE = { channel: 'C0DOCS', projectId: 'proj_docs' };

type Json = Record<string, unknown>;
type Row = VisitorsResponse['visitors'][number];

/** Rows with unique 200-character paths (distinct head and tail, so middle truncation keeps them apart). */
function longRows(n: number, offset = 0): Row[] {
  return Array.from({ length: n }, (_, k) => {
    const i = offset + k;
    const head = `/guides/section-${String(i).padStart(4, '0')}/`;
    const tail = `/page-${String(i).padStart(4, '0')}`;
    return {
      path: head + 'a-very-long-slug-'.repeat(20).slice(0, 200 - head.length - tail.length) + tail,
      human: 1_000_000 - i * 3,
      ai: 250_000 + i,
      total: 1_100_000 - i,
    };
  });
}

function page(rows: Row[], hasMore: boolean): VisitorsResponse {
  return { totals: { human: 123_456, ai: 45_678, total: 150_000 }, visitors: rows, hasMore };
}

/** Every string under a `text` key (what Slack counts as message text), summed. */
function textLength(v: unknown): number {
  if (Array.isArray(v)) return v.reduce<number>((n, x) => n + textLength(x), 0);
  if (v && typeof v === 'object') {
    return Object.entries(v as Json).reduce<number>(
      (n, [k, x]) => n + (k === 'text' && typeof x === 'string' ? x.length : textLength(x)),
      0,
    );
  }
  return 0;
}

/** Asserts the Block Kit limits we build against (Slack Block Kit reference) and returns measurements. */
function assertWithinSlackLimits(m: ReportMessage): {
  blocks: number;
  text: number;
  json: number;
  longestSection: number;
} {
  expectSlackTakesMessage(m);
  const blocks = m.blocks as unknown as Json[];
  expect(blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocksPerMessage);
  let longestSection = 0;
  for (const b of blocks) {
    if (b.type === 'header')
      expect(((b.text as Json).text as string).length).toBeLessThanOrEqual(SLACK_LIMITS.headerText);
    if (b.type === 'section') {
      const text = (b.text as Json | undefined)?.text as string | undefined;
      if (text) {
        expect(text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
        longestSection = Math.max(longestSection, text.length);
      }
      const fields = (b.fields as Json[] | undefined) ?? [];
      expect(fields.length).toBeLessThanOrEqual(SLACK_LIMITS.fieldsPerSection);
      for (const f of fields) expect((f.text as string).length).toBeLessThanOrEqual(SLACK_LIMITS.fieldText);
    }
    if (b.type === 'context') {
      const elements = b.elements as Json[];
      expect(elements.length).toBeLessThanOrEqual(SLACK_LIMITS.contextElements);
      for (const e of elements) expect((e.text as string).length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    }
    if (b.type === 'table') expect((b.rows as unknown[]).length).toBeLessThanOrEqual(SLACK_LIMITS.tableRows);
    if (b.type === 'actions') {
      for (const e of b.elements as Json[]) {
        expect(((e.text as Json).text as string).length).toBeLessThanOrEqual(SLACK_LIMITS.buttonText);
        expect((e.value as string).length).toBeLessThanOrEqual(SLACK_LIMITS.buttonValue);
        expect((e.action_id as string).length).toBeLessThanOrEqual(SLACK_LIMITS.actionId);
      }
    }
  }
  const text = textLength(blocks);
  expect(text).toBeLessThanOrEqual(MESSAGE_TEXT_BUDGET);
  const json = JSON.stringify(blocks).length;
  expect(json).toBeLessThan(12_000);
  expect(m.text.length).toBeLessThan(SLACK_LIMITS.messageText);
  return { blocks: blocks.length, text, json, longestSection };
}

function buttonState(m: ReportMessage, actionId: string): PageState | undefined {
  for (const b of m.blocks as unknown as Json[]) {
    if (b.type !== 'actions') continue;
    const el = (b.elements as Json[]).find((e) => e.action_id === actionId);
    if (el) {
      const opened = openPageState(el.value as string, actionId as PageAction, TEST_SIGNER);
      return opened.ok ? opened.state : undefined;
    }
  }
  return undefined;
}

/** The monospace lines of the report (heading excluded). */
function rowLines(m: ReportMessage): string[] {
  return (m.blocks as unknown as Json[])
    .filter(
      (b) =>
        b.type === 'section' &&
        typeof (b.text as Json | undefined)?.text === 'string' &&
        ((b.text as Json).text as string).startsWith('```'),
    )
    .flatMap((b) => ((b.text as Json).text as string).split('\n').filter((l) => l !== '```'))
    .filter((l) => !l.startsWith('Page '));
}

describe('report message within Slack limits', () => {
  it('250 rows of 200-character paths: every window fits, Next walks all 250 rows in order, then the next API page', () => {
    const rows = longRows(250);
    const apiPage = page(rows, true);
    let state: PageState = {
      dateFrom: '2026-11-15',
      dateTo: '2026-11-22',
      limit: 250,
      offset: 0,
      skip: 0,
      requester: 'U0ALICE',
      ...WHERE,
    };
    const shown: number[] = [];
    const windows: { start: number; end: number }[] = [];
    let measured = { blocks: 0, text: 0, json: 0, longestSection: 0 };
    for (let guard = 0; guard < 20; guard++) {
      const m = buildReportMessage({ signer: TEST_SIGNER, state, page: apiPage });
      const size = assertWithinSlackLimits(m);
      measured = {
        blocks: Math.max(measured.blocks, size.blocks),
        text: Math.max(measured.text, size.text),
        json: Math.max(measured.json, size.json),
        longestSection: Math.max(measured.longestSection, size.longestSection),
      };
      windows.push(m.window);
      for (let i = m.window.start; i < m.window.end; i++) shown.push(i);
      const lines = rowLines(m);
      expect(lines).toHaveLength(m.window.end - m.window.start);
      lines.forEach((l, k) =>
        expect(l.startsWith(`/guides/section-${String(m.window.start + k).padStart(4, '0')}`)).toBe(true),
      );
      const next = buttonState(m, PAGE_ACTIONS.next);
      expect(next).toBeDefined();
      if (next!.offset !== state.offset) {
        expect(next).toMatchObject({ offset: 250, skip: 0, limit: 250, requester: 'U0ALICE' });
        break;
      }
      expect(JSON.stringify(m.blocks)).toContain('continue on *Next*');
      state = next!;
    }
    expect(shown).toEqual(rows.map((_, i) => i));
    expect(windows.length).toBeGreaterThan(1);
    expect(windows.length).toBe(planWindows(rows).length);
    expect(measured.blocks).toBeLessThanOrEqual(12);
    console.log(
      `250 rows × 200-char paths: ${windows.length} windows; largest: ${measured.blocks} blocks, ${measured.text} chars of text, ${measured.json} bytes of JSON, longest section ${measured.longestSection} chars`,
    );

    // And back: Previous from the next API page's first window lands on this page's last window, then walks back.
    let back: PageState = { ...state, offset: 250, skip: 0 };
    const nextPage = page(longRows(10, 250), false);
    const first = buildReportMessage({ signer: TEST_SIGNER, state: back, page: nextPage });
    expect(first.blocks.some((b) => JSON.stringify(b).includes('Rows 251–260 of 260'))).toBe(true);
    expect(buttonState(first, PAGE_ACTIONS.next)).toBeUndefined();
    back = buttonState(first, PAGE_ACTIONS.previous)!;
    expect(back).toMatchObject({ offset: 0, skip: -1 });
    const seenBack: { start: number; end: number }[] = [];
    for (let guard = 0; guard < 20; guard++) {
      const m = buildReportMessage({ signer: TEST_SIGNER, state: back, page: apiPage });
      seenBack.push(m.window);
      const prev = buttonState(m, PAGE_ACTIONS.previous);
      if (!prev) break;
      back = prev;
    }
    expect(seenBack).toEqual([...windows].reverse());
  });

  it('a normal page of 50 rows is one message with right-aligned numbers and a page indicator', () => {
    const rows: Row[] = Array.from({ length: 50 }, (_, i) => ({
      path: `/docs/page-${i}`,
      human: 10 ** (i % 6),
      ai: i,
      total: 10 ** (i % 6) + i,
    }));
    const m = buildReportMessage({
      signer: TEST_SIGNER,
      state: { dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 50, skip: 0, ...WHERE },
      page: page(rows, true),
    });
    assertWithinSlackLimits(m);
    expect(m.window).toEqual({ start: 0, end: 50 });
    const json = JSON.stringify(m.blocks);
    expect(json).toContain('Docs visitors · Nov 15 – Nov 21, 2026');
    expect(json).toContain('*Rows 51–100*');
    expect(json).toContain('*Human*\\n123,456');
    expect(json).toContain('*Total (deduplicated)*\\n150,000');
    expect(json).toContain('*AI share*\\n30.5%');
    const lines = rowLines(m);
    expect(lines).toHaveLength(50);
    const width = lines[0]!.length;
    for (const l of lines) expect(l.length).toBe(width);
    expect(lines[5]).toMatch(/\/docs\/page-5\s+100,000\s+5\s+100,005$/);
    expect(buttonState(m, PAGE_ACTIONS.previous)).toMatchObject({ offset: 0, skip: -1 });
    expect(buttonState(m, PAGE_ACTIONS.next)).toMatchObject({ offset: 100, skip: 0 });
    expect(m.text).toBe(
      'Docs visitors, Nov 15 – Nov 21, 2026: 150,000 visitors (123,456 human, 45,678 AI) · rows 51–100',
    );
  });

  it('Previous only when offset > 0, Next only while hasMore; the last page says how many rows there are', () => {
    const rows: Row[] = [{ path: '/a', human: 1, ai: 1, total: 2 }];
    const only = buildReportMessage({
      signer: TEST_SIGNER,
      state: { dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 0, skip: 0, ...WHERE },
      page: page(rows, false),
    });
    expect(only.blocks.some((b) => b.type === 'actions')).toBe(false);
    expect(JSON.stringify(only.blocks)).toContain('*Rows 1–1 of 1*');
    const last = buildReportMessage({
      signer: TEST_SIGNER,
      state: { dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 100, skip: 0, ...WHERE },
      page: page(rows, false),
    });
    expect(buttonState(last, PAGE_ACTIONS.next)).toBeUndefined();
    expect(buttonState(last, PAGE_ACTIONS.previous)).toMatchObject({ offset: 50 });
    expect(JSON.stringify(last.blocks)).toContain('*Rows 101–101 of 101*');
  });

  it("Previous and Next keep the report's docs project (a channel on another project than the default)", () => {
    const rows: Row[] = Array.from({ length: 10 }, (_, i) => ({ path: `/p${i}`, human: 10 - i, ai: 0, total: 10 - i }));
    const state: PageState = {
      dateFrom: '2026-11-15',
      dateTo: '2026-11-22',
      limit: 10,
      offset: 10,
      skip: 0,
      channel: 'C0DOCS',
      projectId: 'docs-v2',
    };
    const m = buildReportMessage({ signer: TEST_SIGNER, state, page: page(rows, true), showProject: true });
    expect(buttonState(m, PAGE_ACTIONS.next)).toMatchObject({ offset: 20, projectId: 'docs-v2' });
    expect(buttonState(m, PAGE_ACTIONS.previous)).toMatchObject({ offset: 0, projectId: 'docs-v2' });
  });

  it('views beside unique visitors: a column and a total; a page the views did not cover shows –', () => {
    const rows: Row[] = [
      { path: '/a', human: 10, ai: 2, total: 11 },
      { path: '/b', human: 5, ai: 0, total: 5 },
    ];
    const state: PageState = { dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 0, skip: 0, ...WHERE };
    const views = { ok: true as const, byPath: new Map([['/a', 1234]]), totals: { human: 2000, ai: 500, total: 2500 } };
    const m = buildReportMessage({ signer: TEST_SIGNER, state, page: page(rows, false), views });
    expect(JSON.stringify(m.blocks)).toContain('Page  Human  AI  Total  Views');
    expect(rowLines(m)).toEqual(['/a       10   2     11  1,234', '/b        5   0      5      –']);
    expect(JSON.stringify(m.blocks)).toContain('*Views*\\n2,500 (2,000 human, 500 AI)');
    const without = buildReportMessage({
      signer: TEST_SIGNER,
      state,
      page: page(rows, false),
      views: { ok: false, reason: 'The docs service failed; try again in a minute.' },
    });
    expect(rowLines(without)[0]).toBe('/a       10   2     11');
    expect(JSON.stringify(without.blocks)).toContain(
      'Views not shown: The docs service failed; try again in a minute.',
    );
  });

  it('escapes paths and keeps backticks from ending the code block', () => {
    const rows: Row[] = [{ path: '/a<b>&`c`', human: 1, ai: 0, total: 1 }];
    const m = buildReportMessage({
      signer: TEST_SIGNER,
      state: { dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 0, skip: 0, ...WHERE },
      page: page(rows, false),
    });
    const [line] = rowLines(m);
    expect(line).toContain('/a&lt;b&gt;&amp;ˋcˋ');
  });

  it('an empty range and a page past the end say so', () => {
    const empty = buildReportMessage({
      signer: TEST_SIGNER,
      state: { dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 0, skip: 0, ...WHERE },
      page: { totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false },
    });
    expect(JSON.stringify(empty.blocks)).toContain('No visitors were recorded in this range.');
    expect(JSON.stringify(empty.blocks)).toContain('*AI share*\\n–');
    const past = buildReportMessage({
      signer: TEST_SIGNER,
      state: { dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 200, skip: 0, ...WHERE },
      page: page([], false),
    });
    expect(JSON.stringify(past.blocks)).toContain('There are no more rows here');
    expect(buttonState(past, PAGE_ACTIONS.previous)).toMatchObject({ offset: 150 });
  });

  it('mentions the budget once 60 or more requests were used this hour', () => {
    const state: PageState = { dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 0, skip: 0, ...WHERE };
    expect(
      JSON.stringify(buildReportMessage({ signer: TEST_SIGNER, state, page: page([], false), budgetUsed: 59 }).blocks),
    ).not.toContain('analytics requests used');
    expect(
      JSON.stringify(buildReportMessage({ signer: TEST_SIGNER, state, page: page([], false), budgetUsed: 72 }).blocks),
    ).toContain('72 of 100 analytics requests used this hour');
  });
});
