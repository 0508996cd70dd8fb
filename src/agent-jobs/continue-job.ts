import type { Queue } from 'bullmq';
import type { Deps } from '../deps.js';
import type { DocsApiClient } from '../docs-api/client.js';
import { DocsApiNotFoundError } from '../docs-api/errors.js';
import type { Logger } from '../logger.js';
import { watchAgentJob, type PollJobData } from '../queues/poll-queue.js';
import { docsApiErrorText } from '../slack/error-text.js';
import type { Redis } from 'ioredis';
import { withJobLock } from '../store/job-lock.js';
import type { JobRecord, JobStore } from '../store/job-store.js';
import type { StatusPresenter } from './status-presenter.js';

/** What a follow-up needs. */
export interface ContinueJobDeps {
  store: JobStore;
  /** Redis and QUEUE_PREFIX, for the per-job lock that keeps replicas from interleaving follow-ups. */
  redis: Redis;
  prefix: string;
  docsApi: Pick<DocsApiClient, 'sendMessage'>;
  pollQueue: Queue<PollJobData>;
  status: Pick<StatusPresenter, 'show'>;
  logger: Logger;
  /** FOLLOWUP_POLICY: `anyone` in the channel, or only the `requester`. */
  policy: 'anyone' | 'requester';
  firstPollDelayMs: number;
  now: () => number;
}

/** The {@link ContinueJobDeps} from the shared deps. */
export function continueJobDeps(deps: Deps): ContinueJobDeps {
  return {
    store: deps.store,
    redis: deps.redis,
    prefix: deps.config.QUEUE_PREFIX,
    docsApi: deps.docsApi,
    pollQueue: deps.pollQueue,
    status: deps.status,
    logger: deps.logger,
    policy: deps.config.FOLLOWUP_POLICY,
    firstPollDelayMs: deps.config.POLL_MIN_INTERVAL_MS,
    now: deps.now,
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

/**
 * Sends a follow-up instruction to an existing job (`POST /v2/agent/{projectId}/job/{id}/message`),
 * then starts a new cycle: the status message shows the job working again (saying so when the
 * follow-up interrupted a run still active), and a poller watches this cycle, whose end is
 * announced mentioning `author`.
 *
 * Follow-ups to one job are sent one at a time across replicas (a Redis lock per job).
 *
 * @param req.prompt - plain text, non-empty (Slack markup already converted).
 * @param req.fromChannel - where a `/docs-reply` was typed: it must be the job's own channel.
 * @returns a result; never throws for docs API, Slack or Redis failures.
 */
export async function continueAgentJob(
  deps: ContinueJobDeps,
  req: { jobId: string; author: string; prompt: string; fromChannel?: string },
): Promise<ContinueJobResult> {
  const rec = await deps.store.get(req.jobId);
  if (!rec) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
  if (req.fromChannel !== undefined && req.fromChannel !== rec.channel) {
    // Only people in the job's conversation may continue it (a private channel's job stays there).
    return {
      ok: false,
      reason: 'not_allowed',
      message: `Job \`${req.jobId}\` belongs to another conversation. Run \`/docs-reply\` there, or reply in the job's thread.`,
    };
  }
  try {
    return await withJobLock(deps.redis, deps.prefix, req.jobId, () => sendFollowUp(deps, req));
  } catch (err) {
    deps.logger.warn({ jobId: req.jobId, err: { message: (err as Error).message } }, 'follow-up failed');
    return { ok: false, reason: 'docs_api', message: 'Your follow-up was not sent: I could not reach my storage. Try again in a moment.' };
  }
}

async function sendFollowUp(deps: ContinueJobDeps, req: { jobId: string; author: string; prompt: string }): Promise<ContinueJobResult> {
  const log = deps.logger.child({ jobId: req.jobId, author: req.author });
  const rec = await deps.store.get(req.jobId);
  if (!rec) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
  if (deps.policy === 'requester' && req.author !== rec.requester) {
    return {
      ok: false,
      reason: 'not_allowed',
      message: `Only <@${rec.requester}>, who started this job, can continue it (this workspace's follow-up policy is "requester"). Ask them, or start your own job with \`/docs-edit\`.`,
    };
  }
  const interrupted = rec.state === 'active';
  try {
    await deps.docsApi.sendMessage(req.jobId, req.prompt);
  } catch (err) {
    if (err instanceof DocsApiNotFoundError) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
    log.warn({ err: { name: (err as Error).name, message: (err as Error).message } }, 'could not send the follow-up');
    return { ok: false, reason: 'docs_api', message: `Your follow-up was not sent. ${docsApiErrorText(err)}` };
  }
  const note = interrupted
    ? `:leftwards_arrow_with_hook: <@${req.author}> sent a follow-up while the agent was working; it interrupts the current run.`
    : '';
  // An interrupted follow-up never ends on its own: its author hears about the run that replaced it.
  const alsoMention = interrupted
    ? [...new Set([rec.cycleRequester, ...rec.alsoMention.split(',')])].filter((u) => u && u !== req.author).join(',')
    : '';
  let cycle: number | undefined;
  try {
    cycle = await deps.store.beginCycle(req.jobId, req.author, deps.now(), note, alsoMention);
    if (cycle !== undefined) await watchAgentJob(deps.pollQueue, req.jobId, cycle, deps.firstPollDelayMs);
  } catch (err) {
    log.error({ err: { name: (err as Error).name, message: (err as Error).message } }, 'sent a follow-up but could not record it');
    return {
      ok: false,
      reason: 'internal',
      message: "Your follow-up was sent to the agent, but I could not keep track of it (a storage problem on my side), so I may not announce when it ends.",
    };
  }
  if (cycle === undefined) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
  void deps.status.show(req.jobId);
  log.info({ cycle, interrupted }, 'sent a follow-up');
  return { ok: true, rec, cycle, interrupted };
}
