import { describe, expect, it } from 'vitest';
import { buildImproveModal, IMPROVE_CALLBACK_ID } from '../../src/features/reports/digests/improve-modal.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import {
  docsEdit,
  E2E_SECRETS,
  ephemeralsTo,
  isStatusMessage,
  messageText,
  sandboxWithBot,
  statusMessage,
  type Sandbox,
  waitForReplies,
} from '../helpers/sandbox.js';
import { ValueSigner } from '../../src/platform/slack/signed-value.js';

/*
 * Who may use the agent, end to end through signed HTTP: one bot whose jobs are for members of
 * @docs-writers (alice) and dana (ADMIN_USERS, a workspace admin), in #docs and alice's DM only,
 * 2 agent requests per user and 3 per project per hour. Every refusal is ephemeral, to that person
 * only, and costs no docs API request and no status message.
 */
const BOT = 'U0DOCSBOT';

describe('access policy and agent budget at every entry point', () => {
  let sb: Sandbox;
  let driver: SlackDriver;
  let bot: BotProcess;
  const agentRequests = () => sb.docs.requests.filter((r) => r.method === 'POST').length;
  const statusMessages = () => sb.slack.messages.filter((m) => isStatusMessage(m)).length;
  /** Sends, then waits for the person's next ephemeral answer; asserts nothing reached the docs API or the channel. */
  async function refused(user: string, send: () => Promise<unknown>): Promise<string> {
    const [requests, statuses, seen] = [agentRequests(), statusMessages(), ephemeralsTo(sb.slack, user).length];
    await send();
    const note = await sb.slack.waitFor(
      () => ephemeralsTo(sb.slack, user).length > seen && ephemeralsTo(sb.slack, user).at(-1),
      10_000,
    );
    expect(agentRequests()).toBe(requests);
    expect(statusMessages()).toBe(statuses);
    return note.text;
  }

  sandboxWithBot(
    {
      env: {
        ACCESS_ALLOWED_USERGROUPS: 'S0DOCSWRITERS',
        ACCESS_ALLOWED_USERS: 'U0ADMIN',
        ACCESS_ALLOWED_CHANNELS: 'C0DOCS,D0ALICE',
        ADMIN_USERS: 'U0ADMIN',
        AGENT_CALLS_PER_USER_PER_HOUR: '2',
        AGENT_CALLS_PER_HOUR: '3',
      },
    },
    (s) => ({ sb, bot, driver } = s),
  );

  it('a guest is refused at /docs-edit, an @mention and /docs-visitors', async () => {
    expect(
      await refused('U0GUEST', () =>
        driver.slashCommand({ command: '/docs-edit', text: 'Fix the FAQ', user: 'U0GUEST', channel: 'C0DOCS' }),
      ),
    ).toBe("Guests can't start docs jobs in this workspace. Ask a full member of the workspace to do it for you.");
    expect(
      await refused('U0GUEST', () =>
        driver.appMention({ channel: 'C0DOCS', user: 'U0GUEST', text: `<@${BOT}> fix the FAQ` }),
      ),
    ).toMatch(/^Guests can't start docs jobs/);
    expect(
      await refused('U0GUEST', () =>
        driver.slashCommand({ command: '/docs-visitors', text: '', user: 'U0GUEST', channel: 'C0DOCS' }),
      ),
    ).toMatch(/^Guests can't read docs reports/);
  });

  it('"Document this thread": a guest sees the refusal in the modal (the thread is never read) and cannot submit', async () => {
    const root = await driver.message({ channel: 'C0DOCS', user: 'U0BOB', text: 'How do we rotate keys?' });
    const reads = () => sb.slack.calls.filter((c) => c.method === 'conversations.replies').length;
    const before = reads();
    await driver.messageShortcut({
      user: 'U0GUEST',
      channel: 'C0DOCS',
      messageTs: root.ts,
      callbackId: 'document_thread',
    });
    const opened = await sb.slack.waitFor(
      () =>
        sb.slack.calls.find(
          (c) =>
            c.method === 'views.open' &&
            c.args.user_id === undefined &&
            (c.args.view as { private_metadata?: string }).private_metadata?.includes(root.ts),
        ),
      10_000,
    );
    const externalId = (opened.args.view as { external_id: string }).external_id;
    const answer = await sb.slack.waitFor(
      () => sb.slack.views.find((v) => v.method === 'views.update' && v.view.external_id === externalId),
      10_000,
    );
    expect(JSON.stringify(answer.view.blocks)).toContain("Guests can't start docs jobs in this workspace.");
    expect(answer.view.submit).toBeUndefined();
    expect(reads()).toBe(before);
    const requests = agentRequests();
    const res = await driver.viewSubmission({
      user: 'U0GUEST',
      view: {
        callback_id: 'document_thread_modal',
        private_metadata: (opened.args.view as { private_metadata: string }).private_metadata,
        state: { values: { instruction: { instruction: { type: 'plain_text_input', value: 'Document it' } } } },
      },
    });
    expect(JSON.parse(res.body) as unknown).toEqual({
      response_action: 'errors',
      errors: { instruction: expect.stringMatching(/^Guests can't start docs jobs/) },
    });
    expect(agentRequests()).toBe(requests);
  });

  it('a user of another organization (Slack Connect) is refused', async () => {
    const text = await refused('U0EXTERNAL', () =>
      driver.slashCommand({ command: '/docs-edit', text: 'Fix the FAQ', user: 'U0EXTERNAL', channel: 'C0CONNECT' }),
    );
    expect(text).toMatch(/^People from other organizations can't start docs jobs in this workspace/);
  });

  it('a member outside the allow-list is refused at /docs-edit, /docs-reply, a thread reply, digest subscribe and the Improve with agent form; reports stay open', async () => {
    const only =
      'Only members of <!subteam^S0DOCSWRITERS> and <@U0ADMIN> can start docs jobs: join that group, or ask whoever runs Docs Agent to add you.';
    expect(
      await refused('U0BOB', () =>
        driver.slashCommand({ command: '/docs-edit', text: 'Fix the FAQ', user: 'U0BOB', channel: 'C0DOCS' }),
      ),
    ).toBe(only);

    const jobId = await docsEdit(sb, driver, 'Add a glossary'); // alice: allowed
    const status = await statusMessage(sb.slack, jobId);
    expect(
      await refused('U0BOB', () =>
        driver.message({ channel: 'C0DOCS', user: 'U0BOB', thread_ts: status.ts, text: 'also add FAQ links' }),
      ),
    ).toMatch(/^Only members of .* can continue docs jobs/);
    expect(
      await refused('U0BOB', () =>
        driver.slashCommand({
          command: '/docs-reply',
          text: `${jobId} also add FAQ links`,
          user: 'U0BOB',
          channel: 'C0DOCS',
        }),
      ),
    ).toMatch(/can continue docs jobs/);
    expect(
      await refused('U0BOB', () =>
        driver.slashCommand({ command: '/docs-visitors', text: 'subscribe', user: 'U0BOB', channel: 'C0DOCS' }),
      ),
    ).toMatch(/can manage the weekly docs digest/);

    // A form the bot opened (its metadata signed with the bot's key, from SLACK_SIGNING_SECRET).
    const signer = ValueSigner.fromSecret(E2E_SECRETS.SLACK_SIGNING_SECRET);
    const modal = buildImproveModal(
      { path: '/quickstart', fellPct: 23, current: 100, previous: 130, rangeLabel: 'Nov 15 – Nov 21, 2026' },
      { channel: 'C0DOCS', threadTs: status.ts, path: '/quickstart' },
      signer,
    );
    const before = agentRequests();
    const res = await driver.viewSubmission({
      user: 'U0BOB',
      view: {
        callback_id: IMPROVE_CALLBACK_ID,
        private_metadata: modal.private_metadata!,
        state: { values: { instruction: { instruction: { type: 'plain_text_input', value: 'Improve it' } } } },
      },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body) as unknown).toEqual({
      response_action: 'errors',
      errors: {
        instruction:
          'Only members of the allowed user group and the admin can start docs jobs: join that group, or ask whoever runs Docs Agent to add you.',
      },
    });
    expect(agentRequests()).toBe(before);

    // Reading reports is open to every full member.
    const seen = sb.slack.messages.length;
    await driver.slashCommand({ command: '/docs-visitors', text: 'limit=5', user: 'U0BOB', channel: 'C0DOCS' });
    await sb.slack.waitFor(
      () => sb.slack.messages.slice(seen).find((m) => !m.ephemeralTo && messageText(m).includes('Docs visitors')),
      10_000,
    );
  });

  it('a channel outside ACCESS_ALLOWED_CHANNELS is refused, with where to go instead', async () => {
    const text = await refused('U0ALICE', () =>
      driver.slashCommand({ command: '/docs-edit', text: 'Fix the FAQ', user: 'U0ALICE', channel: 'C0CONNECT' }),
    );
    expect(text).toBe("Docs jobs aren't enabled in this channel: try <#C0DOCS> or <#D0ALICE>.");
  });

  it('over the user budget, then over the project budget: refused with when the next slot frees; allowed people still get their PR', async () => {
    // alice used 1 of her 2 requests above; one more is allowed and ends in its PR link.
    const jobId = await docsEdit(sb, driver, 'Add a changelog page');
    const status = await statusMessage(sb.slack, jobId);
    const [reply] = await waitForReplies(sb.slack, 'C0DOCS', status.ts, 1, 15_000);
    expect(reply!.text).toMatch(/pull\/\d+/);
    expect(
      await refused('U0ALICE', () =>
        driver.slashCommand({ command: '/docs-edit', text: 'One more', user: 'U0ALICE', channel: 'C0DOCS' }),
      ),
    ).toMatch(
      /^You've used your hourly budget of docs agent requests \(2 requests\/hour\)\. Next free slot: <!date\^\d+\^\{time\}\|\d\d:\d\d> \(in (59m|1h)/,
    );
    await docsEdit(sb, driver, 'Dana fixes a typo', 'U0ADMIN'); // the project's 3rd and last request this hour
    expect(
      await refused('U0ADMIN', () =>
        driver.slashCommand({ command: '/docs-edit', text: 'Dana again', user: 'U0ADMIN', channel: 'C0DOCS' }),
      ),
    ).toMatch(/^The docs agent's hourly budget for this project is used up \(3 requests\/hour\)\. Next free slot: /);
  });

  it('an instruction over AGENT_PROMPT_MAX_CHARS is answered in the ack with its length and the limit', async () => {
    const res = await driver.slashCommand({
      command: '/docs-edit',
      text: 'x'.repeat(12_001),
      user: 'U0ALICE',
      channel: 'C0DOCS',
    });
    expect(JSON.parse(res.body) as unknown).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('12,001 characters long; the limit is 12,000'),
    });
  });

  it('every refusal wrote one audit line with its reason', async () => {
    const audits = () =>
      bot
        .output()
        .split('\n')
        .filter((l) => l.includes('"audit":true'))
        .map((l) => JSON.parse(l) as { outcome: string; reason?: string; actor: string });
    const reasons = () =>
      new Set(
        audits()
          .filter((a) => a.outcome === 'refused')
          .map((a) => a.reason),
      );
    // The bot's stdout reaches the test a moment after the answers do.
    await expect
      .poll(
        () =>
          ['guest', 'external', 'not_allowed_user', 'not_allowed_channel', 'user_budget', 'project_budget'].every((r) =>
            reasons().has(r),
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
    await expect
      .poll(() => audits().filter((a) => a.outcome === 'ok').length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(3);
  });
});
