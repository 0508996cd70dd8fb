import type { WorkspaceAccess } from '../../../platform/workspace-access.js';
import type { WebClient } from '@slack/web-api';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../../platform/logger.js';
import { CANNOT_POST, cannotPostHereText, slackErrorCode } from '../../../platform/slack/errors.js';
import { respondVia } from '../../../platform/slack/respond.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { digestRanges, formatRange } from '../date-range.js';
import { analyticsErrorText } from '../error-text.js';
import { visitorsKeyPrefix, type ReportServices } from '../service.js';
import { buildDigest, DIGEST_EVENT_TYPE, type DigestParts, type DigestTrigger } from './blocks.js';
import { buildDigestFailureMessage } from './retry.js';
import { renderDigestChart } from './chart.js';
import type { DigestContent } from './content.js';
import { digestCaller, loadDigestContent, loadDigestParts, type RunScope } from './load.js';
import type { SlackQuestions } from './reader-content.js';
import { describeSchedule } from '../../../platform/calendar.js';
import { sectionsOf } from './sections.js';
import { getSubscription, type DigestJobData } from './store.js';

/**
 * One digest delivery: read its sections (load.ts, through the shared analytics cache, so every
 * channel of the same run shares the API calls), build the message, post it once, then upload the
 * chart into its thread.
 */

/** How long a run's delivery record is kept, in seconds (a week). */
const DELIVERY_RECORD_TTL_S = 7 * 24 * 3600;
/** Lease of a delivery in progress, in seconds: another attempt may take over after it lapses. */
const DELIVERY_LEASE_S = 60;

/** What a digest run needs. */
export interface DigestDeps {
  visitors: Pick<ReportServices, 'cache'>;
  /** The state Redis (delivery records) and QUEUE_PREFIX. */
  redis: Pick<Redis, 'get' | 'set' | 'del'>;
  prefix: string;
  /** The digest queue: the channel's schedule, in words, for the footer. */
  digestQueue: Pick<Queue<DigestJobData>, 'getJobScheduler'>;
  slack: { chat: Pick<WebClient['chat'], 'postMessage'>; files: Pick<WebClient['files'], 'uploadV2'> };
  /** DIGEST_TZ: the time zone of a run whose data names none. */
  defaultTz: string;
  /** The docs project of a channel (the settings feature), read when each run starts. @throws the Redis error. */
  projectFor: (channel: string) => Promise<string>;
  /** Signs the "Improve with agent" and Retry buttons' values. */
  signer: Pick<ValueSigner, 'sign'>;
  /** The workspaces an org-wide install was removed from: their digests pause. */
  workspaces?: Pick<WorkspaceAccess, 'removed'>;
  /** The questions asked through the bot that the docs did not answer (absent: asking is off). */
  slackQuestions?: SlackQuestions;
  logger: Logger;
}

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

/** What became of a digest's chart. */
export type ChartOutcome = 'uploaded' | 'failed' | 'none';

/** What a run did. */
export type DigestOutcome =
  /** `chart`: `none` when the channel does not get the visitors section (the chart is part of it). */
  | { status: 'posted'; ts: string; chart: ChartOutcome }
  | { status: 'already_posted'; ts?: string; chart?: ChartOutcome }
  | { status: 'cannot_post'; error: string }
  /** The org-wide install was removed from the channel's workspace: not posted, the schedule kept. */
  | { status: 'workspace_removed' }
  /** OAuth mode: the workspace's (or org's) installation is gone (uninstalled): not posted, the schedule kept. */
  | { status: 'not_installed' };

/** A run in progress: its deps, zone, delivery record key and logger. */
interface RunContext {
  deps: DigestDeps;
  run: DigestRun;
  zone: string;
  recordKey: string;
  log: Logger;
  /** The channel's docs project when the run started. */
  projectId: string;
}

/**
 * Delivers one digest. Exactly once per run: a `SET NX` record keyed by `runKey` under
 * `${QUEUE_PREFIX}:visitors:digest-run:` guards the post, so a retry or a second replica never posts
 * twice; a retry after the post only finishes the chart. The chart is best effort: if rendering or
 * files.uploadV2 fails, the text digest (already posted, complete on its own) stays and the run
 * still succeeds.
 *
 * A run for a workspace the org-wide install was removed from posts nothing (`workspace_removed`;
 * the schedule stays, so a workspace added again gets its digests again).
 * @throws API and budget errors before anything was posted (BullMQ retries the job); on the final
 *   attempt the channel first gets a short notice with a Retry button.
 */
export async function runDigest(deps: DigestDeps, run: DigestRun): Promise<DigestOutcome> {
  if (await deps.workspaces?.removed(run.data.teamId)) return { status: 'workspace_removed' };
  const ctx: RunContext = {
    deps,
    run,
    zone: run.data.tz ?? deps.defaultTz,
    recordKey: `${visitorsKeyPrefix(deps.prefix)}:digest-run:${run.runKey}`,
    log: deps.logger.child({ digestRun: run.runKey, channel: run.data.channel }),
    projectId: await deps.projectFor(run.data.channel),
  };
  const existing = await deps.redis.get(ctx.recordKey);
  if (existing?.startsWith('posted:') || existing?.startsWith('done:')) return resume(ctx, existing);

  let content: DigestParts;
  try {
    content = await loadDigestParts(deps.visitors, runScope(ctx), deps.slackQuestions);
  } catch (err) {
    if (run.finalAttempt) await announceFailure(ctx, err);
    throw err;
  }
  const trigger = await triggerOf(deps, run.data);
  if (!(await deps.redis.set(ctx.recordKey, 'posting', 'EX', DELIVERY_LEASE_S, 'NX'))) {
    // Another attempt holds the lease: if it posts, the next attempt finds "posted"; if it died,
    // the lease lapses first. Either way, try again later rather than risk a second post.
    throw new Error('another attempt is delivering this digest; will look again');
  }
  const posted = await post(ctx, content, trigger);
  if (posted.status !== 'posted') return posted;
  const chart = content.visitors ? await uploadChart(ctx, content.visitors, posted.ts) : 'none';
  await deps.redis.set(ctx.recordKey, `done:${posted.ts}`, 'EX', DELIVERY_RECORD_TTL_S);
  return { status: 'posted', ts: posted.ts, chart };
}

/** What a run reads: its week, zone, project, channel and the sections it sends. */
function runScope(ctx: RunContext): RunScope {
  const { run } = ctx;
  const sections = sectionsOf(run.data.sections);
  const manual = run.data.trigger === 'manual' ? { requestedBy: run.data.requestedBy } : {};
  const { teamId, channel } = run.data;
  return { nowMs: run.nowMs, zone: ctx.zone, projectId: ctx.projectId, teamId, channel, sections, ...manual };
}

/** A run whose digest was posted already: finish the chart if a crash cut it short. */
async function resume(ctx: RunContext, record: string): Promise<DigestOutcome> {
  const [state, ts = ''] = record.split(':');
  if (state !== 'posted' || !ts) return { status: 'already_posted', ts };
  let chart: ChartOutcome = 'none';
  if (sectionsOf(ctx.run.data.sections).includes('visitors')) {
    try {
      const content = await loadDigestContent(ctx.deps.visitors, ctx.run.nowMs, ctx.zone, digestCaller(runScope(ctx)));
      chart = await uploadChart(ctx, content, ts);
    } catch (err) {
      chart = 'failed';
      ctx.log.warn({ err }, 'could not finish the chart of a posted digest');
    }
  }
  await ctx.deps.redis.set(ctx.recordKey, `done:${ts}`, 'EX', DELIVERY_RECORD_TTL_S);
  return { status: 'already_posted', ts, chart };
}

/** Posts the digest (holding the run's lease) and records it as posted. */
async function post(
  ctx: RunContext,
  content: DigestParts,
  trigger: DigestTrigger,
): Promise<{ status: 'posted'; ts: string } | DigestOutcome> {
  const { deps, run, log } = ctx;
  const message = buildDigest(content, trigger, deps.signer);
  let ts: string;
  try {
    const week = content.week.current;
    const metadata = {
      event_type: DIGEST_EVENT_TYPE,
      event_payload: { run: run.runKey, week_from: week.dateFrom, week_to: week.dateTo },
    };
    const posted = await deps.slack.chat.postMessage({
      channel: run.data.channel,
      text: message.text,
      blocks: message.blocks,
      unfurl_links: false,
      unfurl_media: false,
      metadata,
    });
    ts = String(posted.ts);
  } catch (err) {
    await deps.redis.del(ctx.recordKey);
    const code = slackErrorCode(err);
    if (code && CANNOT_POST.has(code)) {
      log.warn({ slackError: code }, 'cannot post the digest in this channel; skipping this run');
      if (run.data.trigger === 'manual') await tellCannotPost(ctx, code);
      return { status: 'cannot_post', error: code };
    }
    if (run.finalAttempt) await announceFailure(ctx, err);
    throw err;
  }
  await deps.redis.set(ctx.recordKey, `posted:${ts}`, 'EX', DELIVERY_RECORD_TTL_S);
  log.info({ ts }, 'digest posted');
  return { status: 'posted', ts };
}

/** Why a manual digest could not be posted, and what to do, for the DM that names the channel (chat.postMessage errors). */
function digestDmReason(code: string): string {
  if (code === 'is_archived') return 'it is archived. Ask for the digest in another channel.';
  if (code === 'restricted_action')
    return "a workspace setting doesn't let me post there. Ask for the digest in another channel.";
  return 'invite me with `/invite @Docs Agent` there, then try again.';
}

/**
 * A manual digest the bot could not post: the person who asked hears why, privately (through the
 * command's response_url, with the same answer as /docs-edit; else in a DM).
 */
async function tellCannotPost(ctx: RunContext, code: string): Promise<void> {
  const { deps, run } = ctx;
  const tell = run.data.responseUrl
    ? respondVia(run.data.responseUrl)({
        response_type: 'ephemeral',
        replace_original: false,
        text: `${cannotPostHereText(code)} No digest was sent.`,
      })
    : deps.slack.chat.postMessage({
        channel: run.data.requestedBy,
        text: `I couldn't post the docs digest in <#${run.data.channel}>: ${digestDmReason(code)}`,
      });
  await Promise.resolve(tell).catch((err: unknown) =>
    ctx.log.warn({ err }, 'could not tell why the digest was not posted'),
  );
}

/**
 * The footer's trigger: a scheduled run names its schedule, a manual one says whether the channel
 * has a weekly digest. A subscription that cannot be read leaves that out (the footer says less).
 */
async function triggerOf(deps: DigestDeps, data: DigestJobData): Promise<DigestTrigger> {
  let sub: Awaited<ReturnType<typeof getSubscription>> | null = null;
  try {
    sub = await getSubscription(deps.digestQueue, data.teamId, data.channel);
  } catch (err) {
    deps.logger.warn({ err }, "could not read the channel's digest subscription for the footer");
  }
  if (data.trigger === 'manual') {
    return {
      kind: 'manual',
      requestedBy: data.requestedBy,
      ...(sub === null ? {} : { subscribed: sub !== undefined }),
    };
  }
  return { kind: 'scheduled', ...(sub ? { scheduleText: describeSchedule(sub.schedule) } : {}) };
}

/**
 * Renders the chart and uploads it into the digest's thread with files.uploadV2 (scope
 * `files:write`). Never throws: a failure is logged and reported as `failed`.
 */
async function uploadChart(ctx: RunContext, content: DigestContent, threadTs: string): Promise<'uploaded' | 'failed'> {
  if (content.top.length === 0) return 'failed';
  const week = formatRange(content.current);
  try {
    const png = await renderDigestChart(
      content.top.map((p) => ({ path: p.path, human: p.current.human, ai: p.current.ai })),
      `Top pages, ${week}: human vs AI visitors`,
    );
    await ctx.deps.slack.files.uploadV2({
      channel_id: ctx.run.data.channel,
      thread_ts: threadTs,
      file: png,
      filename: `docs-visitors-${content.current.dateFrom}.png`,
      title: `Top ${content.top.length} pages, ${week}: human vs AI`,
      alt_text: `Bar chart of the ${content.top.length} most visited docs pages, ${week}, human and AI visitors side by side`,
    });
    return 'uploaded';
  } catch (err) {
    ctx.log.warn({ err, slackError: slackErrorCode(err) }, 'chart upload failed; the text digest stands on its own');
    return 'failed';
  }
}

async function announceFailure(ctx: RunContext, err: unknown): Promise<void> {
  const { deps, run, log } = ctx;
  const key = `${visitorsKeyPrefix(deps.prefix)}:digest-failed:${run.runKey}`;
  if (!(await deps.redis.set(key, '1', 'EX', DELIVERY_RECORD_TTL_S, 'NX'))) return;
  const week = formatRange(digestRanges(run.nowMs, ctx.zone).current);
  const where = { teamId: run.data.teamId, channel: run.data.channel };
  const message = buildDigestFailureMessage(analyticsErrorText(err), week, { value: where, signer: deps.signer });
  await deps.slack.chat
    .postMessage({ channel: run.data.channel, text: message.text, blocks: message.blocks, unfurl_links: false })
    .catch((e: unknown) => log.warn({ err: e, slackError: slackErrorCode(e) }, 'could not announce the failed digest'));
}
