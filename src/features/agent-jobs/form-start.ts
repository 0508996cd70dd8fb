import type { AckFn, ViewResponseAction, ViewSubmitAction } from '@slack/bolt';
import { authorizeWithin, type AccessGate, type Actor } from '../../platform/access.js';
import { installationTeamId } from '../../platform/request-context.js';
import type { Intake, IntakeKind } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { notRecordedText } from '../../platform/slack/edge.js';
import { checkMembership } from '../../platform/slack/member-check.js';
import { plainTextOf } from '../../platform/slack/markup.js';
import { INTAKE, type ReplyIntake, type StartIntake } from './intake.js';

/**
 * The end of the job form kit (job-form.ts): the checks a form's click and submission make (access,
 * then membership of the conversation, fail closed within one deadline) and the recording of what a
 * submission starts, exactly once.
 */

/**
 * How long the access and membership checks of a form submission may take together, in ms (Slack:
 * 3 s for a `view_submission`).
 */
export const FORM_CHECK_WITHIN_MS = 1_500;

/** What a form that starts a job needs. */
export interface FormStartDeps {
  intake: Pick<Intake, 'record'>;
  access: Pick<AccessGate, 'authorize'>;
  /** The submitter must be a member of the form's conversation (asked after access). */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  logger: Logger;
}

/**
 * Why `actor` may not `action` in `channel` from a form or button (the access policy's sentence,
 * mrkdwn), or undefined: the access policy, then membership of the conversation, both within
 * {@link FORM_CHECK_WITHIN_MS} in all (too slow refuses). Someone the policy refuses costs no
 * membership call.
 */
export async function formRefusal(
  deps: Pick<FormStartDeps, 'access' | 'conversations' | 'logger'>,
  actor: Actor,
  action: 'start_job' | 'continue_job',
  channel: string,
): Promise<string | undefined> {
  const deadline = Date.now() + FORM_CHECK_WITHIN_MS;
  const decision = await authorizeWithin(deps.access, actor, action, channel, FORM_CHECK_WITHIN_MS);
  if (!decision.allowed) return decision.text;
  const withinMs = Math.max(0, deadline - Date.now());
  const asked = { channel, user: actor.user, action, withinMs };
  const member = await checkMembership(deps.conversations, deps.logger, asked);
  return member.ok ? undefined : member.text;
}

/** The submission, as the listener has it, and the form's input block (where errors show). */
interface FormSubmission {
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
 * The end of every modal that starts a docs agent job: checks ({@link formRefusal}) that the
 * submitter may start jobs in the form's channel and is a member of it (the channel rides in signed
 * private_metadata, checked by the caller, and membership can change while the modal is open), then
 * records the start (`agent-jobs.start`, id `view-<view id>`: a resubmit of the same modal maps to
 * the same record) and closes the modal. A refusal, or Redis not taking the record, is shown in the
 * modal (plain text) and nothing starts. Never throws.
 */
export async function submitJobStartForm(
  deps: FormStartDeps,
  s: FormSubmission,
  req: Omit<StartIntake, 'teamId' | 'requester'>,
): Promise<void> {
  const { body } = s;
  const refusal = await formRefusal(deps, { user: body.user.id }, 'start_job', req.channel);
  const payload: StartIntake = {
    ...req,
    teamId: installationTeamId(body.team?.id ?? body.user.team_id ?? ''),
    requester: body.user.id,
  };
  await recordForm(deps, s, refusal, INTAKE.start, payload, 'a job start');
}

/** A follow-up from a form: to which job, from which conversation and thread, and the instruction (plain text). */
export interface FormFollowUp {
  jobId: string;
  channel: string;
  threadTs: string;
  instruction: string;
}

/**
 * The end of a form that continues a job ("Document this thread" on a job's thread): checks
 * ({@link formRefusal}) that the submitter may continue jobs in the form's channel and is a member
 * of it, then records the follow-up (`agent-jobs.reply`, id `view-<view id>`), which goes through
 * the same checks as `/docs-reply` (the job's own conversation, the follow-up policy, the readers
 * of its context, the agent budget), and closes the modal. Answers go to the submitter as
 * ephemerals in the job's thread. Never throws.
 */
export async function submitFollowUpForm(deps: FormStartDeps, s: FormSubmission, f: FormFollowUp): Promise<void> {
  const { body } = s;
  const refusal = await formRefusal(deps, { user: body.user.id }, 'continue_job', f.channel);
  const payload: ReplyIntake = {
    jobId: f.jobId,
    raw: f.instruction,
    user: body.user.id,
    channel: f.channel,
    botUserId: undefined,
    via: 'form',
    ephemeralThreadTs: f.threadTs,
  };
  await recordForm(deps, s, refusal, INTAKE.reply, payload, 'a follow-up');
}

/** Shows `refusal` in the modal, or records `payload` (id `view-<view id>`) and closes it; Redis failing is shown too. */
async function recordForm<T>(
  deps: FormStartDeps,
  s: FormSubmission,
  refusal: string | undefined,
  kind: IntakeKind<T>,
  payload: T,
  what: string,
): Promise<void> {
  const { body, ack } = s;
  if (refusal) return void (await ack({ response_action: 'errors', errors: { [s.blockId]: plainTextOf(refusal) } }));
  const requestId = body.trigger_id ?? `${body.view.id}-${body.view.hash}`;
  try {
    await deps.intake.record(kind, `view-${viewKey(body, requestId)}`, requestId, payload);
  } catch (err) {
    deps.logger.warn({ err }, `could not record ${what} from ${s.formName}`);
    return void (await ack({ response_action: 'errors', errors: { [s.blockId]: notRecordedText(err) } }));
  }
  await ack();
}
