/**
 * `npm run sandbox`: the bot's main job on this machine, with no Slack workspace and no API key.
 * Starts a fake Slack, a fake docs API and the bot itself (the same startBot() as `npm start`, same
 * HTTP endpoint and signature checks; only the URLs differ), plays a short scripted conversation
 * through signed HTTP (a job, a report, Document this thread, questions to the docs, what readers
 * couldn't find (searches, feedback, a digest, Improve from a search), the Messages tab, settings,
 * a refusal), and prints the channel as a transcript. At a terminal it then takes commands;
 * when stdin is not a terminal it exits 0 after the script.
 *
 * `npm run sandbox -- --socket-mode`: the same, with the bot in Socket Mode (SLACK_APP_TOKEN): it
 * connects to the fake Slack's WebSocket (apps.connections.open), and the script and the commands go
 * to it as Socket Mode envelopes that it acks on the socket. The transcript is the same.
 *
 * `npm run sandbox -- --grid`: the fake Slack is an Enterprise Grid org with the bot installed
 * org-wide; a member of a sibling workspace works in an org-shared channel, a person of another
 * org is refused (grid-script.ts).
 *
 * `npm run sandbox -- --oauth`: OAuth mode, one bot for two workspaces: each installed through
 * /slack/install and /slack/oauth_redirect, each answered with its own token, one uninstalled
 * (oauth-script.ts).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig } from '../src/platform/config.js';
import { createLogger } from '../src/platform/logger.js';
import { startBot, type RunningBot } from '../src/main.js';
import { agentViewScene } from './agent-view-script.js';
import { askScene } from './ask-script.js';
import { GRID_CHANNEL, gridScene } from './grid-script.js';
import { finalPreview, isPreviewMessage, previewFailScene, previewsSettled } from './preview-script.js';
import { readerSignalsScene } from './reader-signals-script.js';
import { FAKE_ASSISTANT_KEY, FAKE_DOCS_DOMAIN, startFakeDocsApi, type FakeDocsApi } from './fake-docs-api.js';
import { GRID_ENTERPRISE, gridOptions, startFakeSlack, type FakeSlack, type SlackMessage } from './fake-slack.js';
import { ensureRedis, type SandboxRedis } from './redis-server.js';
import { latestJobStatus, readCommands, REPL_HELP, SandboxRepl } from './repl.js';
import { SlackDriver } from './slack-driver.js';
import { socketDriverAsHttp, type SandboxDriver } from './socket-as-http.js';
import { SocketModeDriver } from './socket-driver.js';
import { oauthEnv, oauthScene, oauthSlackOptions } from './oauth-script.js';
import { renderBlocks, renderCall } from './transcript.js';
import { freePort } from './free-port.js';

const SIGNING_SECRET = `sandbox-signing-${randomBytes(6).toString('hex')}`;
const BOT_TOKEN = `xoxb-sandbox-${randomBytes(6).toString('hex')}`;
const API_KEY = `mint_sandbox_${randomBytes(6).toString('hex')}`;
const APP_TOKEN = `xapp-1-A0DOCSAPP-sandbox-${randomBytes(6).toString('hex')}`;
const SOCKET_MODE = process.argv.slice(2).includes('--socket-mode');
/** `--grid`: the fake Slack is an Enterprise Grid org with the bot installed org-wide (grid-script.ts). */
const GRID = process.argv.slice(2).includes('--grid');
/** `--oauth`: OAuth mode, two workspaces installed through the bot's install page (oauth-script.ts). */
const OAUTH = process.argv.slice(2).includes('--oauth');
const CHANNEL = GRID ? GRID_CHANNEL : 'C0DOCS';
const color = process.stdout.isTTY === true;
/** @alice's DM with the bot once the script used the Messages tab (printed after #docs). */
let dmChannel: string | undefined;

const say = (line = '') => process.stdout.write(`${line}\n`);
const dim = (s: string) => (color ? `\u001b[2m${s}\u001b[0m` : s);
const bold = (s: string) => (color ? `\u001b[1m${s}\u001b[0m` : s);

interface Sandbox {
  slack: FakeSlack;
  docs: FakeDocsApi;
  bot: RunningBot;
  driver: SandboxDriver;
  redis: SandboxRedis;
  prefix: string;
  logFile: string;
  port: number;
}

async function start(): Promise<Sandbox> {
  const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const slack = await startFakeSlack({
    botToken: BOT_TOKEN,
    ...(SOCKET_MODE ? { appToken: APP_TOKEN } : {}),
    ...(GRID
      ? { ...gridOptions(), enterprise: { ...GRID_ENTERPRISE, teams: [...GRID_ENTERPRISE.teams], orgWide: true } }
      : {}),
    ...(OAUTH ? oauthSlackOptions() : {}),
  });
  const docs = await startFakeDocsApi({
    apiKey: API_KEY,
    projectId: 'sandbox-docs',
    projectIds: ['sandbox-docs-v2'],
    jobDurationMs: 3_000,
    previews: { buildMs: 1_500 },
  });
  const prefix = `sandbox-${randomBytes(3).toString('hex')}`;
  const port = await freePort();
  const config = readConfig({
    ...(OAUTH ? oauthEnv() : { SLACK_BOT_TOKEN: BOT_TOKEN }),
    ...(SOCKET_MODE ? { SLACK_APP_TOKEN: APP_TOKEN } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    SLACK_API_URL: slack.url,
    DOCS_API_URL: docs.url,
    DOCS_API_KEY: API_KEY,
    DOCS_PROJECT_ID: 'sandbox-docs',
    DOCS_PROJECT_IDS: 'sandbox-docs-v2',
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    PORT: String(port),
    POLL_MIN_INTERVAL_MS: '500',
    POLL_MAX_INTERVAL_MS: '2000',
    DOCS_ASSISTANT_API_KEY: FAKE_ASSISTANT_KEY,
    DOCS_DOMAIN: FAKE_DOCS_DOMAIN,
    DOCS_DISCOVERY_URL: `${docs.url}/discovery`,
    DOCS_SITE_URL: 'https://docs.acme.example',
    LOG_LEVEL: 'info',
  });
  const logFile = join(tmpdir(), `docs-agent-sandbox-${prefix}.log`);
  const bot = await startBot(config, createLogger('info', createWriteStream(logFile)));
  const driver = SOCKET_MODE
    ? socketDriverAsHttp(new SocketModeDriver({ slack }))
    : new SlackDriver({ botUrl: `http://127.0.0.1:${port}/slack/events`, signingSecret: SIGNING_SECRET, slack });
  say(bold('docs-agent-slack sandbox'));
  say(
    dim(
      `  Redis        ${redis.url}${redis.private ? ' (private redis-server for this run)' : ''}, key prefix ${prefix}`,
    ),
  );
  say(dim(`  fake Slack   ${slack.url}`));
  say(dim(`  fake docs    ${docs.url} (agent jobs take 3s; the docs assistant under /discovery)`));
  if (SOCKET_MODE)
    say(
      dim(
        `  bot          Socket Mode over ${slack.origin.replace(/^http/, 'ws')}/socket (apps.connections.open), /healthz on port ${port}  (logs: ${logFile})`,
      ),
    );
  else say(dim(`  bot          http://127.0.0.1:${port}/slack/events  (logs: ${logFile})`));
  say();
  return { slack, docs, bot, driver, redis, prefix, logFile, port };
}

/** The bot's replies in a thread, its preview message left out. */
function botReplies(sb: Sandbox, threadTs: string): SlackMessage[] {
  return sb.slack.messages.filter(
    (m) => m.thread_ts === threadTs && m.ts !== threadTs && m.bot_id && !m.ephemeralTo && !isPreviewMessage(m),
  );
}

function latestStatusMessage(sb: Sandbox): SlackMessage | undefined {
  return latestJobStatus(sb.slack, CHANNEL);
}

async function script(sb: Sandbox): Promise<void> {
  if (GRID) return gridScene(sb, { say, dim, bold });
  if (OAUTH) return oauthScene(oauthSandbox(sb), { say, dim, bold });
  say(bold('Scripted conversation'));
  say(`@alice in #docs: /docs-edit Add a quickstart for the Python SDK`);
  await sb.driver.slashCommand({
    command: '/docs-edit',
    text: 'Add a quickstart for the Python SDK',
    user: 'U0ALICE',
    channel: CHANNEL,
  });
  const status = await sb.slack.waitFor(() => latestStatusMessage(sb), 10_000);
  say(dim('  …the status message is up; the agent is working (the bot polls with backoff)'));
  await sb.slack.waitFor(() => botReplies(sb, status.ts).length > 0, 30_000);
  say(dim('  …the agent finished; the bot replied in the thread'));
  await sb.slack.waitFor(() => finalPreview(sb.slack, status.ts), 30_000);
  say(dim('  …and the docs platform built a preview: Preview ↗, with the changed pages linked on it'));
  say(`@bob replies in the thread: also add a Go example, like the Go docs (a link) do`);
  await sb.driver.message({
    channel: CHANNEL,
    user: 'U0BOB',
    thread_ts: status.ts,
    text: 'also add a Go example, like <https://go.dev/doc|the Go docs> do',
  });
  await sb.slack.waitFor(() => botReplies(sb, status.ts).length > 1, 30_000);
  say(dim('  …the follow-up went to the same job; its end was announced to @bob'));
  await sb.slack.waitFor(
    () => /rebuilt after the follow-up/.test(JSON.stringify(finalPreview(sb.slack, status.ts)?.blocks)) || undefined,
    30_000,
  );
  say(dim('  …its pull request changed, so the preview was rebuilt in the same message'));
  // Let the throttled status edit (at most one per 2 s) and the reaction land before printing.
  await sb.slack.waitFor(() => status.reactions.includes('white_check_mark'), 10_000).catch(() => undefined);
  say(`@alice in #docs: /docs-visitors limit=10`);
  await sb.driver.slashCommand({ command: '/docs-visitors', text: 'limit=10', user: 'U0ALICE', channel: CHANNEL });
  const report = await sb.slack.waitFor(
    () => sb.slack.messages.find((m) => m.channel === CHANNEL && m.text.startsWith('Docs visitors')),
    10_000,
  );
  say(dim('  …the report is posted: totals, then the 10 most visited pages'));
  say(`@bob clicks [ Next → ] on the report`);
  await sb.driver.blockAction({
    user: 'U0BOB',
    channel: CHANNEL,
    messageTs: report.ts,
    actionId: 'visitors.page.next',
  });
  await sb.slack.waitFor(() => report.text.includes('rows 11–20'), 10_000);
  say(
    dim('  …the report was edited in place with rows 11–20 (pages are cached for 10 minutes, so paging back is free)'),
  );
  await documentThread(sb);
  await previewFailScene(sb, { say, dim, bold }, CHANNEL);
  await askScene(sb, { say, dim, bold }, CHANNEL);
  await readerSignalsScene(sb, { say, dim, bold }, CHANNEL);
  dmChannel = await agentViewScene(sb, { say, dim, bold }, CHANNEL);
  say(`@dana (a workspace admin) in #docs: /docs-settings`);
  await sb.driver.slashCommand({ command: '/docs-settings', text: '', user: 'U0ADMIN', channel: CHANNEL });
  await sb.slack.waitFor(
    () => sb.slack.messages.find((m) => m.ephemeralTo === 'U0ADMIN' && m.text.startsWith('Docs Agent settings')),
    10_000,
  );
  say(
    dim(
      "  …only @dana sees the channel's settings; as an admin she gets [ Edit ] (`/docs-settings project sandbox-docs-v2` would move #docs)",
    ),
  );
  say(`@gus (a guest) in #docs: /docs-edit Rewrite the pricing page`);
  // Agent requests only: a poll of an earlier job may land in this window on a loaded machine.
  const agentPosts = () =>
    sb.docs.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v2/agent/')).length;
  const requests = agentPosts();
  await sb.driver.slashCommand({
    command: '/docs-edit',
    text: 'Rewrite the pricing page',
    user: 'U0GUEST',
    channel: CHANNEL,
  });
  await sb.slack.waitFor(() => sb.slack.messages.find((m) => m.ephemeralTo === 'U0GUEST'), 10_000);
  say(
    dim(
      `  …refused privately (guests can't start jobs unless ACCESS_ALLOW_GUESTS=true): ${agentPosts() - requests} docs agent requests, no status message`,
    ),
  );
  // Every pull request's preview shows its end before the channel is printed.
  await previewsSettled(sb);
  say();
}

/** A discussion in a thread, then "Document this thread" on it: shortcut → modal → submit → status in that thread → PR. */
async function documentThread(sb: Sandbox): Promise<void> {
  const root = await sb.driver.message({
    channel: CHANNEL,
    user: 'U0BOB',
    text: 'Do webhooks retry when our endpoint answers 5xx?',
  });
  await sb.driver.message({
    channel: CHANNEL,
    user: 'U0ADMIN',
    thread_ts: root.ts,
    text: 'Yes: 3 retries, 1 min, 5 min and 30 min apart, then the event is dropped &amp; logged',
  });
  await sb.driver.message({
    channel: CHANNEL,
    user: 'U0BOB',
    thread_ts: root.ts,
    text: 'thanks <@U0ADMIN>! that should be in the docs',
  });
  say(`@bob asks in #docs whether webhooks retry; @dana answers in the thread`);
  say(`@alice uses the message shortcut ${bold('Document this thread')} on @bob's question`);
  const calls = sb.slack.calls.length;
  await sb.driver.messageShortcut({
    user: 'U0ALICE',
    channel: CHANNEL,
    messageTs: root.ts,
    callbackId: 'document_thread',
  });
  const modal = await sb.slack.waitFor(
    () =>
      sb.slack.calls.slice(calls).find((c) => c.method === 'views.update')?.args.view as
        { blocks: unknown[] } | undefined,
    10_000,
  );
  say(dim('  …a form opens at once ("Reading the thread…"), then shows the thread and the instruction:'));
  renderBlocks(sb.slack, modal.blocks)
    .split('\n')
    .forEach((line) => say(dim(`    │ ${line}`)));
  say(`@alice clicks [ Start job ]`);
  const instruction = 'Update the docs with what was decided in this thread.';
  await sb.driver.viewSubmission({
    user: 'U0ALICE',
    view: {
      callback_id: 'document_thread_modal',
      state: { values: { instruction: { instruction: { type: 'plain_text_input', value: instruction } } } },
    },
  });
  await sb.slack.waitFor(() => botReplies(sb, root.ts).some((m) => m.text.includes('pull')), 30_000);
  // The state reaction sits on the job's own status message here (a discussion may hold several jobs).
  await sb.slack
    .waitFor(() => botReplies(sb, root.ts).some((m) => m.reactions.includes('white_check_mark')), 10_000)
    .catch(() => undefined);
  const prompt = [...sb.docs.requests].reverse().find((r) => r.method === 'POST' && r.path.endsWith('/job'))?.body as
    { prompt: string } | undefined;
  say(dim('  …the job started in that thread with the whole discussion as context; the agent was asked:'));
  (prompt?.prompt ?? '').split('\n').forEach((line) => say(dim(`    > ${line}`)));
  say(dim('  …and its pull request was announced in the thread'));
}

/** Print #docs (its buttons numbered) and, at a terminal, take commands until `quit`. */
async function repl(sb: Sandbox, interactive: boolean): Promise<void> {
  const commands = new SandboxRepl({
    slack: sb.slack,
    driver: sb.driver,
    say,
    channel: CHANNEL,
    user: 'U0ALICE',
    color,
  });
  say(bold(GRID ? '#docs-org, as the people in it see it:' : '#docs, as the people in it see it:'));
  commands.show(CHANNEL);
  say();
  if (dmChannel) {
    say(bold("Docs Agent's Messages tab, as @alice sees it:"));
    commands.show(dmChannel);
    say();
  }
  if (!interactive) return;
  say(bold('Your turn.') + ' Commands run as @alice in #docs:');
  REPL_HELP.forEach((line) => say(line));
  const off = sb.slack.onCall((call) => say(dim(`  · ${renderCall(call)}`)));
  try {
    await readCommands(commands, process.stdin, process.stdout, say);
  } finally {
    off();
  }
}

/** What the OAuth scene reads of the sandbox: the bot's origin, the installations in Redis, the bot's log. */
function oauthSandbox(sb: Sandbox): Parameters<typeof oauthScene>[0] {
  return {
    slack: sb.slack,
    botOrigin: `http://127.0.0.1:${sb.port}`,
    signingSecret: SIGNING_SECRET,
    async installations() {
      const { Redis } = await import('ioredis');
      const r = new Redis(sb.redis.url);
      try {
        const keys = (await r.keys(`${sb.prefix}:installations:*`)).sort();
        const values = keys.length ? await r.mget(...keys) : [];
        return keys.map((k, i) => ({ key: k.slice(sb.prefix.length + 1), value: values[i] ?? '' }));
      } finally {
        r.disconnect();
      }
    },
    log: () => readFileSync(sb.logFile, 'utf8'),
  };
}

async function stop(sb: Sandbox): Promise<void> {
  await sb.bot.stop();
  await sb.slack.close();
  await sb.docs.close();
  const { Redis } = await import('ioredis');
  const r = new Redis(sb.redis.url);
  const keys = await r.keys(`${sb.prefix}:*`);
  if (keys.length) await r.del(...keys);
  r.disconnect();
  await sb.redis.stop();
}

async function run(): Promise<void> {
  let sb: Sandbox;
  try {
    sb = await start();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  try {
    await script(sb);
    await repl(sb, process.stdin.isTTY === true);
  } finally {
    await stop(sb);
  }
  process.exit(0);
}

void run().catch((err: unknown) => {
  console.error(`sandbox failed: ${(err as Error).message}`);
  process.exit(1);
});
