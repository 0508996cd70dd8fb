import type { SearchRow } from '../../../platform/docs-api/analytics-schemas.js';
import { FEEDBACK_PAGES_LIMIT, SEARCHES_LIMIT } from '../signals/views.js';
import {
  groupQuestions,
  isUnclicked,
  questionKey,
  pagesByThumbsDown,
  type PageFeedback,
  type QuestionGroup,
} from '../signals/group.js';
import { percentChange } from '../format.js';
import { readComments, readUnanswered } from '../signals/data.js';
import { readFeedbackByPage, readSearches, type QueryCaller } from '../queries.js';
import { type AnalyticsCache } from '../store.js';
import { type DateRange } from '../date-range.js';
import { digestPartFailureText } from './part-failure.js';
import type { DigestSection } from './sections.js';

/**
 * The digest's "What readers couldn't find" (the searches nobody clicked through, the pages with the
 * most 👎, the unanswered questions that recur), read through the shared analytics cache with the
 * digest's budget: searches 1 call, feedback 2 (the counts by page, and the comments), questions 1
 * (both weeks in one page of conversations, so the week-over-week change costs nothing more). With
 * the two weeks of visitors, a digest with every section makes at most 6 analytics calls (sites of
 * up to 250 pages). A section the API fails is left out with a line saying why; the others still go.
 */

/** Items listed per part. */
export const READER_ITEMS = 5;

/** An unanswered question this week, and how often it was asked the week before. */
export interface RecurringQuestion {
  group: QuestionGroup;
  /** Times asked the week before; null when that week was not read to the end (a change would mislead). */
  lastWeek: number | null;
  /** Percent change from last week (null: no base or not known). */
  pct: number | null;
}

/** A question asked through the bot that the docs did not answer, how often, and in which channels (Slack ids). */
export interface SlackQuestion {
  question: string;
  count: number;
  channels: string[];
}

/**
 * The questions asked through the bot from `fromMs` up to `toMs` (epoch ms) whose answer found no
 * page, got 👎 or went to the docs team, that the digest of workspace `teamId` in `channel` may show
 * (its own channel's, and its workspace's public channels' unless it is shared with another
 * organization), grouped when they recur, at most `limit`, most asked first (the ask feature's log,
 * kept 8 days). @throws the Redis error.
 */
export type SlackQuestions = (
  where: { teamId: string; channel: string },
  fromMs: number,
  toMs: number,
  limit: number,
) => Promise<SlackQuestion[]>;

/** What the section shows; a part is undefined when the channel did not choose it. */
export interface ReaderSignals {
  unclicked?: SearchRow[];
  thumbsDown?: PageFeedback[];
  questions?: RecurringQuestion[];
  /** Asked in Slack, not answered by the docs (with the questions part, where asking is set up). */
  slack?: SlackQuestion[];
  /** Parts the API failed, with the reason for people. */
  failures: { section: Exclude<DigestSection, 'visitors'> | 'slack'; text: string; error: unknown }[];
}

type Range = DateRange;

async function unclicked(cache: AnalyticsCache, week: Range, who: QueryCaller): Promise<SearchRow[]> {
  const got = await readSearches(cache, { ...week, limit: SEARCHES_LIMIT }, who);
  return got.page.searches.filter(isUnclicked).slice(0, READER_ITEMS);
}

async function thumbsDown(cache: AnalyticsCache, week: Range, who: QueryCaller): Promise<PageFeedback[]> {
  const byPage = await readFeedbackByPage(cache, { ...week, limit: FEEDBACK_PAGES_LIMIT }, who);
  const comments = await readComments(cache, week, who);
  return pagesByThumbsDown(byPage.page.feedback, comments.page.comments).slice(0, READER_ITEMS);
}

/**
 * The questions asked at least twice this week (most first), each with last week's count: one page
 * of conversations over both weeks, split by each turn's timestamp.
 */
async function recurring(
  cache: AnalyticsCache,
  weeks: { current: Range; previous: Range },
  who: QueryCaller,
): Promise<RecurringQuestion[]> {
  const got = await readUnanswered(cache, { dateFrom: weeks.previous.dateFrom, dateTo: weeks.current.dateTo }, who);
  const start = Date.parse(`${weeks.current.dateFrom}T00:00:00Z`);
  const thisWeek = got.page.turns.filter((t) => Date.parse(t.timestamp) >= start);
  const before = new Map<string, number>();
  for (const t of got.page.turns) {
    if (Date.parse(t.timestamp) >= start) continue;
    const key = questionKey(t.query);
    before.set(key, (before.get(key) ?? 0) + 1);
  }
  const complete = got.page.nextCursor === null;
  return groupQuestions(thisWeek)
    .filter((g) => g.count > 1)
    .slice(0, READER_ITEMS)
    .map((group) => {
      const lastWeek = complete ? (before.get(questionKey(group.question)) ?? 0) : null;
      return { group, lastWeek, pct: lastWeek === null ? null : percentChange(group.count, lastWeek) };
    });
}

/**
 * The reader signals of the digest's week (`current`, compared with `previous` where the API allows)
 * for the chosen `sections`. Never throws for API or budget failures: a failed part is listed in
 * `failures` (with the digest's sentence: {@link digestPartFailureText}) and the others still come.
 */
export async function loadReaderSignals(
  cache: AnalyticsCache,
  weeks: { current: Range; previous: Range },
  who: QueryCaller,
  sections: readonly DigestSection[],
): Promise<ReaderSignals> {
  const out: ReaderSignals = { failures: [] };
  const attempt = async <T>(
    section: Exclude<DigestSection, 'visitors'>,
    load: () => Promise<T>,
  ): Promise<T | undefined> => {
    if (!sections.includes(section)) return undefined;
    try {
      return await load();
    } catch (err) {
      out.failures.push({ section, text: digestPartFailureText(err), error: err });
      return undefined;
    }
  };
  const searches = await attempt('searches', () => unclicked(cache, weeks.current, who));
  if (searches) out.unclicked = searches;
  const pages = await attempt('feedback', () => thumbsDown(cache, weeks.current, who));
  if (pages) out.thumbsDown = pages;
  const questions = await attempt('questions', () => recurring(cache, weeks, who));
  if (questions) out.questions = questions;
  return out;
}

/** True when the section has nothing to show (no item, no failure): it is left out. */
export function readersEmpty(r: ReaderSignals): boolean {
  return (
    !r.unclicked?.length && !r.thumbsDown?.length && !r.questions?.length && !r.slack?.length && r.failures.length === 0
  );
}
