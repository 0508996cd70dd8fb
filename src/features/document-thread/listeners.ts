import type {
  AllMiddlewareArgs,
  App,
  MessageShortcut,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { notRecordedText } from '../../platform/slack/edge.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { unverifiedValueText, warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import { submitFollowUpForm, submitJobStartForm } from '../agent-jobs/index.js';
import { decodeThreadRef, INSTRUCTION_ACTION, INSTRUCTION_BLOCK, loadingModal, modalAt } from './blocks.js';
import { MODAL_CALLBACK_ID, SHORTCUT_CALLBACK_ID, THREAD_REF_PURPOSE } from './blocks.js';
import { INTAKE, type PreviewIntake } from './intake.js';

/** What the shortcut and its modal need: they record each request and ack; workers do the rest. */
export interface ThreadContextListenerDeps {
  intake: Pick<Intake, 'record'>;
  /** Opens the modal. */
  slack: { views: Pick<WebClient['views'], 'open'> };
  /** Asked again at submission, for the channel in the form (the worker's gate asks a third time, with the budget). */
  access: Pick<AccessGate, 'authorize'>;
  /** The submitter must still be a member of the form's conversation. */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Signs and checks the modal's `private_metadata`. */
  signer: Pick<ValueSigner, 'sign' | 'open'>;
  logger: Logger;
}

type ShortcutArgs = SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs;

/** external_id of the modal opened by a trigger (Slack: unique per workspace, ≤ 255 chars). */
export const modalExternalId = (triggerId: string): string => `document-thread-${triggerId}`.slice(0, 255);

/**
 * The "Document this thread" message shortcut (`message_action`, callback_id `document_thread`):
 * records the preview (`thread-context.preview`, id from the trigger_id), acks, and opens the modal
 * at once with views.open (the trigger_id is valid for 3 s) showing "Reading the thread…"; the
 * intake worker reads the thread and updates the modal (by its external_id). The thread is the
 * message's `thread_ts`, or its own `ts` when it has no replies.
 */
export function documentThreadShortcut(deps: ThreadContextListenerDeps) {
  return async ({ ack, shortcut, respond }: ShortcutArgs): Promise<void> => {
    const ref = { channel: shortcut.channel.id, threadTs: shortcut.message.thread_ts ?? shortcut.message.ts };
    const externalId = modalExternalId(shortcut.trigger_id);
    const payload: PreviewIntake = { ...ref, user: shortcut.user.id, externalId };
    try {
      await deps.intake.record(INTAKE.preview, `shortcut-${shortcut.trigger_id}`, shortcut.trigger_id, payload);
    } catch (err) {
      deps.logger.warn({ err }, 'could not record a Document this thread shortcut; told the person to try again');
      await ack();
      await respond({ response_type: 'ephemeral', replace_original: false, text: notRecordedText(err) }).catch(
        (e: unknown) => deps.logger.warn({ err: e }, 'could not tell the person to try again'),
      );
      return;
    }
    await ack();
    try {
      const view = loadingModal(modalAt(externalId, ref, deps.signer));
      await deps.slack.views.open({ trigger_id: shortcut.trigger_id, view });
    } catch (err) {
      deps.logger.warn({ err, slackError: slackErrorCode(err) }, 'could not open the Document this thread modal');
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        text: 'Slack would not open the form in time; use the shortcut again.',
      }).catch((e: unknown) => deps.logger.warn({ err: e }, 'could not tell the person to use the shortcut again'));
    }
  };
}

/** The modal's answer to a form whose metadata the bot did not sign, or can't read: use the shortcut again. */
export const FORM_UNVERIFIED_TEXT = unverifiedValueText('use *Document this thread* on the message again');

/**
 * Submission of the modal (view_submission `document_thread_modal`): a blank instruction is refused
 * inside the modal (`response_action: errors`), and so is metadata the bot did not sign (with a
 * warning log: nothing is read or started for a conversation named by a forged form). Otherwise a
 * job start is recorded through the agent-jobs feature's intake (`agent-jobs.start` with the
 * thread as context, its status message in that thread, its state shown on its own status message
 * since a discussion may hold several jobs), after access and membership of the conversation are
 * checked again, and the modal closes. The form of a job's thread sends a follow-up to that job
 * instead. If it cannot be recorded, the modal says so and stays open.
 */
export function documentThreadSubmission(deps: ThreadContextListenerDeps) {
  return async ({ ack, body, view }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs): Promise<void> => {
    const instruction = view.state.values[INSTRUCTION_BLOCK]?.[INSTRUCTION_ACTION]?.value?.trim() ?? '';
    const refuse = (text: string) => ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: text } });
    if (!instruction) return void (await refuse('Tell the agent what to do with this thread.'));
    const decoded = decodeThreadRef(view.private_metadata, deps.signer);
    if (!decoded.ok) {
      warnUnverified(deps.logger, THREAD_REF_PURPOSE, decoded.reason, { user: body.user.id });
      return void (await refuse(FORM_UNVERIFIED_TEXT));
    }
    const ref = decoded.ref;
    const form = { ack, body, blockId: INSTRUCTION_BLOCK, formName: 'the Document this thread form' };
    // A job's thread: the instruction goes to that job as a follow-up (a thread belongs to its first job).
    if (ref.jobId)
      return submitFollowUpForm(deps, form, {
        jobId: ref.jobId,
        channel: ref.channel,
        threadTs: ref.threadTs,
        instruction,
      });
    const req = {
      channel: ref.channel,
      instruction,
      threadTs: ref.threadTs,
      reactOnStatusMessage: true,
      thread: { ts: ref.threadTs },
    };
    await submitJobStartForm(deps, form, req);
  };
}

/** Registers the message shortcut and its modal (declared in manifest.yml). */
export function register(app: App, deps: ThreadContextListenerDeps): void {
  app.shortcut<MessageShortcut>(
    { type: 'message_action', callback_id: SHORTCUT_CALLBACK_ID },
    documentThreadShortcut(deps),
  );
  app.view({ type: 'view_submission', callback_id: MODAL_CALLBACK_ID }, documentThreadSubmission(deps));
}
