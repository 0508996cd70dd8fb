/**
 * "Ask the docs team" under an answer the docs couldn't give: the question goes, once, to the
 * channel's experts (`/docs-settings experts`): posted in their channel with a link back to the
 * question's thread, or their user group mentioned in that thread. A second click, by anyone, posts
 * nothing again (a claim in Redis per answer, and the posts are made with `postOnce` on the intake's
 * steps, so a retry after a crash resumes rather than repeats).
 */
import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../platform/access.js';
import { audit } from '../../platform/audit.js';
import type { IntakeContext } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { Quota } from '../../platform/quota.js';
import { CANNOT_POST, slackErrorCode } from '../../platform/slack/errors.js';
import { quoteReaderText } from '../../platform/slack/markup.js';
import { postOnce, type PostOnceClient, stepKeys } from '../../platform/steps.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { EXPERTS_TARGETS, expertsProblem, type Experts } from '../settings/index.js';
import { answerOf, clickerRefusal } from './actions.js';
import { PURPOSE } from './blocks.js';
import { refusedPostProblem, reportBrokenExperts } from './experts-broken.js';
import type { ClickIntake } from './intake.js';
import type { AnswerRecord, AskStore } from './store.js';

/** What Ask the docs team needs. */
export interface ExpertsDeps {
  store: Pick<
    AskStore,
    | 'answer'
    | 'claimExperts'
    | 'releaseExperts'
    | 'markExpertsAsked'
    | 'unmarkExpertsAsked'
    | 'noteUnanswered'
    | 'markExpertsBrokenTold'
  >;
  signer: ValueSigner;
  access: Pick<AccessGate, 'authorize'>;
  /** Membership of conversations: the clicker must be in the answer's (re-checked at each click, fail closed). */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** The channel's docs team (`/docs-settings experts`). @throws the Redis error. */
  expertsFor: (channel: string) => Promise<Experts | undefined>;
  /** Posts (once), the permalink back, the checks of the experts' channel or group. */
  slack: PostOnceClient & {
    chat: Pick<WebClient['chat'], 'getPermalink'>;
    conversations: Pick<WebClient['conversations'], 'info'>;
    usergroups: { users: Pick<WebClient['usergroups']['users'], 'list'> };
  };
  /**
   * Each person's "Ask the docs team" clicks that reach the team: {@link EXPERTS_ASKS_PER_HOUR} per
   * person per hour (key `team:user`), so no one can ping the team on every unanswered answer.
   */
  asks: Pick<Quota, 'take' | 'give'>;
  /** Who last changed a channel's settings: told (once a day) when its docs team can't be reached. @throws the Redis error. */
  settingsOwnerOf?: (channel: string) => Promise<string | undefined>;
  logger: Logger;
}

/** How many times one person may ask the docs team per hour (the `asks` quota's points). */
export const EXPERTS_ASKS_PER_HOUR = 5;

/** The refusal when a person's asks this hour are used (private; nothing is posted). */
export function asksUsedText(msBeforeNext: number): string {
  const minutes = Math.max(1, Math.ceil(msBeforeNext / 60_000));
  return (
    `You have asked the docs team ${EXPERTS_ASKS_PER_HOUR} times this hour, the most one person can, so I asked no one. ` +
    `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or reply in the thread to ask people there.`
  );
}

/** Answer to a click in a channel with no docs team set. */
export const NO_EXPERTS_TEXT = `No docs team is set for this channel, so I asked no one. An admin names one with \`/docs-settings experts ${EXPERTS_TARGETS}\`.`;
/** Answer to a second click, by anyone. */
export const ALREADY_ASKED_TEXT =
  'The docs team was already asked about this question; their answer will be in this thread.';

/**
 * The message in the experts' channel: the question from a public channel, else only the link. The
 * question is data: quoted by the rules of reader text (`quoteReaderText`: no link, domain, mention
 * or formatting survives), at most 2,500 characters.
 */
function expertsMessage(rec: AnswerRecord, link: string | undefined, isPrivate: boolean): string {
  const where = `<@${rec.asker}> asked in <#${rec.channel}> and the docs had no answer`;
  const open = link ? `\n<${link}|Open the thread> and answer there.` : '';
  if (isPrivate) return `${where} (a private channel: open it if you're a member).${open}`;
  return `${where}:\n${quoteReaderText(rec.question, 2_500)}${open}`;
}

/**
 * "Ask the docs team" (`ask.experts`): the value must be the bot's and name an answer it keeps of
 * the conversation clicked in, the clicker may ask there (access `ask`) and is a member of it, the
 * channel has a docs team, and the
 * clicker has an ask left this hour ({@link EXPERTS_ASKS_PER_HOUR}; else a private refusal, nothing
 * posted); then the
 * answer is claimed for this click (the first, by anyone; others are told it was done) and the
 * question is posted once where the team is, and the thread told once. A team that can no longer be
 * reached (found by the check before the post, or by Slack refusing it) is said plainly, its
 * channel's settings owner told once a day (`reportBrokenExperts`), and the claim given back, so a
 * later click tries again. Once asked, the
 * thread is marked so a reply by someone else there is offered **Document this answer**.
 * @throws Redis and transient Slack errors (the intake retries; saved steps resume it).
 */
export async function handleAskExperts(
  deps: ExpertsDeps,
  p: ClickIntake,
  ctx: IntakeContext,
  tell: (text: string) => Promise<void>,
): Promise<void> {
  const found = await answerOf(deps, PURPOSE.experts, p);
  if ('text' in found) return tell(found.text);
  const rec = found.rec;
  const refusal = await refusalOnce(deps, p, rec, ctx);
  if (refusal) return tell(refusal);
  // The claim is this click's: its intake record (a new click after the record's 24 h is a new claim).
  const claim = `${ctx.jobId}@${ctx.receivedAt}`;
  const experts = await deps.expertsFor(rec.channel);
  if (!experts) {
    // The team was removed after an earlier try of this click claimed the answer: nothing reached it.
    if (ctx.progress.askTaken && !ctx.progress.posted) await undoAsk(deps, rec, ctx, quotaKeyOf(p), claim);
    return tell(NO_EXPERTS_TEXT);
  }
  // One of the clicker's asks this hour, taken once per click (a retry finds it in its steps) and
  // given back when nothing reaches the team. A crash between take and save counts one ask too many,
  // never one too few.
  const quotaKey = quotaKeyOf(p);
  if (!ctx.progress.askTaken) {
    const taken = await deps.asks.take(quotaKey);
    if (!taken.ok) return tell(asksUsedText(taken.msBeforeNext));
    await ctx.save({ askTaken: true });
  }
  const giveBack = () => giveBackAsk(deps, quotaKey);
  if (!(await deps.store.claimExperts(rec.answerId, claim))) {
    await giveBack();
    return tell(ALREADY_ASKED_TEXT);
  }
  // Checked before each ask (its channel archived or left, its group deleted since it was set).
  const problem = ctx.progress.posted ? undefined : await expertsProblem(deps.slack, experts);
  if (problem) {
    await giveBack();
    await deps.store.releaseExperts(rec.answerId, claim);
    return tell(await reportBrokenExperts(deps, rec.channel, experts, problem, 'check'));
  }
  // From now on a reply in the thread by someone other than the asker may be the answer (Document
  // this answer): marked before the thread's "I asked the docs team" line invites replies (and
  // noted in the steps first, so only a try that may have marked takes a mark back).
  if (!ctx.progress.marked) await ctx.save({ marked: true });
  await deps.store.markExpertsAsked(rec.channel, rec.threadTs, rec.answerId, rec.asker);
  try {
    await postToExperts(deps, rec, experts, ctx);
  } catch (err) {
    // After the team's post, a failure is the thread's: the team was asked, so the claim stays (the intake retries).
    if (!CANNOT_POST.has(slackErrorCode(err) ?? '') || ctx.progress.posted) throw err;
    await deps.store.unmarkExpertsAsked(rec.channel, rec.threadTs);
    await giveBack();
    await deps.store.releaseExperts(rec.answerId, claim);
    const code = slackErrorCode(err);
    const said = await reportBrokenExperts(deps, rec.channel, experts, refusedPostProblem(experts, code), code ?? '');
    return tell(said);
  }
  await deps.store.noteUnanswered(rec.channel, rec.answerId, rec.question, ctx.receivedAt);
  audit(deps.logger, { actor: p.user, channel: rec.channel, action: 'ask.experts', outcome: 'ok' });
}

/**
 * {@link clickerRefusal} for this click, checked once: a retry after the ask was taken, the answer
 * claimed or the thread marked must finish what it began, not be refused by a membership read that
 * fails this time (`cleared` in the click's steps). @throws the Redis error of saving the step.
 */
async function refusalOnce(
  deps: ExpertsDeps,
  p: ClickIntake,
  rec: AnswerRecord,
  ctx: IntakeContext,
): Promise<string | undefined> {
  if (ctx.progress.cleared) return undefined;
  const refusal = await clickerRefusal(deps, p, rec, 'ask.experts');
  if (!refusal) await ctx.save({ cleared: true });
  return refusal;
}

/** The key of a person's asks of the docs team ({@link EXPERTS_ASKS_PER_HOUR}): `team:user`. */
function quotaKeyOf(p: Pick<ClickIntake, 'teamId' | 'user'>): string {
  return `${p.teamId ?? ''}:${p.user}`;
}

/**
 * Takes back what an earlier try of a click took when nothing reached the team: the answer's claim
 * (only when it is this click's) with the thread's mark (only when a try of this click may have
 * made it: `marked` in its steps; the mark is the thread's, and may be an earlier answer's), and
 * the person's ask. @throws the Redis error of the claim or the mark.
 */
async function undoAsk(
  deps: ExpertsDeps,
  rec: AnswerRecord,
  ctx: IntakeContext,
  quotaKey: string,
  claim: string,
): Promise<void> {
  if (await deps.store.claimExperts(rec.answerId, claim)) {
    if (ctx.progress.marked) await deps.store.unmarkExpertsAsked(rec.channel, rec.threadTs);
    await deps.store.releaseExperts(rec.answerId, claim);
  }
  await giveBackAsk(deps, quotaKey);
}

/** Gives back one of a person's asks of the docs team (best effort: a warn line). */
async function giveBackAsk(deps: Pick<ExpertsDeps, 'asks' | 'logger'>, quotaKey: string): Promise<void> {
  await deps.asks.give(quotaKey).catch((err: unknown) => deps.logger.warn({ err }, 'could not give back an ask'));
}

/**
 * Whether a conversation (conversations.info's `channel`: docs.slack.dev, "Conversation object") is
 * a public channel, the only kind whose question is quoted to the docs team: `is_channel` true and
 * `is_private` false, and neither `is_mpim` nor `is_im`. A field missing or anything else reads as
 * private (fails closed: only the link is posted).
 */
function isPublicChannel(
  c: { is_channel?: boolean; is_private?: boolean; is_mpim?: boolean; is_im?: boolean } | undefined,
): boolean {
  return c?.is_channel === true && c.is_private === false && !c.is_mpim && !c.is_im;
}

/** The posts themselves, each once: in the team's channel and a line in the thread, or the group's mention in the thread. */
async function postToExperts(deps: ExpertsDeps, rec: AnswerRecord, e: Experts, ctx: IntakeContext): Promise<void> {
  const since = ctx.receivedAt;
  const keys = stepKeys(ctx.jobId, 'experts', 'experts-told');
  const inThread = { channel: rec.channel, thread_ts: rec.threadTs, since };
  if (e.kind === 'usergroup') {
    const text = `<!subteam^${e.id}> the docs had no answer to <@${rec.asker}>'s question above: can you answer it here?`;
    await postOnce(deps.slack, ctx, { ...inThread, text, key: keys.experts });
    return void (await ctx.save({ posted: true }));
  }
  const [link, info] = await Promise.all([
    deps.slack.chat.getPermalink({ channel: rec.channel, message_ts: rec.threadTs }).then((r) => r.permalink),
    deps.slack.conversations.info({ channel: rec.channel }),
  ]);
  const text = expertsMessage(rec, link, !isPublicChannel(info.channel));
  // postOnce posts with unfurl_links and unfurl_media false: nothing in the question previews.
  await postOnce(deps.slack, ctx, { channel: e.id, text, key: keys.experts, since });
  await ctx.save({ posted: true });
  const told = `I asked the docs team in <#${e.id}>; their answer will come here.`;
  await postOnce(deps.slack, ctx, { ...inThread, text: told, key: keys['experts-told'] });
}
