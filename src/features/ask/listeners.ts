import { createHash } from 'node:crypto';
import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  FeedbackButtonsAction,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { authorizeWithin, type AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { BotMetrics } from '../../platform/metrics.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { unescapeSlackText } from '../../platform/slack/markup.js';
import { checkMembership } from '../../platform/slack/member-check.js';
import { recordCommand, recordInteraction } from '../../platform/slack/record-and-ack.js';
import { unverifiedValueText, warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import { submitJobStartForm } from '../agent-jobs/index.js';
import { ACTION_ASK_CHANGE, ACTION_ASK_DOCUMENT, ACTION_ASK_FEEDBACK, DOCS_ASK_USAGE, PURPOSE } from './blocks.js';
import {
  DOCUMENT_ACTION,
  DOCUMENT_BLOCK,
  DOCUMENT_CALLBACK_ID,
  documentModal,
  openDocumentTarget,
} from './document.js';
import { INTAKE, type ClickIntake, type QuestionIntake } from './intake.js';
import { ANSWER_UNKNOWN_TEXT } from './actions.js';
import { QUESTION_MAX_CHARS } from './service.js';
import type { AskStore } from './store.js';
import { NOT_CONFIGURED_TEXT, questionTooLongText } from './texts.js';

/** What the ask listeners need: they check the input, record each request and ack; workers do the rest. */
export interface AskListenerDeps {
  intake: Pick<Intake, 'record'>;
  /** False until DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN are set: `/docs-ask` says how to turn it on, in the ack. */
  configured: boolean;
  signer: ValueSigner;
  /** Answers' records (Document this reads one to fill its form). */
  store: Pick<AskStore, 'answer'>;
  access: Pick<AccessGate, 'authorize'>;
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Opens the Document this modal (within the trigger_id's 3 s). */
  slack: { views: Pick<WebClient['views'], 'open'> };
  logger: Logger;
  /** Counts a question refused in the ack (asking is off) in `docs_bot_ask_total{outcome="refused"}`. */
  metrics?: Pick<BotMetrics, 'askEnded'>;
}

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;
type FeedbackArgs = SlackActionMiddlewareArgs<BlockAction<FeedbackButtonsAction>> & AllMiddlewareArgs;
type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

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
    await recordCommand(deps.intake, deps.logger, ack, {
      kind: INTAKE.question,
      id: `cmd-${command.trigger_id}`,
      requestId: command.trigger_id,
      payload,
    });
  };
}

/** A click's payload, bounded whatever Slack sent. */
function clickOf(body: BlockAction, value: unknown): ClickIntake {
  const channel = body.channel?.id ?? body.container?.channel_id;
  return {
    value: typeof value === 'string' ? value.slice(0, 300) : '',
    user: String(body.user?.id ?? '').slice(0, 40),
    ...(body.team?.id ? { teamId: body.team.id } : {}),
    ...(typeof channel === 'string' ? { channel } : {}),
    ...(body.response_url ? { responseUrl: body.response_url } : {}),
  };
}

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
    const p = clickOf(body, (action as { value?: unknown }).value);
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
 * "Make this a docs change" (`ask.change`): recorded (`ask.change`, one per person and answer, so
 * a second click starts no second job) and acked; the worker checks the value, membership and access.
 */
export function changeAction(deps: AskListenerDeps) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const p = clickOf(body, action.value);
    if (!p.user) return void (await ack());
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, {
      kind: INTAKE.change,
      id: clickId('chg', p),
      requestId: action.action_ts,
      payload: p,
    });
  };
}

/**
 * "Document this" (`ask.document`): acks, then, within the trigger_id's 3 s, checks the value (the
 * bot's), reads the answer's record, re-checks that the clicker is in its conversation and may start
 * jobs there (each within 1 s, fail closed), and opens the modal prefilled from the question. The
 * button changes nothing by itself: the modal's submission records the job start.
 */
export function documentAction(deps: AskListenerDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const tell = (text: string) =>
      respond({ response_type: 'ephemeral', replace_original: false, text }).catch((err: unknown) =>
        deps.logger.warn({ err }, 'could not answer through the response_url'),
      );
    const opened = deps.signer.open(PURPOSE.document, action.value);
    if (!opened.ok) {
      warnUnverified(deps.logger, PURPOSE.document, opened.reason, { user: body.user.id });
      return void (await tell(unverifiedValueText('ask your question again')));
    }
    const rec = await deps.store
      .answer(opened.payload)
      .catch((err: unknown) => void deps.logger.warn({ err }, 'could not read an answer for Document this'));
    if (!rec) return void (await tell(ANSWER_UNKNOWN_TEXT));
    const member = await checkMembership(deps.conversations, deps.logger, {
      channel: rec.channel,
      user: body.user.id,
      action: 'start_job',
      withinMs: 1_000,
    });
    if (!member.ok) return void (await tell(member.text));
    const decision = await authorizeWithin(
      deps.access,
      { user: body.user.id, ...(body.team?.id ? { teamId: body.team.id } : {}) },
      'start_job',
      rec.channel,
      1_000,
    );
    if (!decision.allowed) return void (await tell(decision.text));
    try {
      await deps.slack.views.open({ trigger_id: body.trigger_id, view: documentModal(rec, deps.signer) });
    } catch (err) {
      deps.logger.warn({ err, slackError: slackErrorCode(err) }, 'could not open the Document this modal');
      await tell('Slack would not open the form; click the button again.');
    }
  };
}

/**
 * Submission of the Document this modal (`ask_document`): a blank instruction or a target the bot
 * did not sign is refused inside the modal; the submitter must still be in the conversation
 * (within 1 s, fail closed); then agent-jobs' `submitJobStartForm` checks who may and records the
 * job start in the answer's thread.
 */
export function documentSubmission(deps: AskListenerDeps) {
  return async ({ ack, body, view }: ViewArgs): Promise<void> => {
    const instruction = view.state.values[DOCUMENT_BLOCK]?.[DOCUMENT_ACTION]?.value?.trim() ?? '';
    const error = (text: string) => ack({ response_action: 'errors', errors: { [DOCUMENT_BLOCK]: text } });
    if (!instruction) return void (await error('Tell the agent what to add to the docs.'));
    const opened = openDocumentTarget(deps.signer, view.private_metadata);
    if (!opened.ok) {
      warnUnverified(deps.logger, PURPOSE.modal, opened.reason, { user: body.user.id });
      return void (await error('This form is out of date; click Document this again.'));
    }
    const { channel, threadTs } = opened.target;
    const member = await checkMembership(deps.conversations, deps.logger, {
      channel,
      user: body.user.id,
      action: 'start_job',
      withinMs: 1_000,
    });
    if (!member.ok) return void (await error(member.text));
    await submitJobStartForm(
      deps,
      { ack, body, blockId: DOCUMENT_BLOCK, formName: 'the Document this form' },
      { channel, instruction, threadTs },
    );
  };
}

/** Registers `/docs-ask`, the answer's buttons and the Document this modal (declared in manifest.yml). */
export function register(app: App, deps: AskListenerDeps): void {
  app.command('/docs-ask', docsAskCommand(deps));
  app.action<BlockAction<FeedbackButtonsAction>>(ACTION_ASK_FEEDBACK, feedbackAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_ASK_CHANGE, changeAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_ASK_DOCUMENT, documentAction(deps));
  app.view({ type: 'view_submission', callback_id: DOCUMENT_CALLBACK_ID }, documentSubmission(deps));
}
