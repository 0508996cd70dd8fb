import type { Queue } from 'bullmq';
import { ACCESS_CHECK_FAILED_TEXT, type AccessGate } from '../../platform/access.js';
import { audit } from '../../platform/audit.js';
import type { BotMetrics } from '../../platform/metrics.js';
import type { AssistantFilter } from '../../platform/docs-api/discovery-schemas.js';
import { nextSlotText } from '../../platform/slack/dates.js';
import { CANNOT_POST, INVITE_FIRST, slackErrorCode } from '../../platform/slack/errors.js';
import type { Logger } from '../../platform/logger.js';
import { postOnce, type PostOnceClient } from '../../platform/slack/post-once.js';
import { stepKeys, type Steps } from '../../platform/steps.js';
import { enqueueAnswer, releaseSlot, type AnswerJobData } from './answer/index.js';
import type { AskBudget } from './budget.js';
import { questionMessage } from './blocks.js';
import type { AskStore } from './store.js';
import type { TellTarget } from './intake.js';
import { NOT_CONFIGURED_TEXT, questionTooLongText, TOO_MANY_ANSWERS_TEXT } from './texts.js';

/** Most characters of a question sent to the assistant. */
export const QUESTION_MAX_CHARS = 4_000;

/** What asking needs. */
export interface AskDeps {
  /** False until DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN are set: every question is answered how to turn asking on. */
  configured: boolean;
  /** The access policy's `ask` (no budget: the question budget is the feature's own). */
  access: Pick<AccessGate, 'authorize'>;
  budget: Pick<AskBudget, 'take' | 'give' | 'opts'>;
  store: Pick<AskStore, 'claimThread' | 'holdAnswerSlot' | 'releaseAnswerSlot'> & Partial<Pick<AskStore, 'markTold'>>;
  /** Posts the question of `/docs-ask` (once). */
  slack: PostOnceClient;
  metrics?: Pick<BotMetrics, 'askEnded'>;
  /** The channel's docs scope (`/docs-settings scope`), read once per question; absent: none. @throws the Redis error. */
  scopeFor?: (channel: string) => Promise<AssistantFilter | undefined>;
  /** Whether the channel names a docs team (`/docs-settings experts`); absent: none. @throws the Redis error. */
  hasExperts?: (channel: string) => Promise<boolean>;
  /** The answers' queue (`./answer/worker.ts`): an admitted question's answer is written by its worker. */
  answers: Pick<Queue<AnswerJobData>, 'add'>;
  logger: Logger;
  /** Clock in epoch ms. */
  now: () => number;
}

/** A question from `/docs-ask`, a mention or DM, or a reply in an answer's thread. */
export interface AskRequest {
  teamId: string;
  channel: string;
  user: string;
  /**
   * Plain text, trimmed (at most the listener's cut; `textChars` is its length as typed when it was
   * cut), or how to get it from the message's markup: called only once the person is admitted, as
   * turning mentions into names reads Slack (users.info).
   */
  question: string | (() => Promise<string>);
  textChars?: number;
  /** The thread to answer in; absent (`/docs-ask`): the question is posted first and answered in its thread. */
  threadTs?: string;
  /**
   * Whether replies in the answer's thread that mention no one reach the bot: `asker` for the
   * asker's own top-level message or DM (their replies only); absent for a reply in a thread (the
   * thread keeps whatever claim it has: someone else's thread gets none). `/docs-ask`'s thread (the
   * bot's question) is always claimed for `anyone`.
   */
  claim?: 'asker';
  /** The intake's id (keys the steps and what is posted once) and when it was recorded (epoch ms). */
  key: string;
  receivedAt: number;
  /**
   * `question-channel`: a new message in a question channel, not addressed to the bot: a refusal
   * at admission (access, budgets, answers being written) is told once per person per hour per
   * kind ({@link TOLD_ONCE_S}), not once per message.
   */
  from?: 'question-channel';
}

/** How long a question channel's refusal of one kind is told only once to a person, in seconds. */
export const TOLD_ONCE_S = 3_600;

interface AskProgress {
  refused?: boolean;
  admitted?: boolean;
}

/**
 * Answers a question, once, in its thread: the feature is on, the question within
 * {@link QUESTION_MAX_CHARS}, the person may ask here (access `ask`), and one question is taken from
 * their and their workspace's hourly budgets (all before any API call or Slack read: the question's
 * markup is turned into text only after; a refusal is told once and counted `refused`); `/docs-ask`'s question is posted first ("@alice asked the docs: …"); a
 * thread the bot started, or the asker's own top-level message, is claimed (replies in it reach the
 * bot: see `AskStore.claimThread`; someone else's thread never is), then the answer is queued for the
 * answers' worker (`./answer/`).
 * @param reply - where and how to tell the person privately (`tell` never throws).
 * @throws Redis errors and transient Slack errors (the intake retries; saved steps resume it).
 */
export async function askQuestion(
  deps: AskDeps,
  req: AskRequest,
  steps: Steps,
  reply: { to: TellTarget; tell: (text: string) => Promise<void> },
): Promise<void> {
  const tell = reply.tell;
  const p = steps.progress as AskProgress;
  if (p.refused) return;
  const refuse = async (text: string) => {
    await steps.save({ refused: true });
    deps.metrics?.askEnded('refused');
    await tell(text);
  };
  if (!deps.configured) return refuse(NOT_CONFIGURED_TEXT);
  const typed = req.textChars ?? (typeof req.question === 'string' ? req.question.length : 0);
  if (typed > QUESTION_MAX_CHARS) return refuse(questionTooLongText(typed, QUESTION_MAX_CHARS));
  if (!p.admitted) {
    const refusal = await admit(deps, req, steps);
    if (refusal && (await tellThisOne(deps, req, refusal.kind))) return refuse(refusal.text);
    if (refusal) return void (await steps.save({ refused: true }), deps.metrics?.askEnded('refused'));
    await steps.save({ admitted: true });
  }
  const question = typeof req.question === 'string' ? req.question : await req.question();
  if (question.length > QUESTION_MAX_CHARS) {
    await giveBack(deps, req);
    return refuse(questionTooLongText(question.length, QUESTION_MAX_CHARS));
  }
  const threadTs = req.threadTs ?? (await postQuestion(deps, { ...req, question }, steps));
  if (!threadTs) return refuse(INVITE_FIRST);
  const scope = await deps.scopeFor?.(req.channel);
  const experts = (await deps.hasExperts?.(req.channel)) === true;
  const follow = req.threadTs === undefined ? 'anyone' : req.claim;
  if (follow) await deps.store.claimThread(req.channel, threadTs, { asker: req.user, teamId: req.teamId, follow });
  const q = {
    teamId: req.teamId,
    channel: req.channel,
    threadTs,
    asker: req.user,
    question,
    key: req.key,
    since: req.receivedAt,
    ...(scope ? { scope } : {}),
    ...(experts ? { experts } : {}),
  };
  audit(deps.logger, {
    actor: req.user,
    channel: req.channel,
    action: 'ask',
    outcome: 'ok',
    questionChars: question.length,
  });
  await enqueueAnswer(deps.answers, q, reply.to);
}

/**
 * Posts `/docs-ask`'s question in its channel (once) and returns its ts: the answer's thread.
 * @returns undefined when the bot cannot post there (the question is given back to the budget).
 * @throws other Slack errors and Redis errors.
 */
async function postQuestion(
  deps: AskDeps,
  req: AskRequest & { question: string },
  steps: Steps,
): Promise<string | undefined> {
  try {
    const m = questionMessage(req.user, req.question);
    return await postOnce(deps.slack, steps, {
      channel: req.channel,
      ...m,
      key: stepKeys(req.key, 'question').question,
      since: req.receivedAt,
    });
  } catch (err) {
    if (!CANNOT_POST.has(slackErrorCode(err) ?? '')) throw err;
    await giveBack(deps, req);
    return undefined;
  }
}

/** Gives a question that was never sent back to the budgets (best effort: a failure is one warning). */
async function giveBack(deps: AskDeps, req: AskRequest): Promise<void> {
  await releaseSlot(deps, req);
  await deps.budget
    .give(req.teamId, req.user)
    .catch((e: unknown) => deps.logger.warn({ err: e }, 'could not give back a question'));
}

/**
 * Whether to tell this refusal: always, but for a question channel's message only the first of its
 * kind per person per {@link TOLD_ONCE_S} (a note in Redis; when it cannot be read, told).
 */
async function tellThisOne(deps: AskDeps, req: AskRequest, kind: string): Promise<boolean> {
  if (req.from !== 'question-channel' || !deps.store.markTold) return true;
  try {
    return await deps.store.markTold(req.teamId, req.user, kind, TOLD_ONCE_S);
  } catch (err) {
    deps.logger.warn({ err }, 'could not read whether a refusal was told this hour; told');
    return true;
  }
}

/** A refusal at admission: its sentence, and its kind (a question channel tells each kind once an hour). */
interface Refusal {
  text: string;
  kind: 'access' | 'answers' | 'budget' | 'check';
}

/**
 * The access policy, then the budget; the refusal, or undefined when admitted. A check that can't
 * be made refuses.
 */
async function admit(deps: AskDeps, req: AskRequest, steps: Steps): Promise<Refusal | undefined> {
  const decision = await deps.access.authorize({ user: req.user, teamId: req.teamId }, 'ask', req.channel);
  if (!decision.allowed) return { text: decision.text, kind: 'access' };
  let taken;
  try {
    if (!(await deps.store.holdAnswerSlot(req.teamId, req.user, req.key, deps.now())))
      return { text: TOO_MANY_ANSWERS_TEXT, kind: 'answers' };
    taken = await deps.budget.take(req.teamId, req.user);
    if (!taken.ok) await releaseSlot(deps, req);
  } catch (err) {
    if (!steps.finalAttempt) throw err;
    deps.logger.warn({ err }, 'could not check the question budget; refused (fail closed)');
    return { text: ACCESS_CHECK_FAILED_TEXT, kind: 'check' };
  }
  if (taken.ok) return undefined;
  const reason = taken.which === 'user' ? 'user_budget' : 'workspace_budget';
  audit(deps.logger, { actor: req.user, channel: req.channel, action: 'ask', outcome: 'refused', reason });
  const slot = nextSlotText(deps.now(), taken.msBeforeNext, undefined);
  const text =
    taken.which === 'user'
      ? `You've asked the docs ${deps.budget.opts.perUser} times this hour, the most one person may. ${slot}`
      : `This workspace has asked the docs ${deps.budget.opts.perWorkspace} times this hour, the most it may. ${slot}`;
  return { text, kind: 'budget' };
}
