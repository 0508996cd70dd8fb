/**
 * `/docs-visitors`: every report (visitors, searches, feedback, questions) and the digest
 * subcommands (`subscribe`, `unsubscribe`, `subscriptions`, `digest`, from digests/subcommands.ts)
 * are checked and recorded here; the handlers run them from the intake.
 */
import type { CommandArgs } from '../../platform/slack/listener-args.js';
import type { AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { commandEntry, recordCommand } from '../../platform/slack/record-and-ack.js';
import { respondVia } from '../../platform/slack/respond.js';
import { authorizeOrTell } from './handler-kit.js';
import { helpText, parseVisitorsCommand } from './query.js';
import type { DigestSubcommands } from './digests/subcommands.js';
import { PAGED_REPORTS } from './handlers.js';
import {
  INTAKE as VISITORS_INTAKE,
  type Caller,
  type ReportIntake,
  type SignalReportIntake,
  type SubcommandIntake,
} from './intake.js';

/** What the command's listener needs: it checks the input, records the request and acks. */
export interface ReportCommandDeps {
  intake: Pick<Intake, 'record'>;
  logger: Logger;
  subcommands: DigestSubcommands;
}

/**
 * `/docs-visitors …`: help and every input mistake are answered in the ack itself (ephemeral, no
 * API call); a report (visitors, searches, feedback or questions) or a subcommand is recorded (its
 * intake), then acked.
 */
export function docsVisitorsCommand(deps: ReportCommandDeps) {
  const sub = deps.subcommands;
  return async ({ command, ack }: CommandArgs): Promise<void> => {
    const cmd = parseVisitorsCommand(command.text, { subcommands: sub.names });
    if (cmd.kind === 'invalid' || cmd.kind === 'help') {
      return void (await ack({
        response_type: 'ephemeral',
        text: cmd.kind === 'help' ? helpText(sub.helpLines, sub.examples) : cmd.message,
      }));
    }
    const caller: Caller = { teamId: command.team_id, channel: command.channel_id, user: command.user_id };
    if (cmd.kind === 'subcommand') {
      const prepared = sub.prepare(cmd.name, cmd.args);
      if (!prepared.ok) return void (await ack({ response_type: 'ephemeral', text: prepared.message }));
      const payload: SubcommandIntake = { name: cmd.name, args: cmd.args, caller, responseUrl: command.response_url };
      return recordCommand(deps.intake, deps.logger, ack, commandEntry(command, VISITORS_INTAKE.subcommand, payload));
    }
    // The report's row of PAGED_REPORTS names its intake kind; a report other than visitors is named in it.
    const report = cmd.kind === 'signals' ? { report: cmd.report } : {};
    const payload: ReportIntake | SignalReportIntake = {
      caller,
      ...report,
      range: cmd.range,
      limit: cmd.limit,
      responseUrl: command.response_url,
    };
    const kind = PAGED_REPORTS[report.report ?? 'visitors'].kinds.report;
    await recordCommand(deps.intake, deps.logger, ack, commandEntry(command, kind, payload));
  };
}

/**
 * The worker side of a recorded subcommand: its words are checked again, the access gate asked for
 * the subcommand's own action (a refusal is told through the response_url; `logger` warns when
 * that fails), then it runs.
 */
export function registerSubcommandHandler(
  intake: Pick<Intake, 'on'>,
  deps: { subcommands: DigestSubcommands; access: Pick<AccessGate, 'authorize'>; logger: Logger },
): void {
  intake.on<SubcommandIntake>(VISITORS_INTAKE.subcommand, async (p) => {
    const prepared = deps.subcommands.prepare(p.name, p.args);
    if (!prepared.ok) return;
    if (
      !(await authorizeOrTell(deps, p.caller.user, deps.subcommands.actionOf(p.name), p.caller.channel, p.responseUrl))
    )
      return;
    await prepared.run({ ...p.caller, responseUrl: p.responseUrl }, respondVia(p.responseUrl));
  });
}
