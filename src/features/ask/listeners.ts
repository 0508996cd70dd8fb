import { createHash } from 'node:crypto';
import type { App, BlockAction, ButtonAction, FeedbackButtonsAction } from '@slack/bolt';
import type { ButtonArgs, CommandArgs, FeedbackArgs } from '../../platform/slack/listener-args.js';
import type { BotMetrics } from '../../platform/metrics.js';
import { unescapeSlackText } from '../../platform/slack/markup.js';
import { clickOf } from '../../platform/slack/click.js';
import { commandEntry, recordCommand, recordInteraction } from '../../platform/slack/record-and-ack.js';
import {
  ACTION_ASK_CHANGE,
  ACTION_ASK_DOCUMENT,
  ACTION_ASK_DOCUMENT_ANSWER,
  ACTION_ASK_EXPERTS,
  ACTION_ASK_FEEDBACK,
  changeClick,
  DOCS_ASK_USAGE,
} from './blocks.js';
import { DOCUMENT_CALLBACK_ID } from './document.js';
import {
  DOCUMENT_ANSWER_CALLBACK_ID,
  documentAnswerAction,
  documentAnswerSubmission,
  type DocumentAnswerDeps,
} from './document-answer.js';
import type { AskStore } from './store.js';
import { changeByOther, documentAction, documentSubmission, type DocumentFormDeps } from './document-form.js';
import { INTAKE, type ClickIntake, type QuestionIntake } from './intake.js';
import { QUESTION_MAX_CHARS } from './handlers.js';
import { NOT_CONFIGURED_TEXT, questionTooLongText } from './texts.js';

/** What the ask listeners need: they check the input, record each request and ack; workers do the rest. */
export interface AskListenerDeps extends DocumentFormDeps, DocumentAnswerDeps {
  /** Answers' and replies' records (the forms quote them). */
  store: Pick<AskStore, 'answer' | 'reply' | 'expertReplyIn'>;
  /** False until DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN are set: `/docs-ask` says how to turn it on, in the ack. */
  configured: boolean;
  /** Counts a question refused in the ack (asking is off) in `docs_bot_ask_total{outcome="refused"}`. */
  metrics?: Pick<BotMetrics, 'askEnded'>;
}

/**
 * `/docs-ask <question>`: an empty question gets the usage, a feature that is off how to turn it
 * on, and a question over {@link QUESTION_MAX_CHARS} its length, all in the ack (nothing recorded);
 * otherwise it is recorded (`ask.question`, id from the trigger_id) and acked. Who may ask is checked
 * by the worker (the access policy's `ask` and the question budget), before any API call.
 */
export function docsAskCommand(deps: AskListenerDeps) {
  return async ({ command, ack }: CommandArgs): Promise<void> => {
    const raw = command.text.trim();
    if (!raw) return void (await ack({ response_type: 'ephemeral', text: DOCS_ASK_USAGE }));
    if (!deps.configured) {
      deps.metrics?.askEnded('refused');
      return void (await ack({ response_type: 'ephemeral', text: NOT_CONFIGURED_TEXT }));
    }
    const chars = unescapeSlackText(raw).length;
    if (chars > QUESTION_MAX_CHARS)
      return void (await ack({ response_type: 'ephemeral', text: questionTooLongText(chars, QUESTION_MAX_CHARS) }));
    const payload: QuestionIntake = {
      teamId: command.team_id,
      channel: command.channel_id,
      user: command.user_id,
      raw,
      responseUrl: command.response_url,
    };
    await recordCommand(deps.intake, deps.logger, ack, commandEntry(command, INTAKE.question, payload));
  };
}

/** Most characters of a button's value recorded (an answer's values are far shorter). */
const CLICK_VALUE_MAX = 300;

/**
 * A record id from a click: the clicker and what was clicked, so a second click on the same button
 * is the same request.
 */
function clickId(kind: string, p: ClickIntake): string {
  const digest = createHash('sha256').update(p.value).digest('hex').slice(0, 24);
  return `${kind}-${p.user.replace(/[^0-9A-Za-z]/g, '')}-${digest}`;
}

/**
 * 👍/👎 under an answer (`feedback_buttons`, `ask.feedback`): recorded (`ask.feedback`, one per
 * person and button) and acked; the worker checks the value and who may, then counts.
 */
export function feedbackAction(deps: AskListenerDeps) {
  return async ({ ack, body, action }: FeedbackArgs): Promise<void> => {
    const p = clickOf(body, (action as { value?: unknown }).value, CLICK_VALUE_MAX);
    if (!p.user) return void (await ack());
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, {
      kind: INTAKE.feedback,
      id: clickId('fb', p),
      requestId: body.trigger_id ?? 'feedback',
      payload: p,
    });
  };
}

/**
 * "Make this a docs change" (`ask.change`): who clicked is read from the signed value (the asker's id
 * is in it, {@link changeClick}), with no network call before the ack. By anyone else: the Document
 * this form opens instead (the question quoted as data, the job under the clicker's own
 * instruction), nothing recorded. By the asker, or a value the bot can't read (unsigned, or from an
 * older version without the asker): recorded (`ask.change`, one per person and answer, so a second
 * click starts no second job) and acked; the worker refuses what it can't read and checks
 * membership and access.
 */
export function changeAction(deps: AskListenerDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    const p = clickOf(body, action.value, CLICK_VALUE_MAX);
    if (!p.user) return void (await ack());
    const click = changeClick(deps.signer, action.value, p.user);
    if (click.kind === 'other') return changeByOther(deps, { ack, body, respond }, click.answerId);
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, {
      kind: INTAKE.change,
      id: clickId('chg', p),
      requestId: action.action_ts,
      payload: p,
    });
  };
}

/**
 * "Ask the docs team" (`ask.experts`): recorded (`ask.experts`, one per person and answer) and
 * acked; the worker checks the value, who may, and that the question goes to the team only once.
 */
function expertsAction(deps: AskListenerDeps) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const p = clickOf(body, action.value, CLICK_VALUE_MAX);
    if (!p.user) return void (await ack());
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, {
      kind: INTAKE.experts,
      id: clickId('exp', p),
      requestId: action.action_ts,
      payload: p,
    });
  };
}

/** Registers `/docs-ask`, the answer's buttons, the Document this and Document this answer modals (declared in manifest.yml). */
export function register(app: App, deps: AskListenerDeps): void {
  app.command('/docs-ask', docsAskCommand(deps));
  app.action<BlockAction<FeedbackButtonsAction>>(ACTION_ASK_FEEDBACK, feedbackAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_ASK_CHANGE, changeAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_ASK_DOCUMENT, documentAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_ASK_EXPERTS, expertsAction(deps));
  app.view({ type: 'view_submission', callback_id: DOCUMENT_CALLBACK_ID }, documentSubmission(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_ASK_DOCUMENT_ANSWER, documentAnswerAction(deps));
  app.view({ type: 'view_submission', callback_id: DOCUMENT_ANSWER_CALLBACK_ID }, documentAnswerSubmission(deps));
}
