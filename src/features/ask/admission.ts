/**
 * Who may ask now (a question's admission, before any API call or Slack read): the access policy's
 * `ask`, one of the person's answer slots (`AskStore.holdAnswerSlot`) and the hourly question
 * budgets ({@link AskBudget}); a refusal's sentence and kind, told once an hour in a question
 * channel ({@link TOLD_ONCE_S}).
 */
import type { Redis } from 'ioredis';
import { ACCESS_CHECK_FAILED_TEXT, type AccessGate } from '../../platform/access.js';
import { audit } from '../../platform/audit.js';
import type { Logger } from '../../platform/logger.js';
import { Quota } from '../../platform/quota.js';
import { nextSlotText } from '../../platform/slack/dates.js';
import { stepKeys, type Steps } from '../../platform/steps.js';
import { releaseSlot } from './answer/index.js';
import type { AskStore } from './store.js';
import { TOO_MANY_ANSWERS_TEXT } from './texts.js';

/** How long a question channel's refusal of one kind is told only once to a person, in seconds. */
export const TOLD_ONCE_S = 3_600;

/** What admitting a question needs (a part of the handlers' `AskDeps`). */
export interface AdmissionDeps {
  /** The access policy's `ask` (no budget: the question budget is the feature's own). */
  access: Pick<AccessGate, 'authorize'>;
  budget: Pick<AskBudget, 'take' | 'give' | 'opts'>;
  store: Pick<AskStore, 'holdAnswerSlot' | 'releaseAnswerSlot'> & Partial<Pick<AskStore, 'markTold'>>;
  logger: Logger;
  /** Clock in epoch ms. */
  now: () => number;
}

/** Who asks where, and the question's key (its answer slot's): a part of the handlers' `AskRequest`. */
interface Asker {
  teamId: string;
  channel: string;
  user: string;
  key: string;
  from?: 'question-channel';
}

/** Budget sizes: ASK_CALLS_PER_USER_PER_HOUR and ASK_CALLS_PER_HOUR (per workspace). */
interface AskBudgetOptions {
  perUser: number;
  perWorkspace: number;
}

/** Outcome of {@link AskBudget.take}: taken, or which budget is spent and when its next slot frees (ms from now). */
type AskBudgetTake = { ok: true } | { ok: false; which: 'user' | 'workspace'; msBeforeNext: number };

/**
 * The question budget, shared by every replica through Redis (rate-limiter-flexible, like the agent
 * budget): questions per person per hour and per workspace per hour, each a one-hour window that
 * opens at its first question. A refused question costs nothing (its point is given back) and is
 * refused before any API call.
 */
export class AskBudget {
  private readonly user: Quota;
  private readonly workspace: Quota;

  /** @param redis - the state connection (commands fail rather than queue while Redis is down). */
  constructor(
    redis: Redis,
    prefix: string,
    readonly opts: AskBudgetOptions,
  ) {
    this.user = new Quota(redis, { keyPrefix: `${prefix}:ask-budget:user`, points: opts.perUser, durationS: 3600 });
    this.workspace = new Quota(redis, {
      keyPrefix: `${prefix}:ask-budget:team`,
      points: opts.perWorkspace,
      durationS: 3600,
    });
  }

  /**
   * Takes one question from the person's budget, then the workspace's (giving the person's back
   * when the workspace's is spent). @throws Redis errors.
   */
  async take(teamId: string, user: string): Promise<AskBudgetTake> {
    const u = await this.user.take(`${teamId}:${user}`);
    if (!u.ok) return { ok: false, which: 'user', msBeforeNext: u.msBeforeNext };
    const w = await this.workspace.take(teamId || 'unknown-team');
    if (!w.ok) {
      await this.user.give(`${teamId}:${user}`);
      return { ok: false, which: 'workspace', msBeforeNext: w.msBeforeNext };
    }
    return { ok: true };
  }

  /** Gives one question back to both budgets (it was never sent). @throws Redis errors. */
  async give(teamId: string, user: string): Promise<void> {
    await Promise.all([this.user.give(`${teamId}:${user}`), this.workspace.give(teamId || 'unknown-team')]);
  }
}

/**
 * Whether to tell this refusal: always, but for a question channel's message only the first of its
 * kind per person per {@link TOLD_ONCE_S} (a note in Redis; when it cannot be read, told).
 */
export async function tellThisOne(deps: AdmissionDeps, req: Asker, kind: string): Promise<boolean> {
  if (req.from !== 'question-channel' || !deps.store.markTold) return true;
  try {
    return await deps.store.markTold(req.teamId, req.user, kind, TOLD_ONCE_S);
  } catch (err) {
    deps.logger.warn({ err }, 'could not read whether a refusal was told this hour; told');
    return true;
  }
}

/** A refusal at admission: its sentence, and its kind (a question channel tells each kind once an hour). */
export interface Refusal {
  text: string;
  kind: 'access' | 'answers' | 'budget' | 'check';
}

/**
 * The access policy, then one of the person's answer slots, then the budget; the refusal, or
 * undefined when admitted, the step `admitted` then saved ({@link recordAdmitted}). A slot or budget
 * that can't be read refuses on the last try (fail closed).
 * @throws the slot's and the budget's Redis errors, and the save's, before the last try (the intake retries).
 */
export async function admit(deps: AdmissionDeps, req: Asker, steps: Steps): Promise<Refusal | undefined> {
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
  if (taken.ok) return recordAdmitted(deps, req, steps);
  const reason = taken.which === 'user' ? 'user_budget' : 'workspace_budget';
  audit(deps.logger, { actor: req.user, channel: req.channel, action: 'ask', outcome: 'refused', reason });
  const slot = nextSlotText(deps.now(), taken.msBeforeNext, undefined);
  const text =
    taken.which === 'user'
      ? `You've asked the docs ${deps.budget.opts.perUser} times this hour, the most one person may. ${slot}`
      : `This workspace has asked the docs ${deps.budget.opts.perWorkspace} times this hour, the most it may. ${slot}`;
  return { text, kind: 'budget' };
}

/**
 * Saves the step `admitted`, so a retry does not take from the budget again. Redis failing to save
 * it before the last try gives the question back to the budget (best effort) and throws, so the
 * retry's take is the only one; on the last try it is one warning and the question goes on (no try
 * follows, and the asker would otherwise hear nothing). @throws the save's Redis error, before the last try.
 */
async function recordAdmitted(deps: AdmissionDeps, req: Asker, steps: Steps): Promise<undefined> {
  try {
    await steps.save({ admitted: true });
  } catch (err) {
    if (!steps.finalAttempt) {
      await giveBudget(deps, req);
      throw err;
    }
    deps.logger.warn({ err }, 'could not record an admitted question on the last try; asking it');
  }
  return undefined;
}

/** Gives one question back to the person's and the workspace's hourly budgets (best effort: a failure is one warning). */
async function giveBudget(deps: Pick<AdmissionDeps, 'budget' | 'logger'>, req: Asker): Promise<void> {
  await deps.budget
    .give(req.teamId, req.user)
    .catch((e: unknown) => deps.logger.warn({ err: e }, 'could not give back a question'));
}

/**
 * The step `<intake key>:given-back` of a question: the refusal its give-back ended in, saved before
 * the give-back ({@link giveBackOnce}).
 */
const givenBackKey = (key: string) => stepKeys(key, 'given-back')['given-back'];

/**
 * The refusal a question was given back with on an earlier try, if it was: the retry tells it again
 * and neither posts the question nor gives it back a second time.
 */
export function givenBackRefusal(steps: Steps, req: Pick<Asker, 'key'>): string | undefined {
  const saved = steps.progress[givenBackKey(req.key)];
  return typeof saved === 'string' ? saved : undefined;
}

/**
 * Gives a question that was never sent back to the asker's budgets and answer slot, at most once
 * across retries: `refusal` (the sentence the person will be told) is saved first as the step
 * `given-back` ({@link givenBackRefusal}), so a retry after a failure to record the refusal
 * neither gives it back again nor posts it. That save failing before the last try is thrown (nothing
 * given back yet: the retry does it); on the last try it is one warning and the question is given
 * back (no try follows). @returns `refusal`, for the caller to tell.
 * @throws the Redis error of the save, before the last try.
 */
export async function giveBackOnce(
  deps: Pick<AdmissionDeps, 'store' | 'budget' | 'logger'>,
  req: Asker,
  steps: Steps,
  refusal: string,
): Promise<string> {
  await steps.save({ [givenBackKey(req.key)]: refusal }).catch((err: unknown) => {
    if (!steps.finalAttempt) throw err;
    deps.logger.warn({ err }, 'could not record a question given back on the last try; giving it back');
  });
  await releaseSlot(deps, req);
  await giveBudget(deps, req);
  return refusal;
}
