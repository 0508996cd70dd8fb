import type { ButtonArgs } from '../../platform/slack/listener-args.js';
import { unverifiedValueText, type ValueSigner } from '../../platform/slack/signed-value.js';
import { clickReply } from '../../platform/slack/tell.js';
import { withinTime } from '../../platform/time-limit.js';
import { jobFormButton, jobFormSubmission, openJobForm, refuseUnverified } from '../agent-jobs/index.js';
import type { JobForm, JobFormDeps } from '../agent-jobs/index.js';
import { ANSWER_UNKNOWN_TEXT } from './actions.js';
import { ANSWER_UNREADABLE_TEXT } from './texts.js';
import { PURPOSE } from './blocks.js';
import { documentModal, documentQuote, readDocumentTarget, type DocumentTarget } from './document.js';
import type { AnswerRecord, AskStore } from './store.js';

/**
 * The Document this form, a descriptor over agent-jobs' job form kit: the button that opens it,
 * "Make this a docs change" clicked by someone other than the asker (the same form), and its
 * submission, which sends the question to the agent as quoted data apart from the instruction the
 * person typed.
 */

/** What the form's listeners need (part of the ask listeners' deps). */
export interface DocumentFormDeps extends JobFormDeps {
  signer: ValueSigner;
  /** Answers' records (the form quotes one). */
  store: Pick<AskStore, 'answer'>;
}

/** How long reading an answer's record may take in a listener, in ms (the trigger_id lasts 3 s). */
const RECORD_WITHIN_MS = 800;

/** The answer to a Document this button whose value the bot did not sign. */
const UNVERIFIED_TEXT = unverifiedValueText('ask your question again');

/** The name of the modal in the log line when Slack won't open it. */
const MODAL_NAME = 'the Document this modal';

/**
 * The form on `rec`, for agent-jobs' `openJobForm`: it re-checks that the clicker may start jobs in
 * the answer's conversation and is in it (one deadline for both, `FORM_CHECK_WITHIN_MS`; too slow
 * refuses). Callers read the record within {@link RECORD_WITHIN_MS} first, so views.open is called
 * within 2.3 s of the ack.
 */
const formOn = (deps: DocumentFormDeps, rec: AnswerRecord) => ({
  channel: rec.channel,
  view: () => documentModal(rec, deps.signer),
});

/**
 * The answer a signed value names, read within {@link RECORD_WITHIN_MS}: the record; undefined when
 * it is not kept (expired, unknown); `unreadable` when Redis failed (logged) or did not answer in time.
 */
async function answerWithin(
  deps: DocumentFormDeps,
  answerId: string,
): Promise<AnswerRecord | undefined | 'unreadable'> {
  const read = deps.store.answer(answerId).catch((err: unknown): 'unreadable' => {
    deps.logger.warn({ err }, 'could not read an answer for its button');
    return 'unreadable';
  });
  return withinTime<AnswerRecord | undefined | 'unreadable'>(read, RECORD_WITHIN_MS, () => 'unreadable');
}

/** What to tell when an answer's record is not to be had: gone, or not readable just now. */
const noAnswerText = (rec: undefined | 'unreadable'): string =>
  rec === 'unreadable' ? ANSWER_UNREADABLE_TEXT : ANSWER_UNKNOWN_TEXT;

/**
 * "Make this a docs change" by someone other than the asker (decided from the signed value, before
 * the ack): acks, reads the answer's record within {@link RECORD_WITHIN_MS} (one it can't read is
 * told), then opens the Document this form. Records nothing.
 */
export async function changeByOther(
  deps: DocumentFormDeps,
  args: Pick<ButtonArgs, 'ack' | 'body' | 'respond'>,
  answerId: string,
): Promise<void> {
  await args.ack();
  const tell = clickReply(args.respond, deps.logger);
  const rec = await answerWithin(deps, answerId);
  if (!rec || rec === 'unreadable') return tell(noAnswerText(rec));
  await openJobForm(deps, args.body, { ...formOn(deps, rec), name: MODAL_NAME, tell });
}

/**
 * "Document this" (`ask.document`): acks, then, within the trigger_id's 3 s, checks the value (the
 * bot's), reads the answer's record and opens the form (agent-jobs' `jobFormButton`). The button
 * changes nothing by itself: the modal's submission records the job start.
 */
export function documentAction(deps: DocumentFormDeps) {
  return jobFormButton(deps, MODAL_NAME, async (body, value) => {
    const opened = deps.signer.open(PURPOSE.document, value);
    if (!opened.ok) return refuseUnverified(deps, PURPOSE.document, opened.reason, body, UNVERIFIED_TEXT);
    const rec = await answerWithin(deps, opened.payload);
    return rec && rec !== 'unreadable' ? formOn(deps, rec) : { say: noAnswerText(rec) };
  });
}

/**
 * The Document this modal as its submission reads it: the answer's record (named in the signed
 * metadata, read within {@link RECORD_WITHIN_MS}) gives the quote, which goes to the agent apart from
 * the instruction (`quoted`), so nothing in it acts whatever was typed in the form; the job starts
 * in the answer's thread.
 */
function documentForm(deps: DocumentFormDeps): JobForm<DocumentTarget> {
  return {
    formName: 'the Document this form',
    purpose: PURPOSE.modal,
    read: readDocumentTarget,
    blankText: 'Tell the agent what to add to the docs.',
    unverifiedText: 'This form is out of date; click Document this again.',
    outcome: async ({ channel, threadTs, answerId }, instruction) => {
      const rec = await answerWithin(deps, answerId);
      if (rec === 'unreadable') return { refuse: ANSWER_UNREADABLE_TEXT };
      if (!rec || rec.channel !== channel) return { refuse: ANSWER_UNKNOWN_TEXT };
      return { start: { channel, instruction, threadTs, quoted: documentQuote(rec), about: rec.question } };
    },
  };
}

/**
 * Submission of the Document this modal (`ask_document`), agent-jobs' `jobFormSubmission` over
 * {@link documentForm}: a blank instruction, or metadata the bot did not sign, is refused inside the
 * modal; then who may, and that the submitter is still in the conversation, are checked (within
 * `FORM_CHECK_WITHIN_MS`, fail closed) and the job start is recorded in the answer's thread: the ack
 * comes within 2.3 s (Slack: 3 s).
 */
export const documentSubmission = (deps: DocumentFormDeps) => jobFormSubmission(deps, documentForm(deps));
