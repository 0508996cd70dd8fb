import { describe, expect, it } from 'vitest';
import { ACTION_FEEDBACK } from '../../src/features/agent-jobs/feedback.js';
import { Scrape } from '../helpers/prometheus.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import {
  docsEdit,
  ephemeralsTo,
  isStatusMessage,
  messageText,
  pollerDone,
  sandboxWithBot,
  statusMessage,
  threadReplies,
  type Sandbox,
} from '../helpers/sandbox.js';

const METRICS_TOKEN = 'e2e-metrics-token-feedback-4444';

/**
 * `project=<id>` and the feedback buttons end to end: the real bot process over signed HTTP with two docs projects on one key
 * (DOCS_PROJECT_ID proj_e2e, DOCS_PROJECT_IDS proj_other), served by the fake docs API, which records
 * the project of every request.
 */

const CHANNEL = 'C0DOCS';
let sb: Sandbox;
let bot: BotProcess;
let driver: SlackDriver;

sandboxWithBot(
  {
    docs: { projectIds: ['proj_other'] },
    env: { DOCS_PROJECT_IDS: 'proj_other', METRICS_TOKEN },
  },
  (s) => ({ sb, bot, driver } = s),
);

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
    await sb.slack.waitFor(
      () => messageText(status).includes('acme/docs') && messageText(status).includes(job?.ref ?? '?'),
      10_000,
    );
  });

  it('a mention with project= goes to that project too', async () => {
    const before = sb.docs.requests.length;
    await driver.appMention({
      channel: CHANNEL,
      user: 'U0ALICE',
      text: `<@${sb.slack.botUserId}> project=proj_other Fix the typo in the intro`,
    });
    const create = await sb.docs.waitForRequest(
      (r) => sb.docs.requests.indexOf(r) >= before && r.method === 'POST' && r.path.endsWith('/job'),
      10_000,
    );
    expect(create.projectId).toBe('proj_other');
    expect(create.body).toEqual({ prompt: 'Fix the typo in the intro' });
    await pollerDone(sb.pollQueue, (create.responseBody as { id: string }).id);
  });

  it('an unknown project is refused privately with the allowed ones: no job, no status message, no docs API call', async () => {
    const seen = ephemeralsTo(sb.slack, 'U0BOB').length;
    // Only creates and status messages count: earlier jobs' last polls and edits may still land meanwhile.
    const creates = () => sb.docs.requests.filter((r) => r.method === 'POST').length;
    const statuses = () => sb.slack.messages.filter(isStatusMessage).length;
    const [createsBefore, statusesBefore] = [creates(), statuses()];
    const res = await driver.slashCommand({
      command: '/docs-edit',
      text: 'project=proj_missing Add a page',
      user: 'U0BOB',
      channel: CHANNEL,
    });
    expect(res.status).toBe(200);
    const refusal = await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'U0BOB')[seen], 10_000);
    expect(refusal.text).toContain('`proj_missing`');
    expect(refusal.text).toContain('`proj_e2e`, `proj_other`');
    expect(refusal.text).toContain('Nothing was started');
    expect(creates()).toBe(createsBefore);
    expect(statuses()).toBe(statusesBefore);
    // The warning is written by the bot's process; its output pipe may lag the refusal it sent.
    await sb.slack.waitFor(() => bot.output().includes('named a docs project that is not configured'), 10_000);
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

describe('feedback buttons on the announcement (bot as a separate process)', () => {
  it('a 👍 click is acked at once, thanked once privately, audited with who, job, project and rating, counted per project, and shown in App Home', async () => {
    const jobId = await docsEdit(sb, driver, 'Add a Go quickstart project=proj_other');
    const status = await statusMessage(sb.slack, jobId);
    const [announcement] = await sb.slack.waitFor(
      () => threadReplies(sb.slack, CHANNEL, status.ts).length === 1 && threadReplies(sb.slack, CHANNEL, status.ts),
      10_000,
    );
    expect(JSON.stringify(announcement!.blocks)).toContain('"feedback_buttons"');
    await pollerDone(sb.pollQueue, jobId);

    const seen = ephemeralsTo(sb.slack, 'U0BOB').length;
    const started = Date.now();
    const click = await driver.blockAction({
      user: 'U0BOB',
      channel: CHANNEL,
      messageTs: announcement!.ts,
      actionId: ACTION_FEEDBACK,
      feedback: 'positive',
    });
    expect(click.status).toBe(200);
    expect(click.body).toBe('');
    expect(Date.now() - started).toBeLessThan(3_000);
    const thanks = await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'U0BOB')[seen], 10_000);
    expect(thanks.text).toContain(`Thanks for rating job \`${jobId}\``);
    await expect
      .poll(() => bot.output(), { timeout: 10_000 })
      .toMatch(
        new RegExp(
          `"audit":true[^\\n]*"action":"job.feedback"[^\\n]*"jobId":"${jobId}"[^\\n]*"projectId":"proj_other"[^\\n]*"rating":"positive"`,
        ),
      );
    expect(bot.output()).toMatch(
      /"action":"job.feedback"[^\n]*"actor":"U0BOB"|"actor":"U0BOB"[^\n]*"action":"job.feedback"/,
    );

    // The same click again (Slack's retry, or a second press) is not thanked or counted twice.
    await driver.blockAction({
      user: 'U0BOB',
      channel: CHANNEL,
      messageTs: announcement!.ts,
      actionId: ACTION_FEEDBACK,
      feedback: 'positive',
    });
    const scrape = async () =>
      new Scrape(
        await (await fetch(`${bot.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text(),
      );
    await expect
      .poll(
        async () =>
          (await scrape()).value('docs_bot_agent_feedback_total', { project: 'proj_other', rating: 'positive' }),
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(ephemeralsTo(sb.slack, 'U0BOB').length).toBe(seen + 1);
    expect((await scrape()).type('docs_bot_agent_feedback_total')).toBe('COUNTER');

    // App Home (the requester's) shows the job's rating.
    await driver.appHomeOpened('U0ALICE');
    const home = await sb.slack.waitFor(
      () => [...sb.slack.views].reverse().find((v) => v.kind === 'home' && JSON.stringify(v.view).includes(jobId)),
      10_000,
    );
    expect(JSON.stringify(home.view)).toMatch(new RegExp(`rated 👍[^"]*${jobId}`));
  });
});
