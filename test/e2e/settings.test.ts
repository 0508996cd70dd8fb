import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackMessage } from '../../sandbox/fake-slack.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { docsEdit, ephemeralsTo, messageText, pollerDone, startSandbox, threadReplies, statusMessage, type Sandbox } from '../helpers/sandbox.js';

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

beforeAll(async () => {
  sb = await startSandbox({ docs: { projectIds: ['proj_other'] }, env: { DOCS_PROJECT_IDS: 'proj_other' } });
  ({ bot, driver } = await sb.startBot());
});
afterAll(async () => {
  await sb?.close();
});

describe('/docs-settings (bot as a separate process)', () => {
  it('a non-admin is refused and changes nothing: the next job still goes to the default project', async () => {
    const seen = ephemeralsTo(sb.slack, 'U0ALICE').length;
    await settings('project proj_other', 'U0ALICE');
    const refusal = await nextEphemeral('U0ALICE', seen);
    expect(refusal.text).toBe("Only workspace admins can change this channel's settings. Nothing was changed.");

    const jobId = await docsEdit(sb, driver, 'Fix a typo on the quickstart');
    expect(sb.docs.jobs.get(jobId)?.projectId).toBe('proj_e2e');
    await pollerDone(sb.pollQueue, jobId);
    expect(bot.output()).toMatch(/"audit":true[^\n]*"outcome":"refused"|"outcome":"refused"[^\n]*"audit":true/);
  });

  it("an admin's `project` moves the channel's next job (create, polls) and its next report to that project", async () => {
    await settings('project proj_other', 'U0ADMIN');
    const announced = await sb.slack.waitFor(() => sb.slack.messages.find((m) => m.channel === CHANNEL && !m.ephemeralTo && m.text.includes('changed this channel')), 10_000);
    expect(announced.text).toBe(":gear: <@U0ADMIN> changed this channel's settings: docs project `proj_other` (was `proj_e2e`).");

    const before = sb.docs.requests.length;
    const jobId = await docsEdit(sb, driver, 'Add a Go quickstart');
    await statusMessage(sb.slack, jobId);
    await pollerDone(sb.pollQueue, jobId);
    const jobRequests = sb.docs.requests.slice(before).filter((r) => r.path.includes(jobId) || r.path.endsWith('/job'));
    expect(jobRequests.length).toBeGreaterThanOrEqual(2); // the create and at least one poll
    expect(new Set(jobRequests.map((r) => r.projectId))).toEqual(new Set(['proj_other']));
    expect(jobRequests.every((r) => r.status < 300)).toBe(true);
    const status = await statusMessage(sb.slack, jobId);
    const [announcement] = await sb.slack.waitFor(() => threadReplies(sb.slack, CHANNEL, status.ts).length === 1 && threadReplies(sb.slack, CHANNEL, status.ts), 10_000);
    expect(announcement!.text).toContain('/pull/');

    await driver.slashCommand({ command: '/docs-visitors', text: '2026-11-15 2026-11-22', user: 'U0ALICE', channel: CHANNEL });
    const visitors = await sb.docs.waitForRequest((r) => r.path.endsWith('/visitors'), 10_000);
    expect(visitors.projectId).toBe('proj_other');
    const report = await sb.slack.waitFor(() => sb.slack.messages.find((m) => m.channel === CHANNEL && m.text.startsWith('Docs visitors')), 10_000);
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
    await driver.blockAction({ user: 'U0ADMIN', channel: CHANNEL, messageTs: shown.ts, actionId: 'settings.edit', value: CHANNEL });
    const modal = await sb.slack.waitFor(() => sb.slack.views.find((v) => v.kind === 'modal' && v.view.callback_id === 'settings_edit'), 3_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(JSON.stringify(modal.view)).toContain('proj_other');

    const select = (value: string) => ({ type: 'static_select', selected_option: { value } });
    const values = { project: { project: select('proj_e2e') }, followups: { followups: { type: 'radio_buttons', selected_option: { value: 'requester' } } } };
    const bad = await driver.viewSubmission({ user: 'U0ADMIN', view: { callback_id: 'settings_edit', state: { values: { ...values, project: { project: select('proj_nope') } } as never } } });
    expect(bad.json).toMatchObject({ response_action: 'errors', errors: { project: expect.stringContaining('proj_e2e') } });
    const good = await driver.viewSubmission({ user: 'U0ADMIN', view: { callback_id: 'settings_edit', state: { values: values as never } } });
    expect(good.status).toBe(200);
    const changed = await sb.slack.waitFor(() => sb.slack.messages.find((m) => m.channel === CHANNEL && m.text.includes('docs project `proj_e2e` (was `proj_other`)')), 10_000);
    expect(changed.text).toContain('follow-ups: only the person who started a job may continue it (was anyone)');

    const jobId = await docsEdit(sb, driver, 'Back on the default project');
    expect(sb.docs.jobs.get(jobId)?.projectId).toBe('proj_e2e');
  });
});
