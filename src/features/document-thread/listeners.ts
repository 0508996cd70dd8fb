import type { App, MessageShortcut } from '@slack/bolt';
import type { ShortcutArgs } from '../../platform/slack/listener-args.js';
import { notRecordedText } from '../../platform/slack/edge.js';
import { unverifiedValueText } from '../../platform/slack/signed-value.js';
import { clickReply } from '../../platform/slack/tell.js';
import { jobFormSubmission, openForm, type JobForm, type JobFormDeps } from '../agent-jobs/index.js';
import { loadingModal, modalAt, readThreadRef, type ThreadRef } from './blocks.js';
import { MODAL_CALLBACK_ID, SHORTCUT_CALLBACK_ID, THREAD_REF_PURPOSE } from './blocks.js';
import { INTAKE, type PreviewIntake } from './intake.js';

/**
 * What the shortcut and its modal need (agent-jobs' job form kit): they record each request and ack;
 * workers do the rest. Access and membership are asked again at submission, for the channel in the
 * form (the worker's gate asks a third time, with the budget).
 */
type ThreadContextListenerDeps = JobFormDeps;

/** external_id of the modal opened by a trigger (Slack: unique per workspace, ≤ 255 chars). */
const modalExternalId = (triggerId: string): string => `document-thread-${triggerId}`.slice(0, 255);

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
    const tell = clickReply(respond, deps.logger);
    try {
      await deps.intake.record(INTAKE.preview, `shortcut-${shortcut.trigger_id}`, shortcut.trigger_id, payload);
    } catch (err) {
      deps.logger.warn({ err }, 'could not record a Document this thread shortcut; told the person to try again');
      await ack();
      return tell(notRecordedText(err));
    }
    await ack();
    const view = loadingModal(modalAt(externalId, ref, deps.signer));
    const notOpened = 'Slack would not open the form in time; use the shortcut again.';
    await openForm(deps, {
      triggerId: shortcut.trigger_id,
      view,
      name: 'the Document this thread modal',
      tell,
      notOpened,
    });
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
  return jobFormSubmission(deps, DOCUMENT_THREAD_FORM);
}

/** The modal as its submission reads it: a job start with the thread as context, or a follow-up to the thread's job. */
const DOCUMENT_THREAD_FORM: JobForm<ThreadRef> = {
  formName: 'the Document this thread form',
  purpose: THREAD_REF_PURPOSE,
  read: readThreadRef,
  blankText: 'Tell the agent what to do with this thread.',
  unverifiedText: FORM_UNVERIFIED_TEXT,
  outcome: ({ channel, threadTs, jobId }, instruction) =>
    // A job's thread: the instruction goes to that job as a follow-up (a thread belongs to its first job).
    jobId
      ? { followUp: { jobId, channel, threadTs, instruction } }
      : { start: { channel, instruction, threadTs, reactOnStatusMessage: true, thread: { ts: threadTs } } },
};

/** Registers the message shortcut and its modal (declared in manifest.yml). */
export function register(app: App, deps: ThreadContextListenerDeps): void {
  app.shortcut<MessageShortcut>(
    { type: 'message_action', callback_id: SHORTCUT_CALLBACK_ID },
    documentThreadShortcut(deps),
  );
  app.view({ type: 'view_submission', callback_id: MODAL_CALLBACK_ID }, documentThreadSubmission(deps));
}
