import type { FeedbackByPageRow, SearchRow } from '../../../platform/docs-api/analytics-schemas.js';
import { docsPathOf } from '../safe-path.js';
import type { Comment, UnansweredTurn } from './data.js';

/**
 * The reader signals as the reports and the digest rank them (pure): searches nobody clicked
 * through, pages by 👎 with their comments, and unanswered questions grouped when they recur.
 */

/** Comments shown or passed on per page. */
const COMMENTS_PER_PAGE = 3;

/** Fewest searches of a term for "Searched often, nothing clicked": one search is not often. */
const UNCLICKED_MIN_HITS = 2;

/**
 * A term searched often that the docs answered with nothing anyone clicked (spec: `ctr` 0 and no
 * `topClickedPage`; at least {@link UNCLICKED_MIN_HITS} `hits`). The API orders terms by `hits`.
 */
export function isUnclicked(row: SearchRow): boolean {
  return row.hits >= UNCLICKED_MIN_HITS && row.ctr === 0 && row.topClickedPage === null;
}

/** A comment as shown: repeated word for word by `times` readers (counted once, the newest kept). */
export type ShownComment = Comment & { times: number };

/** A docs page with its ratings and its latest comments. */
export interface PageFeedback {
  path: string;
  thumbsDown: number;
  thumbsUp: number;
  /** Code snippet feedback entries. */
  code: number;
  /** All feedback entries of the page. */
  total: number;
  /** Its latest critical comments (at most {@link COMMENTS_PER_PAGE}), newest first. */
  comments: ShownComment[];
}

/**
 * Pages that got at least one 👎, most 👎 first (then most feedback, then path: feedback/by-page has
 * no order of its own, spec), each with its latest critical comments from `comments` (newest first):
 * those left with a 👎, on a code snippet or by an agent (praise left with a 👍 says nothing to fix),
 * the same words counted once. A comment's page and a row's are compared as docs paths
 * ({@link docsPathOf}): the spec gives `FeedbackResponse.feedback[].path` as "the path or URL to the
 * source document", so `https://docs.acme.test/a` and `/a` are one page.
 */
export function pagesByThumbsDown(rows: readonly FeedbackByPageRow[], comments: readonly Comment[]): PageFeedback[] {
  const byPath = new Map<string, ShownComment[]>();
  const key = (path: string) => docsPathOf(path) ?? path;
  for (const c of comments) {
    if (c.helpful === true) continue;
    const list = byPath.get(key(c.path)) ?? [];
    const same = list.find((x) => x.text.trim().toLowerCase() === c.text.trim().toLowerCase());
    if (same) same.times += 1;
    else if (list.length < COMMENTS_PER_PAGE) list.push({ ...c, times: 1 });
    byPath.set(key(c.path), list);
  }
  return rows
    .filter((r) => r.thumbsDown > 0)
    .sort(
      (a, b) => b.thumbsDown - a.thumbsDown || b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
    )
    .map((r) => ({ ...r, comments: byPath.get(key(r.path)) ?? [] }));
}

/** One question readers asked the assistant, maybe in several wordings, that it could not answer. */
export interface QuestionGroup {
  /** The wording asked most often (the latest on a tie): untrusted reader text. */
  question: string;
  /** Times asked in the turns grouped. */
  count: number;
  /** Different wordings seen. */
  wordings: number;
  /** ISO timestamp of the latest time it was asked. */
  lastAsked: string;
  /** The assistant's latest answer to it (its non-answer). */
  response: string;
  /** Pages readers asked from (full URLs from the API), most recent first, at most 3. */
  pageUrls: string[];
}

/**
 * The key two wordings of one question share: compatibility-normalized, lower case, punctuation and
 * symbols dropped, whitespace collapsed ("How do I set up SSO with Okta??" and "how do i set up sso
 * with okta" are one question).
 */
export function questionKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Turns grouped by {@link questionKey}: most asked first, then the most recently asked. */
export function groupQuestions(turns: readonly UnansweredTurn[]): QuestionGroup[] {
  const groups = new Map<string, { turns: UnansweredTurn[]; wordings: Map<string, number> }>();
  for (const t of turns) {
    const key = questionKey(t.query);
    if (!key) continue;
    const g = groups.get(key) ?? { turns: [], wordings: new Map<string, number>() };
    g.turns.push(t);
    g.wordings.set(t.query, (g.wordings.get(t.query) ?? 0) + 1);
    groups.set(key, g);
  }
  const out: QuestionGroup[] = [];
  for (const g of groups.values()) {
    const newest = [...g.turns].sort((a, b) => b.timestamp.localeCompare(a.timestamp));
    const latestOf = (w: string) => newest.findIndex((t) => t.query === w);
    const [question] = [...g.wordings.entries()].sort((a, b) => b[1] - a[1] || latestOf(a[0]) - latestOf(b[0]))[0]!;
    const pageUrls = [...new Set(newest.map((t) => t.pageUrl).filter((u): u is string => Boolean(u)))].slice(0, 3);
    const first = newest[0]!;
    out.push({
      question,
      count: g.turns.length,
      wordings: g.wordings.size,
      lastAsked: first.timestamp,
      response: first.response,
      pageUrls,
    });
  }
  return out.sort((a, b) => b.count - a.count || b.lastAsked.localeCompare(a.lastAsked));
}
