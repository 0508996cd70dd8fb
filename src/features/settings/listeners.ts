import type { AllMiddlewareArgs, App, BlockAction, ButtonAction, SlackActionMiddlewareArgs, SlackCommandMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { notRecordedText } from '../../platform/slack/edge.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { recordCommand } from '../../platform/slack/record-and-ack.js';
import { ACTION_EDIT, buildEditModal, decodeEditMetadata, EDIT_CALLBACK_ID, FOLLOWUPS_BLOCK, MENTIONS_BLOCK, PROJECT_BLOCK, readEditValues } from './blocks.js';
import { parseSettingsCommand, projectList } from './command.js';
import { SETTINGS_INTAKE, type CommandIntake, type SaveIntake } from './intake.js';
import type { SettingsService } from './service.js';
import { FOLLOWUP_POLICIES, MENTIONS_MODES, type FollowupPolicy, type MentionsMode } from './store.js';

/** What the settings listeners need. */
export interface SettingsListenerDeps {
  intake: Pick<Intake, 'record'>;
  service: Pick<SettingsService, 'effective' | 'projects'>;
  /** Opens the modal (within the trigger_id's 3 s). */
  slack: { views: Pick<WebClient['views'], 'open'> };
  logger: Logger;
}

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;
type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * `/docs-settings [project <id> | followups anyone|requester | help]`: every form is recorded
 * (`settings.command`, id from the trigger_id) and acked; the worker answers only full members
 * (help and mistakes too: they name the projects), then checks who may change what.
 */
export function docsSettingsCommand(deps: SettingsListenerDeps) {
  return async ({ command, ack }: CommandArgs): Promise<void> => {
    const cmd = parseSettingsCommand(command.text, deps.service.projects);
    if (cmd.kind === 'invalid') deps.logger.warn({ channel: command.channel_id }, 'a /docs-settings mistake; answered with the usage');
    const payload: CommandIntake = { teamId: command.team_id, channel: command.channel_id, user: command.user_id, responseUrl: command.response_url, command: cmd };
    await recordCommand(deps.intake, deps.logger, ack, { kind: SETTINGS_INTAKE.command, id: `cmd-${command.trigger_id}`, requestId: command.trigger_id, payload });
  };
}

/**
 * "Edit" on the settings message (shown to admins only): acks, reads the channel's settings (one
 * Redis read) and opens the modal at once, as the trigger_id is valid for 3 s. Who may save is
 * checked when the modal is submitted.
 */
export function editAction(deps: SettingsListenerDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const channel = action.value ?? '';
    const tell = (text: string) => respond({ response_type: 'ephemeral', replace_original: false, text }).catch((err: unknown) => deps.logger.warn({ err }, 'could not answer the person'));
    if (!/^[A-Z0-9]{2,40}$/.test(channel)) return void (await tell('This button belongs to an older message; run `/docs-settings` again.'));
    try {
      const settings = await deps.service.effective(channel);
      await deps.slack.views.open({ trigger_id: body.trigger_id, view: buildEditModal(channel, settings, deps.service.projects) });
    } catch (err) {
      deps.logger.warn({ err, slackError: slackErrorCode(err) }, 'could not open the settings modal');
      await tell("I couldn't open the settings form; click Edit again.");
    }
  };
}

/**
 * Submission of the settings modal: values that are not configured projects or policies (a form
 * older than a configuration change, or forged) are refused inside the modal; otherwise the change
 * is recorded (`settings.save`) and the modal closes. If it cannot be recorded, the modal says so.
 */
export function editSubmission(deps: SettingsListenerDeps) {
  return async ({ ack, body, view }: ViewArgs): Promise<void> => {
    const channel = decodeEditMetadata(view.private_metadata);
    const values = readEditValues((view.state as { values?: unknown } | undefined)?.values);
    const errors: Record<string, string> = {};
    if (!values.projectId || !deps.service.projects.includes(values.projectId)) errors[PROJECT_BLOCK] = `Choose one of ${projectList(deps.service.projects).replace(/`/g, '')}.`;
    if (!values.followupPolicy || !(FOLLOWUP_POLICIES as readonly string[]).includes(values.followupPolicy)) errors[FOLLOWUPS_BLOCK] = 'Choose who may continue a job.';
    const mentionsOk = values.mentions === undefined || (MENTIONS_MODES as readonly string[]).includes(values.mentions);
    if (!mentionsOk) errors[MENTIONS_BLOCK] = 'Choose what a mention is.';
    if (!channel) errors[PROJECT_BLOCK] = 'This form is out of date; run `/docs-settings` again.';
    if (Object.keys(errors).length || !channel) {
      deps.logger.warn({ fields: Object.keys(errors) }, 'settings form refused: invalid input');
      return void (await ack({ response_action: 'errors', errors }));
    }
    const payload: SaveIntake = {
      teamId: body.team?.id ?? body.user.team_id ?? '',
      channel,
      user: body.user.id,
      change: {
        projectId: values.projectId ?? null,
        followupPolicy: values.followupPolicy as FollowupPolicy,
        ...(values.mentions ? { mentions: values.mentions as MentionsMode } : {}),
      },
    };
    const requestId = `${view.id}-${view.hash}`;
    try {
      await deps.intake.record(SETTINGS_INTAKE.save, `view-${requestId}`, requestId, payload);
    } catch (err) {
      deps.logger.warn({ err }, 'could not record a settings change');
      return void (await ack({ response_action: 'errors', errors: { [PROJECT_BLOCK]: notRecordedText(err) } }));
    }
    await ack();
  };
}

/** Registers `/docs-settings`, its Edit button and its modal. */
export function register(app: App, deps: SettingsListenerDeps): void {
  app.command('/docs-settings', docsSettingsCommand(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_EDIT, editAction(deps));
  app.view({ type: 'view_submission', callback_id: EDIT_CALLBACK_ID }, editSubmission(deps));
}
