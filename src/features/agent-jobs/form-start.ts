import type { AckFn, ViewResponseAction, ViewSubmitAction } from '@slack/bolt';
import { authorizeWithin, type AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { notRecordedText } from '../../platform/slack/edge.js';
import { plainTextOf } from '../../platform/slack/markup.js';
import { INTAKE, type ReplyIntake, type StartIntake } from './intake.js';

/** How long the access check of a form submission may take (Slack: 3 s for a `view_submission`), in ms. */
export const FORM_CHECK_WITHIN_MS = 1_500;

/** What a form that starts a job needs. */
export interface FormStartDeps {
  intake: Pick<Intake, 'record'>;
  access: Pick<AccessGate, 'authorize'>;
  logger: Logger;
}

/** The submission, as the listener has it, and the form's input block (where errors show). */
export interface FormSubmission {
  ack: AckFn<ViewResponseAction>;
  body: ViewSubmitAction;
  /** block_id of the instruction input. */
  blockId: string;
  /** For the log line ("the Improve with agent form"). */
  formName: string;
}

/** The record id of a form's submission: its view's id (the same for every submit of one modal), else the request's id. */
function viewKey(body: ViewSubmitAction, requestId: string): string {
  return (body.view as { id?: string } | undefined)?.id || requestId;
}

/**
 * The end of every modal that starts a docs agent job ("Improve with agent", "Document this
 * thread"): checks, within {@link FORM_CHECK_WITHIN_MS}, that the submitter may start jobs in the
 * form's channel (it rides in private_metadata, so it is checked now), then records the start
 * (`agent-jobs.start`, id `view-<view id>`: a resubmit of the same modal maps to the same record)
 * and closes the modal. A refusal, or Redis not taking the record, is shown in the modal (plain
 * text) and nothing starts. Never throws.
 */
export async function submitJobStartForm(deps: FormStartDeps, s: FormSubmission, req: Omit<StartIntake, 'teamId' | 'requester'>): Promise<void> {
  const { body, ack } = s;
  const decision = await authorizeWithin(deps.access, { user: body.user.id }, 'start_job', req.channel, FORM_CHECK_WITHIN_MS);
  if (!decision.allowed) return void (await ack({ response_action: 'errors', errors: { [s.blockId]: plainTextOf(decision.text) } }));
  const payload: StartIntake = { ...req, teamId: body.team?.id ?? body.user.team_id ?? '', requester: body.user.id };
  const requestId = body.trigger_id ?? `${body.view.id}-${body.view.hash}`;
  try {
    await deps.intake.record(INTAKE.start, `view-${viewKey(body, requestId)}`, requestId, payload);
  } catch (err) {
    deps.logger.warn({ err }, `could not record a job start from ${s.formName}`);
    return void (await ack({ response_action: 'errors', errors: { [s.blockId]: notRecordedText(err) } }));
  }
  await ack();
}

/** A follow-up from a form: to which job, from which conversation and thread, and the instruction (plain text). */
export interface FormFollowUp {
  jobId: string;
  channel: string;
  threadTs: string;
  instruction: string;
}

/**
 * The end of a form that continues a job ("Document this thread" on a job's thread): checks,
 * within {@link FORM_CHECK_WITHIN_MS}, that the submitter may continue jobs in the form's channel,
 * then records the follow-up (`agent-jobs.reply`, id `view-<trigger_id>`), which goes through
 * the same checks as `/docs-reply` (the job's own conversation, the follow-up policy, the readers
 * of its context, the agent budget), and closes the modal. Answers go to the submitter as
 * ephemerals in the job's thread. Never throws.
 */
export async function submitFollowUpForm(deps: FormStartDeps, s: FormSubmission, f: FormFollowUp): Promise<void> {
  const { body, ack } = s;
  const decision = await authorizeWithin(deps.access, { user: body.user.id }, 'continue_job', f.channel, FORM_CHECK_WITHIN_MS);
  if (!decision.allowed) return void (await ack({ response_action: 'errors', errors: { [s.blockId]: plainTextOf(decision.text) } }));
  const payload: ReplyIntake = { jobId: f.jobId, raw: f.instruction, user: body.user.id, channel: f.channel, botUserId: undefined, via: 'form', ephemeralThreadTs: f.threadTs };
  const requestId = body.trigger_id ?? `${body.view.id}-${body.view.hash}`;
  try {
    await deps.intake.record(INTAKE.reply, `view-${viewKey(body, requestId)}`, requestId, payload);
  } catch (err) {
    deps.logger.warn({ err }, `could not record a follow-up from ${s.formName}`);
    return void (await ack({ response_action: 'errors', errors: { [s.blockId]: notRecordedText(err) } }));
  }
  await ack();
}
