/**
 * Events API payloads as Slack builds them (Slack docs: "Events API" — the `event_callback` envelope
 * with `event_id`, `event_time`, `authorizations`; event reference pages `message`, `app_mention`,
 * `message_changed`, `message_deleted`, `app_home_opened`, `user_change`, `url_verification`). The builders that
 * describe a change (an edit, a deletion) also apply it to the fake first, so its state matches what
 * the event says. Shared by the HTTP and the Socket Mode drivers.
 */
import type { SlackMessage } from '../fake-slack.js';
import { fileJson, userJson } from '../slack/wire.js';
import type { DriverContext } from './context.js';
import type { HumanMessage } from './types.js';

type Json = Record<string, unknown>;

/** The `event_callback` body around `event` (what Slack POSTs, and the Socket Mode `events_api` payload). */
export function eventCallback(ctx: DriverContext, event: Json, eventId: string): Json {
  const slack = ctx.slack;
  const org = ctx.org();
  const enterpriseId = org?.id ?? null;
  return {
    token: 'sandbox-verification-token',
    team_id: ctx.teamId,
    ...(enterpriseId ? { enterprise_id: enterpriseId } : {}),
    context_team_id: ctx.teamId,
    context_enterprise_id: enterpriseId,
    api_app_id: slack.appId,
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: ctx.nowS(),
    authorizations: [
      {
        enterprise_id: enterpriseId,
        team_id: ctx.teamId,
        user_id: slack.botUserId,
        is_bot: true,
        is_enterprise_install: org?.orgWide === true,
      },
    ],
    is_ext_shared_channel:
      slack.channels.find((c) => c.id === (event.channel as string | undefined))?.isExtShared ?? false,
    event_context: `4-${Buffer.from(eventId).toString('base64url')}`,
  };
}

/** The `url_verification` handshake body (Slack docs: "url_verification event"). */
export function urlVerification(challenge: string): Json {
  return { token: 'sandbox-verification-token', challenge, type: 'url_verification' };
}

/**
 * A person's `message` or `app_mention` event for the message with ts `ts` (Slack docs: "message
 * event", "app_mention event"); a message with files has subtype "file_share" and `files`.
 */
export function humanEvent(ctx: DriverContext, type: 'message' | 'app_mention', p: HumanMessage, ts: string): Json {
  const slack = ctx.slack;
  const root = p.thread_ts ? slack.findMessage(p.channel, p.thread_ts) : undefined;
  const files = slack.findMessage(p.channel, ts)?.files;
  return {
    type,
    ...(type === 'message' && files?.length ? { subtype: 'file_share' } : {}),
    user: p.user,
    text: p.text,
    ts,
    channel: p.channel,
    event_ts: ts,
    team: ctx.teamId,
    ...ctx.authorTeams(p.user),
    client_msg_id: `00000000-0000-4000-8000-${ts.replace('.', '').slice(-12).padStart(12, '0')}`,
    ...(type === 'message' ? { channel_type: p.channelType ?? ctx.channelType(p.channel) } : {}),
    ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}),
    ...(root?.user ? { parent_user_id: root.user } : {}),
    ...(files?.length ? { files: files.map((f) => fileJson(slack, f)), upload: false, display_as_bot: false } : {}),
    blocks: [
      {
        type: 'rich_text',
        block_id: `b${ctx.nextId()}`,
        elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: p.text }] }],
      },
    ],
  };
}

/**
 * The `message` event Slack sends for the bot's own post (apps subscribed to message events receive
 * their own messages): `user` is the bot user, `bot_id`/`app_id` set, and no subtype unless asked for.
 */
export function botEchoEvent(ctx: DriverContext, m: SlackMessage, subtype?: 'bot_message'): Json {
  const slack = ctx.slack;
  return {
    type: 'message',
    ...(subtype ? { subtype } : {}),
    user: m.user ?? slack.botUserId,
    bot_id: m.bot_id ?? slack.botId,
    app_id: slack.appId,
    text: m.text,
    ts: m.ts,
    channel: m.channel,
    event_ts: m.ts,
    channel_type: ctx.channelType(m.channel),
    team: ctx.teamId,
    bot_profile: { id: slack.botId, app_id: slack.appId, name: 'Docs Agent', team_id: ctx.teamId, deleted: false },
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(m.blocks ? { blocks: m.blocks } : {}),
  };
}

/**
 * A person edits their message: updates it in the fake and returns the `message_changed` event
 * (Slack docs: "message_changed"): `hidden: true`, `message` (new state with `edited`) and `previous_message`.
 */
export function messageChangedEvent(
  ctx: DriverContext,
  p: { channel: string; ts: string; text: string; user?: string },
): Json {
  const existing = ctx.slack.findMessage(p.channel, p.ts);
  const user = p.user ?? existing?.user ?? 'U0UNKNOWN';
  const previousText = existing?.text ?? '';
  if (existing) {
    existing.text = p.text;
    existing.edited = true;
  }
  const eventTs = ctx.eventTs();
  const base = { type: 'message', user, ts: p.ts, ...(existing?.thread_ts ? { thread_ts: existing.thread_ts } : {}) };
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: p.channel,
    channel_type: ctx.channelType(p.channel),
    ts: eventTs,
    event_ts: eventTs,
    message: { ...base, text: p.text, edited: { user, ts: eventTs } },
    previous_message: { ...base, text: previousText },
  };
}

/**
 * A message is deleted: marks it deleted in the fake and returns the `message_deleted` event (Slack
 * docs: "message_deleted"): `hidden: true`, `deleted_ts`, `previous_message`.
 */
export function messageDeletedEvent(ctx: DriverContext, p: { channel: string; ts: string }): Json {
  const existing = ctx.slack.findMessage(p.channel, p.ts);
  if (existing) existing.deleted = true;
  const eventTs = ctx.eventTs();
  return {
    type: 'message',
    subtype: 'message_deleted',
    hidden: true,
    channel: p.channel,
    channel_type: ctx.channelType(p.channel),
    ts: eventTs,
    event_ts: eventTs,
    deleted_ts: p.ts,
    previous_message: {
      type: 'message',
      ts: p.ts,
      text: existing?.text ?? '',
      ...(existing?.user ? { user: existing.user } : {}),
      ...(existing?.bot_id ? { bot_id: existing.bot_id } : {}),
    },
  };
}

/**
 * A person opens the app's Home tab (Slack docs: "app_home_opened"): `channel` is the IM with the bot;
 * `view` is included once a home view was published for that user.
 */
export function appHomeOpenedEvent(
  ctx: DriverContext,
  user: string,
  tab: 'home' | 'messages' = 'home',
  viewing?: string,
): Json {
  const slack = ctx.slack;
  const published = [...slack.views].reverse().find((v) => v.kind === 'home' && v.userId === user);
  return {
    type: 'app_home_opened',
    user,
    channel: imOf(ctx, user),
    tab,
    ...(tab === 'messages' ? { context: viewingContext(ctx, viewing) } : {}),
    event_ts: ctx.eventTs(),
    ...(published
      ? { view: { id: published.id, team_id: ctx.teamId, type: 'home', ...published.view, hash: published.hash } }
      : {}),
  };
}

/** The IM of `user` with the bot (the Messages tab's conversation). */
function imOf(ctx: DriverContext, user: string): string {
  return ctx.slack.channels.find((c) => c.isIm && c.user === user)?.id ?? `D${user.replace(/^[UW]/, '')}`;
}

/** An agent view `context`: the channel being viewed as its first entity, or `{}` when nothing is (Slack: app_context_changed). */
function viewingContext(ctx: DriverContext, viewing: string | undefined): Json {
  return viewing ? { entities: [{ type: 'slack#/types/channel_id', value: viewing, team_id: ctx.teamId }] } : {};
}

/**
 * What `user` looks at beside the agent view changed (Slack docs: "app_context_changed", agent view
 * only; `user` and `channel`, the IM with the app, as @slack/types 3 declares the event — the docs'
 * example shows only `context`): `viewing` is the channel id, or undefined for an empty context.
 */
export function appContextChangedEvent(ctx: DriverContext, user: string, viewing?: string): Json {
  return {
    type: 'app_context_changed',
    user,
    channel: imOf(ctx, user),
    context: viewingContext(ctx, viewing),
    event_ts: ctx.eventTs(),
  };
}

/**
 * A member's data changed (Slack docs: "user_change event", scope `users:read`): `user` is the whole
 * user object as users.info returns it now, plus `cache_ts` and `event_ts`. Change the fake's user
 * first (e.g. make them a guest), then deliver this.
 */
export function userChangeEvent(ctx: DriverContext, userId: string): Json {
  const u = ctx.slack.users.find((x) => x.id === userId);
  if (!u) throw new Error(`the fake Slack has no user ${userId}`);
  return {
    type: 'user_change',
    user: userJson(ctx.slack, u),
    cache_ts: Math.floor(Date.now() / 1000),
    event_ts: ctx.eventTs(),
  };
}

/**
 * An Org Admin adds the org-wide app to workspaces, or removes it (Slack docs: "team_access_granted",
 * "team_access_revoked"): updates the fake's granted workspaces first, then returns the envelope as
 * Slack sends it, with the outer `team_id` null and the org's `enterprise_id`.
 */
export function teamAccessEnvelope(
  ctx: DriverContext,
  change: 'granted' | 'revoked',
  teamIds: string[],
  eventId: string,
): Json {
  const org = ctx.slack.enterprise;
  if (!org) throw new Error('team_access events need a fake Slack on Enterprise Grid (its `enterprise` option)');
  if (change === 'revoked') {
    for (const id of teamIds) {
      const i = org.teams.findIndex((t) => t.id === id);
      if (i >= 0) org.teams.splice(i, 1);
    }
  } else {
    for (const id of teamIds) if (!org.teams.some((t) => t.id === id)) org.teams.push({ id, name: id });
  }
  const envelope = eventCallback(
    ctx,
    { type: `team_access_${change}`, team_ids: teamIds, event_ts: ctx.eventTs() },
    eventId,
  );
  return { ...envelope, team_id: null, context_team_id: null };
}

/**
 * The app is uninstalled from the driver's workspace (Slack docs: "app_uninstalled": sent once the
 * app's tokens are revoked): revokes the tokens the fake's OAuth installs issued for it first, then
 * returns the envelope.
 */
export function appUninstalledEnvelope(ctx: DriverContext, eventId: string): Json {
  ctx.slack.installs.uninstall(ctx.teamId);
  return eventCallback(ctx, { type: 'app_uninstalled', event_ts: ctx.eventTs() }, eventId);
}

/**
 * The app's bot token for the driver's workspace is revoked (Slack docs, docs.slack.dev/reference/events/tokens_revoked:
 * `event.tokens` is "a hash keyed with the types of revoked tokens", each "an array of user IDs, not
 * the actual token strings": here `bot: [<bot user id>]`; the app_uninstalled page: "You should also
 * receive tokens_revoked events for revoked tokens", in no guaranteed order): revokes the tokens the
 * fake's OAuth installs issued for the workspace first, then returns the envelope.
 */
export function tokensRevokedEnvelope(ctx: DriverContext, eventId: string): Json {
  ctx.slack.installs.uninstall(ctx.teamId);
  return eventCallback(ctx, { type: 'tokens_revoked', tokens: { bot: [ctx.slack.botUserId] } }, eventId);
}
