import type { AllMiddlewareArgs, App, BlockAction, ButtonAction, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { authorizeWithin, type AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { recordInteraction } from '../../platform/slack/record-and-ack.js';
import { FORM_CHECK_WITHIN_MS, submitJobStartForm } from '../agent-jobs/index.js';
import { ACTION_DIGEST_RETRY, ACTION_IMPROVE_PREFIX, decodeImproveValue, improvablePaths } from './blocks.js';
import { buildImproveModal, decodeImproveMetadata, IMPROVE_CALLBACK_ID, INSTRUCTION_ACTION, INSTRUCTION_BLOCK } from './improve-modal.js';
import { DIGESTS_INTAKE, type DigestRetryIntake } from './intake.js';
import type { VisitorsSubcommands } from '../visitors/index.js';
import { docsVisitorsCommand } from './command.js';

/** What the digest buttons and the "Improve with agent" modal need. */
export interface DigestListenerDeps {
  intake: Pick<Intake, 'record'>;
  /** Opens the modal. */
  slack: { views: Pick<WebClient['views'], 'open'> };
  /** Asked before the modal opens and again at submission (the worker's gate asks a third time, with the budget). */
  access: Pick<AccessGate, 'authorize'>;
  logger: Logger;
  /** The digest subcommands of `/docs-visitors` (this feature registers the command; reports go to visitors). */
  subcommands: VisitorsSubcommands;
}


type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

function where(body: BlockAction): { channel?: string; ts?: string; teamId?: string } {
  return { channel: body.channel?.id ?? body.container?.channel_id, ts: body.container?.message_ts ?? body.message?.ts, teamId: body.team?.id ?? body.user.team_id };
}

/**
 * "Improve with agent" next to a falling page of a digest (block_actions
 * `visitors.digest.improve.<i>`): acks, then opens the modal with views.open (the trigger_id is
 * valid for 3 s) pre-filled with an instruction about that page — only a page the digest itself
 * offers, with a path of safe characters (SAFE_DOCS_PATH). The digest's channel and ts ride
 * in the modal's private_metadata, so the job starts in the digest's thread.
 */
export function improveAction(deps: DigestListenerDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    // A response_url can be expired or used up (Slack answers 404): a warning, not a listener failure.
    const tell = (text: string) =>
      respond({ response_type: 'ephemeral', replace_original: false, text }).catch((err: unknown) => deps.logger.warn({ err }, 'could not answer through the response_url'));
    const page = decodeImproveValue(action.value);
    const { channel, ts, teamId } = where(body);
    // The page must be one the digest itself offers (its own buttons, in the message Slack sends back) and a safe path.
    const own = improvablePaths((body.message as { blocks?: unknown } | undefined)?.blocks);
    if (!page || !channel || !ts || !own.has(page.path)) return void (await tell("This button belongs to an older digest I can't read any more."));
    const decision = await authorizeWithin(deps.access, { user: body.user.id, ...(teamId ? { teamId } : {}) }, 'start_job', channel, FORM_CHECK_WITHIN_MS);
    if (!decision.allowed) return void (await tell(decision.text));
    try {
      await deps.slack.views.open({ trigger_id: body.trigger_id, view: buildImproveModal(page, { channel, threadTs: ts, path: page.path }) });
    } catch (err) {
      deps.logger.warn({ err, slackError: slackErrorCode(err) }, 'could not open the Improve with agent modal');
      await tell('Slack would not open the form; click the button again.');
    }
  };
}

/**
 * Submission of the "Improve with agent" modal (view_submission `visitors_improve`): a blank
 * instruction is refused inside the modal (`response_action: errors`); otherwise a docs agent job
 * start is recorded (the agent-jobs feature's intake, its status message in the digest's thread)
 * and the modal closes. If it cannot be recorded, the modal says so and stays open.
 */
export function improveSubmission(deps: DigestListenerDeps) {
  return async ({ ack, body, view }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs): Promise<void> => {
    const instruction = view.state.values[INSTRUCTION_BLOCK]?.[INSTRUCTION_ACTION]?.value?.trim() ?? '';
    const meta = decodeImproveMetadata(view.private_metadata);
    if (!instruction) return void (await ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: 'Tell the agent what to change.' } }));
    if (!meta) return void (await ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: 'This form is out of date; open it again from the digest.' } }));
    // Several jobs may share a digest's thread: each shows its state on its own status message.
    const req = { channel: meta.channel, instruction, threadTs: meta.threadTs, reactOnStatusMessage: true };
    await submitJobStartForm(deps, { ack, body, blockId: INSTRUCTION_BLOCK, formName: 'the Improve with agent form' }, req);
  };
}

/**
 * Retry on a digest that could not be built (block_actions `visitors.digest.retry`): recorded
 * (`digests.retry`) and acked; the worker queues the channel's digest again and edits the notice.
 */
export function digestRetryAction(deps: DigestListenerDeps) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const { channel, ts, teamId } = where(body);
    if (!channel || !teamId) return void (await ack());
    const payload: DigestRetryIntake = { teamId, channel, user: body.user.id, ...(ts ? { ts } : {}), ...(body.response_url ? { responseUrl: body.response_url } : {}) };
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, { kind: DIGESTS_INTAKE.retry, id: `act-${action.action_ts}`, requestId: action.action_ts, payload });
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Registers the digest's buttons and the "Improve with agent" modal. */
export function register(app: App, deps: DigestListenerDeps): void {
  app.command('/docs-visitors', docsVisitorsCommand(deps));
  app.action<BlockAction<ButtonAction>>(new RegExp(`^${escapeRegExp(ACTION_IMPROVE_PREFIX)}\\d+$`), improveAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_DIGEST_RETRY, digestRetryAction(deps));
  app.view({ type: 'view_submission', callback_id: IMPROVE_CALLBACK_ID }, improveSubmission(deps));
}
