import type { Config } from '../../platform/config.js';
import {
  ACCESS_CHECK_FAILED_TEXT,
  type AccessAction,
  type AccessDecision,
  type RefusalReason,
} from '../../platform/access.js';

/** The access settings (docs/using.md "Who can use it"), from ACCESS_* and ADMIN_USERS. */
export interface AccessPolicyConfig {
  /** ACCESS_ALLOWED_USERS: user ids (`U…`/`W…`). */
  allowedUsers: readonly string[];
  /** ACCESS_ALLOWED_USERGROUPS: user group ids (`S…`). */
  allowedUsergroups: readonly string[];
  /** ACCESS_ALLOWED_CHANNELS: channel ids where jobs may be started or continued (empty: anywhere the bot is, and DMs). */
  allowedChannels: readonly string[];
  /** ACCESS_ALLOW_GUESTS. */
  allowGuests: boolean;
  /** ACCESS_ALLOW_EXTERNAL. */
  allowExternal: boolean;
  /** ADMIN_USERS: may change channel settings (besides workspace admins and owners). */
  adminUsers: readonly string[];
  /**
   * ASK_ACCESS: who may ask the docs. `editors` (default): whoever may start jobs, under the same
   * allow-lists of users, user groups and channels; `everyone`: every full member, in any channel
   * (guests and people of other organizations still need ACCESS_ALLOW_GUESTS / ACCESS_ALLOW_EXTERNAL).
   */
  askAccess?: 'editors' | 'everyone';
}

/** The variables of the access policy. */
export type AccessPolicyVars = Pick<
  Config,
  | 'ACCESS_ALLOWED_USERS'
  | 'ACCESS_ALLOWED_USERGROUPS'
  | 'ACCESS_ALLOWED_CHANNELS'
  | 'ACCESS_ALLOW_GUESTS'
  | 'ACCESS_ALLOW_EXTERNAL'
  | 'ADMIN_USERS'
  | 'ASK_ACCESS'
>;

/** The access settings from the configuration (ACCESS_*, ADMIN_USERS, ASK_ACCESS). */
export function accessPolicyFromConfig(config: AccessPolicyVars): AccessPolicyConfig {
  return {
    allowedUsers: config.ACCESS_ALLOWED_USERS,
    allowedUsergroups: config.ACCESS_ALLOWED_USERGROUPS,
    allowedChannels: config.ACCESS_ALLOWED_CHANNELS,
    allowGuests: config.ACCESS_ALLOW_GUESTS,
    allowExternal: config.ACCESS_ALLOW_EXTERNAL,
    adminUsers: config.ADMIN_USERS,
    askAccess: config.ASK_ACCESS,
  };
}

/** What the policy needs to know about a person (Slack `users.info`). */
export interface UserFacts {
  id: string;
  /** The person's workspace (`team_id`). */
  teamId?: string;
  /**
   * On Enterprise Grid, the person's organization (`users.info` `enterprise_user.enterprise_id`);
   * undefined outside Grid.
   */
  enterpriseId?: string;
  isBot: boolean;
  deleted: boolean;
  /** Multi-channel guest (`is_restricted`) or single-channel guest (`is_ultra_restricted`). */
  isGuest: boolean;
  /** `is_stranger`: a user of another workspace seen through a shared channel. */
  isStranger: boolean;
  /** Workspace admin or owner (`is_admin` / `is_owner`). */
  isWorkspaceAdmin: boolean;
  /** IANA time zone (`tz`), for times in answers. */
  tz?: string;
}

/** One question to the policy. */
interface PolicyQuestion {
  facts: UserFacts;
  /** The bot's own workspace (`auth.test` `team_id`; the enterprise id for an org-wide install). */
  homeTeamId: string;
  /** The bot's own Enterprise Grid organization (`auth.test` `enterprise_id`), when it is on Grid. */
  homeEnterpriseId?: string;
  action: AccessAction;
  channel: string;
  /** Whether the person is in one of ACCESS_ALLOWED_USERGROUPS (only asked when {@link needsGroupCheck}). */
  inAllowedGroup?: boolean;
}

/**
 * Where the person stands relative to the bot's own organization (the audit's `affiliation`):
 * - `same_workspace`: a member of the bot's workspace (or no `team_id` to say otherwise);
 * - `same_organization`: on Enterprise Grid, a member of a workspace of the bot's own enterprise
 *   (`enterprise_user.enterprise_id` equal to the bot's `auth.test` `enterprise_id`), e.g. a sibling
 *   workspace's member in an org-shared channel: an insider;
 * - `other_organization`: on Grid, a person of another enterprise (Slack Connect);
 * - `other_workspace`: a person of another workspace outside the bot's enterprise (Slack Connect);
 * - `stranger`: Slack says `is_stranger` (always an outsider, whatever the ids say).
 */
export type Affiliation =
  'same_workspace' | 'same_organization' | 'other_organization' | 'other_workspace' | 'stranger';

/** The bot's own workspace and, on Enterprise Grid, organization (from `auth.test`). */
export interface HomeOrg {
  teamId: string;
  enterpriseId?: string;
}

/** {@link Affiliation} of `facts` relative to `home`. Pure. */
export function affiliationOf(
  facts: Pick<UserFacts, 'teamId' | 'enterpriseId' | 'isStranger'>,
  home: HomeOrg,
): Affiliation {
  if (facts.isStranger) return 'stranger';
  if (home.enterpriseId !== undefined && facts.enterpriseId === home.enterpriseId)
    return facts.teamId === home.teamId ? 'same_workspace' : 'same_organization';
  if (facts.enterpriseId !== undefined && facts.enterpriseId !== home.enterpriseId) return 'other_organization';
  return facts.teamId === undefined || facts.teamId === home.teamId ? 'same_workspace' : 'other_workspace';
}

/** Whether an {@link Affiliation} makes the person an outsider (held to ACCESS_ALLOW_EXTERNAL). */
function isOutsider(a: Affiliation): boolean {
  return a === 'other_organization' || a === 'other_workspace' || a === 'stranger';
}

const VERB: Record<AccessAction, string> = {
  start_job: 'start docs jobs',
  continue_job: 'continue docs jobs',
  manage_digests: 'manage the weekly docs digest',
  read_reports: 'read docs reports',
  view_settings: "see this channel's docs settings",
  change_settings: "change this channel's docs settings",
  ask: 'ask the docs',
};

/** Sentence when a check could not be made (Slack or Redis failed): the request is refused (fail closed). */
export const CHECK_FAILED_TEXT = ACCESS_CHECK_FAILED_TEXT;

const restrictsUsers = (c: AccessPolicyConfig) => c.allowedUsers.length > 0 || c.allowedUsergroups.length > 0;
/** Whether `a` is held to the allow-list of users and groups (asking only when ASK_ACCESS is `editors`). */
const usesAllowList = (c: AccessPolicyConfig, a: AccessAction) =>
  a === 'start_job' || a === 'continue_job' || a === 'manage_digests' || (a === 'ask' && c.askAccess !== 'everyone');
/** Whether `a` is held to ACCESS_ALLOWED_CHANNELS (asking only when ASK_ACCESS is `editors`). */
const usesChannelList = (c: AccessPolicyConfig, a: AccessAction) =>
  a === 'start_job' || a === 'continue_job' || (a === 'ask' && c.askAccess !== 'everyone');

/** True when the answer depends on user group membership (so the caller must look it up first). */
export function needsGroupCheck(c: AccessPolicyConfig, action: AccessAction, user: string): boolean {
  return usesAllowList(c, action) && c.allowedUsergroups.length > 0 && !c.allowedUsers.includes(user);
}

/**
 * The access policy, pure. In order: bots and deactivated accounts are refused; guests unless
 * ACCESS_ALLOW_GUESTS; people of other organizations ({@link affiliationOf}: `is_stranger`, another
 * enterprise, or outside Grid another `team_id`; on Grid a member of any workspace of the bot's own
 * enterprise is an insider) unless ACCESS_ALLOW_EXTERNAL; then per action — starting and continuing jobs and
 * managing digests need the allow-list (users ∪ user group members) when one is set; starting and
 * continuing jobs need an allowed channel when ACCESS_ALLOWED_CHANNELS is set; changing settings
 * needs ADMIN_USERS or a workspace admin/owner; reading reports and seeing settings need nothing
 * more (full members only); asking follows starting jobs (allow-lists and channels) unless
 * ASK_ACCESS is `everyone` (full members anywhere).
 *
 * @returns the decision with the sentence to show the person (Slack mrkdwn).
 */
export function decideAccess(c: AccessPolicyConfig, q: PolicyQuestion): AccessDecision {
  const { facts, action } = q;
  const verb = VERB[action];
  const refuse = (reason: RefusalReason, text: string): AccessDecision => ({ allowed: false, reason, text });
  if (facts.isBot || facts.deleted) return refuse('not_a_person', `Only people can ${verb}.`);
  if (facts.isGuest && !c.allowGuests)
    return refuse(
      'guest',
      `Guests can't ${verb} in this workspace. Ask a full member of the workspace to do it for you.`,
    );
  const home: HomeOrg = {
    teamId: q.homeTeamId,
    ...(q.homeEnterpriseId !== undefined ? { enterpriseId: q.homeEnterpriseId } : {}),
  };
  if (isOutsider(affiliationOf(facts, home)) && !c.allowExternal) {
    return refuse(
      'external',
      `People from other organizations can't ${verb} in this workspace (this channel is shared with yours). Ask someone from this workspace to do it for you.`,
    );
  }
  if (action === 'change_settings') {
    if (facts.isWorkspaceAdmin || c.adminUsers.includes(facts.id)) return { allowed: true };
    return refuse(
      'not_admin',
      `Only workspace admins${c.adminUsers.length ? ` and ${mentionList(c.adminUsers)}` : ''} can ${verb}.`,
    );
  }
  if (usesAllowList(c, action) && restrictsUsers(c) && !c.allowedUsers.includes(facts.id) && !q.inAllowedGroup) {
    return refuse('not_allowed_user', `Only ${allowedWho(c)} can ${verb}: ${allowListNextStep(c)}.`);
  }
  if (usesChannelList(c, action) && c.allowedChannels.length > 0 && !c.allowedChannels.includes(q.channel)) {
    const here = q.channel.startsWith('D') ? 'in direct messages' : 'in this channel';
    const what = action === 'ask' ? 'Questions to the docs' : 'Docs jobs';
    const where = c.allowedChannels
      .slice(0, 3)
      .map((ch) => `<#${ch}>`)
      .join(' or ');
    return refuse('not_allowed_channel', `${what} aren't enabled ${here}: try ${where}.`);
  }
  return { allowed: true };
}

/** Most allowed users named in a refusal or description; the rest are counted ("and 3 more"). */
const USERS_NAMED = 5;

/**
 * "members of @docs-writers", "<@U1>, <@U2> and 3 more", or both. Slack renders `<!subteam^S…>`
 * as the group's handle.
 */
function allowedWho(c: AccessPolicyConfig): string {
  const groups = c.allowedUsergroups.length
    ? `members of ${c.allowedUsergroups.map((g) => `<!subteam^${g}>`).join(', ')}`
    : '';
  const more = c.allowedUsers.length - USERS_NAMED;
  const named = mentionList(c.allowedUsers.slice(0, USERS_NAMED));
  const users = c.allowedUsers.length ? `${named}${more > 0 ? ` and ${more} more` : ''}` : '';
  return [groups, users].filter(Boolean).join(' and ');
}

/**
 * What someone outside the allow-list can do: join an allowed group, or ask whoever runs Docs Agent
 * (ACCESS_ALLOWED_USERS / ACCESS_ALLOWED_USERGROUPS are environment variables: no admin in Slack
 * can change them).
 */
function allowListNextStep(c: AccessPolicyConfig): string {
  const join = c.allowedUsergroups.length
    ? `join ${c.allowedUsergroups.length === 1 ? 'that group' : 'one of those groups'}, or `
    : '';
  return `${join}ask whoever runs Docs Agent to add you`;
}

function mentionList(users: readonly string[]): string {
  return users.map((u) => `<@${u}>`).join(', ');
}

/** Who may start jobs in `channel`, in words (for `/docs-settings`): "members of @docs-writers and @dana; no guests; not people of other organizations". */
export function describeAccess(c: AccessPolicyConfig, channel: string): string {
  if (c.allowedChannels.length > 0 && !c.allowedChannels.includes(channel))
    return `nobody: docs jobs aren't enabled in this channel (they are in ${c.allowedChannels
      .slice(0, 3)
      .map((ch) => `<#${ch}>`)
      .join(', ')})`;
  const who = restrictsUsers(c) ? allowedWho(c) : 'every full member';
  const guests = c.allowGuests ? 'guests too' : 'no guests';
  const external = c.allowExternal ? 'people of other organizations too' : 'not people of other organizations';
  return `${who}; ${guests}; ${external}`;
}
