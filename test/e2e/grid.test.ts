import { describe, expect, it } from 'vitest';
import { gridOptions } from '../../sandbox/fake-slack.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import {
  E2E_SECRETS,
  ephemeralsTo,
  isStatusMessage,
  sandboxWithBot,
  statusMessage,
  type Sandbox,
} from '../helpers/sandbox.js';

/*
 * Enterprise Grid, end to end through signed HTTP: the bot is installed in workspace A (T0SANDBOX)
 * of the org E0SANDBOX. bea (W0BEA) is a member of workspace B of the same org and posts in
 * #docs-org, a channel shared between A and B: she is an insider. xavi (W0XAVI) belongs to another
 * org and posts in the Slack Connect channel #docs-connect: he is refused, as before.
 */
const BOT = 'U0DOCSBOT';

describe('one bot for a whole organization (Enterprise Grid)', () => {
  let sb: Sandbox;
  let driver: SlackDriver;
  let bot: BotProcess;
  const agentRequests = () => sb.docs.requests.filter((r) => r.method === 'POST' && r.path.includes('/v2/agent/'));
  const followups = (jobId: string) =>
    sb.docs.requests.filter((r) => r.method === 'POST' && r.path === `/v2/agent/proj_e2e/job/${jobId}/message`);

  sandboxWithBot({ slack: gridOptions(), ask: true }, (s) => ({ sb, driver, bot } = s));

  it("auth.test and users.info speak Grid: the bot's enterprise_id, the person's enterprise_user", async () => {
    const headers = { authorization: `Bearer ${E2E_SECRETS.SLACK_BOT_TOKEN}` };
    const auth = await fetch(`${sb.slack.url}auth.test`, { method: 'POST', headers });
    expect(await auth.json()).toMatchObject({ team_id: 'T0SANDBOX', enterprise_id: 'E0SANDBOX' });
    const info = await fetch(`${sb.slack.url}users.info?user=W0BEA`, { method: 'POST', headers });
    expect(await info.json()).toMatchObject({
      user: { team_id: 'T0SANDBOXB', enterprise_user: { enterprise_id: 'E0SANDBOX', teams: ['T0SANDBOXB'] } },
    });
  });

  it('a member of workspace B starts a job, follows up and asks in a channel shared with workspace A', async () => {
    const before = sb.docs.requests.length;
    await driver.slashCommand({
      command: '/docs-edit',
      text: 'Document the SSO setup',
      user: 'W0BEA',
      channel: 'C0ORGDOCS',
    });
    const create = await sb.docs.waitForRequest(
      (r) => sb.docs.requests.indexOf(r) >= before && r.method === 'POST' && r.path === '/v2/agent/proj_e2e/job',
      10_000,
    );
    const jobId = (create.responseBody as { id: string }).id;
    const status = await statusMessage(sb.slack, jobId, 'C0ORGDOCS');
    await sb.slack.waitFor(
      () => sb.slack.messages.find((m) => m.thread_ts === status.ts && m.ts !== status.ts && m.bot_id),
      15_000,
    );

    await driver.message({
      channel: 'C0ORGDOCS',
      user: 'W0BEA',
      thread_ts: status.ts,
      text: `<@${BOT}> also cover SCIM`,
    });
    await sb.slack.waitFor(() => followups(jobId).length > 0, 15_000);
    expect(followups(jobId)[0]!.body).toEqual({ prompt: 'also cover SCIM' });

    await driver.slashCommand({
      command: '/docs-ask',
      text: 'How do I rotate an API key?',
      user: 'W0BEA',
      channel: 'C0ORGDOCS',
    });
    const question = await sb.slack.waitFor(
      () => sb.slack.messages.find((m) => m.channel === 'C0ORGDOCS' && m.bot_id && m.text.includes('asked the docs')),
      10_000,
    );
    expect(question.text).toContain('<@W0BEA> asked the docs');
    expect(ephemeralsTo(sb.slack, 'W0BEA').map((m) => m.text)).not.toContainEqual(
      expect.stringMatching(/other organizations/),
    );
  });

  it('a Slack Connect member of another org is refused, with no docs API request and no status message', async () => {
    const [requests, statuses] = [agentRequests().length, sb.slack.messages.filter(isStatusMessage).length];
    await driver.slashCommand({ command: '/docs-edit', text: 'Fix the FAQ', user: 'W0XAVI', channel: 'C0CONNECT' });
    const note = await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'W0XAVI').at(-1), 10_000);
    expect(note.text).toMatch(/^People from other organizations can't start docs jobs in this workspace/);
    expect(agentRequests()).toHaveLength(requests);
    expect(sb.slack.messages.filter(isStatusMessage)).toHaveLength(statuses);
    const audit = () =>
      bot
        .output()
        .split('\n')
        .filter((l) => l.includes('"audit":true') && l.includes('"W0XAVI"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await expect.poll(() => audit().length, { timeout: 5_000 }).toBe(1);
    expect(audit()[0]).toMatchObject({ actor: 'W0XAVI', reason: 'external', affiliation: 'other_organization' });
  });
});
