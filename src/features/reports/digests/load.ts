import { tz } from '@date-fns/tz';
import { parseISO } from 'date-fns/parseISO';
import { digestRanges, type DateRange } from '../date-range.js';
import { LIMIT_MAX } from '../query.js';
import { type AnalyticsCache } from '../store.js';
import { type QueryCaller } from '../queries.js';
import { type ReportServices } from '../service.js';
import type { DigestParts } from './blocks.js';
import { buildDigestContent, type DigestContent, type WeekOfVisitors } from './content.js';
import { loadReaderSignals, READER_ITEMS, type SlackQuestions } from './reader-content.js';
import { digestPartFailureText } from './part-failure.js';
import type { DigestSection } from './sections.js';

/**
 * What a digest run reads, through the shared analytics cache: two weeks of visitors, and the parts
 * of "What readers couldn't find" the channel gets. A scheduled run spends the digests' budget (it
 * may use the reserve up to DIGEST_CEILING); a digest on request (`/docs-visitors digest`, Retry)
 * is paid like a report: the interactive budget and the hourly share of the person who asked.
 */

/** Who pays for a run's calls (cache misses): see the module's comment. */
export function digestCaller(run: Pick<RunScope, 'projectId' | 'requestedBy'>): QueryCaller {
  return run.requestedBy
    ? { purpose: 'interactive', projectId: run.projectId, user: run.requestedBy }
    : { purpose: 'digest', projectId: run.projectId };
}

/** API pages fetched per week at most (250 rows each): 1000 pages compared; a cap on budget use. */
const MAX_DIGEST_API_PAGES = 4;
/**
 * Every page of visitors of docs project `who.projectId` for `range` (API pages of 250, at most
 * {@link MAX_DIGEST_API_PAGES}), through the cache, paid by `who` (default: the digests' budget).
 * @throws {AnalyticsBudgetError} or {DocsApiError} subclasses, as AnalyticsCache.get.
 */
async function fetchWeek(
  cache: AnalyticsCache,
  range: DateRange,
  who: QueryCaller = { purpose: 'digest' },
): Promise<WeekOfVisitors> {
  const rows: WeekOfVisitors['rows'] = [];
  let totals: WeekOfVisitors['totals'] = { human: 0, ai: 0, total: 0 };
  for (let i = 0; i < MAX_DIGEST_API_PAGES; i++) {
    const q = { ...range, limit: LIMIT_MAX, offset: i * LIMIT_MAX };
    const { page } = await cache.get(q, who.purpose, who.projectId ?? cache.defaultProjectId, who.user);
    if (i === 0) totals = page.totals;
    rows.push(...page.visitors);
    if (!page.hasMore) return { range, totals, rows, truncated: false };
  }
  return { range, totals, rows, truncated: true };
}

/**
 * The digest content of docs project `who.projectId` (default DOCS_PROJECT_ID) for the week before
 * `nowMs` (epoch ms) in time zone `zone`: the last 7 full days against the 7 before. Two API calls
 * for a docs site of up to 250 pages, shared by every channel of that project asking within 10
 * minutes; paid by `who` (default: the digests' budget).
 */
export async function loadDigestContent(
  svc: Pick<ReportServices, 'cache'>,
  nowMs: number,
  zone: string,
  who: QueryCaller = { purpose: 'digest' },
): Promise<DigestContent> {
  const ranges = digestRanges(nowMs, zone);
  const current = await fetchWeek(svc.cache, ranges.current, who);
  const previous = await fetchWeek(svc.cache, ranges.previous, who);
  return buildDigestContent(current, previous);
}

/** What a run reads: its clock, zone, project, channel and the sections it sends. */
export interface RunScope {
  /** Epoch ms. */
  nowMs: number;
  zone: string;
  projectId?: string | undefined;
  /** The digest's workspace (its channel's "Asked in Slack" may show the workspace's public channels' questions). */
  teamId?: string | undefined;
  channel: string;
  sections: readonly DigestSection[];
  /** A digest on request: who asked (their hourly share pays, see {@link digestCaller}). */
  requestedBy?: string | undefined;
}

/**
 * The sections a run sends (the channel's choice, else all): the visitors section (its failures
 * throw, so the run is retried) and "What readers couldn't find" (a part the API fails is left out
 * with a line saying why), with the questions part "Asked in Slack, not answered by the docs" from
 * `slackQuestions` (those this channel may see, the digest's week; absent: asking is off; a failure
 * to read them is left out with a line saying why). At most 6 analytics
 * calls with every section, for sites of up to 250 pages.
 * @throws as {@link loadDigestContent}; when the visitors section is not chosen and every reader part
 *   failed, the first part's error.
 */
export async function loadDigestParts(
  svc: Pick<ReportServices, 'cache'>,
  run: RunScope,
  slackQuestions?: SlackQuestions,
): Promise<DigestParts> {
  const week = digestRanges(run.nowMs, run.zone);
  const withVisitors = run.sections.includes('visitors');
  const who = digestCaller(run);
  const visitors = withVisitors ? await loadDigestContent(svc, run.nowMs, run.zone, who) : undefined;
  const wanted = run.sections.filter((s) => s !== 'visitors');
  if (wanted.length === 0) return { week, visitors };
  const signals = await loadReaderSignals(svc.cache, week, who, run.sections);
  const apiFailures = signals.failures.length;
  if (slackQuestions && run.sections.includes('questions')) {
    // The digest's week (its days in its time zone, the last one excluded like the API's dateTo), what this channel may see.
    const at = (day: string) => parseISO(day, { in: tz(run.zone) }).getTime();
    const where = { teamId: run.teamId ?? '', channel: run.channel };
    try {
      signals.slack = await slackQuestions(where, at(week.current.dateFrom), at(week.current.dateTo), READER_ITEMS);
    } catch (err) {
      // Redis failing this part leaves it out with a line saying why, like a part the API fails.
      signals.failures.push({ section: 'slack', text: digestPartFailureText(err), error: err });
    }
  }
  const [first] = signals.failures;
  if (!visitors && first && apiFailures === wanted.length && !signals.slack?.length) throw first.error;
  return { week, visitors, readers: { signals, channel: run.channel, projectId: run.projectId } };
}
