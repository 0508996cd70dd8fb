import { questionMessage as uiQuestion, type DiscoveryClient } from '../../../platform/docs-api/discovery-client.js';
import type { AssistantFilter } from '../../../platform/docs-api/discovery-schemas.js';
import { DEFAULT_ASK_SETTINGS, type AskingClient } from '../../../platform/docs-workspaces.js';
import {
  AssistantStreamError,
  DocsApiErrorCode,
  isDocsApiError,
  type AssistantKeyRefusedError,
  type DocsApiRateLimitedError,
} from '../../../platform/docs-api/errors.js';
import { hasCode } from '../../../platform/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { AskOutcome, BotMetrics } from '../../../platform/metrics.js';
import { stepKeys, type Steps } from '../../../platform/steps.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { answerBlocks, CUT_OFF_TEXT, NO_PAGE_TEXT, TOO_LONG_TEXT, UNANSWERED_TEXT } from '../blocks.js';
import { RECORD_ANSWER_CHARS, type AnswerKeep, type AskConversation, type AskStore } from '../store.js';
import { answerSteps, endCutAnswer } from './final.js';
import { readAnswer, type Read } from './safe-text.js';
import { AnswerWriter } from './stream.js';
import type { WriterDeps } from './types.js';
import {
  COULD_NOT_ANSWER_TEXT,
  KEY_REFUSED_TEXT,
  rateLimitedText,
  SITE_UNKNOWN_TEXT,
  THREAD_LOST_TEXT,
} from '../texts.js';

/** What answering needs. */
export interface AnswerDeps {
  /** `settingNames`: where the current workspace's site is configured (DOCS_WORKSPACE_PROJECTS), for the operator's log lines. */
  discovery: Pick<DiscoveryClient, 'sendMessage'> & Pick<AskingClient, 'settingNames'>;
  store: Pick<AskStore, 'answerKeep'>;
  writer: WriterDeps;
  signer: ValueSigner;
  /**
   * The docs site sources link to (+ the page's path) and the only site links in the answer's text
   * may go to: DOCS_SITE_URL, or a function giving the current workspace's (DOCS_WORKSPACE_PROJECTS
   * `siteUrl`), read at each answer. Undefined: no links.
   */
  siteUrl: string | undefined | (() => string | undefined);
  /** `fp` of the discovery API: a stable HMAC of team and user (never the Slack id). */
  fingerprint: (teamId: string, user: string) => string;
  logger: Logger;
  now: () => number;
  metrics?: Pick<BotMetrics, 'askEnded'>;
  /** Aborted at shutdown: an answer being read ends with the cut-off notice. */
  signal?: AbortSignal;
}

/** One question to answer in a thread. */
export interface Question {
  teamId: string;
  channel: string;
  threadTs: string;
  asker: string;
  /** Plain text, trimmed, non-empty, within the question limit. */
  question: string;
  /** Unique per request (the intake's id): keys the steps, the answer's id and what is posted once. */
  key: string;
  /** Epoch ms the request was recorded. */
  since: number;
  /** Earlier questions of this thread's conversation (for the answer's record). */
  earlier?: string[];
  /** The channel's docs scope: sent as the assistant's `filter`, and named under the answer. */
  scope?: AssistantFilter;
  /** Whether the channel has a docs team: an unanswered answer then offers Ask the docs team. */
  experts?: boolean;
}

/**
 * How answering ended: the outcome for the metric, and a private sentence for the asker when
 * nothing (more) was shown.
 */
interface AnswerResult {
  outcome: Exclude<AskOutcome, 'refused'>;
  tell?: string;
}

/** The assistant says it found nothing (the vendor's answers and the fake's "I couldn't find anything …"). */
const NOTHING_FOUND = new RegExp(
  [
    String.raw`\b(couldn't|could not|can't|cannot|didn't|did not|was unable to|unable to) find\b`,
    String.raw`\bno (relevant )?(information|pages?|results?|documentation)\b`,
    String.raw`\bnot (covered|documented|mentioned) in the docs\b`,
  ].join('|'),
  'i',
);

/**
 * The steps of answering the question `key` (`Question.key`), each `<key>:<name>`: `done` (the
 * outcome, once answered), `outcome` (saved before the final write), and `answer`, the key of the
 * answer's own steps (`./final.ts`' answerSteps).
 */
const questionSteps = (key: string) => stepKeys(key, 'done', 'outcome', 'answer');

/**
 * The answer writer's one entry point (the answer worker, `./worker.ts`, runs it): answers `q` in
 * its thread, exactly once (see the module docs of `./stream.ts` and `./final.ts`): asks the
 * assistant (continuing the thread's conversation when it has one), streams the answer, then the
 * sources and buttons. An answer that failed before any text is asked once more when the failure
 * may pass (5xx, timeouts, a cut-off before the first text); after text it ends with the cut-off
 * notice. A retry after a crash mid-answer never asks again: it ends the cut answer with the
 * notice. @throws Slack and Redis errors (the worker retries; the saved steps make it resume).
 */
export async function writeAnswer(deps: AnswerDeps, q: Question, steps: Steps): Promise<AnswerResult> {
  const keys = questionSteps(q.key);
  const done = steps.progress[keys.done];
  if (typeof done === 'string') return { outcome: done as AnswerResult['outcome'] };
  const target = {
    teamId: q.teamId,
    channel: q.channel,
    threadTs: q.threadTs,
    recipientUserId: q.asker,
    key: keys.answer,
    since: q.since,
  };
  const resumed = await endCutAnswer(deps.writer, target, steps);
  if (resumed !== 'none') {
    const saved = steps.progress[keys.outcome] as AnswerResult['outcome'] | undefined;
    const outcome = resumed === 'finished' ? (saved ?? 'answered') : 'failed';
    return finish(deps, steps, q, { outcome }, undefined);
  }
  const writer = new AnswerWriter(deps.writer, target, steps);
  try {
    return await askAndWrite(deps, q, steps, writer, deps.store.answerKeep(q));
  } catch (err) {
    // No try comes after the last: a stream it started is stopped here, with the cut-off notice.
    if (steps.finalAttempt) await writer.abandon(CUT_OFF_TEXT);
    throw err;
  }
}

/** Asks (once more when it may pass) and writes the answer with `writer`. @throws as {@link writeAnswer}. */
async function askAndWrite(
  deps: AnswerDeps,
  q: Question,
  steps: Steps,
  writer: AnswerWriter,
  kept: AnswerKeep,
): Promise<AnswerResult> {
  const started = deps.now();
  const conversation = await kept.conversation();
  q = { ...q, earlier: conversation?.questions ?? [] };
  let read: Read | AnswerResult = await askOnce(deps, q, writer, kept, conversation);
  if ('failure' in read && read.failure?.retryable && !writer.started)
    read = await askOnce(deps, q, writer, kept, conversation);
  if (!('pages' in read)) return finish(deps, steps, q, read, undefined);
  const firstText = () => (writer.firstTextAt === undefined ? undefined : (writer.firstTextAt - started) / 1000);
  if (read.failure) {
    if (!writer.started) return finish(deps, steps, q, { outcome: 'failed', tell: COULD_NOT_ANSWER_TEXT }, undefined);
    await endAnswer(deps, q, { writer, kept }, read, steps, true);
    return finish(deps, steps, q, { outcome: 'failed' }, firstText());
  }
  const outcome = await endAnswer(deps, q, { writer, kept }, read, steps, false);
  return finish(deps, steps, q, { outcome }, firstText());
}

/**
 * The end of an answer read to its end: its record (for the buttons), then the writer's final write
 * with the sources and buttons, and "the docs don't seem to cover this" when the assistant used no
 * page or said it found nothing; a `cut` answer (the stream failed after text was shown) ends with
 * "the answer was cut off; ask again" and keeps its buttons (Make this a docs change works on it
 * too). The outcome is saved before the final write (a retry that makes the write again reports the
 * same). @returns the outcome.
 */
async function endAnswer(
  deps: AnswerDeps,
  q: Question,
  { writer, kept }: { writer: AnswerWriter; kept: AnswerKeep },
  read: Read,
  steps: Steps,
  cut: boolean,
): Promise<'answered' | 'unanswered' | 'failed'> {
  const unanswered = !cut && (read.pages.length === 0 || read.text.trim() === '' || NOTHING_FOUND.test(read.text));
  const { answerId } = kept;
  const answer = unanswered ? read.text.slice(0, RECORD_ANSWER_CHARS) : '';
  const earlier = (q.earlier ?? []).slice(-5);
  await kept.saveAnswer({ question: q.question, answer, unanswered, earlier });
  // For the weekly digest's "Asked in Slack, not answered by the docs" (a retry notes it once).
  if (unanswered) await kept.noteUnanswered(q.question, deps.now());
  const [{ signer }, { asker, scope, experts }, siteUrl] = [deps, q, siteUrlOf(deps)];
  const blocks = answerBlocks({ answerId, asker, pages: read.pages, siteUrl, unanswered, signer, scope, experts });
  const nothing = read.held ? NO_PAGE_TEXT : UNANSWERED_TEXT;
  const notice = cut ? CUT_OFF_TEXT : unanswered ? nothing : writer.truncated ? TOO_LONG_TEXT : undefined;
  const outcome = cut ? 'failed' : unanswered ? 'unanswered' : 'answered';
  await steps.save({ [questionSteps(q.key).outcome]: outcome });
  await writer.finish({ blocks, ...(notice ? { notice } : {}) });
  return outcome;
}

async function finish(
  deps: AnswerDeps,
  steps: Steps,
  q: Pick<Question, 'key'>,
  r: AnswerResult,
  firstTextSeconds: number | undefined,
): Promise<AnswerResult> {
  const keys = questionSteps(q.key);
  // Done: the copy of the answer's final write (its whole text) is needed no longer; it leaves the steps.
  await steps.save({ [keys.done]: r.outcome, [answerSteps({ key: keys.answer }).final]: undefined });
  deps.metrics?.askEnded(r.outcome, firstTextSeconds);
  return r;
}

/** One message to the assistant, read to its end: what it said, or the result of an error before it began. */
async function askOnce(
  deps: AnswerDeps,
  q: Question,
  writer: AnswerWriter,
  kept: AnswerKeep,
  conversation: AskConversation | undefined,
): Promise<Read | AnswerResult> {
  const thread = conversation ? { threadId: conversation.threadId, threadKey: conversation.threadKey } : {};
  const body = {
    fp: deps.fingerprint(q.teamId, q.asker),
    messages: [uiQuestion(q.question)],
    retrievalPageSize: 5,
    ...(q.scope ? { filter: q.scope } : {}),
    ...thread,
  };
  let answer;
  try {
    answer = await deps.discovery.sendMessage(body, deps.signal ? { signal: deps.signal } : {});
  } catch (err) {
    return refusedAnswer(deps, q, kept, err);
  }
  const turns = (conversation?.turns ?? 0) + 1;
  const questions = [...(conversation?.questions ?? []), q.question];
  const threadId = answer.threadId ?? conversation?.threadId;
  const threadKey = answer.threadKey ?? conversation?.threadKey;
  if (threadId && threadKey) {
    const asker = conversation?.asker ?? q.asker;
    const saved = { threadId, threadKey: '', asker, teamId: q.teamId, turns, questions };
    await kept.saveConversation(Object.defineProperty(saved, 'threadKey', { value: threadKey, enumerable: false }));
  }
  return readAnswer(answer.events, writer, siteUrlOf(deps));
}

/** The site this answer links to ({@link AnswerDeps.siteUrl}), for the current workspace. */
function siteUrlOf(deps: Pick<AnswerDeps, 'siteUrl'>): string | undefined {
  return typeof deps.siteUrl === 'function' ? deps.siteUrl() : deps.siteUrl;
}

/**
 * The result of an answer that never began (an HTTP error): what to tell the asker, and the log
 * line for the operator.
 */
function refusedAnswer(deps: AnswerDeps, q: Question, kept: AnswerKeep, err: unknown): AnswerResult | Read {
  const log = deps.logger.child({ channel: q.channel });
  const setting = deps.discovery.settingNames?.() ?? DEFAULT_ASK_SETTINGS;
  if (hasCode<AssistantKeyRefusedError>(err, DocsApiErrorCode.AssistantKeyRefused)) {
    log.error(
      { status: err.status },
      `the discovery API refused ${setting.key} (401/403): check the assistant API key`,
    );
    return { outcome: 'failed', tell: KEY_REFUSED_TEXT };
  }
  if (hasCode(err, DocsApiErrorCode.AssistantThreadNotFound)) {
    log.warn('the docs assistant no longer knows this thread (404); the conversation is forgotten');
    void kept.forgetConversation().catch((e: unknown) => log.warn({ err: e }, 'could not forget a lost conversation'));
    return { outcome: 'failed', tell: THREAD_LOST_TEXT };
  }
  if (hasCode(err, DocsApiErrorCode.NotFound)) {
    log.error(`the discovery API does not know ${setting.domain} (404): check the docs site domain`);
    return { outcome: 'failed', tell: SITE_UNKNOWN_TEXT };
  }
  if (hasCode<DocsApiRateLimitedError>(err, DocsApiErrorCode.RateLimited)) {
    log.warn({ retryAfterMs: err.retryAfterMs }, 'the discovery API is rate limiting questions (429)');
    return { outcome: 'failed', tell: rateLimitedText(err) };
  }
  log.warn({ err }, 'the docs assistant did not answer');
  // 5xx and network errors may pass: the caller asks once more (as for a stream that failed before its text).
  if (isDocsApiError(err) && err.retryable)
    return { text: '', pages: [], failure: new AssistantStreamError('cut_off', err.code, 0, { cause: err }) };
  return { outcome: 'failed', tell: COULD_NOT_ANSWER_TEXT };
}
