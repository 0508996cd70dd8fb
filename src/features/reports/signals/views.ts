import type { FeedbackByPageResponse, SearchesResponse } from '../../../platform/docs-api/analytics-schemas.js';
import { escapeReaderText } from '../../../platform/slack/markup.js';
import { countOf, formatCount, inlineReaderPath } from '../format.js';
import { docsPathOf, isSafeDocsPath } from '../safe-path.js';
import type { SignalPageView, SignalRow } from './blocks.js';
import { ASSISTANT_LIMIT, type CommentsPage, type UnansweredPage } from './data.js';
import { groupQuestions, isUnclicked, pagesByThumbsDown, type PageFeedback, type QuestionGroup } from './group.js';

/**
 * The three reports' pages as rows (pure): what each row says, with reader text escaped and cut
 * (escapeReaderText: no mention, link, unfurl or formatting survives), and which rows point at a gap.
 */

/** Search terms per API page (spec: `limit` 1–100 on GET …/searches). */
export const SEARCHES_LIMIT = 100;
/** Pages of the feedback aggregate read (spec: `limit` 1–100; no paging, no order). */
export const FEEDBACK_PAGES_LIMIT = 100;
/** Unclicked terms named in a report's summary line. */
const UNCLICKED_NAMED = 8;

/** `MMM d` (UTC) of an ISO timestamp, or '' when it does not parse. */
function shortDay(iso: string | null | undefined): string {
  const ms = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(ms)) return '';
  return new Date(ms).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** A path from the API as inline code: one line, escaped, backticks replaced, cut in the middle (`inlineReaderPath`). */
export function inlinePath(path: string, max = 70): string {
  return inlineReaderPath(path, max);
}

/** `ctr` as a percentage: the spec gives no unit; the vendor's dashboard shows a fraction. */
function ctrPercent(ctr: number): string {
  const pct = ctr <= 1 ? ctr * 100 : ctr;
  return `${pct.toFixed(pct > 0 && pct < 10 ? 1 : 0)}%`;
}

/** One API page of searches (`cursors` API pages before it, each full). */
export function searchesView(page: SearchesResponse, pagesBefore: number): SignalPageView {
  const before = pagesBefore * SEARCHES_LIMIT;
  const unclicked = page.searches.filter(isUnclicked);
  const rows: SignalRow[] = page.searches.map((r, i) => {
    const gap = isUnclicked(r);
    const where = gap
      ? ':warning: *nobody clicked a result*'
      : `${ctrPercent(r.ctr)} clicked, most often ${inlinePath(r.topClickedPage ?? '–', 50)}`;
    return {
      text: (max) => {
        const term = escapeReaderText(r.searchQuery, Math.min(200, max - 120));
        return `*${before + i + 1}.* ${term} · ${countOf(r.hits, 'search', 'searches')} · ${where}`;
      },
      improve: gap ? { kind: 'search', term: r.searchQuery, hits: r.hits } : undefined,
    };
  });
  const named = unclicked
    .slice(0, UNCLICKED_NAMED)
    .map((r) => `${escapeReaderText(r.searchQuery, 60)} (${formatCount(r.hits)})`);
  const more = unclicked.length > named.length ? ` · and ${unclicked.length - named.length} more` : '';
  const notes =
    unclicked.length > 0
      ? [
          `*Searched often, nothing clicked* (${unclicked.length} of these ${page.searches.length} terms): ` +
            `${named.join(' · ')}${more}`,
        ]
      : [];
  return {
    report: 'searches',
    title: 'Docs searches',
    fields: [
      `*Searches*\n${formatCount(page.totalSearches)}`,
      `*Nothing clicked*\n${unclicked.length} of the top ${page.searches.length} terms`,
    ],
    about:
      'terms by how often they were searched · ' +
      'a term searched often with no result clicked is a gap: *Improve with agent*',
    rows,
    empty: 'Nobody searched the docs in this range.',
    nextCursor: page.nextCursor,
    rowsBefore: before,
    notes,
  };
}

function feedbackRow(p: PageFeedback, rank: number): SignalRow {
  const docsPath = docsPathOf(p.path);
  const safe = docsPath !== undefined && isSafeDocsPath(docsPath);
  return {
    text: (max) => {
      const head = `*${rank}.* ${inlinePath(p.path)} · 👎 ${formatCount(p.thumbsDown)} · 👍 ${formatCount(p.thumbsUp)}`;
      const note = safe ? '' : '  _(unusual characters in the path: not offered to the agent)_';
      const each = Math.max(
        60,
        Math.min(200, Math.floor((max - head.length - note.length) / Math.max(1, p.comments.length)) - 20),
      );
      const times = (n: number) => (n > 1 ? ` (${n} readers)` : '');
      const comments = p.comments.map((c) =>
        `\n> “${escapeReaderText(c.text, each)}”${times(c.times)} ${shortDay(c.createdAt)}`.trimEnd(),
      );
      return head + note + comments.join('');
    },
    improve:
      safe && docsPath
        ? {
            kind: 'feedback',
            path: docsPath,
            thumbsDown: p.thumbsDown,
            thumbsUp: p.thumbsUp,
            comments: p.comments.map((c) => c.text),
          }
        : undefined,
  };
}

/** The feedback report: pages by 👎 (the aggregate, one API answer) with their latest comments. */
export function feedbackView(byPage: FeedbackByPageResponse, comments: CommentsPage): SignalPageView {
  const pages = pagesByThumbsDown(byPage.feedback, comments.comments);
  const sum = (pick: (r: FeedbackByPageResponse['feedback'][number]) => number) =>
    byPage.feedback.reduce((n, r) => n + pick(r), 0);
  const notes: string[] = [];
  if (byPage.hasMore)
    notes.push(`Ranked among the ${byPage.feedback.length} pages the docs API returned (it has no paging here).`);
  if (comments.hasMore)
    notes.push(`Comments: the latest among the first ${comments.scanned} feedback entries of the range.`);
  const others = byPage.feedback.length - pages.length;
  return {
    report: 'feedback',
    title: 'Docs feedback',
    fields: [
      `*👎*\n${formatCount(sum((r) => r.thumbsDown))}`,
      `*👍*\n${formatCount(sum((r) => r.thumbsUp))}`,
      `*Pages with 👎*\n${formatCount(pages.length)} of ${formatCount(byPage.feedback.length)} with feedback`,
      `*Comments*\n${formatCount(comments.comments.length)}`,
    ],
    about: "pages by 👎, most first, with their latest comments (readers' words, shown as plain text)",
    rows: pages.map((p, i) => feedbackRow(p, i + 1)),
    empty:
      others > 0
        ? `No page got a 👎 in this range (${others} got 👍 or code feedback only).`
        : 'Nobody left feedback in this range.',
    nextCursor: null,
    rowsBefore: 0,
    notes,
  };
}

function questionRow(g: QuestionGroup, rank: number): SignalRow {
  const pageUrl = g.pageUrls[0];
  return {
    text: (max) => {
      const wordings = g.wordings > 1 ? ` in ${g.wordings} wordings` : '';
      const asked = `asked ${formatCount(g.count)}×${wordings} · last ${shortDay(g.lastAsked)}`;
      const room = Math.max(80, max - asked.length - 40);
      const question = escapeReaderText(g.question, Math.min(300, Math.floor(room * 0.6)));
      const answer = escapeReaderText(g.response, Math.max(40, Math.min(200, room - question.length)));
      const from = pageUrl ? ` · from ${inlinePath(docsPathOf(pageUrl) ?? pageUrl, 50)}` : '';
      return `*${rank}.* “${question}” · ${asked}${from}\n_Assistant:_ ${answer}`;
    },
    improve: { kind: 'question', question: g.question, count: g.count, response: g.response, pageUrl },
  };
}

/** One API page of assistant conversations: the unanswered ones, grouped. */
export function questionsView(page: UnansweredPage, batch: number): SignalPageView {
  const groups = groupQuestions(page.turns);
  const recurring = groups.filter((g) => g.count > 1).length;
  const notes: string[] = [];
  const paged = batch > 0 || page.nextCursor !== null;
  const first = batch * ASSISTANT_LIMIT + 1;
  if (paged) {
    const next = page.nextCursor !== null ? ' *Next* goes on with the following ones.' : '';
    notes.push(`Grouped within one page of ${formatCount(page.scanned)} conversations from the docs API.${next}`);
  }
  return {
    report: 'questions',
    title: 'Unanswered questions',
    fields: [
      `*Unanswered*\n${formatCount(page.turns.length)} of ${formatCount(page.scanned)} questions`,
      `*Different questions*\n${formatCount(groups.length)}`,
      `*Asked more than once*\n${formatCount(recurring)}`,
    ],
    about:
      'questions the docs assistant could not answer, most asked first ' +
      '(other wordings of one question counted together)',
    rows: groups.map((g, i) => questionRow(g, i + 1)),
    empty:
      page.scanned === 0
        ? 'Nobody asked the docs assistant anything in this range.'
        : 'The docs assistant answered every question in this range.',
    nextCursor: page.nextCursor,
    rowsBefore: paged ? undefined : 0,
    batch: paged ? `conversations ${formatCount(first)}–${formatCount(first + page.scanned - 1)}` : undefined,
    notes,
  };
}
