import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { docsEdit, ephemeralsTo, messageText, pollerDone, startSandbox, statusMessage, threadReplies, type Sandbox } from '../helpers/sandbox.js';

/**
 * `project=<id>` end to end: the real bot process over signed HTTP with two docs projects on one key
 * (DOCS_PROJECT_ID proj_e2e, DOCS_PROJECT_IDS proj_other), served by the fake docs API, which records
 * the project of every request.
 */

const CHANNEL = 'C0DOCS';
let sb: Sandbox;
let bot: BotProcess;
let driver: SlackDriver;

beforeAll(async () => {
  sb = await startSandbox({ docs: { projectIds: ['proj_other'] }, env: { DOCS_PROJECT_IDS: 'proj_other' } });
  ({ bot, driver } = await sb.startBot());
});
afterAll(async () => {
  await sb?.close();
});

describe('project=<id> (bot as a separate process)', () => {
  it('/docs-edit project=proj_other sends that job (create and polls) to that project, without the option in the prompt, and the status shows the project, repository and branch', async () => {
    const before = sb.docs.requests.length;
    const jobId = await docsEdit(sb, driver, 'Add a Go quickstart project=proj_other');
    const create = sb.docs.requests.slice(before).find((r) => r.method === 'POST' && r.path.endsWith('/job'));
    expect(create?.projectId).toBe('proj_other');
    expect(create?.body).toEqual({ prompt: 'Add a Go quickstart' });
    const status = await statusMessage(sb.slack, jobId);
    expect(messageText(status)).toContain('Project `proj_other`');
    expect(messageText(status)).not.toContain('project=');
    await pollerDone(sb.pollQueue, jobId);
    const polls = sb.docs.requests.slice(before).filter((r) => r.path.includes(jobId));
    expect(polls.length).toBeGreaterThan(0);
    expect(new Set(polls.map((r) => r.projectId))).toEqual(new Set(['proj_other']));
    // The fake reports source.repository and source.ref: the status names them once known.
    const job = sb.docs.jobs.get(jobId);
    await sb.slack.waitFor(() => messageText(status).includes('acme/docs') && messageText(status).includes(job?.ref ?? '?'), 10_000);
  });

  it('a mention with project= goes to that project too', async () => {
    const before = sb.docs.requests.length;
    await driver.appMention({ channel: CHANNEL, user: 'U0ALICE', text: `<@${sb.slack.botUserId}> project=proj_other Fix the typo in the intro` });
    const create = await sb.docs.waitForRequest((r) => sb.docs.requests.indexOf(r) >= before && r.method === 'POST' && r.path.endsWith('/job'), 10_000);
    expect(create.projectId).toBe('proj_other');
    expect(create.body).toEqual({ prompt: 'Fix the typo in the intro' });
    await pollerDone(sb.pollQueue, (create.responseBody as { id: string }).id);
  });

  it('an unknown project is refused privately with the allowed ones: no job, no status message, no docs API call', async () => {
    const seen = ephemeralsTo(sb.slack, 'U0BOB').length;
    const before = sb.docs.requests.length;
    const messages = sb.slack.messages.filter((m) => !m.ephemeralTo && m.bot_id).length;
    const res = await driver.slashCommand({ command: '/docs-edit', text: 'project=proj_missing Add a page', user: 'U0BOB', channel: CHANNEL });
    expect(res.status).toBe(200);
    const refusal = await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'U0BOB')[seen], 10_000);
    expect(refusal.text).toContain('`proj_missing`');
    expect(refusal.text).toContain('`proj_e2e`, `proj_other`');
    expect(refusal.text).toContain('Nothing was started');
    expect(sb.docs.requests.slice(before)).toEqual([]);
    expect(sb.slack.messages.filter((m) => !m.ephemeralTo && m.bot_id)).toHaveLength(messages);
    expect(bot.output()).toContain('named a docs project that is not configured');
  });

  it('without project=, the channel default applies and is shown', async () => {
    const jobId = await docsEdit(sb, driver, 'Fix a typo on the quickstart');
    expect(sb.docs.jobs.get(jobId)?.projectId).toBe('proj_e2e');
    const status = await statusMessage(sb.slack, jobId);
    expect(messageText(status)).toContain('Project `proj_e2e`');
    await sb.slack.waitFor(() => threadReplies(sb.slack, CHANNEL, status.ts).length === 1, 10_000);
    await pollerDone(sb.pollQueue, jobId);
  });
});
