import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DocsApiProjects } from '../../../platform/docs-api/client.js';
import type { AccessGate, AgentCall } from '../../../platform/access.js';
import { audit, type AuditReason } from '../../../platform/audit.js';
import { docsApiErrorText } from '../../../platform/docs-api/error-text.js';
import {
  DocsApiNetworkError,
  DocsApiNotFoundError,
  DocsApiRateLimitedError,
} from '../../../platform/docs-api/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { ConversationDirectory } from '../../../platform/slack/conversations.js';
import type { BotMetrics } from '../../../platform/metrics.js';
import type { AgentSurface } from '../../../platform/slack/agent-surface.js';
import { escapeMrkdwn, truncate } from '../../../platform/slack/limits.js';
import { UnreplicatedStepError } from '../../../platform/replica-guard.js';
import { confirmStep, memorySteps, type Steps } from '../../../platform/slack/post-once.js';
import pRetry from 'p-retry';
import type { PollJobData } from '../poll/step.js';
import type { StatusPresenter } from '../status/presenter.js';
import { withJobLock, type JobRecord, type JobStore } from '../store.js';
import { watchAgentJob } from '../poll/queue.js';

/** What a follow-up needs. */
export interface ContinueJobDeps {
  store: Pick<JobStore, 'get' | 'beginCycle'>;
  /** Redis and QUEUE_PREFIX, for the per-job lock that keeps replicas from interleaving follow-ups. */
  redis: Redis;
  prefix: string;
  /** Sends to the job's own project (kept in its record). */
  docsApi: DocsApiProjects<'sendMessage'>;
  pollQueue: Pick<Queue<PollJobData>, 'add'>;
  status: Pick<StatusPresenter, 'show'>;
  /** Who may continue a job here (asked before the follow-up's text is read), and the agent budget (before it is sent). */
  access: Pick<AccessGate, 'authorize' | 'admitAgentCall' | 'noteRateLimited'>;
  logger: Logger;
  /** Who may continue a job in a channel: `anyone`, or only the `requester` (the channel's settings, else FOLLOWUP_POLICY). @throws the Redis error. */
  policyFor: (channel: string) => Promise<'anyone' | 'requester'>;
  firstPollDelayMs: number;
  now: () => number;
  /** Counts follow-ups sent (optional). */
  metrics?: Pick<BotMetrics, 'agentJobStarted'>;
  /** Membership of the conversations a job's context came from; without it, such jobs take follow-ups from their requester only. */
  conversations?: Pick<ConversationDirectory, 'isMember'>;
  /** The job's agent session goes back to `processing` with each follow-up (optional; never throws). */
  agent?: Pick<AgentSurface, 'session'>;
}

/** Outcome of {@link continueAgentJob}; on failure `message` is the sentence for the person. */
export type ContinueJobResult =
  | { ok: true; rec: JobRecord; cycle: number; interrupted: boolean; prompt: string }
  | {
      ok: false;
      reason:
        'unknown_job' | 'not_allowed' | 'not_a_reader' | 'refused' | 'empty' | 'docs_api' | 'internal' | 'uncertain';
      message: string;
    };

/** Answer to a follow-up from someone outside a conversation the job's context came from. */
export const NOT_A_READER_TEXT =
  "This job carries context from a conversation you're not in, so only people in every conversation it read can continue it. Your follow-up was not sent. Ask the person who started it, or start your own job with `/docs-edit`.";

/** Answer when membership could not be checked (Slack failed or is busy, or the author is in too many conversations to read). */
export const READERS_CHECK_FAILED_TEXT =
  "This job carries context from other conversations, and I couldn't check that you're in all of them, so your follow-up was not sent. Try again in a moment, or ask the person who started it.";

/**
 * Whether `author` may see every conversation `rec`'s context came from besides the job's own
 * (its requester always may): undefined when so, else the refusal. Fails closed: an answer Slack
 * can't give refuses.
 */
async function readersRefusal(
  deps: ContinueJobDeps,
  rec: JobRecord,
  author: string,
): Promise<Extract<ContinueJobResult, { ok: false }> | undefined> {
  // The job's own conversation is not asked: every way to continue a job comes from inside it (a
  // reply or mention in its thread, /docs-reply there, the shortcut on its thread), so asking
  // would only spend Slack reads.
  const from = rec.contextFrom.split(',').filter((c) => c && c !== rec.channel);
  if (author === rec.requester || from.length === 0) return undefined;
  const refuse = (reason: AuditReason, message: string) => {
    audit(deps.logger, {
      actor: author,
      channel: rec.channel,
      action: 'continue_job',
      outcome: 'refused',
      reason,
      jobId: rec.jobId,
    });
    return { ok: false as const, reason: 'not_a_reader' as const, message };
  };
  if (!deps.conversations) return refuse('not_a_reader', NOT_A_READER_TEXT);
  for (const channel of from) {
    let member: boolean;
    try {
      member = await deps.conversations.isMember(channel, author);
    } catch (err) {
      deps.logger.warn(
        { err, channel, jobId: rec.jobId },
        "could not check a follow-up author's membership; refused (fail closed)",
      );
      return refuse('check_failed', READERS_CHECK_FAILED_TEXT);
    }
    if (!member) return refuse('not_a_reader', NOT_A_READER_TEXT);
  }
  return undefined;
}

/**
 * Sentence for a job id the bot does not know here: no record, the API's 404, or (for
 * `/docs-reply`) a job of another conversation — one answer whatever the reason, so the command
 * cannot tell anyone which ids exist elsewhere. The id is what the person typed, so it is escaped
 * and shortened: `<!channel>` stays text, never a mention.
 */
export function unknownJobText(jobId: string): string {
  return `There is no job \`${escapeMrkdwn(truncate(jobId.replace(/`/g, "'"), 80))}\` here that I know of. Job ids are shown on each job's status message (like \`job_abc123\`); run \`/docs-reply\` in the job's own conversation, or reply in its thread.`;
}

/** Sentence when the process died while a follow-up was being sent (the docs API can't be asked). */
export const UNCERTAIN_FOLLOWUP_TEXT =
  "I lost the answer to your follow-up (I was stopped, or the docs service did not answer in time), and the docs service can't tell me whether it arrived. If the job's status doesn't show it working again, send it again.";

/**
 * A follow-up was sent to the agent but Redis would not record it (its cycle, its watch): thrown
 * before the last try, so the intake tries again (the retry does not send it again).
 */
export class FollowUpUnrecordedError extends Error {
  constructor(options: { cause: unknown }) {
    super('sent a follow-up but could not record it', options);
    this.name = 'FollowUpUnrecordedError';
  }
}

/** Answer to a follow-up with nothing in it once the bot's mention is removed. */
export const EMPTY_FOLLOWUP_TEXT = 'That reply has no instruction in it, so I did not send it to the agent.';

/** A follow-up: who sends what to which job, and (for `/docs-reply`) from which channel. */
export interface ContinueJobRequest {
  jobId: string;
  author: string;
  /**
   * The instruction as plain text, or how to make it from the Slack markup (mentions → names costs
   * users.info calls): called only once the job is found and the author may continue it.
   */
  prompt: string | (() => Promise<string>);
  /** Where a `/docs-reply` was typed: it must be the job's own channel. */
  fromChannel?: string;
}

/**
 * Sends a follow-up instruction to an existing job (`POST /v2/agent/{projectId}/job/{id}/message`),
 * then starts a new cycle: the status message shows the job working again (saying so when the
 * follow-up interrupted a run still active), and a poller watches this cycle, whose end is
 * announced mentioning `author`. Follow-ups to one job are sent one at a time across replicas (a
 * Redis lock per job), in no promised order: the lock is not a queue. Resumable like a start: a
 * retry after a crash never sends twice, and says so when it cannot tell whether the message
 * arrived. The text is read (`req.prompt` called) only after the job is found, the request comes
 * from its conversation and the author passed the access policy: a refused person costs no
 * users.info call.
 *
 * @returns a result; never throws for docs API or Slack failures, nor for Redis failures before
 *   anything was sent.
 * @throws {@link FollowUpUnrecordedError} when it was sent but not recorded, and UnreplicatedStepError
 *   when its "sending" mark could not be confirmed (nothing sent), unless `steps.finalAttempt`: the
 *   intake tries again.
 */
export async function continueAgentJob(
  deps: ContinueJobDeps,
  req: ContinueJobRequest,
  steps: Steps = memorySteps(),
): Promise<ContinueJobResult> {
  try {
    const rec = await deps.store.get(req.jobId);
    if (!rec) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
    if (req.fromChannel !== undefined && req.fromChannel !== rec.channel) {
      // Only people in the job's conversation may continue it (a private channel's job stays there),
      // and the answer is the unknown id's: nobody learns that the id exists elsewhere.
      deps.logger.info(
        { jobId: req.jobId, fromChannel: req.fromChannel },
        '/docs-reply for a job of another conversation; answered as unknown',
      );
      return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
    }
    return await withJobLock(deps.redis, deps.prefix, req.jobId, () => sendFollowUp(deps, req, steps));
  } catch (err) {
    if (err instanceof FollowUpUnrecordedError || err instanceof UnreplicatedStepError) throw err;
    deps.logger.warn({ jobId: req.jobId, err }, 'follow-up failed');
    return {
      ok: false,
      reason: 'internal',
      message: 'Your follow-up was not sent: I could not reach my storage. Try again in a moment.',
    };
  }
}

/**
 * Why `author` may not continue `rec` (undefined: they may), asked before the follow-up's text is
 * read: the channel's follow-up policy, then (until admitted) the access policy, which spends no
 * budget and costs no Slack call for someone it refuses, then (until sent) that they read every
 * conversation the job's context came from.
 */
async function authorRefusal(
  deps: ContinueJobDeps,
  rec: JobRecord,
  author: string,
  p: { sent?: 'sending' | 'done'; admitted?: boolean },
): Promise<Extract<ContinueJobResult, { ok: false }> | undefined> {
  if (author !== rec.requester && (await deps.policyFor(rec.channel)) === 'requester') {
    const message = `Only <@${rec.requester}>, who started this job, can continue it (this channel's follow-up policy is "requester"). Ask them, or start your own job with \`/docs-edit\`.`;
    return { ok: false, reason: 'not_allowed', message };
  }
  if (p.sent === 'sending') return { ok: false, reason: 'uncertain', message: UNCERTAIN_FOLLOWUP_TEXT };
  if (p.sent !== 'done' && !p.admitted) {
    const who = await deps.access.authorize({ user: author }, 'continue_job', rec.channel);
    if (!who.allowed) return { ok: false, reason: 'refused', message: who.text };
  }
  // Context follows its readers: checked before anything is spent or sent (a retry that already sent skips it).
  if (!p.sent) return readersRefusal(deps, rec, author);
  return undefined;
}

/**
 * Sent, but Redis would not record it: like a start, the intake tries again (the retry does not
 * send again, begins the cycle once and watches it); on the last try, the person is told.
 * @throws {@link FollowUpUnrecordedError} before the last try.
 */
function sentButUnrecorded(steps: Steps, log: Logger, err: unknown): Extract<ContinueJobResult, { ok: false }> {
  if (!steps.finalAttempt) throw new FollowUpUnrecordedError({ cause: err });
  log.error({ err }, 'sent a follow-up but could not record it');
  const message =
    'Your follow-up was sent to the agent, but I could not keep track of it (a storage problem on my side), ' +
    'so I may not announce when it ends.';
  return { ok: false, reason: 'internal', message };
}

async function sendFollowUp(deps: ContinueJobDeps, req: ContinueJobRequest, steps: Steps): Promise<ContinueJobResult> {
  const log = deps.logger.child({ jobId: req.jobId, author: req.author });
  const p = steps.progress as {
    sent?: 'sending' | 'done';
    fromCycle?: number;
    interrupted?: boolean;
    admitted?: boolean;
  };
  const rec = await deps.store.get(req.jobId);
  if (!rec) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
  const refusal = await authorRefusal(deps, rec, req.author, p);
  if (refusal) return refusal;
  const prompt = typeof req.prompt === 'string' ? req.prompt : await req.prompt();
  if (!prompt) return { ok: false, reason: 'empty', message: EMPTY_FOLLOWUP_TEXT };
  const call: AgentCall = {
    actor: { user: req.author },
    channel: rec.channel,
    action: 'continue_job',
    project: rec.projectId,
    promptChars: prompt.length,
  };
  if (p.sent !== 'done' && !p.admitted) {
    const decision = await deps.access.admitAgentCall(call);
    if (!decision.allowed) return { ok: false, reason: 'refused', message: decision.text };
    await steps.save({ admitted: true });
  }
  if (p.sent !== 'done') {
    await steps.save({ sent: 'sending', fromCycle: rec.cycle, interrupted: rec.state === 'active' });
    await confirmStep(steps, 'follow-up', { sent: undefined }, log);
    try {
      await deps.docsApi.forProject(rec.projectId).sendMessage(req.jobId, prompt);
      deps.metrics?.agentJobStarted('follow_up');
    } catch (err) {
      // No answer after it may have arrived: it may have been delivered. A connection never made sent nothing.
      if (err instanceof DocsApiNetworkError && err.sent)
        return { ok: false, reason: 'uncertain', message: UNCERTAIN_FOLLOWUP_TEXT };
      await steps.save({ sent: undefined });
      if (err instanceof DocsApiRateLimitedError) await deps.access.noteRateLimited(call, err.retryAfterMs);
      if (err instanceof DocsApiNotFoundError)
        return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
      log.warn({ err }, 'could not send the follow-up');
      return { ok: false, reason: 'docs_api', message: `Your follow-up was not sent. ${docsApiErrorText(err)}` };
    }
    try {
      // Sent: ride out a failover (~3 s) to keep that; a retry that finds only "sending" can't tell.
      await pRetry(() => steps.save({ sent: 'done' }), { retries: 4, minTimeout: 200, factor: 2 });
    } catch (err) {
      return sentButUnrecorded(steps, log, err);
    }
  }
  const interrupted = p.interrupted ?? rec.state === 'active';
  const note = interrupted
    ? `:leftwards_arrow_with_hook: <@${req.author}> sent a follow-up while the agent was working; it interrupts the current run.`
    : '';
  // An interrupted follow-up never ends on its own: its author hears about the run that replaced it.
  const alsoMention = interrupted
    ? [...new Set([rec.cycleRequester, ...rec.alsoMention.split(',')])].filter((u) => u && u !== req.author).join(',')
    : '';
  let cycle: number | undefined;
  try {
    cycle = await deps.store.beginCycle(req.jobId, req.author, deps.now(), note, alsoMention, p.fromCycle);
    if (cycle !== undefined) await watchAgentJob(deps.pollQueue, req.jobId, cycle, deps.firstPollDelayMs);
  } catch (err) {
    return sentButUnrecorded(steps, log, err);
  }
  if (cycle === undefined) return { ok: false, reason: 'unknown_job', message: unknownJobText(req.jobId) };
  // Both never throw; awaited so that a quick end's `active` can't be overtaken by this `processing`.
  await deps.status.show(req.jobId);
  await deps.agent?.session({ channel: rec.channel, threadTs: rec.threadTs }, 'processing', {
    title: rec.instruction,
    initiator: rec.requester,
  });
  audit(deps.logger, {
    actor: req.author,
    channel: rec.channel,
    action: 'continue_job',
    outcome: 'ok',
    jobId: req.jobId,
    cycle,
    interrupted,
    instructionChars: prompt.length,
  });
  return { ok: true, rec, cycle, interrupted, prompt };
}
