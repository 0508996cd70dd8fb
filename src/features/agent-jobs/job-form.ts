import type { BlockAction } from '@slack/bolt';
import type { ButtonArgs, SubmissionArgs } from '../../platform/slack/listener-args.js';
import type { InputBlock, KnownBlock, ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import { clickReply } from '../../platform/slack/tell.js';
import { formRefusal, submitFollowUpForm, submitJobStartForm } from './form-start.js';
import type { FormFollowUp, FormStartDeps } from './form-start.js';
import type { StartIntake } from './intake.js';

/**
 * The job-start form kit: every modal that gives the docs agent an instruction ("Improve with
 * agent" on a digest's page or on a reader signal, "Document this", "Document this thread") is a
 * descriptor over it. The kit owns what they share: the instruction input, the modal's frame, the
 * signed `private_metadata`, the click that opens the form within the trigger's 3 s (access and
 * membership checked first, fail closed; a refusal, or Slack not opening the form, told privately),
 * and the submission (a blank instruction and forged metadata refused in the modal, the checks
 * again, the start recorded exactly once). CONTRIBUTING.md, "Adding a form", says how to add one.
 */

/** block_id and action_id of every job form's instruction input. */
export const INSTRUCTION_BLOCK = 'instruction';
export const INSTRUCTION_ACTION = 'instruction';
/** Slack: plain_text_input `max_length` ≤ 3000, and `initial_value` within it. */
export const INSTRUCTION_MAX = 3_000;

/** What the clicker hears when Slack would not open a form (views.open failed). */
const FORM_NOT_OPENED_TEXT = 'Slack would not open the form; click the button again.';

/** What a job form's click and submission need: the above, views.open, and the signer of its values and metadata. */
export interface JobFormDeps extends FormStartDeps {
  slack: { views: Pick<WebClient['views'], 'open'> };
  signer: Pick<ValueSigner, 'sign' | 'open'>;
}

/** The instruction input (`instruction`/`instruction`, multiline, ≤ {@link INSTRUCTION_MAX}), starting with `initial`. */
export function instructionInput(initial: string, o: { label?: string; hint?: string } = {}): InputBlock {
  return {
    type: 'input',
    block_id: INSTRUCTION_BLOCK,
    label: { type: 'plain_text', text: o.label ?? 'Instruction for the docs agent' },
    ...(o.hint ? { hint: { type: 'plain_text', text: o.hint } } : {}),
    element: {
      type: 'plain_text_input',
      action_id: INSTRUCTION_ACTION,
      multiline: true,
      max_length: INSTRUCTION_MAX,
      initial_value: initial,
    },
  };
}

/** The frame of a job form (Slack: modals): Cancel to close, `submit` (none: nothing to submit), the signed metadata. */
export interface JobModal {
  callbackId: string;
  title: string;
  /** `private_metadata`, signed already (Slack: ≤ 3000 chars). */
  metadata: string;
  blocks: KnownBlock[];
  /** @defaultValue 'Start job' */
  submit?: string | null;
  /** @defaultValue 'Cancel' */
  close?: string;
  /** external_id, for a modal updated later (views.update). */
  externalId?: string;
}

/** A job form's modal for views.open / views.update. */
export function jobModal(m: JobModal): ModalView {
  const submit = m.submit === undefined ? 'Start job' : m.submit;
  return {
    type: 'modal',
    callback_id: m.callbackId,
    ...(m.externalId ? { external_id: m.externalId } : {}),
    private_metadata: m.metadata,
    title: { type: 'plain_text', text: m.title },
    ...(submit ? { submit: { type: 'plain_text', text: submit } } : {}),
    close: { type: 'plain_text', text: m.close ?? 'Cancel' },
    blocks: m.blocks,
  };
}

/** What {@link openSigned} found: the metadata, or why it is not the bot's (`malformed`: signed, but unreadable). */
type OpenedMetadata<M> = { ok: true; meta: M } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' };

/**
 * Opens a value the bot signed for `purpose` as JSON read by `read` (a zod parse and a mapping: it
 * throws on what it can't read, which comes back `malformed`).
 */
export function openSigned<M>(
  signer: Pick<ValueSigner, 'open'>,
  purpose: string,
  raw: unknown,
  read: (json: unknown) => M,
): OpenedMetadata<M> {
  const opened = signer.open(purpose, raw);
  if (!opened.ok) return opened;
  try {
    return { ok: true, meta: read(JSON.parse(opened.payload)) };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
}

/**
 * Opens `view` with views.open for `triggerId` (Slack: a trigger_id lasts 3 s); when Slack won't, a
 * warning ("could not open `name`", e.g. "the Document this modal") and `notOpened`
 * ({@link FORM_NOT_OPENED_TEXT}) told through `tell`. Never throws.
 */
export async function openForm(
  deps: Pick<JobFormDeps, 'slack' | 'logger'>,
  f: { triggerId: string; view: ModalView; name: string; tell: (text: string) => Promise<void>; notOpened?: string },
): Promise<void> {
  try {
    await deps.slack.views.open({ trigger_id: f.triggerId, view: f.view });
  } catch (err) {
    deps.logger.warn({ err, slackError: slackErrorCode(err) }, `could not open ${f.name}`);
    await f.tell(f.notOpened ?? FORM_NOT_OPENED_TEXT);
  }
}

/**
 * Opens a job form for whoever clicked `body`'s button, about a job in `channel`: {@link formRefusal}
 * first (may the clicker start jobs there, and is the clicker in it; one deadline, fail closed), then
 * {@link openForm}; a refusal is told privately and opens nothing. Never throws.
 */
export async function openJobForm(
  deps: Pick<JobFormDeps, 'slack' | 'logger' | 'access' | 'conversations'>,
  body: BlockAction,
  f: { channel: string; view: () => ModalView; name: string; tell: (text: string) => Promise<void> },
): Promise<void> {
  const teamId = body.team?.id ?? body.user.team_id;
  const actor = { user: body.user.id, ...(teamId ? { teamId } : {}) };
  const refusal = await formRefusal(deps, actor, 'start_job', f.channel);
  if (refusal) return f.tell(refusal);
  await openForm(deps, { triggerId: body.trigger_id, view: f.view(), name: f.name, tell: f.tell });
}

/**
 * A button's answer when its value is not the bot's (`unsigned`, `tampered`) or can't be read: a
 * warning log (platform's `warnUnverified`), and `text` told privately.
 */
export function refuseUnverified(
  deps: Pick<JobFormDeps, 'logger'>,
  purpose: string,
  reason: 'unsigned' | 'tampered' | 'malformed',
  body: BlockAction,
  text: string,
): FormTarget {
  warnUnverified(deps.logger, purpose, reason, { user: body.user.id });
  return { say: text };
}

/** What a button that opens a job form decides from its click: the form to open and its channel, or what to say instead. */
type FormTarget = { channel: string; view: () => ModalView } | { say: string };

/**
 * The listener of a button that opens a job form: acks, asks `target` (checks the button's signed
 * value and where it was clicked; it may read a record, within the trigger's budget) and opens the
 * form ({@link openJobForm}: "could not open `formName`" when Slack won't), or tells the
 * clicker privately why not (through the response_url).
 * Contract: `target` must not throw (it answers a failed read with `say`): after the ack nothing
 * else would tell the clicker. The listener itself then never throws.
 */
export function jobFormButton(
  deps: JobFormDeps,
  formName: string,
  target: (body: BlockAction, value: string | undefined) => Promise<FormTarget> | FormTarget,
): (args: ButtonArgs) => Promise<void> {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const tell = clickReply(respond, deps.logger);
    const t = await target(body, action.value);
    if ('say' in t) return tell(t.say);
    await openJobForm(deps, body, { ...t, name: formName, tell });
  };
}

/** What a job form's submission records: a job start, a follow-up to a job, or a refusal shown in the modal. */
type FormOutcome =
  { start: Omit<StartIntake, 'teamId' | 'requester'> } | { followUp: FormFollowUp } | { refuse: string };

/** A job form, as its submission reads it. */
export interface JobForm<M> {
  /** For the log lines ("could not record a job start from the Improve with agent form"). */
  formName: string;
  /** What the modal's `private_metadata` is signed for; `read` reads its JSON (throws on what it can't read). */
  purpose: string;
  read: (json: unknown) => M;
  /** The modal's answers to a blank instruction, and to metadata the bot did not sign or can't read. */
  blankText: string;
  unverifiedText: string;
  /**
   * What to record for this instruction at `meta` (may read a record: the ack is due within 3 s).
   * Must not throw (answer a failed read with `refuse`): the modal is acked by what it returns.
   */
  outcome: (meta: M, instruction: string) => Promise<FormOutcome> | FormOutcome;
}

/**
 * The submission of a job form (`view_submission`): a blank instruction is refused inside the modal
 * (`response_action: errors`), and so is metadata the bot did not sign (a warning log: nothing is
 * read or started for a conversation named by a forged form); otherwise `form.outcome` says what to
 * record, through {@link submitJobStartForm} or {@link submitFollowUpForm} (access and membership
 * checked again, the record exactly once, the modal closed), or why not (shown in the modal).
 */
export function jobFormSubmission<M>(
  deps: FormStartDeps & { signer: Pick<ValueSigner, 'open'> },
  form: JobForm<M>,
): (args: SubmissionArgs) => Promise<void> {
  return async ({ ack, body, view }: SubmissionArgs): Promise<void> => {
    const instruction = view.state.values[INSTRUCTION_BLOCK]?.[INSTRUCTION_ACTION]?.value?.trim() ?? '';
    const refuse = (text: string) => ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: text } });
    if (!instruction) return void (await refuse(form.blankText));
    const opened = openSigned(deps.signer, form.purpose, view.private_metadata, form.read);
    if (!opened.ok) {
      warnUnverified(deps.logger, form.purpose, opened.reason, { user: body.user.id });
      return void (await refuse(form.unverifiedText));
    }
    const out = await form.outcome(opened.meta, instruction);
    if ('refuse' in out) return void (await refuse(out.refuse));
    const s = { ack, body, blockId: INSTRUCTION_BLOCK, formName: form.formName };
    if ('followUp' in out) return submitFollowUpForm(deps, s, out.followUp);
    await submitJobStartForm(deps, s, out.start);
  };
}
