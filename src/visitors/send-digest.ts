import type { WebClient } from '@slack/web-api';
import type { Deps } from '../deps.js';
import type { DigestJobData } from '../queues/digest-queue.js';
import { CANNOT_POST, slackErrorCode } from '../slack/slack-errors.js';
import { digestRanges, formatRange, type DateRange } from './date-range.js';
import { buildDigestFailureMessage, buildDigestMessage, DIGEST_EVENT_TYPE, type DigestTrigger } from './digest-blocks.js';
import { renderDigestChart } from './digest-chart.js';
import { buildDigestContent, type DigestContent, type WeekOfVisitors } from './digest-content.js';
import { visitorsErrorText } from './error-text.js';
import { LIMIT_MAX } from './query.js';
import { visitorsServices, type VisitorsDeps, type VisitorsServices } from './report-service.js';
import { describeSchedule } from './schedule.js';
import { getSubscription } from './subscriptions.js';
import type { VisitorsCache } from './visitors-cache.js';

/**
 * One digest delivery: fetch two weeks (through the shared cache, so every channel of the same
 * run shares the API calls), build the message, post it once, then upload the chart into its thread.
 */

/** API pages fetched per week at most (250 rows each): 1000 pages compared; a cap on budget use. */
export const MAX_DIGEST_API_PAGES = 4;
/** How long a run's delivery record is kept, in seconds (a week). */
const DELIVERY_RECORD_TTL_S = 7 * 24 * 3600;
/** Lease of a delivery in progress, in seconds: another attempt may take over after it lapses. */
const DELIVERY_LEASE_S = 60;

/**
 * Every page of visitors for `range` (API pages of 250, at most {@link MAX_DIGEST_API_PAGES}),
 * through the cache with the digest budget.
 * @throws {AnalyticsBudgetError} or {DocsApiError} subclasses, as VisitorsCache.get.
 */
export async function fetchWeek(cache: VisitorsCache, range: DateRange): Promise<WeekOfVisitors> {
  const rows: WeekOfVisitors['rows'] = [];
  let totals: WeekOfVisitors['totals'] = { human: 0, ai: 0, total: 0 };
  for (let i = 0; i < MAX_DIGEST_API_PAGES; i++) {
    const { page } = await cache.get({ ...range, limit: LIMIT_MAX, offset: i * LIMIT_MAX }, 'digest');
    if (i === 0) totals = page.totals;
    rows.push(...page.visitors);
    if (!page.hasMore) return { range, totals, rows, truncated: false };
  }
  return { range, totals, rows, truncated: true };
}

/**
 * The digest content for the week before `nowMs` (epoch ms) in time zone `zone`: the last 7 full
 * days against the 7 before. Two API calls for a docs site of up to 250 pages, shared by every
 * channel asking within 10 minutes.
 */
export async function loadDigestContent(svc: VisitorsServices, nowMs: number, zone: string): Promise<DigestContent> {
  const ranges = digestRanges(nowMs, zone);
  const current = await fetchWeek(svc.cache, ranges.current);
  const previous = await fetchWeek(svc.cache, ranges.previous);
  return buildDigestContent(current, previous);
}

/** What a digest run reads: the visitors deps plus the digest queue (for the schedule in words). */
export type DigestDeps = VisitorsDeps & Pick<Deps, 'digestQueue'>;

/** A digest run as the worker sees it. */
export interface DigestRun {
  /** Unique per run (the BullMQ job id): the "posted once" record is keyed by it. */
  runKey: string;
  data: DigestJobData;
  /** True on the job's last attempt: a failure is then announced in the channel with Retry. */
  finalAttempt: boolean;
  /** Clock, epoch ms. */
  nowMs: number;
}

/** What a run did. */
export type DigestOutcome =
  | { status: 'posted'; ts: string; chart: 'uploaded' | 'failed' }
  | { status: 'already_posted'; ts?: string; chart?: 'uploaded' | 'failed' }
  | { status: 'cannot_post'; error: string };

/**
 * Delivers one digest. Exactly once per run: a `SET NX` record keyed by `runKey` under
 * `${QUEUE_PREFIX}:visitors:digest-run:` guards the post, so a retry or a second replica never posts
 * twice; a retry after the post only finishes the chart. The chart is best effort: if rendering or
 * files.uploadV2 fails, the text digest (already posted, complete on its own) stays and the run
 * still succeeds.
 *
 * @throws API and budget errors before anything was posted (BullMQ retries the job); on the final
 *   attempt the channel first gets a short notice with a Retry button.
 */
export async function runDigest(deps: DigestDeps, slack: WebClient, run: DigestRun): Promise<DigestOutcome> {
  const svc = visitorsServices(deps);
  const log = svc.logger.child({ digestRun: run.runKey, channel: run.data.channel });
  const zone = run.data.tz ?? deps.config.DIGEST_TZ;
  const recordKey = `${deps.config.QUEUE_PREFIX}:visitors:digest-run:${run.runKey}`;

  const existing = await deps.redis.get(recordKey);
  if (existing?.startsWith('posted:') || existing?.startsWith('done:')) {
    const [state, ts = ''] = existing.split(':');
    if (state === 'posted' && ts) {
      const chart = await uploadChartSafely(slack, svc, run, zone, ts, log);
      await deps.redis.set(recordKey, `done:${ts}`, 'EX', DELIVERY_RECORD_TTL_S);
      return { status: 'already_posted', ts, chart };
    }
    return { status: 'already_posted', ts };
  }

  let content: DigestContent;
  try {
    content = await loadDigestContent(svc, run.nowMs, zone);
  } catch (err) {
    if (run.finalAttempt) await announceFailure(deps, slack, run, zone, err, log);
    throw err;
  }

  const trigger: DigestTrigger =
    run.data.trigger === 'manual'
      ? { kind: 'manual', requestedBy: run.data.requestedBy }
      : { kind: 'scheduled', scheduleText: await scheduleText(deps, run.data) };
  const message = buildDigestMessage(content, trigger);

  if (!(await deps.redis.set(recordKey, 'posting', 'EX', DELIVERY_LEASE_S, 'NX'))) {
    // Another attempt holds the lease: if it posts, the next attempt finds "posted"; if it died,
    // the lease lapses first. Either way, try again later rather than risk a second post.
    throw new Error('another attempt is delivering this digest; will look again');
  }
  let ts: string;
  try {
    const posted = await slack.chat.postMessage({
      channel: run.data.channel,
      text: message.text,
      blocks: message.blocks,
      unfurl_links: false,
      unfurl_media: false,
      metadata: { event_type: DIGEST_EVENT_TYPE, event_payload: { run: run.runKey, week_from: content.current.dateFrom, week_to: content.current.dateTo } },
    });
    ts = String(posted.ts);
  } catch (err) {
    await deps.redis.del(recordKey);
    const code = slackErrorCode(err);
    if (code && CANNOT_POST.has(code)) {
      log.warn({ slackError: code }, 'cannot post the digest in this channel; skipping this run');
      if (run.data.trigger === 'manual') {
        // The person who asked gets told why nothing appeared (a DM: the bot can't post in the channel).
        await slack.chat
          .postMessage({ channel: run.data.requestedBy, text: `I couldn't post the docs digest in <#${run.data.channel}>: invite me with \`/invite @Docs Agent\` there, then try again.` })
          .catch(() => undefined);
      }
      return { status: 'cannot_post', error: code };
    }
    if (run.finalAttempt) await announceFailure(deps, slack, run, zone, err, log);
    throw err;
  }
  await deps.redis.set(recordKey, `posted:${ts}`, 'EX', DELIVERY_RECORD_TTL_S);
  log.info({ ts }, 'digest posted');

  const chart = await uploadChart(slack, run, content, ts, log);
  await deps.redis.set(recordKey, `done:${ts}`, 'EX', DELIVERY_RECORD_TTL_S);
  return { status: 'posted', ts, chart };
}

async function scheduleText(deps: DigestDeps, data: DigestJobData): Promise<string | undefined> {
  try {
    const sub = await getSubscription(deps.digestQueue, data.teamId, data.channel);
    return sub ? describeSchedule(sub.schedule) : undefined;
  } catch {
    return undefined;
  }
}

async function uploadChartSafely(
  slack: WebClient,
  svc: VisitorsServices,
  run: DigestRun,
  zone: string,
  ts: string,
  log: VisitorsServices['logger'],
): Promise<'uploaded' | 'failed'> {
  try {
    const content = await loadDigestContent(svc, run.nowMs, zone);
    return await uploadChart(slack, run, content, ts, log);
  } catch (err) {
    log.warn({ err: { message: (err as Error).message } }, 'could not finish the chart of a posted digest');
    return 'failed';
  }
}

/**
 * Renders the chart and uploads it into the digest's thread with files.uploadV2 (scope
 * `files:write`). Never throws: a failure is logged and reported as `failed`.
 */
async function uploadChart(
  slack: WebClient,
  run: DigestRun,
  content: DigestContent,
  threadTs: string,
  log: VisitorsServices['logger'],
): Promise<'uploaded' | 'failed'> {
  if (content.top.length === 0) return 'failed';
  const week = formatRange(content.current);
  try {
    const png = await renderDigestChart(
      content.top.map((p) => ({ path: p.path, human: p.current.human, ai: p.current.ai })),
      `Top pages, ${week}: human vs AI visitors`,
    );
    await slack.files.uploadV2({
      channel_id: run.data.channel,
      thread_ts: threadTs,
      file: png,
      filename: `docs-visitors-${content.current.dateFrom}.png`,
      title: `Top ${content.top.length} pages, ${week}: human vs AI`,
      alt_text: `Bar chart of the ${content.top.length} most visited docs pages, ${week}, human and AI visitors side by side`,
    });
    return 'uploaded';
  } catch (err) {
    log.warn({ slackError: slackErrorCode(err), err: { message: (err as Error).message } }, 'chart upload failed; the text digest stands on its own');
    return 'failed';
  }
}

async function announceFailure(deps: DigestDeps, slack: WebClient, run: DigestRun, zone: string, err: unknown, log: VisitorsServices['logger']): Promise<void> {
  const key = `${deps.config.QUEUE_PREFIX}:visitors:digest-failed:${run.runKey}`;
  if (!(await deps.redis.set(key, '1', 'EX', DELIVERY_RECORD_TTL_S, 'NX'))) return;
  const week = formatRange(digestRanges(run.nowMs, zone).current);
  const message = buildDigestFailureMessage(visitorsErrorText(err), week);
  await slack.chat
    .postMessage({ channel: run.data.channel, text: message.text, blocks: message.blocks, unfurl_links: false })
    .catch((e: unknown) => log.warn({ slackError: slackErrorCode(e) }, 'could not announce the failed digest'));
}
