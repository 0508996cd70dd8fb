/**
 * The fake Slack's default workspace: people with the roles Slack distinguishes (members, an admin, a
 * single-channel guest, a Slack Connect user of another workspace), its channels and one user group.
 * Role flags mirror Slack's user object (docs.slack.dev "User object"; single-channel guests have both
 * `is_restricted` and `is_ultra_restricted`).
 */
import type { FakeChannel, FakeUser, FakeUsergroup } from './types.js';

/** Team id of the Slack Connect partner workspace U0EXTERNAL belongs to. */
export const OTHER_TEAM_ID = 'T0OTHERCO';

/** Default members (alice, bob and carol are relied on by other tests; keep them as they are). */
export const DEFAULT_USERS: FakeUser[] = [
  { id: 'U0ALICE', name: 'alice', realName: 'Alice Adams', tz: 'Europe/Berlin', tzOffset: 3600 },
  { id: 'U0BOB', name: 'bob', realName: 'Bob Brown', tz: 'America/New_York', tzOffset: -18000 },
  { id: 'U0CAROL', name: 'carol', realName: 'Carol Chen', tz: 'Asia/Tokyo', tzOffset: 32400 },
  { id: 'U0ADMIN', name: 'dana', realName: 'Dana Diaz', tz: 'Europe/London', tzOffset: 0, isAdmin: true },
  {
    id: 'U0GUEST',
    name: 'gus',
    realName: 'Gus Green',
    tz: 'Europe/Paris',
    tzOffset: 3600,
    isRestricted: true,
    isUltraRestricted: true,
  },
  {
    id: 'U0EXTERNAL',
    name: 'erin',
    realName: 'Erin Evans',
    tz: 'America/Los_Angeles',
    tzOffset: -28800,
    teamId: OTHER_TEAM_ID,
  },
];

/** Default conversations; member lists name the bot user id as "@bot" and are resolved by the state. */
export const DEFAULT_CHANNELS: FakeChannel[] = [
  {
    id: 'C0DOCS',
    name: 'docs',
    botIsMember: true,
    members: ['U0ALICE', 'U0BOB', 'U0CAROL', 'U0ADMIN', 'U0GUEST', '@bot'],
  },
  { id: 'C0RANDOM', name: 'random', botIsMember: false, members: ['U0ALICE', 'U0BOB', 'U0CAROL', 'U0ADMIN'] },
  { id: 'D0ALICE', name: 'alice', botIsMember: true, isIm: true, user: 'U0ALICE' },
  {
    id: 'C0CONNECT',
    name: 'docs-connect',
    botIsMember: true,
    isExtShared: true,
    members: ['U0ALICE', 'U0EXTERNAL', '@bot'],
  },
  { id: 'C0LEADS', name: 'leads', botIsMember: false, isPrivate: true, members: ['U0ALICE', 'U0ADMIN'] },
];

/** Default user groups: @docs-writers (alice). */
export const DEFAULT_USERGROUPS: FakeUsergroup[] = [
  {
    id: 'S0DOCSWRITERS',
    handle: 'docs-writers',
    name: 'Docs writers',
    description: 'People who write the docs',
    members: ['U0ALICE'],
  },
];

/**
 * A channel's members as user ids: its `members` ("@bot" → `botUserId`; the bot is added or removed to
 * match `botIsMember`), else the IM's two parties, else every user (the bot only when a member).
 */
export function resolveMembers(ch: FakeChannel, users: FakeUser[], botUserId: string): string[] {
  let ids: string[];
  if (ch.members) ids = ch.members.map((m) => (m === '@bot' ? botUserId : m));
  else if (ch.isIm) ids = ch.user ? [ch.user, botUserId] : [botUserId];
  else ids = users.map((u) => u.id);
  const others = ids.filter((id) => id !== botUserId);
  return ch.botIsMember ? [...new Set([...others, botUserId])] : [...new Set(others)];
}
