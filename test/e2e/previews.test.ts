import { afterAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { PREVIEW_QUEUE, previewJobId } from '../../src/features/agent-jobs/preview/index.js';
import { previewUrlOf } from '../../sandbox/fake-docs-api.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { SlackMessage } from '../../sandbox/fake-slack.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { testRedis } from '../helpers/redis.js';
import {
  docsEdit,
  messageText,
  sandboxWithBot,
  statusMessage,
  threadReplies,
  type Sandbox,
  type SandboxBot,
  type SandboxOptions,
} from '../helpers/sandbox.js';

const CHANNEL = 'C0DOCS';

/** The bot's preview message in the thread of `threadTs` (its metadata key is `preview:<jobId>`). */
function previewMessages(sb: Sandbox, threadTs: string, jobId: string): SlackMessage[] {
  return threadReplies(sb.slack, CHANNEL, threadTs).filter(
    (m) =>
      (m as { metadata?: { event_payload?: { key?: string } } }).metadata?.event_payload?.key === `preview:${jobId}`,
  );
}

/**
 * A sandbox with previews on and one bot, and the bot's preview queue, for the enclosing describe;
 * `previewDone(jobId, cycle)` waits for that run's preview step to end and @returns how it ended.
 */
function previewsSandbox(opts: SandboxOptions, use: (s: SandboxBot) => unknown) {
  let previews: Queue | undefined;
  sandboxWithBot({ ...opts, env: { DOCS_PREVIEWS: 'auto', ...opts.env } }, (s) => {
    use(s);
    previews = new Queue(PREVIEW_QUEUE, { connection: testRedis(), prefix: s.sb.prefix });
  });
  afterAll(() => previews?.close());
  return async (jobId: string, cycle = 0): Promise<unknown> => {
    const id = previewJobId(jobId, cycle);
    await expect.poll(() => previews!.getJobState(id), { timeout: 30_000, interval: 100 }).toBe('completed');
    return (await previews!.getJob(id))?.returnvalue;
  };
}

describe('preview deployments in the job thread (end to end)', () => {
  let sb: Sandbox;
  let bot: BotProcess;
  let driver: SlackDriver;
  // The vendor's 5 requests a minute, in a window of 1 s (the bot's line adds its 2 s margin to it).
  const previewDone = previewsSandbox(
    { docs: { previews: { buildMs: 600, windowMs: 1_000 } }, env: { DOCS_PREVIEWS_WINDOW_MS: '1000' } },
    (s) => ({ sb, bot, driver } = s),
  );

  it("a job's pull request gets one preview message: Preview ↗ with the changed pages linked on it", async () => {
    const jobId = await docsEdit(sb, driver, 'Add a quickstart for the Python SDK');
    const status = await statusMessage(sb.slack, jobId);
    const ready = await sb.slack.waitFor(
      () => previewMessages(sb, status.ts, jobId).find((m) => messageText(m).includes('Preview ↗')),
      20_000,
    );
    const branch = sb.docs.jobs.get(jobId)!.ref;
    const url = previewUrlOf(branch);
    const text = messageText(ready);
    expect(text).toContain(`<${url}|Preview ↗>`);
    expect(text).toContain(`<${url}/guides/quickstart|\`guides/quickstart.mdx\`>`);
    expect(text).toContain(`<${url}/guides/python-sdk|\`guides/python-sdk.mdx\`>`);
    // Removed pages and files that are not pages are named, never linked.
    expect(text).toContain('removed: `guides/legacy-setup.mdx`');
    expect(text).not.toContain(`${url}/guides/legacy-setup`);
    expect(text).toContain('modified: `docs.json`');
    // The screenshot is a link: an image Slack could not download would make it refuse the message.
    expect(text).toMatch(/<https:\/\/screenshots\.mintlify\.test\/[^|>]+\|Screenshot ↗>/);
    expect(JSON.stringify(ready.blocks)).not.toContain('"type":"image"');
    await previewDone(jobId);
    expect(previewMessages(sb, status.ts, jobId)).toHaveLength(1);
    const asked = sb.docs.requests.filter((r) => r.method === 'POST' && r.path === '/v1/project/preview/proj_e2e');
    expect(asked.map((r) => r.body)).toEqual([{ branch }]);
    // The status message's plan gains the step, linking the preview.
    await sb.slack.waitFor(() => messageText(status).includes('Preview ready'));
    expect(messageText(status)).toContain(url);
  });

  it('a follow-up that updates the pull request rebuilds the preview in the same message (the audit names who)', async () => {
    const jobId = await docsEdit(sb, driver, 'Document the rate limits');
    const status = await statusMessage(sb.slack, jobId);
    await previewDone(jobId);
    const [first] = previewMessages(sb, status.ts, jobId);
    expect(messageText(first!)).toContain('Preview ↗');
    await driver.message({ channel: CHANNEL, user: 'U0BOB', thread_ts: status.ts, text: 'Also add a table of limits' });
    await previewDone(jobId, 1);
    const messages = previewMessages(sb, status.ts, jobId);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.ts).toBe(first!.ts);
    expect(messages[0]!.edited).toBe(true);
    expect(messageText(messages[0]!)).toContain('rebuilt after the follow-up');
    const asked = sb.docs.requests.filter((r) => r.method === 'POST' && r.path === '/v1/project/preview/proj_e2e');
    expect(asked.filter((r) => (r.body as { branch: string }).branch === sb.docs.jobs.get(jobId)!.ref)).toHaveLength(2);
    await expect
      .poll(() => bot.output())
      .toMatch(/"action":"preview\.rebuild"[^\n]*"actor":"U0BOB"|"actor":"U0BOB"[^\n]*"action":"preview\.rebuild"/);
  });

  it('a failed build shows its log and offers the fix: a follow-up whose prompt quotes the log inside the fence', async () => {
    const jobId = await docsEdit(sb, driver, 'Put the install steps in tabs [build-fail]');
    const status = await statusMessage(sb.slack, jobId);
    await previewDone(jobId);
    const [failed] = previewMessages(sb, status.ts, jobId);
    const text = messageText(failed!);
    expect(text).toContain('The preview build failed');
    // The log is inert: escaped, inside a code block.
    expect(text).toContain('Unexpected closing tag &lt;/Tabs&gt;, expected &lt;/Tab&gt;');
    expect(text).toContain('```');
    const button = JSON.stringify(failed!.blocks).match(/"action_id":"agent_jobs\.preview_fix","value":"([^"]+)"/);
    expect(button).not.toBeNull();
    const before = sb.docs.requests.length;
    const click = await driver.blockAction({
      user: 'U0ALICE',
      channel: CHANNEL,
      messageTs: failed!.ts,
      threadTs: status.ts,
      actionId: 'agent_jobs.preview_fix',
      value: JSON.parse(`"${button![1]}"`) as string,
    });
    expect(click.status).toBe(200);
    const sent = await sb.docs.waitForRequest(
      (r) => sb.docs.requests.indexOf(r) >= before && r.method === 'POST' && r.path.endsWith(`/job/${jobId}/message`),
      10_000,
    );
    const prompt = (sent.body as { prompt: string }).prompt;
    const fenced = prompt.match(/<build_log_([0-9a-f]{16})>\n([\s\S]*)\n<\/build_log_\1>/);
    expect(fenced).not.toBeNull();
    expect(fenced![2]).toContain('Unexpected closing tag </Tabs>, expected </Tab>');
    expect(prompt.slice(0, prompt.indexOf('<build_log_'))).not.toContain('</Tabs>');
    // The fixed run's pull request is previewed again in the same message.
    await previewDone(jobId, 1);
    expect(previewMessages(sb, status.ts, jobId)).toHaveLength(1);
    expect(messageText(previewMessages(sb, status.ts, jobId)[0]!)).toContain('Preview ↗');
  });

  it('20 jobs ending together get 20 previews within the limit, none refused by the API', async () => {
    const refusedBefore = sb.docs.previews.refusals;
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => docsEdit(sb, driver, `Burst change ${i}`)));
    // Started a second or so apart (one status post a second per channel): they all end at once.
    const endAt = Date.now() + 1_500;
    for (const id of ids) sb.docs.jobs.get(id)!.activeUntil = endAt;
    const results = await Promise.all(ids.map((id) => previewDone(id)));
    expect(results).toEqual(ids.map(() => 'ready'));
    for (const id of ids) {
      const status = await statusMessage(sb.slack, id);
      const messages = previewMessages(sb, status.ts, id);
      expect(messages).toHaveLength(1);
      expect(messageText(messages[0]!)).toContain('Preview ↗');
    }
    expect(sb.docs.previews.refusals - refusedBefore).toBe(0);
    // Some waited in line, and said so meanwhile.
    const everQueued = ids.filter((id) =>
      sb.slack.calls.some(
        (c) =>
          c.method.startsWith('chat.') &&
          JSON.stringify(c.args).includes('Preview queued') &&
          JSON.stringify(c.args).includes(`preview:${id}`),
      ),
    );
    expect(everQueued.length).toBeGreaterThan(0);
  }, 120_000);
});

describe('a plan without previews (403)', () => {
  let sb: Sandbox;
  let bot: BotProcess;
  let driver: SlackDriver;
  const previewDone = previewsSandbox({ docs: { previews: { plan: 'free' } } }, (s) => ({ sb, bot, driver } = s));

  it('turns previews off for the project with one warn line and nothing in Slack', async () => {
    const first = await docsEdit(sb, driver, 'Add a changelog page');
    const second = await docsEdit(sb, driver, 'Add a glossary');
    for (const id of [first, second]) {
      const status = await statusMessage(sb.slack, id);
      await sb.slack.waitFor(() => threadReplies(sb.slack, CHANNEL, status.ts).length > 0, 10_000);
    }
    await expect.poll(() => bot.output()).toContain('previews are off for it');
    // Both preview steps ended: no request can come after this.
    expect(await previewDone(first)).toBe('off');
    expect(await previewDone(second)).toBe('off');
    const asked = sb.docs.requests.filter((r) => r.path === '/v1/project/preview/proj_e2e');
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(asked.length).toBeLessThanOrEqual(2);
    expect(bot.output().match(/previews are off for it/g)).toHaveLength(1);
    for (const id of [first, second]) {
      const status = await statusMessage(sb.slack, id);
      expect(threadReplies(sb.slack, CHANNEL, status.ts)).toHaveLength(1);
      expect(messageText(status)).not.toContain('Preview');
    }
  });
});
