/**
 * The ask intake handlers: a question (`/docs-ask`'s, or a message the conversations feature routes
 * here) is admitted, posted and its answer queued ({@link askQuestion}; `./answer/` writes it).
 */
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Queue } from 'bullmq';
import { audit } from '../../platform/audit.js';
import type { AssistantFilter } from '../../platform/docs-api/discovery-schemas.js';
import type { Intake, IntakeContext } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { BotMetrics } from '../../platform/metrics.js';
import { markupToText, quoteReaderText } from '../../platform/slack/markup.js';
import { CANNOT_POST, cannotPostHereText, slackErrorCode } from '../../platform/slack/errors.js';
import { postOnce, postOnceKeys, stepKeys, type PostOnceClient, type Steps } from '../../platform/steps.js';
import { tellPrivately } from '../../platform/slack/tell.js';
import type { UserNames } from '../../platform/slack/user-names.js';
import { handleChange, handleFeedback, type ActionDeps } from './actions.js';
import { enqueueAnswer, type AnswerJobData } from './answer/index.js';
import { admit, givenBackRefusal, giveBackOnce, tellThisOne, type AdmissionDeps } from './admission.js';
import { handleAskExperts, type ExpertsDeps } from './experts.js';
import { INTAKE, type ClickIntake, type QuestionIntake, type TellTarget } from './intake.js';
import type { AskStore } from './store.js';
import { NOT_CONFIGURED_TEXT, QUESTION_NOT_POSTED_TEXT, questionTooLongText } from './texts.js';

/** What the ask handlers need. */
export interface AskHandlerDeps {
  ask: AskDeps;
  actions: ActionDeps;
  /** Ephemeral answers where there is no response_url. */
  slack: { chat: Pick<WebClient['chat'], 'postEphemeral'> };
  /** People's names for mentions in a question (users.info, cached). */
  names: Pick<UserNames, 'lookup'>;
  /** Ask the docs team (`./experts.ts`). */
  experts: ExpertsDeps;
  logger: Logger;
}

/** `/docs-ask`: the question is posted in the channel and answered in its thread. */
async function docsAsk(deps: AskHandlerDeps, p: QuestionIntake, ctx: IntakeContext): Promise<void> {
  const to = { user: p.user, channel: p.channel, responseUrl: p.responseUrl };
  const tell = (text: string) => tellPrivately(deps, to, text);
  const req = {
    teamId: p.teamId,
    channel: p.channel,
    user: p.user,
    question: () => markupToText(p.raw, undefined, deps.names.lookup(p.teamId)),
    ...(p.textChars !== undefined ? { textChars: p.textChars } : {}),
    key: ctx.jobId,
    receivedAt: ctx.receivedAt,
  };
  await askQuestion(deps.ask, req, ctx, { to, tell });
}

/** Registers the ask intake handlers (run by the intake worker of any replica). */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: AskHandlerDeps): void {
  // A clicker is told through the click's response_url, else ephemerally; a button (the thanks for a
  // 👎 with Ask the docs team) goes only through a response_url: without one, the text alone.
  const clickTell = (p: ClickIntake) => (text: string, blocks?: KnownBlock[]) => {
    const to = { user: p.user, channel: p.channel ?? '', ...(p.responseUrl ? { responseUrl: p.responseUrl } : {}) };
    return tellPrivately(deps, to, blocks && p.responseUrl ? { text, blocks } : text);
  };
  intake.on<QuestionIntake>(INTAKE.question, (p, ctx) => docsAsk(deps, p, ctx));
  intake.on<ClickIntake>(INTAKE.feedback, (p, ctx) => handleFeedback(deps.actions, p, ctx, clickTell(p)));
  intake.on<ClickIntake>(INTAKE.change, (p, ctx) => handleChange(deps.actions, p, ctx, clickTell(p)));
  intake.on<ClickIntake>(INTAKE.experts, (p, ctx) => handleAskExperts(deps.experts, p, ctx, clickTell(p)));
}

/** Most characters of a question sent to the assistant. */
export const QUESTION_MAX_CHARS = 4_000;

/** What asking needs: admitting the question (`./admission.ts`), then posting it and queuing its answer. */
export interface AskDeps extends AdmissionDeps {
  /** False until DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN are set: every question is answered how to turn asking on. */
  configured: boolean;
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
   * kind (`./admission.ts`' TOLD_ONCE_S), not once per message.
   */
  from?: 'question-channel';
}

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
  const p = steps.progress as AskProgress;
  if (p.refused) return;
  const refuse = async (text: string) => {
    // The mark keeps a retry from telling it again; on the last try none follows, so Redis failing
    // to keep it does not stop the telling (the person would hear nothing).
    await steps.save({ refused: true }).catch((err: unknown) => {
      if (!steps.finalAttempt) throw err;
      deps.logger.warn({ err }, 'could not record a refusal on the last try; telling it');
    });
    deps.metrics?.askEnded('refused');
    await reply.tell(text);
  };
  // Given back on an earlier try whose refusal Redis failed to record: told, not posted or given back again.
  const givenBack = givenBackRefusal(steps, req);
  if (givenBack !== undefined) return refuse(givenBack);
  if (!deps.configured) return refuse(NOT_CONFIGURED_TEXT);
  const typed = req.textChars ?? (typeof req.question === 'string' ? req.question.length : 0);
  if (typed > QUESTION_MAX_CHARS) return refuse(questionTooLongText(typed, QUESTION_MAX_CHARS));
  if (!p.admitted) {
    const refusal = await admit(deps, req, steps);
    if (refusal && (await tellThisOne(deps, req, refusal.kind))) return refuse(refusal.text);
    if (refusal) return void (await steps.save({ refused: true }), deps.metrics?.askEnded('refused'));
  }
  const question = typeof req.question === 'string' ? req.question : await req.question();
  if (question.length > QUESTION_MAX_CHARS)
    return refuse(await giveBackOnce(deps, req, steps, questionTooLongText(question.length, QUESTION_MAX_CHARS)));
  const posted = req.threadTs ? { ts: req.threadTs } : await postQuestion(deps, { ...req, question }, steps);
  if ('refusal' in posted) return refuse(posted.refusal);
  const threadTs = posted.ts;
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
 * @returns `{ ts }` (also on the last try when the post went out but Redis failed to record it);
 *   or the sentence for the person, the question given back to the budget ({@link giveBackOnce}),
 *   when the bot cannot post there ({@link cannotPostHereText}: invite it, or use another channel) or the post still fails on the last try
 *   (Slack or Redis: {@link QUESTION_NOT_POSTED_TEXT}, logged with the error's code, never the question).
 * @throws other Slack errors and Redis errors before the last try (the intake retries).
 */
async function postQuestion(
  deps: AskDeps,
  req: AskRequest & { question: string },
  steps: Steps,
): Promise<{ ts: string } | { refusal: string }> {
  const key = stepKeys(req.key, 'question').question;
  try {
    const m = questionMessage(req.user, req.question);
    const ts = await postOnce(deps.slack, steps, { channel: req.channel, ...m, key, since: req.receivedAt });
    return { ts };
  } catch (err) {
    const code = slackErrorCode(err);
    if (CANNOT_POST.has(code ?? '')) return { refusal: await giveBackOnce(deps, req, steps, cannotPostHereText(code)) };
    if (!steps.finalAttempt) throw err;
    // Posted, but Redis failed to keep its ts (a save merges into `progress` before it writes): the
    // question is in the channel, so it is answered, not called unposted (a second ask would post it twice).
    const posted = steps.progress[postOnceKeys(key).ts];
    if (typeof posted === 'string') {
      deps.logger.warn({ err, channel: req.channel }, 'posted a question but could not record it; answering it');
      return { ts: posted };
    }
    // No try comes after this one: the person is told, and the question is not counted.
    deps.logger.warn(
      { slackError: code, channel: req.channel },
      'could not post a question, even after retries; told the asker',
    );
    return { refusal: await giveBackOnce(deps, req, steps, QUESTION_NOT_POSTED_TEXT) };
  }
}

/** The question message of `/docs-ask` ("@alice asked the docs: …"), its text escaped and quoted. */
export function questionMessage(asker: string, question: string): { text: string; blocks: KnownBlock[] } {
  const text = `<@${asker}> asked the docs:\n${quoteReaderText(question, 2_800)}`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
