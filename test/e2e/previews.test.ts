import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { PREVIEW_QUEUE, previewJobId } from '../../src/features/agent-jobs/preview/index.js';
import { previewUrlOf } from '../../sandbox/fake-docs-api.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { SlackMessage } from '../../sandbox/fake-slack.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { testRedis } from '../helpers/redis.js';
import { docsEdit, messageText, startSandbox, statusMessage, threadReplies, type Sandbox } from '../helpers/sandbox.js';

const CHANNEL = 'C0DOCS';

/** The bot's preview message in the thread of `threadTs` (its metadata key is `preview:<jobId>`). */
function previewMessages(sb: Sandbox, threadTs: string, jobId: string): SlackMessage[] {
  return threadReplies(sb.slack, CHANNEL, threadTs).filter(
    (m) =>
      (m as { metadata?: { event_payload?: { key?: string } } }).metadata?.event_payload?.key === `preview:${jobId}`,
  );
}

describe('preview deployments in the job thread (end to end)', () => {
  let sb: Sandbox;
  let bot: BotProcess;
  let driver: SlackDriver;
  let previews: Queue;

  beforeAll(async () => {
    sb = await startSandbox({
      docs: { previews: { buildMs: 1_200, windowMs: 3_000 } },
      env: { DOCS_PREVIEWS: 'auto', DOCS_PREVIEWS_WINDOW_MS: '3000' },
    });
    ({ bot, driver } = await sb.startBot());
    previews = new Queue(PREVIEW_QUEUE, { connection: testRedis(), prefix: sb.prefix });
  });
  afterAll(async () => {
    await previews?.close();
    await sb?.close();
  });

  const previewDone = (jobId: string, cycle = 0) =>
    expect
      .poll(() => previews.getJobState(previewJobId(jobId, cycle)), { timeout: 20_000, interval: 100 })
      .toBe('completed');

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
    expect(JSON.stringify(ready.blocks)).toContain('"type":"image"');
    await previewDone(jobId);
    expect(previewMessages(sb, status.ts, jobId)).toHaveLength(1);
    const asked = sb.docs.requests.filter((r) => r.method === 'POST' && r.path === '/v1/project/preview/proj_e2e');
    expect(asked.map((r) => r.body)).toEqual([{ branch }]);
    // The status message's plan gains the step, linking the preview.
    await sb.slack.waitFor(() => messageText(status).includes('Preview ready'));
    expect(messageText(status)).toContain(url);
  });
});
