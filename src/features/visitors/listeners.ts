import type { AllMiddlewareArgs, App, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Intake, IntakeKind } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { recordInteraction } from '../../platform/slack/record-and-ack.js';
import { ACTION_NEXT, ACTION_PREVIOUS } from './blocks.js';
import { INTAKE, type ButtonIntake } from './intake.js';
import { ACTION_RETRY } from './service.js';

/** What the visitors listeners need: they check the input, record the request and ack. */
export interface VisitorsListenerDeps {
  intake: Pick<Intake, 'record'>;
  logger: Logger;
}

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/** A report's button (Previous / Next / Retry): recorded (id from the `action_ts`) and acked. */
export function buttonAction(deps: VisitorsListenerDeps, kind: IntakeKind<ButtonIntake>) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const channel = body.channel?.id ?? body.container?.channel_id;
    const messageTs = body.container?.message_ts ?? body.message?.ts;
    const payload: ButtonIntake = { value: action.value, user: body.user.id, ...(channel ? { channel } : {}), ...(messageTs ? { messageTs } : {}), ...(body.response_url ? { responseUrl: body.response_url } : {}) };
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, { kind, id: `act-${action.action_ts}`, requestId: action.action_ts, payload });
  };
}

/** Registers the report's paging and Retry buttons (digests registers `/docs-visitors` itself and routes reports here). */
export function register(app: App, deps: VisitorsListenerDeps): void {
  app.action<BlockAction<ButtonAction>>(ACTION_PREVIOUS, buttonAction(deps, INTAKE.page));
  app.action<BlockAction<ButtonAction>>(ACTION_NEXT, buttonAction(deps, INTAKE.page));
  app.action<BlockAction<ButtonAction>>(ACTION_RETRY, buttonAction(deps, INTAKE.retry));
}
