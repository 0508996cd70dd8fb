import type { ContextActionsBlock } from '@slack/types';
import type { Redis } from 'ioredis';
import type { AccessGate } from '../../platform/access.js';
import { audit } from '../../platform/audit.js';
import type { Logger } from '../../platform/logger.js';
import type { AgentRating, BotMetrics } from '../../platform/metrics.js';
import type { ClickIntake } from '../../platform/slack/click.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { checkMembership } from '../../platform/slack/member-check.js';
import type { Steps } from '../../platform/steps.js';
import { unverifiedValueText, warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import { RECORD_TTL_S, type JobRecord, type JobStore } from './store.js';

/**
 * 👍/👎 on a job's result: the `feedback_buttons` under each announcement, and what a click does.
 */

/** `action_id` of the feedback buttons (Slack: ≤ 255 chars). */
export const ACTION_FEEDBACK = 'agent_jobs.feedback';

const RATINGS: ReadonlySet<string> = new Set<AgentRating>(['positive', 'negative']);
/** Job ids the bot hands out come from the docs API; anything else in a click is not ours. */
const JOB_ID = /^[A-Za-z0-9_.-]{1,100}$/;

/** What feedback values are signed for (src/platform/slack/signed-value.ts). */
export const FEEDBACK_PURPOSE = 'agent-jobs.feedback';

/**
 * The `context_actions` block with `feedback_buttons` that ends an announcement. Each button's
 * `value` is `<rating>:<jobId>` signed ({@link FEEDBACK_PURPOSE}; ≤ 110 + 26 chars). Slack (Block
 * Kit reference, "Context actions block" and "Feedback buttons element"): ≤ 5 elements;
 * `positive_button`/`negative_button` required, each with `text` (plain_text ≤ 75 chars), `value`
 * (≤ 2000) and an optional `accessibility_label` (≤ 75).
 */
export function feedbackBlock(jobId: string, signer: Pick<ValueSigner, 'sign'>): ContextActionsBlock {
  const button = (rating: AgentRating, text: string, label: string) => ({
    text: { type: 'plain_text' as const, text },
    value: signer.sign(FEEDBACK_PURPOSE, `${rating}:${jobId}`),
    accessibility_label: label,
  });
  return {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: ACTION_FEEDBACK,
        positive_button: button('positive', '👍', 'This result was helpful'),
        negative_button: button('negative', '👎', 'This result was not helpful'),
      },
    ],
  };
}

/** A feedback click's (opened) `value` read back; undefined for anything the bot did not send. */
export function parseFeedbackValue(value: unknown): { rating: AgentRating; jobId: string } | undefined {
  if (typeof value !== 'string' || value.length > 200) return undefined;
  const at = value.indexOf(':');
  const rating = value.slice(0, at);
  const jobId = value.slice(at + 1);
  if (at < 0 || !RATINGS.has(rating) || !JOB_ID.test(jobId)) return undefined;
  return { rating: rating as AgentRating, jobId };
}

/** A recorded click on the feedback buttons (`agent-jobs.feedback`): where it was clicked must be the job's own channel. */
export type FeedbackIntake = ClickIntake;

/** What a feedback click needs. */
export interface FeedbackDeps {
  store: Pick<JobStore, 'get' | 'update'>;
  /** State connection and QUEUE_PREFIX: each person's rating of a job (`{prefix}:agent-feedback:{jobId}`). */
  redis: Redis;
  prefix: string;
  /** Clicks go through the same policy as continuing a job (no budget is spent). */
  access: Pick<AccessGate, 'authorize'>;
  /** The clicker must be a member of the job's conversation. */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Checks the button's value is one the bot signed. */
  signer: Pick<ValueSigner, 'open'>;
  metrics?: Pick<BotMetrics, 'agentFeedback'>;
  logger: Logger;
}

/**
 * Answer to a click on a job the bot does not know here: a value it did not send, a job it no longer
 * knows, or a job of another conversation — one answer whatever the reason, so a click cannot tell
 * anyone which job ids exist elsewhere.
 */
export const FEEDBACK_UNKNOWN_TEXT =
  "I couldn't match that feedback to a job I still know (jobs are kept for 30 days), so it was not recorded.";

/** Answer to a click whose value the bot did not sign (an announcement older than signing, or tampered). */
export const FEEDBACK_UNVERIFIED_TEXT = unverifiedValueText(
  "rate a job from an announcement posted since (older ones can't be rated any more)",
);

type RatedJob = { rec: JobRecord; rating: AgentRating } | { refusal: string };

/**
 * The job a click rates, when the value is the bot's, names a job it knows, and the click came
 * from that job's own conversation; else the person's answer (and a warning log).
 */
async function ratedJob(deps: FeedbackDeps, p: FeedbackIntake): Promise<RatedJob> {
  const opened = deps.signer.open(FEEDBACK_PURPOSE, p.value);
  if (!opened.ok) {
    warnUnverified(deps.logger, FEEDBACK_PURPOSE, opened.reason, { user: p.user });
    return { refusal: FEEDBACK_UNVERIFIED_TEXT };
  }
  const parsed = parseFeedbackValue(opened.payload);
  const rec = parsed ? await deps.store.get(parsed.jobId) : undefined;
  // A job of another conversation gets the unknown job's answer: nobody learns that its id exists.
  if (!parsed || !rec || rec.channel !== p.channel) {
    const why = { user: p.user, known: Boolean(rec), sameChannel: rec ? rec.channel === p.channel : undefined };
    deps.logger.warn(why, 'a feedback click named no job of its conversation; not recorded');
    return { refusal: FEEDBACK_UNKNOWN_TEXT };
  }
  return { rec, rating: parsed.rating };
}

/**
 * A 👍/👎 click (recorded and acked by the listener): checks the value is the bot's and names a job
 * of the conversation it was clicked in (else one answer, whatever the job id), then who may (the
 * policy of continuing jobs there, and membership of it), keeps the person's rating of the job and
 * the job's latest rating (App Home shows it), writes one audit line (who, job, project, rating),
 * counts `docs_bot_agent_feedback_total{project,rating}` for the person's first rating of the job
 * and thanks them privately once. The first rating is decided atomically (one MULTI reads the
 * previous rating and writes the new one), so concurrent clicks count once; a retry after the
 * write never counts again (at most once: a crash between the write and its saved step counts
 * nothing).
 *
 * @param tell - answers the person privately; never throws.
 * @throws Redis errors (the intake retries; `steps` keeps a retry from counting or thanking twice).
 */
export async function handleFeedback(
  deps: FeedbackDeps,
  p: FeedbackIntake,
  steps: Steps,
  tell: (text: string) => Promise<void>,
): Promise<void> {
  const progress = steps.progress as { previous?: string; written?: boolean; told?: boolean };
  const found = await ratedJob(deps, p);
  if ('refusal' in found) return tell(found.refusal);
  const { rec, rating } = found;
  const actor = { user: p.user, ...(p.teamId ? { teamId: p.teamId } : {}) };
  const decision = await deps.access.authorize(actor, 'continue_job', rec.channel);
  if (!decision.allowed) return tell(decision.text);
  const where = { channel: rec.channel, user: p.user, action: 'job.feedback' as const };
  const member = await checkMembership(deps.conversations, deps.logger, where);
  if (!member.ok) return tell(member.text);
  if (!progress.written) {
    const key = `${deps.prefix}:agent-feedback:${rec.jobId}`;
    // One transaction: no other click's write can land between the read and the write.
    const res = await deps.redis.multi().hget(key, p.user).hset(key, p.user, rating).expire(key, RECORD_TTL_S).exec();
    const [readErr, prior] = res?.[0] ?? [new Error('the feedback transaction was discarded'), null];
    if (readErr) throw readErr;
    const previous = typeof prior === 'string' ? prior : '';
    await deps.store.update(rec.jobId, { rating });
    // A person's first rating of a job is counted; a change of mind is audited and shown, not counted
    // again (clicking 👍/👎 in turn must not inflate the share of 👍).
    if (previous === '') deps.metrics?.agentFeedback(rec.projectId, rating);
    const facts = { jobId: rec.jobId, projectId: rec.projectId, rating, ...(previous ? { previous } : {}) };
    audit(deps.logger, { actor: p.user, channel: rec.channel, action: 'job.feedback', outcome: 'ok', ...facts });
    await steps.save({ written: true, previous });
  }
  if (progress.previous === '' && !progress.told) {
    const thumb = rating === 'positive' ? '👍' : '👎';
    await tell(`Thanks for rating job \`${rec.jobId}\` ${thumb}: it helps whoever runs the docs agent see what works.`);
    await steps.save({ told: true });
  }
}
