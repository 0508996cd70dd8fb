import type { WebClient } from '@slack/web-api';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DocsApiClient } from '../../platform/docs-api/client.js';
import { docsApiErrorText } from '../../platform/docs-api/error-text.js';
import { DocsApiError, DocsApiNotFoundError } from '../../platform/docs-api/errors.js';
import type { Logger } from '../../platform/logger.js';
import { CANNOT_POST, slackErrorCode } from '../../platform/slack/errors.js';
import { buildStatusMessage } from './blocks.js';
import type { PollJobData } from './poll.js';
import type { StatusPresenter } from './presenter.js';
import { withJobLock, type JobRecord, type JobStore } from './store.js';
import { watchAgentJob } from './worker.js';

/** What starting a job needs. */
export interface StartJobDeps {
  store: Pick<JobStore, 'create' | 'markThreadsPending' | 'clearPendingThreads'>;
  docsApi: Pick<DocsApiClient, 'createJob'>;
  /** Posts, edits and deletes the status message. */
  slack: { chat: Pick<WebClient['chat'], 'postMessage' | 'update' | 'delete'> };
  pollQueue: Pick<Queue<PollJobData>, 'add'>;
  status: Pick<StatusPresenter, 'show'>;
  logger: Logger;
  /** POLL_MIN_INTERVAL_MS: delay of the first poll, in ms. */
  firstPollDelayMs: number;
  /** Clock in epoch ms. */
  now: () => number;
}

/** What a follow-up needs. */
export interface ContinueJobDeps {
  store: Pick<JobStore, 'get' | 'beginCycle'>;
  /** Redis and QUEUE_PREFIX, for the per-job lock that keeps replicas from interleaving follow-ups. */
  redis: Redis;
  prefix: string;
  docsApi: Pick<DocsApiClient, 'sendMessage'>;
  pollQueue: Pick<Queue<PollJobData>, 'add'>;
  status: Pick<StatusPresenter, 'show'>;
  logger: Logger;
  /** FOLLOWUP_POLICY: `anyone` in the channel, or only the `requester`. */
  policy: 'anyone' | 'requester';
  firstPollDelayMs: number;
  now: () => number;
}

/** A request to start a job from Slack. */
export interface StartJobRequest {
  teamId: string;
  channel: string;
  requester: string;
  /** Already trimmed and non-empty. */
  instruction: string;
  /** Post the status message in this thread (mentions, DMs); default: a new top-level message. */
  threadTs?: string;
  /**
   * Put the state reaction on the status message rather than the thread root: for threads the job
   * does not own (a digest's thread can hold several jobs).
   */
  reactOnStatusMessage?: boolean;
}

/** Outcome of {@link startAgentJob}; on failure, `message` is the sentence to show the person. */
export type StartJobResult =
  | { ok: true; jobId: string; statusTs: string; threadTs: string }
  | { ok: false; reason: 'cannot_post' | 'docs_api' | 'slack' | 'internal'; message: string };

/** Sentence for a channel the bot cannot post in (not a member, archived, …). */
export const CANNOT_POST_TEXT =
  "I can't post in this channel yet. Invite me with `/invite @Docs Agent`, then run the command again. Nothing was started.";

/**
 * Starts an agent job from Slack: posts the status message first (so a channel the bot cannot
 * post in costs no job), marks its thread as "starting" (replies meanwhile are answered, not
 * lost), creates the job (`POST /v2/agent/{projectId}/job`), records it in Redis and starts its
 * poller. If creation fails, the placeholder is removed and nothing is recorded; if recording
 * fails after the job was created, the status message says so with the job id.
 *
 * @returns a result; never throws for Slack, docs API or Redis failures.
 */
export async function startAgentJob(deps: StartJobDeps, req: StartJobRequest): Promise<StartJobResult> {
  const log = deps.logger.child({ channel: req.channel, requester: req.requester });
  const placeholder = buildStatusMessage({ requester: req.requester, instruction: req.instruction, state: 'starting', elapsedMs: 0 });
  let statusTs: string;
  try {
    const posted = await deps.slack.chat.postMessage({ channel: req.channel, thread_ts: req.threadTs, text: placeholder.text, blocks: placeholder.blocks, unfurl_links: false });
    statusTs = String(posted.ts);
  } catch (err) {
    const code = slackErrorCode(err);
    log.warn({ err, slackError: code }, 'could not post the status message');
    if (code && CANNOT_POST.has(code)) return { ok: false, reason: 'cannot_post', message: CANNOT_POST_TEXT };
    return { ok: false, reason: 'slack', message: 'Slack would not take my message; nothing was started. Try again in a moment.' };
  }
  const threadTs = req.threadTs ?? statusTs;
  const threads = [...new Set([threadTs, statusTs])];

  let jobId: string;
  try {
    await deps.store.markThreadsPending(req.channel, threads);
    jobId = (await deps.docsApi.createJob(req.instruction)).id;
  } catch (err) {
    log.warn({ err }, 'could not create the agent job');
    await deps.store.clearPendingThreads(req.channel, threads).catch(() => undefined);
    await deps.slack.chat.delete({ channel: req.channel, ts: statusTs }).catch(() => undefined);
    const message =
      err instanceof DocsApiError && err.code === 'network_error'
        ? "The docs service did not answer in time, so I can't tell whether the job started. Check the docs platform's agent jobs before you try again."
        : `Nothing was started. ${docsApiErrorText(err)}`;
    return { ok: false, reason: 'docs_api', message };
  }

  const now = deps.now();
  const rec = newJobRecord(req, { jobId, threadTs, statusTs, now });
  try {
    await deps.store.create(rec);
    await watchAgentJob(deps.pollQueue, jobId, 0, deps.firstPollDelayMs);
  } catch (err) {
    // The job runs at the vendor, but we cannot watch it: say so where people look, with its id.
    log.error({ jobId, err }, 'created a job but could not record it');
    const note = `:warning: Job \`${jobId}\` started, but I could not keep track of it, so I won't report its end here. Look for its pull request on the docs platform.`;
    const failed = buildStatusMessage({ requester: req.requester, instruction: req.instruction, jobId, state: 'start_failed', elapsedMs: 0, note });
    await deps.slack.chat.update({ channel: req.channel, ts: statusTs, text: failed.text, blocks: failed.blocks }).catch(() => undefined);
    return {
      ok: false,
      reason: 'internal',
      message: `Job \`${jobId}\` started, but I could not keep track of it (a storage problem on my side), so I won't report when it ends. Tell the admin if this keeps happening.`,
    };
  }
  await deps.status.show(jobId);
  log.info({ jobId }, 'started an agent job');
  return { ok: true, jobId, statusTs, threadTs };
}

/** The record of a job just created at the vendor: active, cycle 0, no PR yet. */
function newJobRecord(req: StartJobRequest, p: { jobId: string; threadTs: string; statusTs: string; now: number }): JobRecord {
  return {
    jobId: p.jobId,
    teamId: req.teamId,
    channel: req.channel,
    threadTs: p.threadTs,
    statusTs: p.statusTs,
    requester: req.requester,
    instruction: req.instruction,
    createdAt: p.now,
    cycle: 0,
    cycleRequester: req.requester,
    cycleStartedAt: p.now,
    state: 'active',
    prLink: null,
    endedAt: 0,
    note: '',
    reaction: '',
    permalink: '',
    reactionTs: req.reactOnStatusMessage ? p.statusTs : p.threadTs,
    alsoMention: '',
  };
}

/** Outcome of {@link continueAgentJob}; on failure `message` is the sentence for the person. */
export type ContinueJobResult =
  | { ok: true; rec: JobRecord; cycle: number; interrupted: boolean }
  | { ok: false; reason: 'unknown_job' | 'not_allowed' | 'docs_api' | 'internal'; message: string };

/** Sentence for a job id the bot does not know (no record, or the API's 404). */
export function unknownJobText(jobId: string): string {
  return `There is no job \`${jobId}\` that I know of. Job ids are shown on each job's status message (like \`job_abc123\`); you can also reply in the job's thread instead.`;
}

/** A follow-up: who sends what to which job, and (for `/docs-reply`) from which channel. */
export interface ContinueJobRequest {
  jobId: string;
  author: string;
  /** Plain text, non-empty (Slack markup already converted). */
  prompt: string;
  /** Where a `/docs-reply` was typed: it must be the job's own channel. */
  fromChannel?: string;
}

/**
 * Sends a follow-up instruction to an existing job (`POST /v2/agent/{projectId}/job/{id}/message`),
 * then starts a new cycle: the status message shows the job working again (saying so when the
 * follow-up interrupted a run still active), and a poller watches this cycle, whose end is
 * announced mentioning `author`. Follow-ups to one job are sent one at a time across replicas (a
 * Redis lock per job).
 *
 * @returns a result; never throws for docs API, Slack or Redis failures.
 */
export async function continueAgentJob(deps: ContinueJobDeps, req: ContinueJobRequest): Promise<ContinueJobResult> {
  try {
    const rec = await deps.store.get(req.jobId);
    if (!rec) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
    if (req.fromChannel !== undefined && req.fromChannel !== rec.channel) {
      // Only people in the job's conversation may continue it (a private channel's job stays there).
      const message = `Job \`${req.jobId}\` belongs to another conversation. Run \`/docs-reply\` there, or reply in the job's thread.`;
      return { ok: false, reason: 'not_allowed', message };
    }
    return await withJobLock(deps.redis, deps.prefix, req.jobId, () => sendFollowUp(deps, req));
  } catch (err) {
    deps.logger.warn({ jobId: req.jobId, err }, 'follow-up failed');
    return { ok: false, reason: 'internal', message: 'Your follow-up was not sent: I could not reach my storage. Try again in a moment.' };
  }
}

async function sendFollowUp(deps: ContinueJobDeps, req: ContinueJobRequest): Promise<ContinueJobResult> {
  const log = deps.logger.child({ jobId: req.jobId, author: req.author });
  const rec = await deps.store.get(req.jobId);
  if (!rec) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
  if (deps.policy === 'requester' && req.author !== rec.requester) {
    const message = `Only <@${rec.requester}>, who started this job, can continue it (this workspace's follow-up policy is "requester"). Ask them, or start your own job with \`/docs-edit\`.`;
    return { ok: false, reason: 'not_allowed', message };
  }
  const interrupted = rec.state === 'active';
  try {
    await deps.docsApi.sendMessage(req.jobId, req.prompt);
  } catch (err) {
    if (err instanceof DocsApiNotFoundError) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
    log.warn({ err }, 'could not send the follow-up');
    return { ok: false, reason: 'docs_api', message: `Your follow-up was not sent. ${docsApiErrorText(err)}` };
  }
  const note = interrupted ? `:leftwards_arrow_with_hook: <@${req.author}> sent a follow-up while the agent was working; it interrupts the current run.` : '';
  // An interrupted follow-up never ends on its own: its author hears about the run that replaced it.
  const alsoMention = interrupted ? [...new Set([rec.cycleRequester, ...rec.alsoMention.split(',')])].filter((u) => u && u !== req.author).join(',') : '';
  let cycle: number | undefined;
  try {
    cycle = await deps.store.beginCycle(req.jobId, req.author, deps.now(), note, alsoMention);
    if (cycle !== undefined) await watchAgentJob(deps.pollQueue, req.jobId, cycle, deps.firstPollDelayMs);
  } catch (err) {
    log.error({ err }, 'sent a follow-up but could not record it');
    const message = 'Your follow-up was sent to the agent, but I could not keep track of it (a storage problem on my side), so I may not announce when it ends.';
    return { ok: false, reason: 'internal', message };
  }
  if (cycle === undefined) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
  void deps.status.show(req.jobId);
  log.info({ cycle, interrupted }, 'sent a follow-up');
  return { ok: true, rec, cycle, interrupted };
}

/**
 * Permalink of the job's thread root (Slack: chat.getPermalink), fetched once and kept in the record.
 * @returns the link, or undefined when Slack would not give one (never throws).
 */
export async function threadPermalink(
  slack: { chat: Pick<WebClient['chat'], 'getPermalink'> },
  store: Pick<JobStore, 'update'>,
  rec: JobRecord,
): Promise<string | undefined> {
  if (rec.permalink) return rec.permalink;
  try {
    const res = await slack.chat.getPermalink({ channel: rec.channel, message_ts: rec.threadTs });
    if (!res.permalink) return undefined;
    await store.update(rec.jobId, { permalink: res.permalink });
    return res.permalink;
  } catch {
    return undefined;
  }
}
