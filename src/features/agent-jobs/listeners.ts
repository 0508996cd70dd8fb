import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { KeyedSerial } from '../../platform/keyed-serial.js';
import type { Logger } from '../../platform/logger.js';
import { quote } from '../../platform/slack/limits.js';
import { markupToText, unescapeSlackText } from '../../platform/slack/markup.js';
import { userNameLookup } from '../../platform/slack/user-names.js';
import { buildHomeView, type HomeDefaults } from './blocks.js';
import { handleIncomingMessage, type MessageDeps } from './messages.js';
import { continueAgentJob, startAgentJob, threadPermalink, type ContinueJobDeps, type StartJobDeps } from './service.js';
import type { JobStore } from './store.js';

/** What the agent-jobs listeners need (built once in main.ts). */
export interface AgentJobsListenerDeps extends MessageDeps {
  store: Pick<JobStore, 'findByThread' | 'listUserJobs' | 'update'>;
  followups: Pick<KeyedSerial, 'run'>;
  start: StartJobDeps;
  continue: ContinueJobDeps;
  slack: MessageDeps['slack'] & { chat: Pick<WebClient['chat'], 'getPermalink'>; views: Pick<WebClient['views'], 'publish'> };
  logger: Logger;
  /** What App Home shows as the defaults in force. */
  homeDefaults: HomeDefaults;
  now: () => number;
}

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** Usage text of `/docs-edit` (shown for an empty instruction). */
export const DOCS_EDIT_USAGE =
  'Tell me what to change in the docs, for example:\n`/docs-edit Add a quickstart for the Python SDK`\nI will start an agent job, post its status here, and reply in the thread with the pull request.';

/** Usage of `/docs-reply`. */
export const DOCS_REPLY_USAGE =
  'Continue a job from the channel with `/docs-reply <job-id> <instruction>`, for example:\n`/docs-reply job_abc123 Also add a Go example`\nThe job id is on the job\'s status message. (Slack does not run slash commands inside threads, so in a thread just reply.)';

/**
 * `/docs-edit <instruction>`: acks at once (Slack: within 3 s), then starts an agent job whose
 * status message is posted in the channel. The instruction is trimmed and Slack's escaping undone
 * (`&lt;Tabs&gt;` → `<Tabs>`; should_escape is false in the manifest, so mentions and links arrive
 * as typed), otherwise sent as typed. Bad input and failures get an ephemeral answer.
 */
export function docsEditCommand(deps: Pick<AgentJobsListenerDeps, 'start'>) {
  return async ({ command, ack, respond }: CommandArgs): Promise<void> => {
    if (!command.text.trim()) {
      await ack({ response_type: 'ephemeral', text: DOCS_EDIT_USAGE });
      return;
    }
    await ack();
    const instruction = unescapeSlackText(command.text).trim();
    const result = await startAgentJob(deps.start, { teamId: command.team_id, channel: command.channel_id, requester: command.user_id, instruction });
    if (!result.ok) await respond({ response_type: 'ephemeral', text: result.message });
  };
}

/**
 * `/docs-reply <job-id> <instruction>`: sends the follow-up, posts a note in the job's thread
 * ("@user continued this job from the channel: …"), and answers the person ephemerally with a link
 * to that thread. Unknown ids and missing instructions get an ephemeral answer and no API call.
 */
export function docsReplyCommand(deps: Pick<AgentJobsListenerDeps, 'continue' | 'followups' | 'slack' | 'store' | 'logger'>) {
  return async ({ command, ack, respond, context }: CommandArgs): Promise<void> => {
    const [jobId = '', ...rest] = command.text.trim().split(/\s+/);
    const raw = command.text.trim().slice(jobId.length).trim();
    if (!jobId || rest.length === 0 || !raw) {
      await ack({ response_type: 'ephemeral', text: DOCS_REPLY_USAGE });
      return;
    }
    await ack();
    const prompt = await markupToText(raw, context.botUserId, userNameLookup(deps.slack));
    const res = await deps.followups.run(jobId, () =>
      continueAgentJob(deps.continue, { jobId, author: command.user_id, prompt, fromChannel: command.channel_id }),
    );
    if (!res.ok) {
      await respond({ response_type: 'ephemeral', text: res.message });
      return;
    }
    const rec = res.rec;
    const note = `<@${command.user_id}> continued this job from the channel:\n${quote(prompt, 2800)}`;
    await deps.slack.chat
      .postMessage({ channel: rec.channel, thread_ts: rec.threadTs, text: note, unfurl_links: false })
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not post the /docs-reply note'));
    const link = await threadPermalink(deps.slack, deps.store, rec);
    await respond({
      response_type: 'ephemeral',
      text: `Sent your follow-up to job \`${jobId}\`. I'll reply in ${link ? `<${link}|its thread>` : 'its thread'} when the agent is done.`,
    });
  };
}

/** Message subtypes written by people (Slack: message subtypes); every other subtype is ignored. */
export const HUMAN_SUBTYPES = new Set<string | undefined>([undefined, 'file_share', 'thread_broadcast']);

/** `message` events (message.channels / .groups / .im): people's messages only, never bots'. */
export function messageEvent(deps: MessageDeps) {
  return async ({ event, body, context }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs): Promise<void> => {
    const e = event as unknown as Record<string, unknown>;
    if (e.bot_id || !HUMAN_SUBTYPES.has(e.subtype as string | undefined) || typeof e.user !== 'string' || typeof e.text !== 'string') return;
    const msg = {
      teamId: (body as { team_id?: string }).team_id ?? '',
      channel: String(e.channel),
      channelType: e.channel_type as string | undefined,
      user: e.user,
      text: e.text,
      ts: String(e.ts),
      thread_ts: e.thread_ts as string | undefined,
      viaMention: false,
    };
    await handleIncomingMessage(deps, msg, context.botUserId);
  };
}

/** `app_mention`: starts a job in the mention's thread, or continues the job whose thread it is in. */
export function appMentionEvent(deps: MessageDeps) {
  return async ({ event, body, context }: SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs): Promise<void> => {
    if (event.bot_id || !event.user) return;
    const msg = {
      teamId: (body as { team_id?: string }).team_id ?? '',
      channel: event.channel,
      user: event.user,
      text: event.text,
      ts: event.ts,
      thread_ts: event.thread_ts,
      viaMention: true,
    };
    await handleIncomingMessage(deps, msg, context.botUserId);
  };
}

/** `app_home_opened` (Home tab): publishes the person's last 20 jobs and the defaults in force. */
export function appHomeOpenedEvent(deps: Pick<AgentJobsListenerDeps, 'store' | 'slack' | 'homeDefaults' | 'now'>) {
  return async ({ event, body }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs): Promise<void> => {
    if (event.tab && event.tab !== 'home') return;
    const teamId = (body as { team_id?: string }).team_id ?? '';
    const recs = await deps.store.listUserJobs(teamId, event.user, 20);
    const jobs = await Promise.all(
      recs.map(async (r) => ({
        jobId: r.jobId,
        instruction: r.instruction,
        state: r.state,
        prLink: r.prLink,
        permalink: await threadPermalink(deps.slack, deps.store, r),
        createdAt: r.createdAt,
        followups: r.cycle,
      })),
    );
    await deps.slack.views.publish({ user_id: event.user, view: buildHomeView(jobs, deps.homeDefaults, deps.now()) });
  };
}

/** Registers the agent-jobs surfaces (declared in manifest.yml): `/docs-edit`, `/docs-reply`, messages, mentions, App Home. */
export function register(app: App, deps: AgentJobsListenerDeps): void {
  app.command('/docs-edit', docsEditCommand(deps));
  app.command('/docs-reply', docsReplyCommand(deps));
  app.event('message', messageEvent(deps));
  app.event('app_mention', appMentionEvent(deps));
  app.event('app_home_opened', appHomeOpenedEvent(deps));
}
