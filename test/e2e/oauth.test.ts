import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHANNELS, DEFAULT_USERS } from '../../sandbox/fake-slack.js';
import { SlackDriver } from '../../sandbox/slack-driver.js';
import { runBotToExit, startBotProcess, type BotProcess } from '../helpers/bot-process.js';
import { testRedis } from '../helpers/redis.js';
import {
  E2E_SECRETS,
  ephemeralsTo,
  isStatusMessage,
  pollerDone,
  startSandbox,
  statusMessage,
  type Sandbox,
} from '../helpers/sandbox.js';

/*
 * OAuth mode end to end, one bot process for two workspaces, Sandbox (T0SANDBOX, #docs) and Second
 * (T0SECOND, #docs-second, sam), and a Grid org (E0ORG) installed org-wide, used in its workspace
 * T0ORGA (#docs-org-a, orgy). Each is installed through /slack/install → the fake Slack's
 * authorize → /slack/oauth_redirect (state checked) → oauth.v2.access; each starts a job and its
 * status message and announcement are posted with its own token (the fake refuses another
 * workspace's token in a channel with channel_not_found). An admin's /docs-settings is kept under
 * the installation. Uninstalling Second stops only its work.
 * The org's workspaces have a docs project of their own (DOCS_WORKSPACE_PROJECTS: E0ORG → proj_org,
 * with its own key, which the fake docs API requires there), and never reach the default one.
 * SLACK_INSTALL_ALLOWLIST names Sandbox, Second and the org: Stranger (T0STRANGER) is refused at
 * the install (403, uninstalled again, nothing stored), and a bot without the list does not start.
 * Uninstalling Second also removes its channel settings and digest subscription, not Sandbox's.
 */
const OAUTH = { clientId: '1111.2222', clientSecret: 'e2e-oauth-client-secret' };
const SECOND = 'T0SECOND';
const ORG_KEY = 'mint_e2e_org_admin_key';
const STRANGER = 'T0STRANGER';

describe('OAuth mode: one bot, two workspaces', () => {
  let sb: Sandbox;
  let bot: BotProcess;
  let inA: SlackDriver;
  let inB: SlackDriver;
  let inOrg: SlackDriver;
  let env: Record<string, string>;
  const redis = testRedis();

  beforeAll(async () => {
    // Jobs run 1.5 s, so Second can be uninstalled while its job is being watched.
    sb = await startSandbox({
      jobDurationMs: 1_500,
      docs: { projectKeys: { proj_org: ORG_KEY } },
      slack: {
        oauth: OAUTH,
        // Org (E0ORG), a Grid org whose workspace T0ORGA gets the app through an org-wide install.
        enterprise: { id: 'E0ORG', name: 'Org', teams: [{ id: 'T0ORGA', name: 'Org A' }] },
        // Sandbox's people are of Sandbox only (not of the fake's org).
        users: [
          ...DEFAULT_USERS.map((u) => ({ ...u, teamId: u.teamId ?? 'T0SANDBOX' })),
          {
            id: 'W0ORGY',
            name: 'orgy',
            realName: 'Orgy Org',
            tz: 'UTC',
            tzOffset: 0,
            teamId: 'T0ORGA',
            enterpriseId: 'E0ORG',
          },
          { id: 'U0SAM', name: 'sam', realName: 'Sam Second', tz: 'UTC', tzOffset: 0, teamId: SECOND },
        ],
        channels: [
          ...DEFAULT_CHANNELS,
          { id: 'C0SECOND', name: 'docs-second', botIsMember: true, teamId: SECOND, members: ['U0SAM', '@bot'] },
          { id: 'C0ORGA', name: 'docs-org-a', botIsMember: true, teamId: 'T0ORGA', members: ['W0ORGY', '@bot'] },
        ],
      },
    });
    env = {
      ...sb.env,
      SLACK_CLIENT_ID: OAUTH.clientId,
      SLACK_CLIENT_SECRET: OAUTH.clientSecret,
      SLACK_STATE_SECRET: 'e2e-oauth-state-secret-0123456789',
      SLACK_INSTALLATION_KEY: Buffer.alloc(32, 7).toString('base64'),
      DOCS_API_KEY_ORG: ORG_KEY,
      DOCS_WORKSPACE_PROJECTS: JSON.stringify({ E0ORG: { projects: ['proj_org'], apiKeyEnv: 'DOCS_API_KEY_ORG' } }),
      SLACK_INSTALL_ALLOWLIST: `T0SANDBOX,${SECOND},E0ORG`,
    };
    delete env.SLACK_BOT_TOKEN;
    bot = await startBotProcess(env);
    const driver = (teamId: string, enterprise: { id: string; name: string; orgWide: boolean } | null = null) =>
      new SlackDriver({
        enterprise,
        botUrl: `${bot.url}/slack/events`,
        signingSecret: E2E_SECRETS.SLACK_SIGNING_SECRET,
        slack: sb.slack,
        teamId,
      });
    inA = driver('T0SANDBOX');
    inB = driver(SECOND);
    inOrg = driver('T0ORGA', { id: 'E0ORG', name: 'Org', orgWide: true });
  });
  afterAll(async () => {
    await bot?.kill9();
    await sb?.close();
    redis.disconnect();
  });

  /** A browser installs the app in `teamId`: the install page (state cookie), Slack's consent, the redirect. */
  async function install(
    teamId: string,
    teamName: string,
    org?: { enterpriseId: string; orgWide: true },
  ): Promise<{ status: number; html: string }> {
    const page = await fetch(`${bot.url}/slack/install`);
    const html = await page.text();
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const href = /href="(https:\/\/slack\.com\/oauth\/v2\/authorize[^"]*)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
    const state = new URL(href ?? 'https://x.test').searchParams.get('state') ?? '';
    const code = sb.slack.installs.authorize({ teamId, teamName, ...org });
    const res = await fetch(
      `${bot.url}/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`,
      {
        headers: { cookie },
      },
    );
    return { status: res.status, html: await res.text() };
  }

  /** Runs /docs-edit in `channel` and waits for the job's announcement in its thread; returns the job id. */
  async function jobIn(
    driver: SlackDriver,
    user: string,
    channel: string,
    text: string,
    project = 'proj_e2e',
  ): Promise<string> {
    const before = sb.docs.requests.length;
    await driver.slashCommand({ command: '/docs-edit', text, user, channel });
    const create = await sb.docs.waitForRequest(
      (r) => sb.docs.requests.indexOf(r) >= before && r.method === 'POST' && r.path === `/v2/agent/${project}/job`,
      10_000,
    );
    expect(create.status).toBe(201);
    const jobId = (create.responseBody as { id: string }).id;
    const status = await statusMessage(sb.slack, jobId, channel);
    await sb.slack.waitFor(
      () =>
        sb.slack.messages.find(
          (m) => m.channel === channel && m.thread_ts === status.ts && !isStatusMessage(m) && m.bot_id,
        ),
      15_000,
    );
    return jobId;
  }

  const postsIn = (channel: string) =>
    sb.slack.calls.filter(
      (c) =>
        (c.method === 'chat.postMessage' || c.method === 'chat.update') &&
        c.args.channel === channel &&
        (c.response as { ok?: boolean }).ok === true,
    );

  it('installs two workspaces through /slack/install and /slack/oauth_redirect; tokens are sealed in Redis', async () => {
    expect((await install('T0SANDBOX', 'Sandbox')).status).toBe(200);
    expect((await install(SECOND, 'Second')).status).toBe(200);
    expect(sb.slack.calls.filter((c) => c.method === 'oauth.v2.access').map((c) => c.status)).toEqual([200, 200]);
    const keys = (await redis.keys(`${sb.prefix}:installations:*`)).sort();
    expect(keys).toEqual([`${sb.prefix}:installations:team:T0SANDBOX`, `${sb.prefix}:installations:team:${SECOND}`]);
    for (const k of keys) expect(await redis.get(k)).not.toMatch(/xoxb-/);
  });

  it('a workspace not on SLACK_INSTALL_ALLOWLIST: 403 naming its id, uninstalled with its token, nothing stored, its command dropped', async () => {
    const keysBefore = (await redis.keys(`${sb.prefix}:installations:*`)).sort();
    const from = sb.slack.calls.length;
    const { status, html } = await install(STRANGER, 'Stranger');
    expect(status).toBe(403);
    expect(html).toContain('serves only the workspaces its operators allow');
    expect(html).toContain(`<code>${STRANGER}</code>`);
    expect((await redis.keys(`${sb.prefix}:installations:*`)).sort()).toEqual(keysBefore);
    const calls = sb.slack.calls.slice(from);
    const issued = calls.find((c) => c.method === 'oauth.v2.access')?.response as { access_token: string };
    expect(calls.filter((c) => c.method === 'apps.uninstall')).toMatchObject([
      { tokenTeam: STRANGER, response: { ok: true } },
    ]);
    const authTest = await fetch(`${sb.slack.url}auth.test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${issued.access_token}` },
    });
    expect(await authTest.json()).toEqual({ ok: false, error: 'token_revoked' });
    // The bot's log reaches this process through a pipe: wait for the line, then count it.
    const refusedLines = () =>
      bot
        .output()
        .split('\n')
        .filter((l) => l.includes('not in SLACK_INSTALL_ALLOWLIST'));
    await expect.poll(() => refusedLines().length).toBe(1);
    expect(refusedLines()[0]).toContain(`"teamId":"${STRANGER}"`);
    expect(bot.output()).not.toContain(issued.access_token);
    // A command from it afterwards is acked and dropped with one warn line; no job is started.
    const dropped = () =>
      bot
        .output()
        .split('\n')
        .filter((l) => l.includes(`"installation":"team:${STRANGER}"`));
    const posts = sb.docs.requests.filter((r) => r.method === 'POST').length;
    const inStranger = new SlackDriver({
      botUrl: `${bot.url}/slack/events`,
      signingSecret: E2E_SECRETS.SLACK_SIGNING_SECRET,
      slack: sb.slack,
      teamId: STRANGER,
    });
    const res = await inStranger.slashCommand({
      command: '/docs-edit',
      text: 'Add a page',
      user: 'U0SAM',
      channel: 'C0SECOND',
    });
    expect(res.status).toBe(200);
    await expect.poll(() => dropped().length).toBe(1);
    expect(dropped()[0]).toContain('dropped a request for an installation the bot does not have');
    expect(sb.docs.requests.filter((r) => r.method === 'POST').length).toBe(posts);
  });

  it("the fake answers each token as its own workspace and refuses it in another's channel", async () => {
    const tokenOf = (team: string) => sb.slack.installs.issued().find((t) => t.teamId === team)!.token;
    const call = async (method: string, token: string, args: Record<string, string> = {}) =>
      (await fetch(`${sb.slack.url}${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(args).toString(),
      }).then((r) => r.json())) as Record<string, unknown>;
    expect(await call('auth.test', tokenOf(SECOND))).toMatchObject({
      ok: true,
      team_id: SECOND,
      is_enterprise_install: false,
    });
    expect(await call('chat.postMessage', tokenOf('T0SANDBOX'), { channel: 'C0SECOND', text: 'hi' })).toEqual({
      ok: false,
      error: 'channel_not_found',
    });
    // A code is exchanged once, and only with the app's secret.
    const code = sb.slack.installs.authorize({ teamId: SECOND });
    const exchange = (secret: string) =>
      call('oauth.v2.access', '', { client_id: OAUTH.clientId, client_secret: secret, code });
    expect(await exchange('wrong')).toEqual({ ok: false, error: 'bad_client_secret' });
    expect(await exchange(OAUTH.clientSecret)).toMatchObject({ ok: true, token_type: 'bot', team: { id: SECOND } });
    expect(await exchange(OAUTH.clientSecret)).toEqual({ ok: false, error: 'invalid_code' });
  });

  it('an org-wide install of a Grid org coexists with the workspace installs', async () => {
    expect((await install('T0ORGA', 'Org A', { enterpriseId: 'E0ORG', orgWide: true })).status).toBe(200);
    expect(await redis.exists(`${sb.prefix}:installations:enterprise:E0ORG`)).toBe(1);
    const from = sb.slack.calls.length;
    const docsFrom = sb.docs.requests.length;
    const orgJob = await jobIn(inOrg, 'W0ORGY', 'C0ORGA', 'Document the org chart', 'proj_org');
    // The org's job was created and polled on its own project with its own key (the fake answers 401 otherwise).
    const orgRequests = sb.docs.requests.slice(docsFrom).filter((r) => r.path.includes(orgJob) || r.method === 'POST');
    expect(orgRequests.length).toBeGreaterThan(1);
    expect(new Set(orgRequests.map((r) => `${r.projectId} ${r.status}`))).toEqual(
      new Set(['proj_org 201', 'proj_org 200']),
    );
    const calls = sb.slack.calls.slice(from);
    expect(calls.filter((c) => (c.response as { ok?: boolean }).ok === false)).toEqual([]);
    const posts = calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'C0ORGA');
    expect(posts.length).toBeGreaterThan(1);
    expect(new Set(posts.map((c) => c.tokenTeam))).toEqual(new Set(['E0ORG']));
  });

  it("project= naming another workspace's docs project is refused privately, with no docs API call", async () => {
    const posts = () => sb.docs.requests.filter((r) => r.method === 'POST').length;
    const before = posts();
    const refusal = async (driver: SlackDriver, user: string, channel: string, text: string) => {
      const seen = ephemeralsTo(sb.slack, user).length;
      expect((await driver.slashCommand({ command: '/docs-edit', text, user, channel })).status).toBe(200);
      return sb.slack.waitFor(() => ephemeralsTo(sb.slack, user)[seen], 10_000);
    };
    const inOrgRefusal = await refusal(inOrg, 'W0ORGY', 'C0ORGA', 'project=proj_e2e Add a page');
    expect(inOrgRefusal.text).toContain(
      "I don't know the docs project `proj_e2e`. Use `project=<id>` with one of: `proj_org`",
    );
    const inARefusal = await refusal(inA, 'U0ALICE', 'C0DOCS', 'project=proj_org Add a page');
    expect(inARefusal.text).toContain('`proj_org`');
    expect(inARefusal.text).toContain('one of: `proj_e2e`.');
    expect(posts()).toBe(before);
  });

  it("each workspace's job is posted and announced with its own token", async () => {
    const from = sb.slack.calls.length;
    await jobIn(inA, 'U0ALICE', 'C0DOCS', 'Document the SSO setup');
    await jobIn(inB, 'U0SAM', 'C0SECOND', 'Document the billing page');
    expect(postsIn('C0DOCS').length).toBeGreaterThan(1);
    expect(postsIn('C0SECOND').length).toBeGreaterThan(1);
    expect(new Set(postsIn('C0DOCS').map((c) => c.tokenTeam))).toEqual(new Set(['T0SANDBOX']));
    expect(new Set(postsIn('C0SECOND').map((c) => c.tokenTeam))).toEqual(new Set([SECOND]));
    // No call anywhere was refused for a wrong workspace's token.
    const refused = sb.slack.calls.slice(from).filter((c) => (c.response as { ok?: boolean }).ok === false);
    expect(refused).toEqual([]);
    expect(bot.output()).not.toContain('xoxb-fake');
  });

  it("an admin's /docs-settings is kept as the installation's settings of the channel", async () => {
    const res = await inA.slashCommand({
      command: '/docs-settings',
      text: 'followups requester',
      user: 'U0ADMIN',
      channel: 'C0DOCS',
    });
    expect(res.status).toBe(200);
    await sb.slack.waitFor(
      () => sb.slack.messages.find((m) => m.channel === 'C0DOCS' && m.text.includes('changed this channel')),
      10_000,
    );
    expect(await redis.hget(`${sb.prefix}:settings:team:T0SANDBOX:channel:C0DOCS`, 'followupPolicy')).toBe('requester');
    expect(await redis.exists(`${sb.prefix}:settings:channel:C0DOCS`)).toBe(0);
    // Shown back from the same key: /docs-settings reads what it wrote.
    const seen = ephemeralsTo(sb.slack, 'U0ADMIN').length;
    await inA.slashCommand({ command: '/docs-settings', text: '', user: 'U0ADMIN', channel: 'C0DOCS' });
    const shown = await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'U0ADMIN')[seen], 10_000);
    expect(JSON.stringify(shown)).toContain('only the person who started a job can continue it');
  });

  it("uninstalling Second deletes its installation, channel settings and digest subscription and stops its work; Sandbox's go on", async () => {
    // Second's channel settings (as /docs-settings keeps them) and both workspaces' subscriptions.
    const secondSettings = `${sb.prefix}:settings:team:${SECOND}:channel:C0SECOND`;
    await redis.hset(secondSettings, { followupPolicy: 'requester', updatedBy: 'U0SAM', updatedAt: '1' });
    await inB.slashCommand({ command: '/docs-visitors', text: 'subscribe', user: 'U0SAM', channel: 'C0SECOND' });
    await inA.slashCommand({ command: '/docs-visitors', text: 'subscribe', user: 'U0ALICE', channel: 'C0DOCS' });
    const schedulers = () => redis.zrange(`${sb.prefix}:send-digest:repeat`, '0', '-1').then((ids) => ids.sort());
    await expect.poll(schedulers).toEqual(['digest-T0SANDBOX-C0DOCS', `digest-${SECOND}-C0SECOND`]);
    const before0 = sb.docs.requests.length;
    await inB.slashCommand({ command: '/docs-edit', text: 'Document invoices', user: 'U0SAM', channel: 'C0SECOND' });
    const create = await sb.docs.waitForRequest(
      (r) => sb.docs.requests.indexOf(r) >= before0 && r.method === 'POST' && r.path === '/v2/agent/proj_e2e/job',
      10_000,
    );
    const watched = (create.responseBody as { id: string }).id;
    const status = await statusMessage(sb.slack, watched, 'C0SECOND');
    expect((await inB.appUninstalled()).status).toBe(200);
    // The job being watched ends its watch at its next Slack call, once, with no announcement.
    await pollerDone(sb.pollQueue, watched);
    const errorsOf = () =>
      bot
        .output()
        .split('\n')
        .filter((l) => l.includes('"level":50') && l.includes(watched));
    // The bot's log reaches this process through a pipe, possibly after the poll job's state: wait for its line.
    await expect.poll(() => errorsOf().length).toBeGreaterThan(0);
    const errors = errorsOf();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('"slackError":"installation_not_found"');
    expect(errors[0]).toContain('Slack refused the announcement for good');
    const replies = sb.slack.messages.filter((m) => m.thread_ts === status.ts && m.ts !== status.ts);
    expect(replies).toEqual([]);

    await expect
      .poll(async () => (await redis.keys(`${sb.prefix}:installations:*`)).sort())
      .toEqual([`${sb.prefix}:installations:enterprise:E0ORG`, `${sb.prefix}:installations:team:T0SANDBOX`]);
    await expect.poll(schedulers).toEqual(['digest-T0SANDBOX-C0DOCS']);
    expect(await redis.exists(secondSettings)).toBe(0);
    expect(await redis.hget(`${sb.prefix}:settings:team:T0SANDBOX:channel:C0DOCS`, 'followupPolicy')).toBe('requester');
    await expect
      .poll(() =>
        bot
          .output()
          .split('\n')
          .filter((l) => l.includes("removed the uninstalled installation's data")),
      )
      .toHaveLength(1);
    const removedLine = bot
      .output()
      .split('\n')
      .find((l) => l.includes("removed the uninstalled installation's data"));
    expect(JSON.parse(removedLine ?? '{}')).toMatchObject({
      installation: `team:${SECOND}`,
      removed: { channelSettings: 1, digestSubscriptions: 1 },
    });
    const before = sb.docs.requests.length;
    const res = await inB.slashCommand({
      command: '/docs-edit',
      text: 'Document refunds',
      user: 'U0SAM',
      channel: 'C0SECOND',
    });
    expect(res.status).toBe(200);
    await jobIn(inA, 'U0ALICE', 'C0DOCS', 'Document the audit log');
    const created = sb.docs.requests
      .slice(before)
      .filter((r) => r.method === 'POST' && r.path === '/v2/agent/proj_e2e/job');
    expect(created).toHaveLength(1);
    expect(bot.output()).toContain('dropped a request for an installation the bot does not have');
  });

  it('without SLACK_INSTALL_ALLOWLIST, or with a bad id in it, the bot stops at start-up with one line', async () => {
    const { SLACK_INSTALL_ALLOWLIST: _list, ...unlisted } = env;
    const missing = await runBotToExit(unlisted, 20_000);
    expect(missing.code).toBe(1);
    expect(missing.output.split('\n').filter((l) => l.startsWith('config error:'))).toEqual([
      'config error: SLACK_CLIENT_ID: OAuth mode also needs SLACK_INSTALL_ALLOWLIST (set them, or unset SLACK_CLIENT_ID for single-token mode)',
    ]);
    const bad = await runBotToExit({ ...env, SLACK_INSTALL_ALLOWLIST: 'T0SANDBOX,sandbox' }, 20_000);
    expect(bad.code).toBe(1);
    expect(bad.output.split('\n').filter((l) => l.startsWith('config error:'))).toEqual([
      'config error: SLACK_INSTALL_ALLOWLIST: entry 2 of 2 is not a Slack workspace or org id (T… or E…, capitals and digits)',
    ]);
  });
});
