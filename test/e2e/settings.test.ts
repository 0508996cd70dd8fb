import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { SlackMessage } from '../../sandbox/fake-slack.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import {
  docsEdit,
  ephemeralsTo,
  messageText,
  pollerDone,
  sandboxWithBot,
  threadReplies,
  statusMessage,
  type Sandbox,
} from '../helpers/sandbox.js';

/**
 * /docs-settings end to end: the real bot process over signed HTTP, with two docs projects on one
 * key (DOCS_PROJECT_ID proj_e2e, DOCS_PROJECT_IDS proj_other) served by the fake docs API, which
 * records the project of every request. U0ADMIN (dana) is a workspace admin in the fake Slack.
 */

const CHANNEL = 'C0DOCS';
let sb: Sandbox;
let bot: BotProcess;
let driver: SlackDriver;

async function settings(text: string, user: string) {
  const started = Date.now();
  const res = await driver.slashCommand({ command: '/docs-settings', text, user, channel: CHANNEL });
  expect(res.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(3_000);
  return res;
}

/** The n-th (1-based) ephemeral answer to `user` from now on. */
async function nextEphemeral(user: string, after: number): Promise<SlackMessage> {
  return sb.slack.waitFor(() => ephemeralsTo(sb.slack, user)[after], 10_000);
}

sandboxWithBot(
  { docs: { projectIds: ['proj_other'] }, env: { DOCS_PROJECT_IDS: 'proj_other' } },
  (s) => ({ sb, bot, driver } = s),
);

describe('/docs-settings (bot as a separate process)', () => {
  it('a non-admin is refused and changes nothing: the next job still goes to the default project', async () => {
    const seen = ephemeralsTo(sb.slack, 'U0ALICE').length;
    await settings('project proj_other', 'U0ALICE');
    const refusal = await nextEphemeral('U0ALICE', seen);
    expect(refusal.text).toBe(
      "You can't change this channel's settings. Workspace admins can change them: ask one of them. Nothing was changed.",
    );

    const jobId = await docsEdit(sb, driver, 'Fix a typo on the quickstart');
    expect(sb.docs.jobs.get(jobId)?.projectId).toBe('proj_e2e');
    await pollerDone(sb.pollQueue, jobId);
    expect(bot.output()).toMatch(/"audit":true[^\n]*"outcome":"refused"|"outcome":"refused"[^\n]*"audit":true/);
  });

  it("an admin's `project` moves the channel's next job (create, polls) and its next report to that project", async () => {
    await settings('project proj_other', 'U0ADMIN');
    const announced = await sb.slack.waitFor(
      () =>
        sb.slack.messages.find(
          (m) => m.channel === CHANNEL && !m.ephemeralTo && m.text.includes('changed this channel'),
        ),
      10_000,
    );
    expect(announced.text).toBe(
      ":gear: <@U0ADMIN> changed this channel's settings: docs project `proj_other` (was `proj_e2e`).",
    );

    const before = sb.docs.requests.length;
    const jobId = await docsEdit(sb, driver, 'Add a Go quickstart');
    await statusMessage(sb.slack, jobId);
    await pollerDone(sb.pollQueue, jobId);
    const jobRequests = sb.docs.requests.slice(before).filter((r) => r.path.includes(jobId) || r.path.endsWith('/job'));
    expect(jobRequests.length).toBeGreaterThanOrEqual(2); // the create and at least one poll
    expect(new Set(jobRequests.map((r) => r.projectId))).toEqual(new Set(['proj_other']));
    expect(jobRequests.every((r) => r.status < 300)).toBe(true);
    const status = await statusMessage(sb.slack, jobId);
    const [announcement] = await sb.slack.waitFor(
      () => threadReplies(sb.slack, CHANNEL, status.ts).length === 1 && threadReplies(sb.slack, CHANNEL, status.ts),
      10_000,
    );
    expect(announcement!.text).toContain('/pull/');

    await driver.slashCommand({
      command: '/docs-visitors',
      text: '2026-11-15 2026-11-22',
      user: 'U0ALICE',
      channel: CHANNEL,
    });
    const visitors = await sb.docs.waitForRequest((r) => r.path.endsWith('/visitors'), 10_000);
    expect(visitors.projectId).toBe('proj_other');
    const report = await sb.slack.waitFor(
      () => sb.slack.messages.find((m) => m.channel === CHANNEL && m.text.startsWith('Docs visitors')),
      10_000,
    );
    expect(messageText(report)).toContain('docs project `proj_other`'); // a report of another project than the default says which
  });

  it('shows the effective settings, with Edit for an admin that opens the modal at once; saving it moves the channel back', async () => {
    const seen = ephemeralsTo(sb.slack, 'U0ADMIN').length;
    await settings('', 'U0ADMIN');
    const shown = await nextEphemeral('U0ADMIN', seen);
    const text = messageText(shown);
    expect(text).toContain('*Docs project:* `proj_other`');
    expect(text).toContain('*Who may start jobs here:* every full member');
    expect(text).toContain('*Weekly digest:* none');
    expect(text).toContain('"action_id":"settings.edit"');

    const started = Date.now();
    await driver.blockAction({ user: 'U0ADMIN', channel: CHANNEL, messageTs: shown.ts, actionId: 'settings.edit' }); // the button's own (signed) value
    const modal = await sb.slack.waitFor(
      () => sb.slack.views.find((v) => v.kind === 'modal' && v.view.callback_id === 'settings_edit'),
      3_000,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(JSON.stringify(modal.view)).toContain('proj_other');

    const select = (value: string) => ({ type: 'static_select', selected_option: { value } });
    const values = {
      project: { project: select('proj_e2e') },
      followups: { followups: { type: 'radio_buttons', selected_option: { value: 'requester' } } },
    };
    const bad = await driver.viewSubmission({
      user: 'U0ADMIN',
      view: {
        callback_id: 'settings_edit',
        state: { values: { ...values, project: { project: select('proj_nope') } } as never },
      },
    });
    expect(bad.json).toMatchObject({
      response_action: 'errors',
      errors: { project: expect.stringContaining('proj_e2e') },
    });
    const good = await driver.viewSubmission({
      user: 'U0ADMIN',
      view: { callback_id: 'settings_edit', state: { values: values as never } },
    });
    expect(good.status).toBe(200);
    const changed = await sb.slack.waitFor(
      () =>
        sb.slack.messages.find(
          (m) => m.channel === CHANNEL && m.text.includes('docs project `proj_e2e` (was `proj_other`)'),
        ),
      10_000,
    );
    expect(changed.text).toContain('follow-ups: only the person who started a job may continue it (was anyone)');

    const jobId = await docsEdit(sb, driver, 'Back on the default project');
    expect(sb.docs.jobs.get(jobId)?.projectId).toBe('proj_e2e');
  });

  it('guests and people of other organizations get a refusal for every form (no arguments, help, a change, a mistake); a full member sees them', async () => {
    for (const user of ['U0GUEST', 'U0EXTERNAL']) {
      for (const [i, text] of ['', 'help', 'project proj_other', 'bananas'].entries()) {
        const seen = ephemeralsTo(sb.slack, user).length;
        const res = await settings(text, user);
        expect(JSON.stringify(res.json ?? {})).not.toMatch(/proj_|Usage/);
        const answer = await nextEphemeral(user, seen);
        expect(answer.text, `${user} ${i}`).toMatch(
          user === 'U0GUEST'
            ? /^Guests can't see this channel's docs settings in this workspace\./
            : /^People from other organizations can't see this channel's docs settings/,
        );
        expect(messageText(answer)).not.toMatch(/proj_|Docs project|Weekly digest|Usage/);
      }
    }
    const seen = ephemeralsTo(sb.slack, 'U0BOB').length;
    await settings('help', 'U0BOB');
    expect((await nextEphemeral('U0BOB', seen)).text).toContain('*Usage:*');
  });

  it("a response_url that isn't Slack's receives nothing: the command is answered in its ack and not acted on", async () => {
    const received: string[] = [];
    const foreign: Server = createServer((req, res) => {
      received.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    try {
      const responseUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}/commands/T0/1/x`;
      const res = await driver.slashCommand({
        command: '/docs-settings',
        text: '',
        user: 'U0ADMIN',
        channel: CHANNEL,
        responseUrl,
      });
      expect(res.json).toEqual({
        response_type: 'ephemeral',
        text: "This request came with a reply address that isn't Slack's, so I didn't act on it.",
      });
      const visitors = await driver.slashCommand({
        command: '/docs-visitors',
        text: '2026-11-15 2026-11-22',
        user: 'U0ADMIN',
        channel: CHANNEL,
        responseUrl,
      });
      expect(visitors.json).toMatchObject({ text: expect.stringContaining("isn't Slack's") });
      // A request with Slack's own response_url, sent after them, is answered: the bot is not just slow.
      const seen = ephemeralsTo(sb.slack, 'U0ADMIN').length;
      await settings('', 'U0ADMIN');
      await nextEphemeral('U0ADMIN', seen);
      expect(received).toEqual([]);
      expect(bot.output()).toContain("refused a request whose response_url is not Slack's");
    } finally {
      await new Promise<void>((resolve) => foreign.close(() => resolve()));
    }
  });

  it("Slack's user_change drops a person's cached access facts at once: made a guest, they are refused on their next request", async () => {
    const show = async (user: string) => {
      const seen = ephemeralsTo(sb.slack, user).length;
      await settings('', user);
      return (await nextEphemeral(user, seen)).text;
    };
    expect(await show('U0BOB')).not.toMatch(/^Guests/);
    expect(await show('U0CAROL')).not.toMatch(/^Guests/);
    // Both become guests; only bob's change is announced by Slack.
    for (const u of sb.slack.users.filter((x) => x.id === 'U0BOB' || x.id === 'U0CAROL')) u.isRestricted = true;
    const res = await driver.userChange('U0BOB');
    expect(res.status).toBe(200);
    expect(await show('U0BOB')).toMatch(/^Guests can't see this channel's docs settings/);
    // Without the event the cached answer (≤ 10 minutes) still stands.
    expect(await show('U0CAROL')).not.toMatch(/^Guests/);
    for (const u of sb.slack.users.filter((x) => x.id === 'U0BOB' || x.id === 'U0CAROL')) u.isRestricted = false;
    await driver.userChange('U0BOB');
    expect(await show('U0BOB')).not.toMatch(/^Guests/);
  });
});
