/**
 * `/docs-ask`'s question posted in its channel (once), and a question that was never sent given
 * back to the asker's budgets and answer slot (once, across the intake's retries).
 */
import type { KnownBlock } from '@slack/types';
import type { Logger } from '../../platform/logger.js';
import { CANNOT_POST, INVITE_FIRST, slackErrorCode } from '../../platform/slack/errors.js';
import { quoteReaderText } from '../../platform/slack/markup.js';
import { postOnce, postOnceKeys, type PostOnceClient, stepKeys, type Steps } from '../../platform/steps.js';
import type { AskBudget } from './admission.js';
import { releaseSlot } from './answer/index.js';
import type { AskStore } from './store.js';
import { QUESTION_NOT_POSTED_TEXT } from './texts.js';

/** What posting and giving back a question need (a part of the handlers' `AskDeps`). */
export interface PostQuestionDeps {
  /** Posts the question of `/docs-ask` (once). */
  slack: PostOnceClient;
  store: Pick<AskStore, 'releaseAnswerSlot'>;
  budget: Pick<AskBudget, 'give'>;
  logger: Logger;
}

/** Whose question, where, and its intake's key and receipt (epoch ms): a part of the handlers' `AskRequest`. */
interface Question {
  teamId: string;
  channel: string;
  user: string;
  key: string;
  receivedAt: number;
}

/**
 * The steps of a question (keyed by its intake's key): `question`, the message posted once
 * ({@link postOnce}'s keys); `given-back`, the refusal its give-back ended in, saved before the
 * give-back ({@link giveBackOnce}).
 */
const questionSteps = (key: string) => stepKeys(key, 'question', 'given-back');

/**
 * The refusal a question was given back with on an earlier try, if it was: the retry tells it again
 * and neither posts the question nor gives it back a second time.
 */
export function givenBackRefusal(steps: Steps, req: Pick<Question, 'key'>): string | undefined {
  const saved = steps.progress[questionSteps(req.key)['given-back']];
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
  deps: Omit<PostQuestionDeps, 'slack'>,
  req: Question,
  steps: Steps,
  refusal: string,
): Promise<string> {
  await steps.save({ [questionSteps(req.key)['given-back']]: refusal }).catch((err: unknown) => {
    if (!steps.finalAttempt) throw err;
    deps.logger.warn({ err }, 'could not record a question given back on the last try; giving it back');
  });
  await releaseSlot(deps, req);
  await deps.budget
    .give(req.teamId, req.user)
    .catch((e: unknown) => deps.logger.warn({ err: e }, 'could not give back a question'));
  return refusal;
}

/**
 * Posts `/docs-ask`'s question in its channel (once) and returns its ts: the answer's thread.
 * @returns `{ ts }` (also on the last try when the post went out but Redis failed to record it);
 *   or the sentence for the person, the question given back to the budget ({@link giveBackOnce}),
 *   when the bot cannot post there ({@link INVITE_FIRST}) or the post still fails on the last try
 *   (Slack or Redis: {@link QUESTION_NOT_POSTED_TEXT}, logged with the error's code, never the question).
 * @throws other Slack errors and Redis errors before the last try (the intake retries).
 */
export async function postQuestion(
  deps: PostQuestionDeps,
  req: Question & { question: string },
  steps: Steps,
): Promise<{ ts: string } | { refusal: string }> {
  const key = questionSteps(req.key).question;
  try {
    const m = questionMessage(req.user, req.question);
    const ts = await postOnce(deps.slack, steps, { channel: req.channel, ...m, key, since: req.receivedAt });
    return { ts };
  } catch (err) {
    const code = slackErrorCode(err);
    if (CANNOT_POST.has(code ?? '')) return { refusal: await giveBackOnce(deps, req, steps, INVITE_FIRST) };
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
