import type { App, BlockAction, ButtonAction, StaticSelectAction } from '@slack/bolt';
import type { ButtonArgs, SelectArgs } from '../../platform/slack/listener-args.js';
import type { Intake, IntakeKind } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { actionEntry, recordInteraction } from '../../platform/slack/record-and-ack.js';
import { docsVisitorsCommand, type ReportCommandDeps } from './command.js';
import { PAGED_REPORTS } from './handlers.js';
import { INTAKE, type ButtonIntake, type MenuIntake } from './intake.js';
import { ACTION_MENU } from './menu.js';

/** What the reports' listeners need: they check the input, record the request and ack. */
interface ReportListenerDeps {
  intake: Pick<Intake, 'record'>;
  logger: Logger;
}

/** Where a click happened: the channel and the message, when Slack says. */
function where(body: BlockAction): { channel?: string; messageTs?: string; responseUrl?: string } {
  const channel = body.channel?.id ?? body.container?.channel_id;
  const messageTs = body.container?.message_ts ?? body.message?.ts;
  return {
    ...(channel ? { channel } : {}),
    ...(messageTs ? { messageTs } : {}),
    ...(body.response_url ? { responseUrl: body.response_url } : {}),
  };
}

/** A report's button (Previous / Next / Retry): recorded (id from the `action_ts`) and acked. */
export function buttonAction(deps: ReportListenerDeps, kind: IntakeKind<ButtonIntake>) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const payload: ButtonIntake = {
      actionId: action.action_id,
      value: action.value,
      user: body.user.id,
      ...where(body),
    };
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, actionEntry(action, kind, payload));
  };
}

/**
 * A report chosen in a report's menu (static_select `visitors.menu`): the choice and the menu's
 * block_id (its signed state) are recorded and acked; the handler checks both.
 */
export function menuAction(deps: ReportListenerDeps) {
  return async ({ ack, body, action }: SelectArgs): Promise<void> => {
    const payload: MenuIntake = {
      blockId: action.block_id,
      report: action.selected_option?.value ?? '',
      user: body.user.id,
      ...where(body),
    };
    const entry = actionEntry(action, INTAKE.menu, payload);
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, entry);
  };
}

/** Registers `/docs-visitors` (reports and the digest subcommands) and the reports' paging, Retry and menu. */
export function register(app: App, deps: ReportCommandDeps): void {
  app.command('/docs-visitors', docsVisitorsCommand(deps));
  for (const { actions, kinds } of new Set(Object.values(PAGED_REPORTS))) {
    app.action<BlockAction<ButtonAction>>(actions.previous, buttonAction(deps, kinds.page));
    app.action<BlockAction<ButtonAction>>(actions.next, buttonAction(deps, kinds.page));
    app.action<BlockAction<ButtonAction>>(actions.retry, buttonAction(deps, kinds.retry));
  }
  app.action<BlockAction<StaticSelectAction>>(ACTION_MENU, menuAction(deps));
}
