import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
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
import { recordInteraction } from '../../platform/slack/record-and-ack.js';
import { unverifiedValueText, warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import { clickReply } from './click-reply.js';
import { formRefusal, submitJobStartForm } from '../agent-jobs/index.js';
import { ACTION_IMPROVE_PREFIX, decodeImproveValue, improvablePaths, IMPROVE_PURPOSE } from './improve-value.js';
import { ACTION_DIGEST_RETRY } from './retry.js';
import {
  buildImproveModal,
  decodeImproveMetadata,
  IMPROVE_CALLBACK_ID,
  IMPROVE_MODAL_PURPOSE,
  INSTRUCTION_ACTION,
  INSTRUCTION_BLOCK,
} from './improve-modal.js';
import { INTAKE, type DigestRetryIntake } from './intake.js';
import { ACTION_SIGNAL_IMPROVE_PREFIX, type VisitorsSubcommands } from '../visitors/index.js';
import { SIGNAL_IMPROVE_CALLBACK_ID, signalImproveAction, signalImproveSubmission } from './improve-signal.js';
import { docsVisitorsCommand } from './command.js';

/** What the digest buttons and the "Improve with agent" modal need. */
export interface DigestListenerDeps {
  intake: Pick<Intake, 'record'>;
  /** Opens the modal. */
  slack: { views: Pick<WebClient['views'], 'open'> };
  /** Asked before the modal opens and again at submission (the worker's gate asks a third time, with the budget). */
  access: Pick<AccessGate, 'authorize'>;
  /** The person must be a member of the digest's channel (at the click and at submission). */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Checks the buttons' values; signs and checks the modal's `private_metadata`. */
  signer: Pick<ValueSigner, 'sign' | 'open'>;
  logger: Logger;
  /** The digest subcommands of `/docs-visitors` (this feature registers the command; reports go to visitors). */
  subcommands: VisitorsSubcommands;
  /** The configured docs projects: an Improve on a signal of another one is not followed. */
  projects: readonly string[];
}

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

function where(body: BlockAction): { channel?: string; ts?: string; teamId?: string } {
  return {
    channel: body.channel?.id ?? body.container?.channel_id,
    ts: body.container?.message_ts ?? body.message?.ts,
    teamId: body.team?.id ?? body.user.team_id,
  };
}

/** Answer to an "Improve with agent" button the bot did not sign (a digest from before signing, or tampered). */
export const IMPROVE_UNVERIFIED_TEXT = unverifiedValueText(
  'use the button on a newer digest, or start a job with `/docs-edit`',
);

const OLDER_DIGEST_TEXT = "This button belongs to an older digest I can't read any more.";

/**
 * "Improve with agent" next to a falling page of a digest (block_actions
 * `visitors.digest.improve.<i>`): acks, then opens the modal with views.open (the trigger_id is
 * valid for 3 s) pre-filled with an instruction about that page — only a page the digest itself
 * offers, with a value the bot signed and a path of safe characters (SAFE_DOCS_PATH), for someone
 * the access policy lets start jobs in the digest's channel and who is a member of it. The
 * digest's channel and ts ride in the modal's signed private_metadata, so the job starts in the
 * digest's thread.
 */
export function improveAction(deps: DigestListenerDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const tell = clickReply(respond, deps.logger);
    const decoded = decodeImproveValue(action.value, deps.signer);
    if (!decoded.ok && decoded.reason !== 'malformed') {
      warnUnverified(deps.logger, IMPROVE_PURPOSE, decoded.reason, { user: body.user.id });
      return void (await tell(IMPROVE_UNVERIFIED_TEXT));
    }
    const { channel, ts, teamId } = where(body);
    // The page must be one the digest itself offers (its own buttons, in the message Slack sends back) and a safe path.
    const own = improvablePaths((body.message as { blocks?: unknown } | undefined)?.blocks, deps.signer);
    if (!decoded.ok || !channel || !ts || !own.has(decoded.page.path)) return void (await tell(OLDER_DIGEST_TEXT));
    const actor = { user: body.user.id, ...(teamId ? { teamId } : {}) };
    const refusal = await formRefusal(deps, actor, 'start_job', channel);
    if (refusal) return void (await tell(refusal));
    const page = decoded.page;
    const view = buildImproveModal(page, { channel, threadTs: ts, path: page.path }, deps.signer);
    try {
      await deps.slack.views.open({ trigger_id: body.trigger_id, view });
    } catch (err) {
      deps.logger.warn({ err, slackError: slackErrorCode(err) }, 'could not open the Improve with agent modal');
      await tell('Slack would not open the form; click the button again.');
    }
  };
}

/**
 * Submission of the "Improve with agent" modal (view_submission `visitors_improve`): a blank
 * instruction is refused inside the modal (`response_action: errors`), and so is metadata the bot
 * did not sign (with a warning log; nothing is started for a channel named by a forged form).
 * Otherwise, after access and membership of the channel are checked again, a docs agent job start
 * is recorded (the agent-jobs feature's intake, its status message in the digest's thread) and the
 * modal closes. If it cannot be recorded, the modal says so and stays open.
 */
export function improveSubmission(deps: DigestListenerDeps) {
  return async ({ ack, body, view }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs): Promise<void> => {
    const instruction = view.state.values[INSTRUCTION_BLOCK]?.[INSTRUCTION_ACTION]?.value?.trim() ?? '';
    const refuse = (text: string) => ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: text } });
    if (!instruction) return void (await refuse('Tell the agent what to change.'));
    const decoded = decodeImproveMetadata(view.private_metadata, deps.signer);
    if (!decoded.ok) {
      warnUnverified(deps.logger, IMPROVE_MODAL_PURPOSE, decoded.reason, { user: body.user.id });
      return void (await refuse(unverifiedValueText('open the form again from the digest')));
    }
    const meta = decoded.meta;
    // Several jobs may share a digest's thread: each shows its state on its own status message.
    const req = { channel: meta.channel, instruction, threadTs: meta.threadTs, reactOnStatusMessage: true };
    await submitJobStartForm(
      deps,
      { ack, body, blockId: INSTRUCTION_BLOCK, formName: 'the Improve with agent form' },
      req,
    );
  };
}

/**
 * Retry on a digest that could not be built (block_actions `visitors.digest.retry`): recorded with
 * its signed value (`digests.retry`) and acked; the worker checks the value, access, membership and
 * the channel's slot of digests on request, queues the channel's digest again and edits the notice.
 */
export function digestRetryAction(deps: DigestListenerDeps) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const { channel, ts, teamId } = where(body);
    if (!channel || !teamId) return void (await ack());
    const payload: DigestRetryIntake = {
      ...(action.value ? { value: action.value } : {}),
      teamId,
      channel,
      user: body.user.id,
      ...(ts ? { ts } : {}),
      ...(body.response_url ? { responseUrl: body.response_url } : {}),
    };
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, {
      kind: INTAKE.retry,
      id: `act-${action.action_ts}`,
      requestId: action.action_ts,
      payload,
    });
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Registers the digest's buttons and the "Improve with agent" modal. */
export function register(app: App, deps: DigestListenerDeps): void {
  app.command('/docs-visitors', docsVisitorsCommand(deps));
  app.action<BlockAction<ButtonAction>>(
    new RegExp(`^${escapeRegExp(ACTION_IMPROVE_PREFIX)}\\d+$`),
    improveAction(deps),
  );
  app.action<BlockAction<ButtonAction>>(ACTION_DIGEST_RETRY, digestRetryAction(deps));
  app.view({ type: 'view_submission', callback_id: IMPROVE_CALLBACK_ID }, improveSubmission(deps));
  const signalImprove = new RegExp(`^${escapeRegExp(ACTION_SIGNAL_IMPROVE_PREFIX)}\\d+$`);
  app.action<BlockAction<ButtonAction>>(signalImprove, signalImproveAction(deps));
  app.view({ type: 'view_submission', callback_id: SIGNAL_IMPROVE_CALLBACK_ID }, signalImproveSubmission(deps));
}
