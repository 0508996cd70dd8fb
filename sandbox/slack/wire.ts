/**
 * The JSON shapes the fake Slack answers with: messages (chat.postMessage's `message`,
 * conversations.history / .replies), files, conversations (conversations.info, users.conversations)
 * and users (users.info). Field names and presence follow the examples on Slack's method reference
 * pages (docs.slack.dev/reference/methods/*) and the object pages ("User object", "Conversation object",
 * "File object").
 */
import type { Json } from './method.js';
import type { FakeChannel, FakeEnterprise, FakeUser, SlackFileRef, SlackMessage } from './types.js';

/** What the wire shapes need to know about the workspace. */
export interface WireContext {
  origin: string;
  teamId: string;
  teamDomain: string;
  botUserId: string;
  appId: string;
  /** The bot's Enterprise Grid organization, if any. */
  enterprise?: FakeEnterprise | undefined;
}

/** Thread summary of a root message, as Slack adds it to roots with replies (`reply_count`, `reply_users`, `latest_reply`). */
export interface ThreadSummary {
  replyCount: number;
  replyUsers: string[];
  latestReply: string;
}

/** Options of {@link messageJson}: metadata only with `include_all_metadata`; thread fields when known. */
export interface MessageJsonOptions {
  includeMetadata?: boolean;
  thread?: ThreadSummary;
  parentUserId?: string;
}

/** A file object (`files.completeUploadExternal`, message `files`); `url_private*` are served by the fake to the bot token. */
export function fileJson(ctx: WireContext, f: SlackFileRef): Json {
  const owner = f.user ?? ctx.botUserId;
  const name = encodeURIComponent(f.name);
  return {
    id: f.id,
    name: f.name,
    title: f.title,
    mimetype: f.mimetype ?? 'application/octet-stream',
    size: f.size,
    user: owner,
    url_private: `${ctx.origin}/files-pri/${ctx.teamId}-${f.id}/${name}`,
    url_private_download: `${ctx.origin}/files-pri/${ctx.teamId}-${f.id}/download/${name}`,
    permalink: `https://${ctx.teamDomain}.slack.com/files/${owner}/${f.id}/${name}`,
  };
}

/** A message as the Web API returns it. Ephemeral/deleted filtering is the caller's job. */
export function messageJson(ctx: WireContext, m: SlackMessage, opts: MessageJsonOptions = {}): Json {
  return {
    type: 'message',
    ...(m.files && m.user !== ctx.botUserId ? { subtype: 'file_share' } : {}),
    ...(m.user ? { user: m.user } : {}),
    ...(m.bot_id ? { bot_id: m.bot_id, app_id: ctx.appId } : {}),
    text: m.text,
    ts: m.ts,
    team: ctx.teamId,
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(opts.thread
      ? {
          reply_count: opts.thread.replyCount,
          reply_users_count: opts.thread.replyUsers.length,
          latest_reply: opts.thread.latestReply,
          reply_users: opts.thread.replyUsers,
        }
      : {}),
    ...(opts.parentUserId ? { parent_user_id: opts.parentUserId } : {}),
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.edited ? { edited: { user: m.user ?? ctx.botUserId, ts: m.ts } } : {}),
    ...(m.reactions.length
      ? { reactions: m.reactions.map((name) => ({ name, users: [ctx.botUserId], count: 1 })) }
      : {}),
    ...(m.files ? { files: m.files.map((f) => fileJson(ctx, f)) } : {}),
    ...(opts.includeMetadata && m.metadata ? { metadata: m.metadata } : {}),
  };
}

/** `https://<domain>.slack.com/archives/<channel>/p<ts without dot>`, plus `?thread_ts=<root>&cid=<channel>` for thread replies. */
export function permalink(ctx: WireContext, m: SlackMessage): string {
  const base = `https://${ctx.teamDomain}.slack.com/archives/${m.channel}/p${m.ts.replace('.', '')}`;
  return m.thread_ts && m.thread_ts !== m.ts ? `${base}?thread_ts=${m.thread_ts}&cid=${m.channel}` : base;
}

/**
 * A conversation object (conversations.info, users.conversations). `is_member` is left out when
 * `isMember` is undefined (users.conversations: "We omit the is_member and num_members fields in
 * this method's response"); `num_members` is included when `memberCount` is given.
 */
export function channelJson(ch: FakeChannel, isMember: boolean | undefined, memberCount?: number): Json {
  const member = isMember === undefined ? {} : { is_member: isMember };
  if (ch.isIm) {
    return {
      id: ch.id,
      created: 1700000000,
      is_channel: false,
      is_group: false,
      is_im: true,
      is_mpim: false,
      is_private: true,
      is_archived: ch.isArchived ?? false,
      is_org_shared: false,
      ...member,
      user: ch.user,
      is_user_deleted: false,
      priority: 0,
    };
  }
  return {
    id: ch.id,
    name: ch.name,
    name_normalized: ch.name,
    is_channel: !ch.isPrivate && !ch.isMpim,
    is_group: Boolean(ch.isPrivate && !ch.isMpim),
    is_im: false,
    is_mpim: ch.isMpim ?? false,
    is_private: Boolean(ch.isPrivate || ch.isMpim),
    is_archived: ch.isArchived ?? false,
    is_general: false,
    is_shared: Boolean(ch.isExtShared || ch.isOrgShared),
    is_ext_shared: ch.isExtShared ?? false,
    is_org_shared: ch.isOrgShared ?? false,
    ...member,
    created: 1700000000,
    ...(memberCount !== undefined ? { num_members: memberCount } : {}),
  };
}

/** A user object as users.info returns it: roles, own team, `is_stranger` only when set. */
export function userJson(ctx: WireContext, u: FakeUser): Json {
  const realName = u.realName ?? u.name;
  const teamId = u.teamId ?? ctx.teamId;
  return {
    id: u.id,
    team_id: teamId,
    name: u.name,
    deleted: false,
    real_name: realName,
    tz: u.tz ?? 'UTC',
    tz_label: u.tz ?? 'UTC',
    tz_offset: u.tzOffset ?? 0,
    is_admin: u.isAdmin ?? false,
    is_owner: u.isOwner ?? false,
    is_primary_owner: false,
    is_restricted: u.isRestricted ?? u.isUltraRestricted ?? false,
    is_ultra_restricted: u.isUltraRestricted ?? false,
    is_bot: u.isBot ?? false,
    is_app_user: false,
    ...(u.isStranger !== undefined ? { is_stranger: u.isStranger } : {}),
    ...enterpriseUser(ctx, u, teamId),
    profile: {
      display_name: u.name,
      display_name_normalized: u.name,
      real_name: realName,
      real_name_normalized: realName,
      team: teamId,
    },
  };
}

/**
 * users.info's `enterprise_user` on Enterprise Grid ("User object": `id`, `enterprise_id`,
 * `enterprise_name`, `is_admin`, `is_owner`, `teams`): for people of an org (their own
 * `enterpriseId`, or the bot's org for its own workspace's members); nothing outside Grid.
 */
function enterpriseUser(ctx: WireContext, u: FakeUser, teamId: string): Json {
  const enterpriseId = u.enterpriseId ?? (u.teamId === undefined ? ctx.enterprise?.id : undefined);
  if (!enterpriseId) return {};
  const name = enterpriseId === ctx.enterprise?.id ? ctx.enterprise.name : enterpriseId;
  return {
    enterprise_user: {
      id: u.id,
      enterprise_id: enterpriseId,
      enterprise_name: name,
      is_admin: u.isAdmin ?? false,
      is_owner: u.isOwner ?? false,
      teams: [teamId],
    },
  };
}
