import type { App, BlockAction, ButtonAction, FeedbackButtonsAction } from '@slack/bolt';
import type { ButtonArgs, CommandArgs, EventArgs, FeedbackArgs } from '../../platform/slack/listener-args.js';
import { promptTooLongText } from '../../platform/access.js';
import { installationTeamId } from '../../platform/request-context.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { Quota } from '../../platform/quota.js';
import { unescapeSlackText } from '../../platform/slack/markup.js';
import { clickOf } from '../../platform/slack/click.js';
import {
  actionEntry,
  clickerEntry,
  commandEntry,
  recordCommand,
  recordEvent,
  recordInteraction,
} from '../../platform/slack/record-and-ack.js';
import { ACTION_RESTART } from './start/index.js';
import { ACTION_FEEDBACK, type FeedbackIntake } from './feedback.js';
import { ACTION_PREVIEW_FIX } from './preview/blocks.js';
import type { PreviewFixIntake } from './preview/fix.js';
import { INTAKE, type HomeIntake, type ReplyIntake, type RestartIntake, type StartIntake } from './intake.js';

/** What the agent-jobs listeners need: they record each request and ack; workers do the rest. */
interface AgentJobsListenerDeps {
  intake: Pick<Intake, 'record'>;
  logger: Logger;
  /** AGENT_PROMPT_MAX_CHARS: a longer `/docs-edit` or `/docs-reply` instruction is answered in the ack (nothing sent). */
  promptMaxChars: number;
  /** Each person's Home tab opens ({@link HOME_OPENS_PER_MINUTE} a minute, key `team:user`, shared in Redis); none: no limit. */
  homeOpens?: Pick<Quota, 'take'>;
}

/** Home tab opens handled per person per minute (each is a views.publish); the rest are ignored quietly. */
export const HOME_OPENS_PER_MINUTE = 10;

/**
 * How long a Home tab open is kept to recognise Slack's redeliveries, in ms (Slack retries an event
 * nearly at once, after 1 minute and after 5 minutes): the record itself goes once handled.
 */
export const HOME_DEDUPE_WINDOW_MS = 10 * 60_000;

/** Usage text of `/docs-edit` (shown for an empty instruction). */
export const DOCS_EDIT_USAGE =
  'Tell me what to change in the docs, for example:\n`/docs-edit Add a quickstart for the Python SDK`\nI will start an agent job, post its status here, and reply in the thread with the pull request.';

/** Usage of `/docs-reply`. */
export const DOCS_REPLY_USAGE =
  "Continue a job from the channel with `/docs-reply <job-id> <instruction>`, for example:\n`/docs-reply job_abc123 Also add a Go example`\nThe job id is on the job's status message. (Slack does not run slash commands inside threads, so in a thread just reply.)";

/**
 * `/docs-edit <instruction>`: an empty instruction gets the usage in the ack; otherwise the request
 * is recorded (`agent-jobs.start`, id from the `trigger_id`) and acked. The instruction is trimmed
 * and Slack's escaping undone (`&lt;Tabs&gt;` → `<Tabs>`; should_escape is false in the manifest,
 * so mentions and links arrive as typed), otherwise sent as typed.
 */
export function docsEditCommand(deps: AgentJobsListenerDeps) {
  return async ({ command, ack }: CommandArgs): Promise<void> => {
    const instruction = unescapeSlackText(command.text).trim();
    if (!instruction) return void (await ack({ response_type: 'ephemeral', text: DOCS_EDIT_USAGE }));
    if (instruction.length > deps.promptMaxChars)
      return void (await ack({
        response_type: 'ephemeral',
        text: promptTooLongText(instruction.length, deps.promptMaxChars),
      }));
    const payload: StartIntake = {
      teamId: command.team_id,
      channel: command.channel_id,
      requester: command.user_id,
      instruction,
      responseUrl: command.response_url,
    };
    await recordCommand(deps.intake, deps.logger, ack, commandEntry(command, INTAKE.start, payload));
  };
}

/**
 * `/docs-reply <job-id> <instruction>`: usage in the ack when either is missing, and the length
 * refusal when the instruction is over AGENT_PROMPT_MAX_CHARS (nothing recorded); else recorded
 * (`agent-jobs.reply`) and acked.
 */
export function docsReplyCommand(deps: AgentJobsListenerDeps) {
  return async ({ command, ack, context }: CommandArgs): Promise<void> => {
    const text = command.text.trim();
    const [jobId = ''] = text.split(/\s+/);
    const raw = text.slice(jobId.length).trim();
    if (!jobId || !raw) return void (await ack({ response_type: 'ephemeral', text: DOCS_REPLY_USAGE }));
    const chars = unescapeSlackText(raw).trim().length;
    if (chars > deps.promptMaxChars)
      return void (await ack({ response_type: 'ephemeral', text: promptTooLongText(chars, deps.promptMaxChars) }));
    const payload: ReplyIntake = {
      teamId: command.team_id,
      jobId,
      raw,
      user: command.user_id,
      channel: command.channel_id,
      responseUrl: command.response_url,
      botUserId: context.botUserId,
    };
    await recordCommand(deps.intake, deps.logger, ack, commandEntry(command, INTAKE.reply, payload));
  };
}

/**
 * `app_home_opened` (Home tab): recorded (`agent-jobs.home`, kept {@link HOME_DEDUPE_WINDOW_MS} for
 * deduplication only); the worker publishes the person's jobs. Over the person's
 * {@link HOME_OPENS_PER_MINUTE}, or when Redis can't count, ignored (the tab shows what it showed).
 * Not recorded (Redis down): not acked, so Slack redelivers it.
 */
export function appHomeOpenedEvent(deps: AgentJobsListenerDeps) {
  return async ({ event, body, context }: EventArgs<'app_home_opened'>): Promise<void> => {
    if (event.tab && event.tab !== 'home') return;
    const b = body as { team_id: string; event_id: string };
    if (!(await withinHomeLimit(deps, b.team_id, event.user))) return;
    const payload: HomeIntake = { teamId: installationTeamId(b.team_id), user: event.user };
    const entry = {
      kind: INTAKE.home,
      id: `home-${b.event_id}`,
      requestId: b.event_id,
      payload,
      retryNum: context.retryNum,
    };
    await recordEvent(deps.intake, deps.logger, { ...entry, dedupeWindowMs: HOME_DEDUPE_WINDOW_MS });
  };
}

/** Whether this Home tab open is within the person's {@link HOME_OPENS_PER_MINUTE} (a debug line, or a warning when Redis can't say). */
async function withinHomeLimit(deps: AgentJobsListenerDeps, teamId: string, user: string): Promise<boolean> {
  if (!deps.homeOpens) return true;
  try {
    if ((await deps.homeOpens.take(`${teamId}:${user}`)).ok) return true;
    deps.logger.debug({ user }, 'Home tab opens over the per-person limit; ignored');
  } catch (err) {
    deps.logger.warn({ err }, 'could not count Home tab opens; ignored this one');
  }
  return false;
}

/**
 * "Start it again" on the notice of an uncertain start (block_actions `agent_jobs.restart`):
 * recorded (`agent-jobs.restart`, id from the `action_ts`) and acked; the worker checks who may.
 */
export function restartAction(deps: AgentJobsListenerDeps) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const channel = body.channel?.id ?? body.container?.channel_id;
    const payload: RestartIntake = {
      restartId: action.value ?? '',
      user: body.user.id,
      ...(channel ? { channel } : {}),
      ...(body.response_url ? { responseUrl: body.response_url } : {}),
    };
    const entry = actionEntry(action, INTAKE.restart, payload);
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, entry);
  };
}

/**
 * 👍/👎 under an announcement (block_actions, `feedback_buttons` element `agent_jobs.feedback`):
 * recorded (`agent-jobs.feedback`, id from the clicker and the `action_ts`) and acked at once; the
 * worker checks the value and who may, then records, counts and thanks. Whatever the payload holds,
 * only a bounded string goes on.
 */
export function feedbackAction(deps: AgentJobsListenerDeps) {
  return async ({ ack, body, action }: FeedbackArgs): Promise<void> => {
    const a = action as Partial<FeedbackButtonsAction>;
    const payload: FeedbackIntake = clickOf(body, a.value, 200);
    const { user } = payload;
    if (!user) return void (await ack());
    const at = String(typeof a.action_ts === 'string' ? a.action_ts : body.trigger_id);
    const entry = clickerEntry('fb', user, at, INTAKE.feedback, payload);
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, entry);
  };
}

/**
 * "Ask the agent to fix the build" under a failed preview (block_actions `agent_jobs.preview_fix`):
 * recorded (`agent-jobs.preview-fix`, id from the clicker and the `action_ts`) and acked; the worker
 * checks the value and who may, then sends the follow-up. Only a bounded string goes on.
 */
function previewFixAction(deps: AgentJobsListenerDeps) {
  return async ({ ack, body, action }: ButtonArgs): Promise<void> => {
    const payload: PreviewFixIntake = clickOf(body, action.value, 300);
    const { user } = payload;
    if (!user) return void (await ack());
    const entry = clickerEntry('fix', user, String(action.action_ts), INTAKE.previewFix, payload);
    await recordInteraction(deps.intake, deps.logger, ack, body.response_url, entry);
  };
}

/** Registers the agent-jobs surfaces (declared in manifest.yml); people's messages are the conversations feature's. */
export function register(app: App, deps: AgentJobsListenerDeps): void {
  app.command('/docs-edit', docsEditCommand(deps));
  app.command('/docs-reply', docsReplyCommand(deps));
  app.event('app_home_opened', appHomeOpenedEvent(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_RESTART, restartAction(deps));
  app.action<BlockAction<FeedbackButtonsAction>>(ACTION_FEEDBACK, feedbackAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_PREVIEW_FIX, previewFixAction(deps));
}
