import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_OPEN_PR } from '../../src/features/agent-jobs/status/blocks.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import { testRedis } from '../helpers/redis.js';
import { until } from '../helpers/redis-topology.js';
import { runBotToExit, startBotProcess, type BotProcess } from '../helpers/bot-process.js';
import {
  docsEdit,
  E2E_SECRETS,
  malloryDocsEditBody,
  ephemeralsTo,
  isStatusMessage,
  messageText,
  pollerDone,
  sandboxWithBot,
  startSandbox,
  statusMessage,
  threadReplies,
  type Sandbox,
  waitForReplies,
} from '../helpers/sandbox.js';

function assertNoSecrets(text: string): void {
  for (const [name, value] of Object.entries(E2E_SECRETS)) expect(text, `${name} leaked`).not.toContain(value);
}

describe('/docs-edit end to end (bot as a separate process, signed HTTP, fakes of Slack and the docs API)', () => {
  let sb: Sandbox;
  let bot: BotProcess;
  let driver: SlackDriver;

  sandboxWithBot({}, (s) => ({ sb, bot, driver } = s));

  it('starts a job, shows and edits a status message, and announces the PR once in the thread', async () => {
    // The job's status post is held at the fake Slack until after the ack: Slack waits 3 s for an
    // ack, so the ack must not wait for the job (ack latency itself is measured by bench/ack-latency).
    const statusPost = sb.slack.hold('chat.postMessage');
    const res = await driver.slashCommand({
      command: '/docs-edit',
      text: '  Add a quickstart for the Python SDK \n',
      user: 'U0ALICE',
      channel: 'C0DOCS',
    });
    expect(res.status).toBe(200);
    // The plain ack: not the edge's "couldn't confirm" answer, given when no ack comes within its budget.
    expect(res.body).toBe('');
    await statusPost.reached;
    statusPost.release();
    const create = await sb.docs.waitForRequest((r) => r.method === 'POST' && r.path === '/v2/agent/proj_e2e/job');
    expect(create.body).toEqual({ prompt: 'Add a quickstart for the Python SDK' });
    expect(create.headers.authorization).toBe(`Bearer ${E2E_SECRETS.DOCS_API_KEY}`);
    const jobId = (create.responseBody as { id: string }).id;

    const status = await statusMessage(sb.slack, jobId);
    expect(messageText(status)).toContain('<@U0ALICE> asked the docs agent');
    expect(messageText(status)).toContain('Add a quickstart for the Python SDK');

    const [reply] = await waitForReplies(sb.slack, 'C0DOCS', status.ts);
    expect(reply!.text).toMatch(/^<@U0ALICE> .*https:\/\/github\.com\/acme\/docs\/pull\/\d+/);
    expect(JSON.stringify(reply!.blocks)).toContain('View pull request');
    await sb.slack.waitFor(() => messageText(status).includes('Pull request ready'));
    expect(status.edited).toBe(true);
    // The plan ticks off: every task complete, the last linking the PR.
    const plan = (status.blocks as { type: string; tasks?: { status: string; sources?: { url: string }[] }[] }[]).find(
      (b) => b.type === 'plan',
    );
    expect(plan?.tasks?.length).toBeGreaterThanOrEqual(3);
    expect(plan!.tasks!.every((t) => t.status === 'complete')).toBe(true);
    expect(plan!.tasks!.at(-1)!.sources?.[0]?.url).toMatch(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/);

    await pollerDone(sb.pollQueue, jobId);
    expect(threadReplies(sb.slack, 'C0DOCS', status.ts)).toHaveLength(1);
    // The status line was edited in place, never re-posted.
    expect(sb.slack.messages.filter((m) => m.bot_id && !m.thread_ts && messageText(m).includes(jobId))).toHaveLength(1);

    // Clicking "View pull request" (a link button: Slack opens the URL and still sends block_actions)
    // is acked at once, so Slack shows no warning triangle; nothing else happens.
    const before = sb.slack.messages.length;
    for (const m of [reply!, status]) {
      const click = await driver.blockAction({
        user: 'U0BOB',
        channel: 'C0DOCS',
        messageTs: m.ts,
        actionId: ACTION_OPEN_PR,
      });
      expect(click.status).toBe(200);
      expect(click.body).toBe('');
    }
    expect(sb.slack.messages.slice(before)).toEqual([]);
    expect(bot.output()).not.toContain('no listener for this request');
  });

  it('a failed job is announced with the job id and what to do next', async () => {
    const jobId = await docsEdit(sb, driver, 'Rewrite everything [fail]');
    const status = await statusMessage(sb.slack, jobId);
    const [reply] = await waitForReplies(sb.slack, 'C0DOCS', status.ts);
    expect(reply!.text).toContain(`<@U0ALICE> job \`${jobId}\` failed`);
    expect(reply!.text).toMatch(/Reply in this thread/);
    await sb.slack.waitFor(() => messageText(status).includes('Failed'));
    await pollerDone(sb.pollQueue, jobId);
    expect(threadReplies(sb.slack, 'C0DOCS', status.ts)).toHaveLength(1);
  });

  it('a job that changed nothing says so, without a PR button', async () => {
    const jobId = await docsEdit(sb, driver, 'Check the typos [no-changes]', 'U0BOB');
    const status = await statusMessage(sb.slack, jobId);
    const [reply] = await waitForReplies(sb.slack, 'C0DOCS', status.ts);
    expect(reply!.text).toMatch(/^<@U0BOB> .*no files were changed/);
    expect(JSON.stringify(reply!.blocks)).not.toContain('"type":"button"');
  });

  it('an archived job is announced as archived', async () => {
    const jobId = await docsEdit(sb, driver, 'Old request [archive]');
    const status = await statusMessage(sb.slack, jobId);
    const [reply] = await waitForReplies(sb.slack, 'C0DOCS', status.ts);
    expect(reply!.text).toContain(`job \`${jobId}\` was archived`);
  });

  it("undoes Slack's escaping of & < > in the instruction, and sends it otherwise as typed", async () => {
    const before = sb.docs.requests.length;
    await driver.slashCommand({
      command: '/docs-edit',
      text: ' Wrap the steps in &lt;Tabs&gt; &amp; link <https://x.dev> ',
      user: 'U0ALICE',
      channel: 'C0DOCS',
    });
    const create = await sb.docs.waitForRequest((r) => sb.docs.requests.indexOf(r) >= before && r.method === 'POST');
    expect(create.body).toEqual({ prompt: 'Wrap the steps in <Tabs> & link <https://x.dev>' });
  });

  it('a blank instruction gets the usage, ephemerally, and no API call', async () => {
    const before = sb.docs.requests.length;
    const res = await driver.slashCommand({ command: '/docs-edit', text: '   ', user: 'U0ALICE', channel: 'C0DOCS' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('/docs-edit Add a quickstart'),
    });
    expect(sb.docs.requests.length).toBe(before);
  });

  it('a forged signature is refused with 401 and starts nothing', async () => {
    const before = sb.docs.requests.length;
    const body = malloryDocsEditBody(sb);
    const headers = { ...driver.sign(body), 'content-type': 'application/x-www-form-urlencoded' };
    const res = await driver.raw(body.replace('Delete', 'Remove'), headers);
    expect(res.status).toBe(401);
    const stale = await driver.raw(body, {
      ...driver.sign(body, Math.floor(Date.now() / 1000) - 600),
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(stale.status).toBe(401);
    expect(sb.docs.requests.length).toBe(before);
  });

  it('a channel the bot is not in: told to /invite it, and no job is created', async () => {
    // Only creates count: earlier tests' jobs may still be polled meanwhile.
    const creates = () => sb.docs.requests.filter((r) => r.method === 'POST').length;
    const before = creates();
    await driver.slashCommand({ command: '/docs-edit', text: 'Fix the FAQ', user: 'U0BOB', channel: 'C0RANDOM' });
    const [note] = await sb.slack.waitFor(
      () => ephemeralsTo(sb.slack, 'U0BOB').length > 0 && ephemeralsTo(sb.slack, 'U0BOB'),
    );
    expect(note!.text).toContain('/invite');
    expect(creates()).toBe(before);
  });

  it.each([
    [429, /rate limiting us right now; try again in/],
    [401, /API key was rejected.*tell the admin/],
    [503, /docs service failed; try again/],
  ])('a docs API %i reaches the person as a clear sentence; no status message is left', async (status, sentence) => {
    // Retry-After: 1 s, so the budget the 429 fills frees before the next test.
    sb.docs.failNext(/\/v2\/agent\/proj_e2e\/job$/, status, 1, undefined, status === 429 ? { 'retry-after': '1' } : {});
    const user = 'U0CAROL';
    const seen = ephemeralsTo(sb.slack, user).length;
    await driver.slashCommand({ command: '/docs-edit', text: `Try with ${status}`, user, channel: 'C0DOCS' });
    const note = await sb.slack.waitFor(
      () => ephemeralsTo(sb.slack, user).length > seen && ephemeralsTo(sb.slack, user).at(-1),
    );
    expect(note!.text).toMatch(sentence);
    expect(note!.text).not.toMatch(/at .*\.ts:\d+/); // no stack trace
    const leftovers = sb.slack.messages.filter(
      (m) => m.bot_id && !m.deleted && messageText(m).includes(`Try with ${status}`),
    );
    expect(leftovers).toEqual([]);
    // and the bot is still up
    expect((await fetch(`${bot.url}/healthz`)).status).toBe(200);
    // A 429 fills the project's agent budget until its Retry-After (1 s here): wait for it to free.
    if (status === 429) {
      const redis = testRedis();
      await expect.poll(() => redis.exists(`${sb.prefix}:agent-budget:project:proj_e2e`), { timeout: 5_000 }).toBe(0);
      redis.disconnect();
    }
  });

  it('rides out a docs API outage while polling, then announces', async () => {
    const jobId = await docsEdit(sb, driver, 'Survive an outage');
    sb.docs.failNext(new RegExp(`/job/${jobId}$`), 503, 6);
    const status = await statusMessage(sb.slack, jobId);
    const [reply] = await waitForReplies(sb.slack, 'C0DOCS', status.ts, 1, 20_000);
    expect(reply!.text).toMatch(/pull\/\d+/);
    expect(sb.docs.requests.filter((r) => r.path.endsWith(`/job/${jobId}`) && r.status === 503).length).toBe(6);
  });

  it('/healthz answers 503 while Redis does not answer, and 200 when it does', async () => {
    const down = await startBotProcess({ ...sb.env, REDIS_URL: 'redis://127.0.0.1:1' }, 20_000, 503);
    try {
      expect((await fetch(`${down.url}/healthz`)).status).toBe(503);
    } finally {
      await down.kill9();
    }
    // This file's bot, on the same env but a Redis that answers.
    expect((await fetch(`${bot.url}/healthz`)).status).toBe(200);
  });

  it('never prints or posts a secret', () => {
    assertNoSecrets(bot.output());
    assertNoSecrets(JSON.stringify(sb.slack.messages));
    expect(bot.output()).toMatch(/"audit":true,.*"action":"start_job","outcome":"ok"/); // the logs are JSON lines and we did read them
  });
});

describe('a restart', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    // Jobs run 2.5 s, so the kill lands while the job is still active.
    sb = await startSandbox({ jobDurationMs: 2_500 });
  });
  afterAll(() => sb?.close());

  it('after kill -9 mid-job and a restart, the end is announced exactly once', async () => {
    const first = await sb.startBot();
    const jobId = await docsEdit(sb, first.driver, 'Document the retry policy');
    const status = await statusMessage(sb.slack, jobId);
    // Let it poll at least once while the job is active, then kill it hard.
    await sb.docs.waitForRequest((r) => r.method === 'GET' && r.path.endsWith(`/job/${jobId}`), 10_000);
    await first.bot.kill9();
    expect(threadReplies(sb.slack, 'C0DOCS', status.ts)).toHaveLength(0);

    await sb.startBot();
    const [reply] = await waitForReplies(sb.slack, 'C0DOCS', status.ts, 1, 30_000);
    expect(reply!.text).toMatch(/pull\/\d+/);
    await pollerDone(sb.pollQueue, jobId);
    expect(threadReplies(sb.slack, 'C0DOCS', status.ts)).toHaveLength(1);
  }, 60_000); // two bot processes start (~6 s each on a loaded 2-core machine)
});

describe('replicas', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb?.close());

  it('two bot processes sharing Redis announce each job exactly once', async () => {
    const a = await sb.startBot();
    const b = await sb.startBot();
    const ids = [
      await docsEdit(sb, a.driver, 'Replica job one'),
      await docsEdit(sb, b.driver, 'Replica job two'),
      await docsEdit(sb, a.driver, 'Replica job three [no-changes]'),
    ];
    for (const id of ids) {
      const status = await statusMessage(sb.slack, id);
      await sb.slack.waitFor(() => threadReplies(sb.slack, 'C0DOCS', status.ts).length > 0, 20_000);
      await pollerDone(sb.pollQueue, id);
      expect(threadReplies(sb.slack, 'C0DOCS', status.ts)).toHaveLength(1);
    }
  }, 60_000); // two bot processes start (~6 s each on a loaded 2-core machine)

  it('SIGTERM drains and exits 0 within 10 s', async () => {
    const { bot } = await sb.startBot();
    const t0 = Date.now();
    bot.proc.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(bot.output()).toContain('shutdown complete');
  });
});

describe('a rolling restart in HTTP mode (SIGTERM behind a load balancer)', () => {
  it('drains: /healthz answers 503 "draining" while a signed command is still acked; a second signal ends it, and the port closes before the stop is over', async () => {
    // A sandbox of its own: no other replica may take the command recorded during the drain.
    const sb = await startSandbox();
    try {
      // The longest drain: a test that passed by the drain ending by itself could not tell.
      const { bot, driver } = await sb.startBot({ SHUTDOWN_DRAIN_MS: '20000' });
      bot.proc.kill('SIGTERM');
      let health: { status: number; body: unknown } | undefined;
      await until('/healthz to answer 503', 5_000, async () => {
        const res = await fetch(`${bot.url}/healthz`);
        health = { status: res.status, body: await res.json() };
        return res.status === 503;
      });
      expect(health?.body).toEqual({ status: 'draining' });

      // A command the load balancer still sends is taken and acked, and handled: its status post
      // is held at the fake Slack, so the replica's worker is busy with it when the drain ends.
      const statusPost = sb.slack.hold('chat.postMessage');
      const res = await driver.slashCommand({
        command: '/docs-edit',
        text: 'Sent during the drain',
        user: 'U0ALICE',
        channel: 'C0DOCS',
      });
      expect(res.status).toBe(200);
      expect(res.body).toBe('');
      await statusPost.reached;

      // A second signal ends the 20 s drain: the port closes while the stop still waits for the worker.
      bot.proc.kill('SIGTERM');
      await until('the port to refuse connections', 5_000, () =>
        fetch(`${bot.url}/healthz`).then(
          () => false,
          () => true,
        ),
      );
      expect(bot.proc.exitCode).toBeNull();
      statusPost.release();
      expect(await bot.exited).toBe(0);
      expect(bot.output()).toContain('shutdown complete');
      // HTTP mode without METRICS_TOKEN: the start-up said /metrics is open on the public port.
      expect(bot.output()).toContain(
        '/metrics is served on the public Slack port (PORT, next to /slack/events) without a token',
      );
      // The job it started was announced before the process exited.
      const status = sb.slack.messages.find(isStatusMessage);
      expect(status && messageText(status)).toContain('Sent during the drain');
    } finally {
      await sb.close();
    }
  }, 40_000);
});

describe('the docs API cannot be reached', () => {
  it('a refused connection on create tells the person plainly that nothing was started: no uncertain notice, no "Start it again"', async () => {
    // The docs API's port, closed: a connection to it is refused, so the create never left.
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      });
    });
    const sb = await startSandbox();
    try {
      const { driver } = await sb.startBot({ DOCS_API_URL: `http://127.0.0.1:${closed}` });
      await driver.slashCommand({
        command: '/docs-edit',
        text: 'Document the refused port',
        user: 'U0BOB',
        channel: 'C0DOCS',
      });
      const [note] = await sb.slack.waitFor(
        () => ephemeralsTo(sb.slack, 'U0BOB').length > 0 && ephemeralsTo(sb.slack, 'U0BOB'),
        15_000,
      );
      expect(note!.text).toBe('Nothing was started. The docs service could not be reached; try again in a minute.');
      const all = JSON.stringify(sb.slack.messages);
      expect(all).not.toContain('May or may not have started');
      expect(all).not.toContain("can't tell me whether it started");
      expect(all).not.toContain('Start it again');
      // The placeholder status message is gone.
      await sb.slack.waitFor(
        () =>
          sb.slack.messages.filter(
            (m) => m.bot_id && !m.deleted && messageText(m).includes('Document the refused port'),
          ).length === 0,
        10_000,
      );
    } finally {
      await sb.close();
    }
  }, 60_000);
});

describe('timeout', () => {
  it('stops watching after JOB_TIMEOUT_MS and says so in the thread, with the job id', async () => {
    const sb = await startSandbox({ jobDurationMs: 600_000, env: { JOB_TIMEOUT_MS: '1500' } });
    try {
      const { driver } = await sb.startBot();
      const jobId = await docsEdit(sb, driver, 'A job that never ends');
      const status = await statusMessage(sb.slack, jobId);
      const [reply] = await waitForReplies(sb.slack, 'C0DOCS', status.ts, 1, 15_000);
      expect(reply!.text).toMatch(new RegExp(`^<@U0ALICE> I stopped watching job \`${jobId}\` after \\d+s`));
      await sb.slack.waitFor(() => messageText(status).includes('Stopped watching'));
    } finally {
      await sb.close();
    }
  });
});

describe('operations', () => {
  it('a missing or invalid variable stops the process with one line per problem', async () => {
    const { code, output } = await runBotToExit({
      SLACK_BOT_TOKEN: 'xoxb-1',
      DOCS_API_KEY: 'not-a-mint-key',
      PORT: 'abc',
    });
    expect(code).not.toBe(0);
    expect(output).toMatch(/^config error: DOCS_API_KEY: must start with mint_$/m);
    expect(output).toMatch(/^config error: DOCS_PROJECT_ID: /m);
    expect(output).toMatch(/^config error: PORT: /m);
    expect(output).not.toContain('not-a-mint-key');
  });
});
