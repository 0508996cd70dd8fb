import type { AccessGate } from '../../platform/access.js';
import { audit } from '../../platform/audit.js';
import type { IntakeContext } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { AgentRating, BotMetrics } from '../../platform/metrics.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { checkMembership } from '../../platform/slack/member-check.js';
import { unverifiedValueText, warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import { startAgentJob, type StartJobDeps } from '../agent-jobs/index.js';
import type { KnownBlock } from '@slack/types';
import { ACTION_ASK_EXPERTS, changeClick, PURPOSE } from './blocks.js';
import type { ClickIntake } from './intake.js';
import type { AnswerRecord, AskStore } from './store.js';

/** What an answer's buttons need. */
export interface ActionDeps {
  store: Pick<AskStore, 'answer' | 'rate' | 'noteUnanswered'>;
  signer: ValueSigner;
  /** The access policy (`ask` for feedback; a job start goes through agent-jobs' own gate). */
  access: Pick<AccessGate, 'authorize'>;
  /** Membership of conversations: a click that starts a job in a conversation needs its clicker in it. */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Agent-jobs' start (Make this a docs change). */
  start: StartJobDeps;
  metrics?: Pick<BotMetrics, 'askFeedback'>;
  /** Whether a channel names a docs team: a 👎 then offers Ask the docs team. @throws the Redis error. */
  hasExperts?: (channel: string) => Promise<boolean>;
  logger: Logger;
}

/** Answer to a click on an answer the bot no longer knows (records are kept 7 days). */
export const ANSWER_UNKNOWN_TEXT =
  'I no longer have that answer (answers are kept for 7 days), so I did nothing. Ask again to get a fresh one.';

/**
 * The answer a click's signed value names, or the sentence to tell: a value the bot did not sign
 * (unverified), an answer it forgot, or one of another conversation than the click's (as unknown,
 * with a warn line: a value carried out of its thread names nothing, and nobody learns the answer
 * exists).
 */
export async function answerOf(
  deps: Pick<ActionDeps, 'signer' | 'logger'> & { store: Pick<AskStore, 'answer'> },
  purpose: string,
  p: Pick<ClickIntake, 'value' | 'user' | 'channel'>,
): Promise<{ rec: AnswerRecord; payload: string } | { text: string }> {
  const opened = deps.signer.open(purpose, p.value);
  if (!opened.ok) {
    warnUnverified(deps.logger, purpose, opened.reason, { user: p.user });
    return { text: unverifiedValueText('ask your question again') };
  }
  const answerId = opened.payload.slice(opened.payload.indexOf(':') + 1);
  const rec = await deps.store.answer(answerId);
  if (!rec) return { text: ANSWER_UNKNOWN_TEXT };
  if (rec.channel !== p.channel) {
    deps.logger.warn({ user: p.user, purpose }, 'a click named an answer of another conversation; ignored');
    return { text: ANSWER_UNKNOWN_TEXT };
  }
  return { rec, payload: opened.payload };
}

/**
 * Whether `p`'s clicker may act on the answer `rec` with `action`: the access policy of asking in
 * the answer's conversation, then membership of it (re-checked now, fail closed: a former member
 * or a removed Slack Connect partner holding the button is refused). @returns the refusal's
 * sentence, or undefined when they may.
 */
export async function clickerRefusal(
  deps: Pick<ActionDeps, 'access' | 'conversations' | 'logger'>,
  p: Pick<ClickIntake, 'user' | 'teamId'>,
  rec: Pick<AnswerRecord, 'channel'>,
  action: 'ask.feedback' | 'ask.experts',
): Promise<string | undefined> {
  const actor = { user: p.user, ...(p.teamId ? { teamId: p.teamId } : {}) };
  const decision = await deps.access.authorize(actor, 'ask', rec.channel);
  if (!decision.allowed) return decision.text;
  const member = await checkMembership(deps.conversations, deps.logger, { channel: rec.channel, user: p.user, action });
  return member.ok ? undefined : member.text;
}

/**
 * 👍/👎 under an answer: checks the value (signed, naming an answer of the conversation clicked in), who
 * may ({@link clickerRefusal}: the `ask` policy where the answer is, and membership of it),
 * keeps the person's rating (7 days), counts `docs_bot_ask_feedback_total{rating}` for a person's
 * first rating of it, writes one audit line, thanks once. @throws Redis errors (the intake retries).
 */
export async function handleFeedback(
  deps: ActionDeps,
  p: ClickIntake,
  ctx: IntakeContext,
  tell: (text: string, blocks?: KnownBlock[]) => Promise<void>,
): Promise<void> {
  const found = await answerOf(deps, PURPOSE.feedback, p);
  if ('text' in found) return tell(found.text);
  const { rec, payload } = found;
  const rating = payload.slice(0, payload.indexOf(':')) as AgentRating;
  if (rating !== 'positive' && rating !== 'negative') return tell(ANSWER_UNKNOWN_TEXT);
  const progress = ctx.progress as { previous?: string; told?: boolean };
  // Checked until the rating is kept: a retry after that thanks, whatever a membership read says now.
  if (progress.previous === undefined) {
    const refusal = await clickerRefusal(deps, p, rec, 'ask.feedback');
    if (refusal) return tell(refusal);
  }
  if (progress.previous === undefined) {
    const previous = await deps.store.rate(rec.answerId, p.user, rating);
    // A 👎: the question counts as not answered by the docs in the weekly digest (once per answer).
    if (rating === 'negative') await deps.store.noteUnanswered(rec.channel, rec.answerId, rec.question, ctx.receivedAt);
    await ctx.save({ previous });
    if (previous === '') deps.metrics?.askFeedback(rating);
    audit(deps.logger, {
      actor: p.user,
      channel: rec.channel,
      action: 'ask.feedback',
      outcome: 'ok',
      rating,
      ...(previous ? { previous } : {}),
    });
  }
  if (progress.previous === '' && !progress.told) {
    const thanks =
      `Thanks for rating that answer ${rating === 'positive' ? '👍' : '👎'}: ` +
      'it helps whoever runs the docs see where they fall short.';
    const team = rating === 'negative' && (await deps.hasExperts?.(rec.channel)) === true;
    await (team ? tell(thanks, expertsOffer(deps.signer, thanks, rec.answerId)) : tell(thanks));
    await ctx.save({ told: true });
  }
}

/** After a 👎 where the channel names a docs team: the thanks, and **Ask the docs team** (signed for the answer). */
function expertsOffer(signer: ValueSigner, thanks: string, answerId: string): KnownBlock[] {
  const text = `${thanks} Want the people who know to answer it?`;
  const button = {
    type: 'button' as const,
    text: { type: 'plain_text' as const, text: 'Ask the docs team' },
    action_id: ACTION_ASK_EXPERTS,
    value: signer.sign(PURPOSE.experts, answerId),
  };
  return [
    { type: 'section', text: { type: 'mrkdwn', text } },
    { type: 'actions', elements: [button] },
  ];
}

/** Answer to "Make this a docs change" recorded for someone other than the asker (the listener opens the form for them instead). */
export const NOT_THE_ASKER_TEXT =
  'Only the person who asked can turn their question into a job with one click, so I did nothing. Click *Make this a docs change* again: it opens a form where you say what the agent should do, with the question quoted.';

/**
 * "Make this a docs change" under an answer, by the asker: the question becomes a docs agent job in
 * the answer's thread (agent-jobs' `startAgentJob`: the access policy, the agent budget, the status
 * message, the announcement, exactly once). The value must be the bot's and name the clicker as
 * the asker ({@link changeClick}, the listener's rule: anyone else gets the Document this form from
 * the listener; a value of an older version, without the asker, is refused as unverified), and the
 * clicker a member of the answer's conversation (re-checked now, fail closed).
 * @throws as `startAgentJob` (the intake retries; the saved steps make it resume).
 */
export async function handleChange(
  deps: ActionDeps,
  p: ClickIntake,
  ctx: IntakeContext,
  tell: (text: string) => Promise<void>,
): Promise<void> {
  if (ctx.progress.refused) return;
  const click = changeClick(deps.signer, p.value, p.user);
  if (click.kind === 'unverified') {
    warnUnverified(deps.logger, PURPOSE.change, click.reason, { user: p.user });
    return tell(unverifiedValueText('ask your question again'));
  }
  if (click.kind === 'other') {
    await ctx.save({ refused: true });
    return tell(NOT_THE_ASKER_TEXT);
  }
  const rec = await deps.store.answer(click.answerId);
  if (!rec) return tell(ANSWER_UNKNOWN_TEXT);
  const member = await checkMembership(deps.conversations, deps.logger, {
    channel: rec.channel,
    user: p.user,
    action: 'start_job',
  });
  if (!member.ok) {
    await ctx.save({ refused: true });
    return tell(member.text);
  }
  const req = {
    teamId: p.teamId ?? rec.teamId,
    channel: rec.channel,
    requester: p.user,
    instruction: rec.question,
    threadTs: rec.threadTs,
    requestKey: ctx.jobId,
    receivedAt: ctx.receivedAt,
  };
  const res = await startAgentJob(deps.start, req, ctx);
  if (!res.ok && res.message) await tell(res.message);
}
