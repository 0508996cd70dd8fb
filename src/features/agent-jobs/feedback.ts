import type { ContextActionsBlock } from '@slack/types';
import type { Redis } from 'ioredis';
import type { AccessGate } from '../../platform/access.js';
import { audit } from '../../platform/audit.js';
import type { Logger } from '../../platform/logger.js';
import type { AgentRating, BotMetrics } from '../../platform/metrics.js';
import type { Steps } from '../../platform/slack/post-once.js';
import { RECORD_TTL_S, type JobStore } from './store.js';

/**
 * 👍/👎 on a job's result: the `feedback_buttons` under each announcement, and what a click does.
 */

/** `action_id` of the feedback buttons (Slack: ≤ 255 chars). */
export const ACTION_FEEDBACK = 'agent_jobs.feedback';

const RATINGS: ReadonlySet<string> = new Set<AgentRating>(['positive', 'negative']);
/** Job ids the bot hands out come from the docs API; anything else in a click is not ours. */
const JOB_ID = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * The `context_actions` block with `feedback_buttons` that ends an announcement. Each button's
 * `value` is `<rating>:<jobId>` (≤ 110 chars). Slack (Block Kit reference, "Context actions block"
 * and "Feedback buttons element"): ≤ 5 elements; `positive_button`/`negative_button` required, each
 * with `text` (plain_text ≤ 75 chars), `value` (≤ 2000) and an optional `accessibility_label` (≤ 75).
 */
export function feedbackBlock(jobId: string): ContextActionsBlock {
  return {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: ACTION_FEEDBACK,
        positive_button: { text: { type: 'plain_text', text: '👍' }, value: `positive:${jobId}`, accessibility_label: 'This result was helpful' },
        negative_button: { text: { type: 'plain_text', text: '👎' }, value: `negative:${jobId}`, accessibility_label: 'This result was not helpful' },
      },
    ],
  };
}

/** A feedback click's `value` read back; undefined for anything the bot did not send. */
export function parseFeedbackValue(value: unknown): { rating: AgentRating; jobId: string } | undefined {
  if (typeof value !== 'string' || value.length > 200) return undefined;
  const at = value.indexOf(':');
  const rating = value.slice(0, at);
  const jobId = value.slice(at + 1);
  if (at < 0 || !RATINGS.has(rating) || !JOB_ID.test(jobId)) return undefined;
  return { rating: rating as AgentRating, jobId };
}

/** A recorded click on the feedback buttons (`agent-jobs.feedback`). */
export interface FeedbackIntake {
  /** The clicked button's `value`, as Slack sent it (checked by the handler). */
  value: string;
  user: string;
  teamId?: string;
  channel?: string;
  responseUrl?: string;
}

/** What a feedback click needs. */
export interface FeedbackDeps {
  store: Pick<JobStore, 'get' | 'update'>;
  /** State connection and QUEUE_PREFIX: each person's rating of a job (`{prefix}:agent-feedback:{jobId}`). */
  redis: Redis;
  prefix: string;
  /** Clicks go through the same policy as continuing a job (no budget is spent). */
  access: Pick<AccessGate, 'authorize'>;
  metrics?: Pick<BotMetrics, 'agentFeedback'>;
  logger: Logger;
}

/** Answer to a click whose value the bot did not send, or on a job it no longer knows. */
export const FEEDBACK_UNKNOWN_TEXT = "I couldn't match that feedback to a job I still know (jobs are kept for 30 days), so it was not recorded.";

/**
 * A 👍/👎 click (recorded and acked by the listener): checks who may (the policy of continuing
 * jobs in that channel), keeps the person's rating of the job and the job's latest rating (App
 * Home shows it), writes one audit line (who, job, project, rating), counts
 * `docs_bot_agent_feedback_total{project,rating}` when the person's rating is new or changed, and
 * thanks the person privately once per job. A value the bot did not send, or an unknown job, gets a
 * private answer and a warning log.
 *
 * @param tell - answers the person privately; never throws.
 * @throws Redis errors (the intake retries; `steps` keeps a retry from counting or thanking twice).
 */
export async function handleFeedback(deps: FeedbackDeps, p: FeedbackIntake, steps: Steps, tell: (text: string) => Promise<void>): Promise<void> {
  const progress = steps.progress as { previous?: string; written?: boolean; told?: boolean };
  const parsed = parseFeedbackValue(p.value);
  const rec = parsed ? await deps.store.get(parsed.jobId) : undefined;
  if (!parsed || !rec) {
    deps.logger.warn({ user: p.user, known: Boolean(parsed) }, 'a feedback click named no job I know; not recorded');
    return tell(FEEDBACK_UNKNOWN_TEXT);
  }
  const channel = p.channel ?? rec.channel;
  const decision = await deps.access.authorize({ user: p.user, ...(p.teamId ? { teamId: p.teamId } : {}) }, 'continue_job', channel);
  if (!decision.allowed) return tell(decision.text);
  if (!progress.written) {
    const key = `${deps.prefix}:agent-feedback:${rec.jobId}`;
    // The previous rating is kept in the step's progress before anything is written, so a retry
    // after a failed write still knows whether this is the person's first rating.
    let previous = progress.previous;
    if (previous === undefined) {
      previous = (await deps.redis.hget(key, p.user)) ?? '';
      await steps.save({ previous });
    }
    await deps.redis.multi().hset(key, p.user, parsed.rating).expire(key, RECORD_TTL_S).exec();
    await deps.store.update(rec.jobId, { rating: parsed.rating });
    // A person's first rating of a job is counted; a change of mind is audited and shown, not counted
    // again (clicking 👍/👎 in turn must not inflate the share of 👍).
    if (previous === '') deps.metrics?.agentFeedback(rec.projectId, parsed.rating);
    audit(deps.logger, { actor: p.user, channel, action: 'job.feedback', outcome: 'ok', jobId: rec.jobId, projectId: rec.projectId, rating: parsed.rating, ...(previous ? { previous } : {}) });
    await steps.save({ written: true });
  }
  if (progress.previous === '' && !progress.told) {
    await tell(`Thanks for rating job \`${rec.jobId}\` ${parsed.rating === 'positive' ? '👍' : '👎'}: it helps whoever runs the docs agent see what works.`);
    await steps.save({ told: true });
  }
}
