import type { AllMiddlewareArgs, App, BlockAction, ButtonAction, SlackActionMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { recordCommand, recordInteraction, type IntakeEntry } from '../../platform/slack/record-and-ack.js';
import { ACTION_NEXT, ACTION_PREVIOUS } from './blocks.js';
import { INTAKE, type ButtonIntake, type Caller, type ReportIntake, type SubcommandIntake, type VisitorsSubcommands } from './handlers.js';
import { helpText, parseVisitorsCommand } from './query.js';
import { ACTION_RETRY } from './service.js';

/** What the visitors listeners need: they check the input, record the request and ack. */
export interface VisitorsListenerDeps {
  intake: Pick<Intake, 'record'>;
  logger: Logger;
  subcommands?: VisitorsSubcommands;
}

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/**
 * `/docs-visitors …`: help and every input mistake are answered in the ack itself (ephemeral, no
 * API call); a report or a subcommand is recorded (its intake), then acked.
 */
export function docsVisitorsCommand(deps: VisitorsListenerDeps) {
  const sub = deps.subcommands;
  return async ({ command, ack }: CommandArgs): Promise<void> => {
    const cmd = parseVisitorsCommand(command.text, { subcommands: sub?.names ?? [] });
    if (cmd.kind === 'invalid' || cmd.kind === 'help') {
      return void (await ack({ response_type: 'ephemeral', text: cmd.kind === 'help' ? helpText(sub?.helpLines, sub?.examples) : cmd.message }));
    }
    const caller: Caller = { teamId: command.team_id, channel: command.channel_id, user: command.user_id };
    const base = { id: `cmd-${command.trigger_id}`, requestId: command.trigger_id };
    let entry: IntakeEntry<SubcommandIntake | ReportIntake>;
    if (cmd.kind === 'subcommand') {
      const prepared = sub?.prepare(cmd.name, cmd.args);
      if (prepared && !prepared.ok) return void (await ack({ response_type: 'ephemeral', text: prepared.message }));
      entry = { ...base, kind: INTAKE.subcommand, payload: { name: cmd.name, args: cmd.args, caller, responseUrl: command.response_url } };
    } else {
      entry = { ...base, kind: INTAKE.report, payload: { caller, range: cmd.range, limit: cmd.limit, responseUrl: command.response_url } };
    }
    await recordCommand(deps.intake, deps.logger, ack, entry);
  };
}

/** A report's button (Previous / Next / Retry): recorded (id from the `action_ts`) and acked. */
export function buttonAction(deps: VisitorsListenerDeps, kind: string) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const channel = body.channel?.id ?? body.container?.channel_id;
    const messageTs = body.container?.message_ts ?? body.message?.ts;
    const payload: ButtonIntake = { value: action.value, user: body.user.id, ...(channel ? { channel } : {}), ...(messageTs ? { messageTs } : {}), ...(body.response_url ? { responseUrl: body.response_url } : {}) };
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, { kind, id: `act-${action.action_ts}`, requestId: action.action_ts, payload });
  };
}

/** Registers `/docs-visitors` (with the subcommands plugged in) and its paging and Retry buttons. */
export function register(app: App, deps: VisitorsListenerDeps): void {
  app.command('/docs-visitors', docsVisitorsCommand(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_PREVIOUS, buttonAction(deps, INTAKE.page));
  app.action<BlockAction<ButtonAction>>(ACTION_NEXT, buttonAction(deps, INTAKE.page));
  app.action<BlockAction<ButtonAction>>(ACTION_RETRY, buttonAction(deps, INTAKE.retry));
}
