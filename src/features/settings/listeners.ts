import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { ButtonArgs, CommandArgs, SubmissionArgs } from '../../platform/slack/listener-args.js';
import type { WebClient } from '@slack/web-api';
import { installationTeamId } from '../../platform/request-context.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { notRecordedText } from '../../platform/slack/edge.js';
import { ACCESS_CHECK_FAILED_TEXT, type AccessDecision, type Actor } from '../../platform/access.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { plainTextOf } from '../../platform/slack/markup.js';
import { checkMembership } from '../../platform/slack/member-check.js';
import { channelId } from '../../platform/slack/payloads.js';
import { unverifiedValueText, warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import { withinTime } from '../../platform/time-limit.js';
import { commandEntry, recordCommand } from '../../platform/slack/record-and-ack.js';
import { clickReply } from '../../platform/slack/tell.js';
import {
  ACTION_EDIT,
  ANSWER_ALL_BLOCK,
  buildEditModal,
  decodeEditMetadata,
  EDIT_CALLBACK_ID,
  FOLLOWUPS_BLOCK,
  MENTIONS_BLOCK,
  PROJECT_BLOCK,
  DEFAULT_OPTION,
} from './blocks.js';
import { readEditValues } from './form-values.js';
import { EDIT_BUTTON_PURPOSE, EDIT_MODAL_PURPOSE } from './blocks.js';
import { parseSettingsCommand, projectList, type UsageFacts } from './command.js';
import { INTAKE, type CommandIntake, type SaveIntake } from './intake.js';
import type { SettingsService } from './service.js';
import { FOLLOWUP_POLICIES, MENTIONS_MODES, type FollowupPolicy, type MentionsMode } from './store.js';

/** What the settings listeners need. */
interface SettingsListenerDeps {
  intake: Pick<Intake, 'record'>;
  service: Pick<SettingsService, 'effective' | 'projects'>;
  /** FOLLOWUP_POLICY (named in the form's default option) and whether asking the docs is set up. */
  modal: { defaultFollowupPolicy: FollowupPolicy; asking: boolean };
  /** Who may change settings and whether asking is set up, for the usage shown with a mistake. */
  usageFacts: UsageFacts;
  /** Opens the modal (within the trigger_id's 3 s). */
  slack: { views: Pick<WebClient['views'], 'open'> };
  /** Whether `actor` may see settings in `channel` (the access gate's `view_settings`), asked at the Edit click. */
  authorizeView: (actor: Actor, channel: string) => Promise<AccessDecision>;
  /** The person must be a member of the channel (at the Edit click and when the form is saved). */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Checks the Edit button's value; signs and checks the modal's `private_metadata`. */
  signer: Pick<ValueSigner, 'sign' | 'open'>;
  logger: Logger;
}

/**
 * How long the Edit click's and the save's checks may take, in ms (Slack: 3 s for a trigger_id
 * and a view_submission).
 */
const SETTINGS_CHECK_WITHIN_MS = 1_500;

/** Answer to an Edit button or settings form the bot did not sign. */
const UNVERIFIED_TEXT = unverifiedValueText('run `/docs-settings` again');

/**
 * Why `actor` may not see `channel`'s settings (the access gate's `view_settings`, then membership
 * of the channel), or undefined; within {@link SETTINGS_CHECK_WITHIN_MS} in all (too slow refuses).
 */
async function viewRefusal(deps: SettingsListenerDeps, actor: Actor, channel: string): Promise<string | undefined> {
  const deadline = Date.now() + SETTINGS_CHECK_WITHIN_MS;
  const late = (): AccessDecision => ({ allowed: false, reason: 'check_failed', text: ACCESS_CHECK_FAILED_TEXT });
  const decision = await withinTime(deps.authorizeView(actor, channel), SETTINGS_CHECK_WITHIN_MS, late);
  if (!decision.allowed) return decision.text;
  const withinMs = Math.max(0, deadline - Date.now());
  const asked = { channel, user: actor.user, action: 'view_settings' as const, withinMs };
  const member = await checkMembership(deps.conversations, deps.logger, asked);
  return member.ok ? undefined : member.text;
}

/**
 * `/docs-settings [project <id> | followups … | mentions … | answer-all … | scope … | experts … | help]`: every form is recorded
 * (`settings.command`, id from the trigger_id) and acked; the worker answers only full members
 * (help and mistakes too: they name the projects), then checks who may change what.
 */
function docsSettingsCommand(deps: SettingsListenerDeps) {
  return async ({ command, ack }: CommandArgs): Promise<void> => {
    const cmd = parseSettingsCommand(command.text, deps.service.projects, deps.usageFacts);
    if (cmd.kind === 'invalid')
      deps.logger.warn({ channel: command.channel_id }, 'a /docs-settings mistake; answered with the usage');
    const payload: CommandIntake = {
      teamId: command.team_id,
      channel: command.channel_id,
      user: command.user_id,
      responseUrl: command.response_url,
      command: cmd,
    };
    await recordCommand(deps.intake, deps.logger, ack, commandEntry(command, INTAKE.command, payload));
  };
}

/**
 * "Edit" on the settings message (shown to admins only): acks; then, when the button's value is
 * one the bot signed, names the channel it was clicked in, and the person may see that channel's
 * settings (`view_settings`) and is a member of it, reads the channel's settings (one Redis read)
 * and opens the modal, all within the trigger_id's 3 s. Anything else gets a private answer and
 * shows nothing of the channel. Who may save is checked when the modal is submitted.
 */
export function editAction(deps: SettingsListenerDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    // Through the click's response_url; a click without one (not from a message) is a warn line.
    const tell = clickReply(respond, deps.logger);
    const opened = deps.signer.open(EDIT_BUTTON_PURPOSE, action.value);
    if (!opened.ok) {
      warnUnverified(deps.logger, EDIT_BUTTON_PURPOSE, opened.reason, { user: body.user.id });
      return void (await tell(UNVERIFIED_TEXT));
    }
    const channel = opened.payload;
    const clickedIn = body.channel?.id ?? body.container?.channel_id;
    if (!channelId.safeParse(channel).success || (clickedIn !== undefined && clickedIn !== channel)) {
      return void (await tell('This button belongs to an older message; run `/docs-settings` again.'));
    }
    const teamId = body.team?.id ?? body.user.team_id;
    const refusal = await viewRefusal(deps, { user: body.user.id, ...(teamId ? { teamId } : {}) }, channel);
    if (refusal) return void (await tell(refusal));
    try {
      const settings = await deps.service.effective(channel);
      const view = buildEditModal(channel, settings, deps.service.projects, deps.signer, deps.modal);
      await deps.slack.views.open({ trigger_id: body.trigger_id, view });
    } catch (err) {
      deps.logger.warn({ err, slackError: slackErrorCode(err) }, 'could not open the settings modal');
      await tell("I couldn't open the settings form; click Edit again.");
    }
  };
}

/**
 * The channel a submitted settings form is for, or the modal's errors (a form the bot did not
 * sign, or someone no longer in the channel).
 */
async function formChannel(
  deps: SettingsListenerDeps,
  view: SubmissionArgs['view'],
  user: string,
): Promise<{ channel: string } | { errors: Record<string, string> }> {
  const decoded = decodeEditMetadata(view.private_metadata, deps.signer);
  if (!decoded.ok) {
    warnUnverified(deps.logger, EDIT_MODAL_PURPOSE, decoded.reason, { user });
    return { errors: { [PROJECT_BLOCK]: UNVERIFIED_TEXT } };
  }
  const withinMs = SETTINGS_CHECK_WITHIN_MS;
  const asked = { channel: decoded.channel, user, action: 'change_settings' as const, withinMs };
  const member = await checkMembership(deps.conversations, deps.logger, asked);
  return member.ok ? { channel: decoded.channel } : { errors: { [PROJECT_BLOCK]: plainTextOf(member.text) } };
}

/**
 * Submission of the settings modal: values that are not configured projects or policies (a form
 * older than a configuration change, or forged) are refused inside the modal, and so are metadata
 * the bot did not sign (a warning log) and a person no longer in the channel; otherwise the change
 * is recorded (`settings.save`; the worker checks who may change settings) and the modal closes. If
 * it cannot be recorded, the modal says so.
 */
export function editSubmission(deps: SettingsListenerDeps) {
  return async ({ ack, body, view }: SubmissionArgs): Promise<void> => {
    const values = readEditValues((view.state as { values?: unknown } | undefined)?.values);
    const errors: Record<string, string> = {};
    const projectOk = values.projectId === DEFAULT_OPTION || deps.service.projects.includes(values.projectId ?? '');
    if (!projectOk) errors[PROJECT_BLOCK] = `Choose one of ${projectList(deps.service.projects).replace(/`/g, '')}.`;
    const policies: readonly string[] = [DEFAULT_OPTION, ...FOLLOWUP_POLICIES];
    if (!values.followupPolicy || !policies.includes(values.followupPolicy))
      errors[FOLLOWUPS_BLOCK] = 'Choose who may continue a job.';
    const mentionsOk = values.mentions === undefined || (MENTIONS_MODES as readonly string[]).includes(values.mentions);
    if (!mentionsOk) errors[MENTIONS_BLOCK] = 'Choose what a mention is.';
    if (values.answerAll !== undefined && values.answerAll !== 'on' && values.answerAll !== 'off')
      errors[ANSWER_ALL_BLOCK] = 'Choose which messages are answered.';
    if (Object.keys(errors).length) {
      deps.logger.warn({ fields: Object.keys(errors) }, 'settings form refused: invalid input');
      return void (await ack({ response_action: 'errors', errors }));
    }
    const form = await formChannel(deps, view, body.user.id);
    if ('errors' in form) return void (await ack({ response_action: 'errors', errors: form.errors }));
    const payload: SaveIntake = {
      teamId: installationTeamId(body.team?.id ?? body.user.team_id ?? ''),
      channel: form.channel,
      user: body.user.id,
      change: {
        // The default options save no value of the channel's own: it follows the workspace default.
        projectId: ownValue(values.projectId),
        followupPolicy: ownValue(values.followupPolicy) as FollowupPolicy | null,
        ...(values.mentions ? { mentions: values.mentions as MentionsMode } : {}),
        ...(values.answerAll ? { answerAll: values.answerAll === 'on' } : {}),
      },
    };
    const requestId = `${view.id}-${view.hash}`;
    try {
      await deps.intake.record(INTAKE.save, `view-${requestId}`, requestId, payload);
    } catch (err) {
      deps.logger.warn({ err }, 'could not record a settings change');
      return void (await ack({ response_action: 'errors', errors: { [PROJECT_BLOCK]: notRecordedText(err) } }));
    }
    await ack();
  };
}

/** A checked form value as the channel's own, or null (back to the workspace default) for the default option. */
function ownValue(v: string | undefined): string | null {
  return v === undefined || v === DEFAULT_OPTION ? null : v;
}

/** Registers `/docs-settings`, its Edit button and its modal. */
export function register(app: App, deps: SettingsListenerDeps): void {
  app.command('/docs-settings', docsSettingsCommand(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_EDIT, editAction(deps));
  app.view({ type: 'view_submission', callback_id: EDIT_CALLBACK_ID }, editSubmission(deps));
}
