import type { WebClient } from '@slack/web-api';
import type { Queue } from 'bullmq';
import type { Deps } from '../deps.js';
import type { DocsApiClient } from '../docs-api/client.js';
import { DocsApiError } from '../docs-api/errors.js';
import type { Logger } from '../logger.js';
import { docsApiErrorText } from '../slack/error-text.js';
import { CANNOT_POST, slackErrorCode } from '../slack/slack-errors.js';
import { buildStatusMessage } from '../slack/status-message.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import { watchAgentJob, type PollJobData } from '../queues/poll-queue.js';
import type { StatusPresenter } from './status-presenter.js';

/** What starting a job needs. */
export interface StartJobDeps {
  store: JobStore;
  docsApi: Pick<DocsApiClient, 'createJob'>;
  slack: WebClient;
  pollQueue: Queue<PollJobData>;
  status: Pick<StatusPresenter, 'show'>;
  logger: Logger;
  /** POLL_MIN_INTERVAL_MS: delay of the first poll. */
  firstPollDelayMs: number;
  now: () => number;
}

/** The {@link StartJobDeps} of a listener or worker: the shared deps plus its Slack client. */
export function startJobDeps(deps: Deps, slack: WebClient): StartJobDeps {
  return {
    store: deps.store,
    docsApi: deps.docsApi,
    slack,
    pollQueue: deps.pollQueue,
    status: deps.status,
    logger: deps.logger,
    firstPollDelayMs: deps.config.POLL_MIN_INTERVAL_MS,
    now: deps.now,
  };
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
  const placeholder = buildStatusMessage({
    requester: req.requester,
    instruction: req.instruction,
    state: 'starting',
    elapsedMs: 0,
  });
  let statusTs: string;
  try {
    const posted = await deps.slack.chat.postMessage({
      channel: req.channel,
      thread_ts: req.threadTs,
      text: placeholder.text,
      blocks: placeholder.blocks,
      unfurl_links: false,
    });
    statusTs = String(posted.ts);
  } catch (err) {
    const code = slackErrorCode(err);
    log.warn({ slackError: code }, 'could not post the status message');
    if (code && CANNOT_POST.has(code)) {
      return {
        ok: false,
        reason: 'cannot_post',
        message:
          "I can't post in this channel yet. Invite me with `/invite @Docs Agent`, then run the command again. Nothing was started.",
      };
    }
    return { ok: false, reason: 'slack', message: 'Slack would not take my message; nothing was started. Try again in a moment.' };
  }
  const threadTs = req.threadTs ?? statusTs;
  const threads = [...new Set([threadTs, statusTs])];

  let jobId: string;
  try {
    await deps.store.markThreadsPending(req.channel, threads);
    jobId = (await deps.docsApi.createJob(req.instruction)).id;
  } catch (err) {
    log.warn({ err: { name: (err as Error).name, message: (err as Error).message } }, 'could not create the agent job');
    await deps.store.clearPendingThreads(req.channel, threads).catch(() => undefined);
    await deps.slack.chat.delete({ channel: req.channel, ts: statusTs }).catch(() => undefined);
    const message =
      err instanceof DocsApiError && err.code === 'network_error'
        ? "The docs service did not answer in time, so I can't tell whether the job started. Check the docs platform's agent jobs before you try again."
        : `Nothing was started. ${docsApiErrorText(err)}`;
    return { ok: false, reason: 'docs_api', message };
  }

  const now = deps.now();
  const rec: JobRecord = {
    jobId,
    teamId: req.teamId,
    channel: req.channel,
    threadTs,
    statusTs,
    requester: req.requester,
    instruction: req.instruction,
    createdAt: now,
    cycle: 0,
    cycleRequester: req.requester,
    cycleStartedAt: now,
    state: 'active',
    prLink: null,
    endedAt: 0,
    note: '',
    reaction: '',
    permalink: '',
    reactionTs: req.reactOnStatusMessage ? statusTs : threadTs,
    alsoMention: '',
  };
  try {
    await deps.store.create(rec);
    await watchAgentJob(deps.pollQueue, jobId, 0, deps.firstPollDelayMs);
  } catch (err) {
    // The job runs at the vendor, but we cannot watch it: say so where people look, with its id.
    log.error({ jobId, err: { name: (err as Error).name, message: (err as Error).message } }, 'created a job but could not record it');
    const failed = buildStatusMessage({
      requester: req.requester,
      instruction: req.instruction,
      jobId,
      state: 'start_failed',
      elapsedMs: 0,
      note: `:warning: Job \`${jobId}\` started, but I could not keep track of it, so I won't report its end here. Look for its pull request on the docs platform.`,
    });
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
