import type { AllMiddlewareArgs, App, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { buildHomeView } from '../../slack/home-view.js';
import { threadPermalink } from '../../slack/permalink.js';
import { handleIncomingMessage } from './incoming-message.js';

/** Message subtypes written by people (Slack: message subtypes); every other subtype is ignored. */
export const HUMAN_SUBTYPES = new Set<string | undefined>([undefined, 'file_share', 'thread_broadcast']);

/** `message` events (message.channels / .groups / .im): people's messages only, never bots'. */
export function messageEvent(deps: Deps) {
  return async ({ event, body, client, context }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs): Promise<void> => {
    const e = event as unknown as Record<string, unknown>;
    if (e.bot_id || !HUMAN_SUBTYPES.has(e.subtype as string | undefined) || typeof e.user !== 'string' || typeof e.text !== 'string') return;
    await handleIncomingMessage(
      deps,
      client,
      {
        teamId: (body as { team_id?: string }).team_id ?? '',
        channel: String(e.channel),
        channelType: e.channel_type as string | undefined,
        user: e.user,
        text: e.text,
        ts: String(e.ts),
        thread_ts: e.thread_ts as string | undefined,
        viaMention: false,
      },
      context.botUserId,
    );
  };
}

/** `app_mention`: starts a job in the mention's thread, or continues the job whose thread it is in. */
export function appMentionEvent(deps: Deps) {
  return async ({ event, body, client, context }: SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs): Promise<void> => {
    if (event.bot_id || !event.user) return;
    await handleIncomingMessage(
      deps,
      client,
      {
        teamId: (body as { team_id?: string }).team_id ?? '',
        channel: event.channel,
        user: event.user,
        text: event.text,
        ts: event.ts,
        thread_ts: event.thread_ts,
        viaMention: true,
      },
      context.botUserId,
    );
  };
}

/** `app_home_opened` (Home tab): publishes the person's last 20 jobs and the defaults in force. */
export function appHomeOpenedEvent(deps: Deps) {
  return async ({ event, body, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs): Promise<void> => {
    if (event.tab && event.tab !== 'home') return;
    const teamId = (body as { team_id?: string }).team_id ?? '';
    const recs = await deps.store.listUserJobs(teamId, event.user, 20);
    const jobs = await Promise.all(
      recs.map(async (r) => ({
        jobId: r.jobId,
        instruction: r.instruction,
        state: r.state,
        prLink: r.prLink,
        permalink: await threadPermalink(client, deps.store, r),
        createdAt: r.createdAt,
        followups: r.cycle,
      })),
    );
    const view = buildHomeView(
      jobs,
      {
        followupPolicy: deps.config.FOLLOWUP_POLICY,
        ignorePrefix: deps.config.FOLLOWUP_IGNORE_PREFIX,
        digestCron: deps.config.DIGEST_CRON,
        digestTz: deps.config.DIGEST_TZ,
      },
      deps.now(),
    );
    await client.views.publish({ user_id: event.user, view });
  };
}

/** Registers the Events API listeners (subscribed in manifest.yml). */
export function register(app: App, deps: Deps): void {
  app.event('message', messageEvent(deps));
  app.event('app_mention', appMentionEvent(deps));
  app.event('app_home_opened', appHomeOpenedEvent(deps));
}
