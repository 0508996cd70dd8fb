import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  RespondFn,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { unverifiedValueText, warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import { withinTime } from '../../platform/time-limit.js';
import { formRefusal, submitJobStartForm } from '../agent-jobs/index.js';
import { ANSWER_UNKNOWN_TEXT } from './actions.js';
import { PURPOSE } from './blocks.js';
import { DOCUMENT_ACTION, DOCUMENT_BLOCK, documentModal, documentQuote, openDocumentTarget } from './document.js';
import type { AnswerRecord, AskStore } from './store.js';

/**
 * The Document this form's listeners: the button that opens it, "Make this a docs change" clicked by
 * someone other than the asker (the same form), and its submission, which sends the question to
 * the agent as quoted data apart from the instruction the person typed.
 */

/** What the form's listeners need (part of the ask listeners' deps). */
export interface DocumentFormDeps {
  intake: Pick<Intake, 'record'>;
  signer: ValueSigner;
  /** Answers' records (the form quotes one). */
  store: Pick<AskStore, 'answer'>;
  access: Pick<AccessGate, 'authorize'>;
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Opens the Document this modal (within the trigger_id's 3 s). */
  slack: { views: Pick<WebClient['views'], 'open'> };
  logger: Logger;
}

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;
type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** How long reading an answer's record may take in a listener, in ms (the trigger_id lasts 3 s). */
const RECORD_WITHIN_MS = 800;

/** The person's private answer through a click's response_url; never throws. */
function tellVia(deps: Pick<DocumentFormDeps, 'logger'>, respond: RespondFn) {
  return (text: string): Promise<void> =>
    respond({ response_type: 'ephemeral', replace_original: false, text }).then(
      () => undefined,
      (err: unknown) => void deps.logger.warn({ err }, 'could not answer through the response_url'),
    );
}

/**
 * Opens the Document this form on `rec` for the clicker, within the trigger_id's 3 s: agent-jobs'
 * `formRefusal` re-checks that the clicker may start jobs in the answer's conversation and is in it
 * (one deadline for both, `FORM_CHECK_WITHIN_MS`; too slow refuses); a refusal, or Slack not opening
 * the form, is told privately. Callers read the record within {@link RECORD_WITHIN_MS} first, so
 * views.open is called within 2.3 s of the ack. Never throws.
 */
export async function openDocumentForm(
  deps: DocumentFormDeps,
  body: BlockAction,
  rec: AnswerRecord,
  tell: (text: string) => Promise<void>,
): Promise<void> {
  const actor = { user: body.user.id, ...(body.team?.id ? { teamId: body.team.id } : {}) };
  const refusal = await formRefusal(deps, actor, 'start_job', rec.channel);
  if (refusal) return tell(refusal);
  try {
    await deps.slack.views.open({ trigger_id: body.trigger_id, view: documentModal(rec, deps.signer) });
  } catch (err) {
    deps.logger.warn({ err, slackError: slackErrorCode(err) }, 'could not open the Document this modal');
    await tell('Slack would not open the form; click the button again.');
  }
}

/** The answer a signed value names, read within {@link RECORD_WITHIN_MS}; undefined when it can't be had (logged). */
async function answerWithin(deps: DocumentFormDeps, answerId: string): Promise<AnswerRecord | undefined> {
  const read = deps.store.answer(answerId).catch((err: unknown) => {
    deps.logger.warn({ err }, 'could not read an answer for its button');
    return undefined;
  });
  return withinTime(read, RECORD_WITHIN_MS, () => undefined);
}

/**
 * "Make this a docs change" by someone other than the asker (decided from the signed value, before
 * the ack): acks, reads the answer's record within {@link RECORD_WITHIN_MS} (one it can't read is
 * told), then opens the Document this form ({@link openDocumentForm}). Records nothing.
 */
export async function changeByOther(
  deps: DocumentFormDeps,
  args: Pick<ButtonArgs, 'ack' | 'body' | 'respond'>,
  answerId: string,
): Promise<void> {
  await args.ack();
  const tell = tellVia(deps, args.respond);
  const rec = await answerWithin(deps, answerId);
  if (!rec) return tell(ANSWER_UNKNOWN_TEXT);
  await openDocumentForm(deps, args.body, rec, tell);
}

/**
 * "Document this" (`ask.document`): acks, then, within the trigger_id's 3 s, checks the value (the
 * bot's), reads the answer's record and opens the form ({@link openDocumentForm}). The button changes
 * nothing by itself: the modal's submission records the job start.
 */
export function documentAction(deps: DocumentFormDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const tell = tellVia(deps, respond);
    const opened = deps.signer.open(PURPOSE.document, action.value);
    if (!opened.ok) {
      warnUnverified(deps.logger, PURPOSE.document, opened.reason, { user: body.user.id });
      return tell(unverifiedValueText('ask your question again'));
    }
    const rec = await answerWithin(deps, opened.payload);
    if (!rec) return tell(ANSWER_UNKNOWN_TEXT);
    await openDocumentForm(deps, body, rec, tell);
  };
}

/**
 * Submission of the Document this modal (`ask_document`): a blank instruction, or metadata the bot
 * did not sign, is refused inside the modal; the answer's record (named in the signed metadata, read
 * within {@link RECORD_WITHIN_MS}) gives the quote, which goes to the agent apart from the
 * instruction, so nothing in it acts whatever was typed in the form; then agent-jobs'
 * `submitJobStartForm` checks who may and that the submitter is still in the conversation (within
 * `FORM_CHECK_WITHIN_MS`, fail closed) and records the job start in the answer's thread: the ack
 * comes within 2.3 s (Slack: 3 s).
 */
export function documentSubmission(deps: DocumentFormDeps) {
  return async ({ ack, body, view }: ViewArgs): Promise<void> => {
    const instruction = view.state.values[DOCUMENT_BLOCK]?.[DOCUMENT_ACTION]?.value?.trim() ?? '';
    const error = (text: string) => ack({ response_action: 'errors', errors: { [DOCUMENT_BLOCK]: text } });
    if (!instruction) return void (await error('Tell the agent what to add to the docs.'));
    const opened = openDocumentTarget(deps.signer, view.private_metadata);
    if (!opened.ok) {
      warnUnverified(deps.logger, PURPOSE.modal, opened.reason, { user: body.user.id });
      return void (await error('This form is out of date; click Document this again.'));
    }
    const { channel, threadTs, answerId } = opened.target;
    const rec = await answerWithin(deps, answerId);
    if (!rec || rec.channel !== channel) return void (await error(ANSWER_UNKNOWN_TEXT));
    await submitJobStartForm(
      deps,
      { ack, body, blockId: DOCUMENT_BLOCK, formName: 'the Document this form' },
      { channel, instruction, threadTs, quoted: documentQuote(rec), about: rec.question },
    );
  };
}
