import { WebClient, type ConversationsMembersResponse } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_USERS, startFakeSlack, type FakeSlack, type FakeSlackOptions } from '../../../sandbox/fake-slack.js';
import { fakeSlackClient, platformErrorCode as platformError } from '../../helpers/fake-slack-client.js';

const TOKEN = 'xoxb-sandbox-token';

let slack: FakeSlack;
let web: WebClient;

async function start(opts: Partial<FakeSlackOptions> = {}): Promise<void> {
  slack = await startFakeSlack({ botToken: TOKEN, ...opts });
  web = fakeSlackClient(slack, TOKEN);
}

beforeEach(async () => {
  await start();
});

afterEach(async () => {
  await slack.close();
});

describe('users.info', () => {
  it('describes roles like Slack: members, an admin, a single-channel guest, a Slack Connect user', async () => {
    const info = async (user: string) => (await web.users.info({ user })).user;
    expect(await info('U0ALICE')).toMatchObject({
      name: 'alice',
      team_id: 'T0SANDBOX',
      is_admin: false,
      is_owner: false,
      is_restricted: false,
      is_ultra_restricted: false,
    });
    expect(await info('U0ADMIN')).toMatchObject({ is_admin: true, is_owner: false, is_restricted: false });
    expect(await info('U0GUEST')).toMatchObject({ is_restricted: true, is_ultra_restricted: true, is_admin: false });
    expect(await info('U0EXTERNAL')).toMatchObject({
      team_id: 'T0OTHERCO',
      is_restricted: false,
      profile: { team: 'T0OTHERCO' },
    });
    expect(await info('U0DOCSBOT')).toMatchObject({ is_bot: true, team_id: 'T0SANDBOX' });
    for (const id of ['U0ALICE', 'U0EXTERNAL']) expect(await info(id)).not.toHaveProperty('is_stranger');
  });

  it('sends is_stranger only when set, and keeps alice, bob and carol as they were', async () => {
    await slack.close();
    await start({
      users: [
        ...DEFAULT_USERS,
        { id: 'U0STRANGER', name: 'sam', teamId: 'T0ELSEWHERE', isStranger: true, isOwner: true },
      ],
    });
    expect((await web.users.info({ user: 'U0STRANGER' })).user).toMatchObject({
      is_stranger: true,
      is_owner: true,
      team_id: 'T0ELSEWHERE',
    });
    expect(DEFAULT_USERS.slice(0, 3)).toEqual([
      { id: 'U0ALICE', name: 'alice', realName: 'Alice Adams', tz: 'Europe/Berlin', tzOffset: 3600 },
      { id: 'U0BOB', name: 'bob', realName: 'Bob Brown', tz: 'America/New_York', tzOffset: -18000 },
      { id: 'U0CAROL', name: 'carol', realName: 'Carol Chen', tz: 'Asia/Tokyo', tzOffset: 32400 },
    ]);
  });
});

describe('conversations.members', () => {
  it('pages through members with cursors, the bot only where it is a member', async () => {
    const pages: string[][] = [];
    for await (const page of web.paginate('conversations.members', { channel: 'C0DOCS', limit: 4 }))
      pages.push((page as ConversationsMembersResponse).members ?? []);
    expect(pages).toEqual([
      ['U0ALICE', 'U0BOB', 'U0CAROL', 'U0ADMIN'],
      ['U0GUEST', 'U0DOCSBOT'],
    ]);
    const random = await web.conversations.members({ channel: 'C0RANDOM' });
    expect(random.members).toEqual(['U0ALICE', 'U0BOB', 'U0CAROL', 'U0ADMIN']);
    expect(random.response_metadata?.next_cursor).toBe('');
    expect((await web.conversations.members({ channel: 'D0ALICE' })).members).toEqual(['U0ALICE', 'U0DOCSBOT']);
    expect((await web.conversations.members({ channel: 'C0CONNECT' })).members).toEqual([
      'U0ALICE',
      'U0EXTERNAL',
      'U0DOCSBOT',
    ]);
    expect(await platformError(web.conversations.members({ channel: 'C0LEADS' }))).toBe('channel_not_found');
    expect(await platformError(web.conversations.members({ channel: 'C0DOCS', cursor: 'garbage' }))).toBe(
      'invalid_cursor',
    );
    expect(await platformError(web.conversations.members({ channel: 'C0DOCS', limit: -1 }))).toBe('invalid_limit');
  });

  it('defaults a channel without a members list to every user, the bot included when it is a member', async () => {
    await slack.close();
    await start({
      users: [
        { id: 'U1', name: 'one' },
        { id: 'U2', name: 'two' },
      ],
      channels: [
        { id: 'C1', name: 'with-bot', botIsMember: true },
        { id: 'C2', name: 'without-bot', botIsMember: false },
      ],
    });
    expect((await web.conversations.members({ channel: 'C1' })).members).toEqual(['U1', 'U2', 'U0DOCSBOT']);
    expect((await web.conversations.members({ channel: 'C2' })).members).toEqual(['U1', 'U2']);
    expect((await web.conversations.info({ channel: 'C1', include_num_members: true })).channel).toMatchObject({
      num_members: 3,
      is_member: true,
    });
  });
});

describe('users.conversations', () => {
  it("lists the bot's conversations by type, and another user's where the bot shares membership", async () => {
    const ids = async (args: { user?: string; types?: string; limit?: number }) =>
      (await web.users.conversations(args)).channels?.map((c) => c.id);
    expect(await ids({})).toEqual(['C0DOCS', 'C0CONNECT']);
    expect(await ids({ types: 'im' })).toEqual(['D0ALICE']);
    expect(await ids({ user: 'U0ALICE', types: 'public_channel,private_channel' })).toEqual([
      'C0DOCS',
      'C0RANDOM',
      'C0CONNECT',
    ]);
    expect(await ids({ user: 'U0GUEST' })).toEqual(['C0DOCS']);
    const first = await web.users.conversations({ user: 'U0ALICE', limit: 1 });
    expect(first.channels?.map((c) => c.id)).toEqual(['C0DOCS']);
    const second = await web.users.conversations({
      user: 'U0ALICE',
      limit: 1,
      cursor: first.response_metadata?.next_cursor as string,
    });
    expect(second.channels?.map((c) => c.id)).toEqual(['C0RANDOM']);
    expect((await web.users.conversations({})).channels?.[1]).toMatchObject({
      name: 'docs-connect',
      is_ext_shared: true,
      is_private: false,
    });
    expect(await platformError(web.users.conversations({ types: 'public_channel,galaxy' }))).toBe('invalid_types');
    expect(await platformError(web.users.conversations({ user: 'U0NOBODY' }))).toBe('user_not_found');
  });

  it('as documented: private channels, group DMs and DMs only where the bot is in them, archived ones unless excluded, no is_member, limit ≤ 999', async () => {
    const all = 'public_channel,private_channel,mpim,im';
    slack.channels.push(
      { id: 'C0OLD', name: 'old-launch', botIsMember: false, isArchived: true, members: ['U0ALICE'] },
      {
        id: 'G0TRIO',
        name: 'mpdm-alice--bob--bot-1',
        botIsMember: true,
        isMpim: true,
        members: ['U0ALICE', 'U0BOB', 'U0DOCSBOT'],
      },
      {
        id: 'G0PAIR',
        name: 'mpdm-alice--bob--carol-1',
        botIsMember: false,
        isMpim: true,
        members: ['U0ALICE', 'U0BOB', 'U0CAROL'],
      },
    );
    const list = await web.users.conversations({ user: 'U0ALICE', types: all });
    // C0LEADS (private, bot not in it) and G0PAIR (a group DM without the bot) are not listed.
    expect(list.channels?.map((c) => c.id)).toEqual(['C0DOCS', 'C0RANDOM', 'D0ALICE', 'C0CONNECT', 'C0OLD', 'G0TRIO']);
    expect(list.channels?.find((c) => c.id === 'G0TRIO')).toMatchObject({
      is_mpim: true,
      is_private: true,
      is_channel: false,
    });
    expect(list.channels?.find((c) => c.id === 'C0OLD')).toMatchObject({ is_archived: true });
    for (const c of list.channels ?? []) {
      expect(c).not.toHaveProperty('is_member');
      expect(c).not.toHaveProperty('num_members');
    }
    const live = await web.users.conversations({ user: 'U0ALICE', types: all, exclude_archived: true });
    expect(live.channels?.map((c) => c.id)).not.toContain('C0OLD');
    expect((await web.users.conversations({ user: 'U0ALICE', types: 'mpim' })).channels?.map((c) => c.id)).toEqual([
      'G0TRIO',
    ]);
    expect(await platformError(web.conversations.info({ channel: 'G0PAIR' }))).toBe('channel_not_found');
    for (let i = 0; i < 1_200; i++)
      slack.channels.push({ id: `C0MANY${i}`, name: `many-${i}`, botIsMember: false, members: ['U0CAROL'] });
    const page = await web.users.conversations({ user: 'U0CAROL', limit: 1_000 });
    expect(page.channels).toHaveLength(999);
    expect(page.response_metadata?.next_cursor).toBeTruthy();
  });
});

describe('usergroups', () => {
  it('lists the members of @docs-writers and answers no_such_subteam for unknown or disabled groups', async () => {
    expect((await web.usergroups.users.list({ usergroup: 'S0DOCSWRITERS' })).users).toEqual(['U0ALICE']);
    expect(await platformError(web.usergroups.users.list({ usergroup: 'S0NOPE' }))).toBe('no_such_subteam');
    await slack.close();
    await start({ usergroups: [{ id: 'S0OLD', handle: 'old-team', members: ['U0BOB'], disabled: true }] });
    expect(await platformError(web.usergroups.users.list({ usergroup: 'S0OLD' }))).toBe('no_such_subteam');
    expect((await web.usergroups.users.list({ usergroup: 'S0OLD', include_disabled: true })).users).toEqual(['U0BOB']);
  });

  it('lists groups with counts and users on request', async () => {
    const plain = await web.usergroups.list();
    expect(plain.usergroups).toEqual([
      expect.objectContaining({
        id: 'S0DOCSWRITERS',
        handle: 'docs-writers',
        team_id: 'T0SANDBOX',
        is_usergroup: true,
        date_delete: 0,
      }),
    ]);
    expect(plain.usergroups?.[0]).not.toHaveProperty('users');
    const full = await web.usergroups.list({ include_count: true, include_users: true });
    expect(full.usergroups?.[0]).toMatchObject({ user_count: '1', users: ['U0ALICE'] }); // a string, as in Slack's example;
  });
});

describe('auth.teams.list', () => {
  it("lists an org-wide token's workspaces in pages, refusing a bad limit or cursor as Slack does", async () => {
    await slack.close();
    const teams = [1, 2, 3].map((i) => ({ id: `T0W${i}`, name: `W${i}` }));
    await start({ enterprise: { id: 'E0ORG', name: 'Org', teams, orgWide: true } });
    const first = await web.auth.teams.list({ limit: 2 });
    expect(first.teams).toEqual(teams.slice(0, 2));
    const cursor = first.response_metadata?.next_cursor ?? '';
    expect(cursor).not.toBe('');
    const second = await web.auth.teams.list({ limit: 2, cursor });
    expect(second.teams).toEqual(teams.slice(2));
    expect(second.response_metadata?.next_cursor).toBe('');
    expect(await platformError(web.auth.teams.list({ limit: 1_001 }))).toBe('invalid_limit');
    expect(await platformError(web.auth.teams.list({ limit: 0 }))).toBe('invalid_limit');
    expect(await platformError(web.auth.teams.list({ cursor: 'not-ours' }))).toBe('invalid_cursor');
  });

  it("lists a workspace token's own workspace", async () => {
    expect((await web.auth.teams.list({})).teams).toEqual([{ id: 'T0SANDBOX', name: 'Sandbox' }]);
  });
});

describe('team_id with an OAuth install token (Slack, "Changes to APIs for org-wide apps")', () => {
  const OAUTH = { clientId: '1.2', clientSecret: 'directory-test-secret' };

  /** A bot token the fake's oauth.v2.access issues for `consent`. */
  async function tokenFor(consent: Parameters<FakeSlack['installs']['authorize']>[0]): Promise<string> {
    const code = slack.installs.authorize(consent);
    const body = new URLSearchParams({ client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret, code });
    const res = (await (await fetch(`${slack.url}oauth.v2.access`, { method: 'POST', body })).json()) as {
      access_token: string;
    };
    return res.access_token;
  }

  it("needs team_id from an org-wide install's token and ignores it from a workspace install's, whatever the bot token is", async () => {
    await slack.close();
    // The fake's own bot token is a workspace-level one: what counts is the calling token.
    await start({ oauth: OAUTH, enterprise: { id: 'E0ORG', name: 'Org', teams: [{ id: 'T0ORGA', name: 'Org A' }] } });
    const org = fakeSlackClient(slack, await tokenFor({ teamId: 'T0ORGA', enterpriseId: 'E0ORG', orgWide: true }));
    expect(await platformError(org.users.conversations({ user: 'U0ALICE' }))).toBe('missing_argument');
    expect(await platformError(org.usergroups.users.list({ usergroup: 'S0DOCSWRITERS' }))).toBe('missing_argument');
    expect(await platformError(org.users.conversations({ user: 'U0ALICE', team_id: 'T0SANDBOX' }))).toBe(
      'team_access_not_granted',
    );
    expect((await org.usergroups.users.list({ usergroup: 'S0DOCSWRITERS', team_id: 'T0ORGA' })).ok).toBe(true);
    // A method Slack does not list needs no team_id.
    expect((await org.users.info({ user: 'U0ALICE' })).ok).toBe(true);

    const workspace = fakeSlackClient(slack, await tokenFor({ teamId: 'T0SECOND' }));
    expect((await workspace.users.conversations({ user: 'U0ALICE' })).ok).toBe(true);
    expect((await workspace.users.conversations({ user: 'U0ALICE', team_id: 'T0ELSEWHERE' })).ok).toBe(true);
  });

  it("ignores team_id from a workspace install's token when the fake's bot token is org-level", async () => {
    await slack.close();
    await start({
      oauth: OAUTH,
      enterprise: { id: 'E0ORG', name: 'Org', teams: [{ id: 'T0SANDBOX', name: 'A' }], orgWide: true },
    });
    expect(await platformError(web.users.conversations({ user: 'U0ALICE' }))).toBe('missing_argument');
    const workspace = fakeSlackClient(slack, await tokenFor({ teamId: 'T0SANDBOX', enterpriseId: 'E0ORG' }));
    expect((await workspace.users.conversations({ user: 'U0ALICE' })).ok).toBe(true);
    expect((await workspace.usergroups.users.list({ usergroup: 'S0DOCSWRITERS', team_id: 'T0NOPE' })).ok).toBe(true);
  });
});
