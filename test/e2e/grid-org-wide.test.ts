import { describe, expect, it } from 'vitest';
import { GRID_ENTERPRISE, gridOptions } from '../../sandbox/fake-slack.js';
import { OTHER_ORG_TEAM_ID } from '../../sandbox/slack/grid.js';
import { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { E2E_SECRETS, sandboxWithBot, statusMessage, type Sandbox } from '../helpers/sandbox.js';

/*
 * An org-wide install in the single-token mode: SLACK_BOT_TOKEN is an org-level token of the org
 * E0SANDBOX, added to its workspaces A (T0SANDBOX) and B (T0SANDBOXB). auth.test answers the
 * enterprise id as team_id; usergroups.users.list and users.conversations need team_id (the fake
 * answers missing_argument without it, as Slack does), and get the workspace of the request.
 */
describe('an org-wide install (Enterprise Grid) with SLACK_BOT_TOKEN', () => {
  let sb: Sandbox;
  let bot: BotProcess;
  let inA: SlackDriver;
  let inB: SlackDriver;
  const callsOf = (method: string) => sb.slack.calls.filter((c) => c.method === method);

  sandboxWithBot(
    {
      slack: { ...gridOptions(), enterprise: { ...GRID_ENTERPRISE, orgWide: true } },
      env: {
        ACCESS_ALLOWED_USERGROUPS: 'S0DOCSWRITERS',
        ACCESS_ALLOWED_USERS: 'W0BEA',
        // Another organization's workspace with docs of its own, served by this deployment too.
        DOCS_API_KEY_OTHER: 'mint_e2e_other_org_key',
        DOCS_WORKSPACE_PROJECTS: JSON.stringify({
          [OTHER_ORG_TEAM_ID]: { projects: ['proj_other'], apiKeyEnv: 'DOCS_API_KEY_OTHER' },
        }),
      },
    },
    (s) => {
      ({ sb, bot, driver: inA } = s);
      inB = new SlackDriver({
        botUrl: `${bot.url}/slack/events`,
        signingSecret: E2E_SECRETS.SLACK_SIGNING_SECRET,
        slack: sb.slack,
        teamId: 'T0SANDBOXB',
      });
    },
  );

  it('the fake refuses a workspace-scoped call without team_id on the org token, as Slack does', async () => {
    const headers = { authorization: `Bearer ${E2E_SECRETS.SLACK_BOT_TOKEN}` };
    const auth = await fetch(`${sb.slack.url}auth.test`, { method: 'POST', headers });
    expect(await auth.json()).toMatchObject({
      team_id: 'E0SANDBOX',
      enterprise_id: 'E0SANDBOX',
      is_enterprise_install: true,
    });
    const bare = await fetch(`${sb.slack.url}users.conversations?user=U0ALICE`, { method: 'POST', headers });
    expect(await bare.json()).toEqual({ ok: false, error: 'missing_argument' });
    const foreign = await fetch(`${sb.slack.url}users.conversations?user=U0ALICE&team_id=T0OTHERORG`, {
      method: 'POST',
      headers,
    });
    expect(await foreign.json()).toEqual({ ok: false, error: 'team_access_not_granted' });
    expect(bot.output()).toContain('SLACK_BOT_TOKEN is an org-wide install (Enterprise Grid)');
  });

  it("the allow-list's user group is read with the workspace of the request", async () => {
    const before = sb.docs.requests.length;
    await inA.slashCommand({ command: '/docs-edit', text: 'Fix the FAQ', user: 'U0ALICE', channel: 'C0DOCS' });
    const create = await sb.docs.waitForRequest(
      (r) => sb.docs.requests.indexOf(r) >= before && r.method === 'POST' && r.path === '/v2/agent/proj_e2e/job',
      10_000,
    );
    await statusMessage(sb.slack, (create.responseBody as { id: string }).id);
    const reads = callsOf('usergroups.users.list');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((c) => c.args.team_id === 'T0SANDBOX' && (c.response as { ok: boolean }).ok)).toBe(true);
  });

  it('a member of workspace B links a conversation in her instruction: her conversations are read in workspace B', async () => {
    const root = sb.slack.addUserMessage({ channel: 'C0DOCS', user: 'U0ALICE', text: 'SSO needs SCIM docs' });
    const link = `https://sandbox.slack.com/archives/C0DOCS/p${root.ts.replace('.', '')}`;
    const before = sb.docs.requests.length;
    await inB.slashCommand({ command: '/docs-edit', text: `Document ${link}`, user: 'W0BEA', channel: 'C0ORGDOCS' });
    await sb.docs.waitForRequest(
      (r) => sb.docs.requests.indexOf(r) >= before && r.method === 'POST' && r.path === '/v2/agent/proj_e2e/job',
      10_000,
    );
    const lists = callsOf('users.conversations').filter((c) => c.args.user === 'W0BEA');
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.every((c) => c.args.team_id === 'T0SANDBOXB' && (c.response as { ok: boolean }).ok)).toBe(true);
  });

  it('an Org Admin removes the app from workspace B: its digests and App Home stop, A is untouched; adding it back resumes App Home', async () => {
    const digests = (channel: string) =>
      sb.slack.messages.filter(
        (m) => m.channel === channel && m.bot_id && !m.thread_ts && m.text.startsWith('Weekly docs digest'),
      ).length;
    const homes = (user: string) =>
      sb.slack.calls.filter((c) => c.method === 'views.publish' && c.args.user_id === user);
    expect((await inA.teamAccess('revoked', ['T0SANDBOXB'])).status).toBe(200);
    await expect.poll(() => bot.output().includes('team_access_revoked'), { timeout: 5_000 }).toBe(true);

    await inB.slashCommand({ command: '/docs-visitors', text: 'digest', user: 'W0BEA', channel: 'C0ORGDOCS' });
    await inB.appHomeOpened('W0BEA');
    await inA.slashCommand({ command: '/docs-visitors', text: 'digest', user: 'U0ALICE', channel: 'C0DOCS' });
    await sb.slack.waitFor(() => digests('C0DOCS') === 1, 15_000);
    await expect.poll(() => bot.output().includes('"status":"workspace_removed"'), { timeout: 10_000 }).toBe(true);
    expect(digests('C0ORGDOCS')).toBe(0);
    expect(homes('W0BEA')).toHaveLength(0);

    await inA.teamAccess('granted', ['T0SANDBOXB']);
    await expect.poll(() => bot.output().includes('team_access_granted'), { timeout: 5_000 }).toBe(true);
    await inB.appHomeOpened('W0BEA');
    await sb.slack.waitFor(() => homes('W0BEA').length === 1, 10_000);
  });

  it("another organization's member whose workspace has docs of its own is refused in a Slack Connect channel: not its projects, no docs API call", async () => {
    const fromOther = new SlackDriver({
      botUrl: `${bot.url}/slack/events`,
      signingSecret: E2E_SECRETS.SLACK_SIGNING_SECRET,
      slack: sb.slack,
      teamId: OTHER_ORG_TEAM_ID,
    });
    const [docsRequests, lists] = [sb.docs.requests.length, callsOf('auth.teams.list').length];
    const res = await fromOther.slashCommand({
      command: '/docs-edit',
      text: 'Fix the FAQ',
      user: 'W0XAVI',
      channel: 'C0CONNECT',
    });
    // The command's own answer, ephemeral.
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(/^I can't act for you here/),
    });
    expect(sb.docs.requests.slice(docsRequests)).toEqual([]);
    // The org's workspaces were read once, with the org's token.
    expect(callsOf('auth.teams.list').length - lists).toBe(1);
    // The bot's warn line reaches its stdout pipe a moment after the command's answer.
    await expect.poll(() => bot.output(), { timeout: 5_000 }).toContain("that is not the install's");
  });
});
