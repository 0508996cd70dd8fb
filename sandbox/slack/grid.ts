/**
 * The fake Slack's Enterprise Grid: the bot's workspace "Sandbox" (T0SANDBOX) and its sibling
 * "Sandbox B" (T0SANDBOXB) in one org, "Sandbox Org" (E0SANDBOX), and a Slack Connect partner of
 * another org (E0OTHERORG, workspace T0OTHERORG). Grid people have `W…` ids and an
 * `enterprise_user` in users.info (docs.slack.dev "User object"); a channel shared between the org's
 * workspaces is `is_org_shared`, one shared with another org `is_ext_shared` (Slack Connect).
 */
import { DEFAULT_CHANNELS, DEFAULT_USERS } from './defaults.js';
import type { FakeChannel, FakeEnterprise, FakeSlackOptions, FakeUser } from './types.js';

/** The bot's org. */
export const GRID_ENTERPRISE: FakeEnterprise = {
  id: 'E0SANDBOX',
  name: 'Sandbox Org',
  teams: [
    { id: 'T0SANDBOX', name: 'Sandbox' },
    { id: 'T0SANDBOXB', name: 'Sandbox B' },
  ],
};

/** Workspace B of the bot's org. */
export const SIBLING_TEAM_ID = 'T0SANDBOXB';
/** Another org (Slack Connect partner on Grid) and its workspace. */
export const OTHER_ENTERPRISE_ID = 'E0OTHERORG';
export const OTHER_ORG_TEAM_ID = 'T0OTHERORG';

/** bea: a member of workspace B of the bot's org. xavi: a member of another org, in #docs-connect. */
export const GRID_USERS: FakeUser[] = [
  ...DEFAULT_USERS,
  {
    id: 'W0BEA',
    name: 'bea',
    realName: 'Bea Baker',
    tz: 'Europe/Madrid',
    tzOffset: 3600,
    teamId: SIBLING_TEAM_ID,
    enterpriseId: GRID_ENTERPRISE.id,
  },
  {
    id: 'W0XAVI',
    name: 'xavi',
    realName: 'Xavi Xu',
    tz: 'Asia/Singapore',
    tzOffset: 28800,
    teamId: OTHER_ORG_TEAM_ID,
    enterpriseId: OTHER_ENTERPRISE_ID,
  },
];

/** The default channels, xavi added to #docs-connect, and #docs-org shared with workspace B (bea). */
export const GRID_CHANNELS: FakeChannel[] = [
  ...DEFAULT_CHANNELS.map((c) => (c.id === 'C0CONNECT' ? { ...c, members: [...(c.members ?? []), 'W0XAVI'] } : c)),
  {
    id: 'C0ORGDOCS',
    name: 'docs-org',
    botIsMember: true,
    isOrgShared: true,
    members: ['U0ALICE', 'U0BOB', 'W0BEA', '@bot'],
  },
];

/** Options for a fake Slack on Grid (add `botToken` and the rest). */
export function gridOptions(): Pick<FakeSlackOptions, 'enterprise' | 'users' | 'channels'> {
  return { enterprise: GRID_ENTERPRISE, users: GRID_USERS, channels: GRID_CHANNELS };
}
