import { FAKE_ASSISTANT_KEY, FAKE_DOCS_DOMAIN, startFakeDocsApi } from '../../sandbox/fake-docs-api.js';
import type { FakeDocsApi, FakeDocsApiOptions } from '../../sandbox/fake-docs-api.js';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect } from 'vitest';
import { POLL_QUEUE, pollJobId } from '../../src/features/agent-jobs/poll/worker.js';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions, type SlackMessage } from '../../sandbox/fake-slack.js';
import { SlackDriver } from '../../sandbox/slack-driver.js';
import { startBotProcess, type BotProcess } from './bot-process.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from './redis.js';

/** Secrets of the e2e environment; tests assert none of them is ever printed or posted. */
export const E2E_SECRETS = {
  SLACK_BOT_TOKEN: 'xoxb-e2e-bot-token-0000',
  SLACK_SIGNING_SECRET: 'e2e-signing-secret-1111',
  DOCS_API_KEY: 'mint_e2e_admin_key_2222',
};

/** The app-level token of Socket Mode sandboxes (`startSandbox({ socketMode: true })`). */
export const E2E_APP_TOKEN = 'xapp-1-A0DOCSAPP-e2e-app-token-3333';

/** The fakes of both SaaS, a driver, and the env that points a bot at them. */
export interface Sandbox {
  slack: FakeSlack;
  docs: FakeDocsApi;
  prefix: string;
  env: Record<string, string>;
  /** The bots' poll queue (same Redis and prefix), for waiting on pollers. */
  pollQueue: Queue;
  /** Starts one more bot process on the shared fakes and Redis (same prefix); `timeoutMs` bounds its start-up (default 20 s). */
  startBot(extraEnv?: Record<string, string>, timeoutMs?: number): Promise<{ bot: BotProcess; driver: SlackDriver }>;
  /** Kills the bots, stops the fakes and deletes every Redis key under the prefix. */
  close(): Promise<void>;
}

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** How long each agent job run stays active at the fake docs API, in ms. @defaultValue 800 */
  jobDurationMs?: number;
  docs?: Partial<FakeDocsApiOptions>;
  /** Variables of the bots, over the sandbox's own. */
  env?: Record<string, string>;
  socketMode?: boolean;
  /** Turn asking the docs on ({@link askEnv}). */
  ask?: boolean;
  /** More options of the fake Slack (e.g. `gridOptions()` for Enterprise Grid). */
  slack?: Omit<FakeSlackOptions, 'botToken' | 'appToken'>;
}

/**
 * Starts the fakes and returns a sandbox whose bots poll fast (POLL_MIN_INTERVAL_MS 150 ms, cap
 * 600 ms) so that a whole job cycle takes about a second. With `socketMode` the fake Slack accepts
 * {@link E2E_APP_TOKEN} and the bots get SLACK_APP_TOKEN (and no signing secret): they connect to
 * the fake's Socket Mode server; drive them with a SocketModeDriver.
 */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const slack = await startFakeSlack({
    ...opts.slack,
    botToken: E2E_SECRETS.SLACK_BOT_TOKEN,
    ...(opts.socketMode ? { appToken: E2E_APP_TOKEN } : {}),
  });
  const docs = await startFakeDocsApi({
    apiKey: E2E_SECRETS.DOCS_API_KEY,
    projectId: 'proj_e2e',
    jobDurationMs: opts.jobDurationMs ?? 800,
    ...opts.docs,
  });
  const prefix = randomPrefix();
  const env: Record<string, string> = {
    ...E2E_SECRETS,
    SLACK_API_URL: slack.url,
    DOCS_API_URL: docs.url,
    DOCS_PROJECT_ID: 'proj_e2e',
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    POLL_MIN_INTERVAL_MS: '150',
    POLL_MAX_INTERVAL_MS: '600',
    // Tests that are not about the workspace's edit budget must not share one across the whole file.
    SLACK_UPDATE_BUDGET_PER_MINUTE: '1000',
    LOG_LEVEL: 'info',
    // Previews add a message to every PR's thread: only the tests about them turn them on.
    DOCS_PREVIEWS: 'off',
    ...(opts.ask ? askEnv(docs.url) : {}),
    ...opts.env,
  };
  if (opts.socketMode) {
    env.SLACK_APP_TOKEN = E2E_APP_TOKEN;
    delete env.SLACK_SIGNING_SECRET;
  }
  const bots: BotProcess[] = [];
  const pollQueue = new Queue(POLL_QUEUE, { connection: { url: TEST_REDIS_URL }, prefix });
  return {
    slack,
    docs,
    prefix,
    env,
    pollQueue,
    async startBot(extraEnv = {}, timeoutMs?: number) {
      const bot = await startBotProcess({ ...env, ...extraEnv }, timeoutMs);
      bots.push(bot);
      const driver = new SlackDriver({
        botUrl: `${bot.url}/slack/events`,
        signingSecret: E2E_SECRETS.SLACK_SIGNING_SECRET,
        slack,
      });
      return { bot, driver };
    },
    async close() {
      await Promise.all(
        bots.map((b) => (b.proc.exitCode === null && b.proc.signalCode === null ? b.kill9() : undefined)),
      );
      await slack.close();
      await docs.close();
      await pollQueue.close();
      const redis = testRedis();
      await dropPrefix(redis, prefix);
      redis.disconnect();
    },
  };
}

/** A sandbox and the one bot process {@link sandboxWithBot} started on it. */
export interface SandboxBot {
  sb: Sandbox;
  bot: BotProcess;
  /** Signed HTTP to that bot (a Socket Mode sandbox's bot is driven with a SocketModeDriver instead). */
  driver: SlackDriver;
}

/**
 * The set-up most e2e files share: registers a `beforeAll` that starts a sandbox with `opts`, lets
 * `prepare` add to its fakes (channels, refusals) before the bot reads them, starts one bot on it
 * and hands the three to `use` (awaited: it may wait for more, such as a socket's hello); and an
 * `afterAll` that closes the sandbox (and its bots). Called in a `describe`, it serves that
 * describe's tests; at the top of a file, the whole file's. A start-up that fails fails the hook
 * (`hookTimeout` 30 s; a bot's start-up is bounded at 20 s).
 */
export function sandboxWithBot(
  opts: SandboxOptions,
  use: (s: SandboxBot) => unknown,
  prepare?: (sb: Sandbox) => unknown,
): void {
  let sb: Sandbox | undefined;
  beforeAll(async () => {
    sb = await startSandbox(opts);
    prepare?.(sb);
    await use({ sb, ...(await sb.startBot()) });
  });
  afterAll(() => sb?.close());
}

/** The site answers' sources link to in sandboxes with `ask`. */
export const E2E_SITE_URL = 'https://docs.acme.test';

/** The variables that turn asking the docs on, against the fake discovery API under `docsUrl`. */
export function askEnv(docsUrl: string): Record<string, string> {
  return {
    DOCS_ASSISTANT_API_KEY: FAKE_ASSISTANT_KEY,
    DOCS_DOMAIN: FAKE_DOCS_DOMAIN,
    DOCS_DISCOVERY_URL: `${docsUrl}/discovery`,
    DOCS_SITE_URL: E2E_SITE_URL,
  };
}

/** Visible text of a message: its `text` plus every text inside its blocks. */
export function messageText(m: SlackMessage): string {
  return `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;
}

/** Whether `m` is a job's status message (its fallback text is "Docs agent job …"). */
export function isStatusMessage(m: SlackMessage): boolean {
  return Boolean(m.bot_id) && m.text.startsWith('Docs agent job');
}

/** The bot's replies in the thread rooted at `threadTs` (not ephemeral, not the root, not a status message). */
export function threadReplies(slack: FakeSlack, channel: string, threadTs: string): SlackMessage[] {
  return slack.messages.filter(
    (m) =>
      m.channel === channel &&
      m.thread_ts === threadTs &&
      m.ts !== threadTs &&
      m.bot_id &&
      !m.ephemeralTo &&
      !m.deleted &&
      !isStatusMessage(m),
  );
}

/**
 * Waits (up to `timeoutMs`, ms) until the thread rooted at `threadTs` holds at least `n` of the
 * bot's replies ({@link threadReplies}); @returns them.
 */
export function waitForReplies(
  slack: FakeSlack,
  channel: string,
  threadTs: string,
  n = 1,
  timeoutMs = 10_000,
): Promise<SlackMessage[]> {
  return slack.waitFor(() => {
    const replies = threadReplies(slack, channel, threadTs);
    return replies.length >= n && replies;
  }, timeoutMs);
}

/**
 * Waits (up to 15 s) for the `n`-th (1-based) finished answer of the bot in the thread of `threadTs`:
 * a reply (streamed or posted, not ephemeral) that ends with the answer's buttons (its 👍/👎, `ask.feedback`).
 */
export function answerOf(slack: FakeSlack, threadTs: string, n = 1): Promise<SlackMessage> {
  return slack.waitFor(() => {
    const done = slack.messages.filter(
      (m) =>
        m.thread_ts === threadTs &&
        m.bot_id &&
        !m.ephemeralTo &&
        JSON.stringify(m.blocks ?? []).includes('ask.feedback'),
    );
    return done.length >= n ? done[n - 1] : undefined;
  }, 15_000);
}

/**
 * Adds a private #payroll (C0PAYROLL) that the bot and alice are in and bob is not, holding alice's
 * message `text`. @returns that message's permalink (the fake's sandbox.slack.com form).
 */
export function payrollMessage(slack: FakeSlack, text: string): string {
  slack.channels.push({
    id: 'C0PAYROLL',
    name: 'payroll',
    botIsMember: true,
    isPrivate: true,
    members: ['U0ALICE', slack.botUserId],
  });
  const secret = slack.addUserMessage({ channel: 'C0PAYROLL', user: 'U0ALICE', text });
  return `https://sandbox.slack.com/archives/C0PAYROLL/p${secret.ts.replace('.', '')}`;
}

/** Ephemeral messages shown to `user`. */
export function ephemeralsTo(slack: FakeSlack, user: string): SlackMessage[] {
  return slack.messages.filter((m) => m.ephemeralTo === user);
}

/** Waits for the status message of `jobId` in `channel`. */
export function statusMessage(slack: FakeSlack, jobId: string, channel = 'C0DOCS'): Promise<SlackMessage> {
  return slack.waitFor(
    () =>
      slack.messages.find(
        (m) => m.channel === channel && isStatusMessage(m) && !m.deleted && messageText(m).includes(jobId),
      ),
    10_000,
  );
}

/** Runs /docs-edit and returns the agent job id the bot created. */
export async function docsEdit(sb: Sandbox, driver: SlackDriver, text: string, user = 'U0ALICE'): Promise<string> {
  const before = sb.docs.requests.length;
  const res = await driver.slashCommand({ command: '/docs-edit', text, user, channel: 'C0DOCS' });
  expect(res.status).toBe(200);
  const create = await sb.docs.waitForRequest(
    (r) => sb.docs.requests.indexOf(r) >= before && r.method === 'POST' && r.path.endsWith('/job'),
    10_000,
  );
  return (create.responseBody as { id: string }).id;
}

/**
 * U0MALLORY's `/docs-edit Delete all docs` in #docs of the sandbox's workspace, form-encoded as
 * Slack posts a slash command: the body the forged-request tests sign, then alter or sign stale.
 */
export function malloryDocsEditBody(sb: Sandbox): string {
  return new URLSearchParams({
    command: '/docs-edit',
    text: 'Delete all docs',
    user_id: 'U0MALLORY',
    channel_id: 'C0DOCS',
    team_id: sb.slack.teamId,
  }).toString();
}

/** Waits until BullMQ has finished watching `(jobId, cycle)`, so that "exactly one" is final. */
export async function pollerDone(queue: Queue, jobId: string, cycle = 0): Promise<void> {
  await expect
    .poll(() => queue.getJobState(pollJobId(jobId, cycle)), { timeout: 15_000, interval: 50 })
    .toBe('completed');
}
