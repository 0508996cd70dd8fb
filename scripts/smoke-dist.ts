/**
 * Smoke test of the compiled bot (what the Docker image runs): `node dist/main.js` — with the node
 * running this script (CI runs it on Node 24) — against the sandbox's fakes of Slack and the docs API
 * and a real Redis. Checks that `GET /healthz` answers 200, that one `/docs-edit` gets to its
 * pull-request link in the thread, that `/docs-visitors digest` uploads its chart (the native canvas
 * module from the compiled code), and that SIGTERM ends the process with exit code 0.
 *
 * Usage: `npm run build && node --import tsx scripts/smoke-dist.ts` (or `npm run smoke:dist`, which
 * builds first). Exits 0 on success; otherwise 1 with the reason and the bot's output. Redis:
 * REDIS_URL (default redis://127.0.0.1:6379) if it answers, else a private redis-server.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startFakeDocsApi } from '../sandbox/fake-docs-api.js';
import { startFakeSlack, type SlackMessage } from '../sandbox/fake-slack.js';
import { freePort } from '../sandbox/free-port.js';
import { ensureRedis } from '../sandbox/redis-server.js';
import { SlackDriver } from '../sandbox/slack-driver.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = 'dist/main.js';
const BOT_TOKEN = `xoxb-smoke-${randomBytes(6).toString('hex')}`;
const SIGNING_SECRET = `smoke-signing-${randomBytes(6).toString('hex')}`;
const API_KEY = `mint_smoke_${randomBytes(6).toString('hex')}`;
const PROJECT = 'proj_smoke';
const CHANNEL = 'C0DOCS';

const log = (line: string) => process.stdout.write(`smoke: ${line}\n`);

/** Polls `fn` every 100 ms until it returns a truthy value; throws `what` after `timeoutMs`. */
async function until<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  if (!existsSync(new URL(`../${ENTRY}`, import.meta.url)))
    throw new Error(`${ENTRY} is missing: run \`npm run build\` first`);
  const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const slack = await startFakeSlack({ botToken: BOT_TOKEN });
  const docs = await startFakeDocsApi({ apiKey: API_KEY, projectId: PROJECT, jobDurationMs: 500 });
  const prefix = `smoke-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.url,
    DOCS_API_URL: docs.url,
    DOCS_API_KEY: API_KEY,
    DOCS_PROJECT_ID: PROJECT,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    PORT: String(port),
    POLL_MIN_INTERVAL_MS: '150',
    POLL_MAX_INTERVAL_MS: '600',
  };
  log(`starting ${process.execPath} ${ENTRY} (Node ${process.version}) on port ${port}`);
  const bot = spawn(process.execPath, [ENTRY], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  bot.stdout.on('data', (d: Buffer) => (output += d.toString()));
  bot.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    bot.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  let exitCode: number | string | undefined;
  void exited.then((c) => (exitCode = c));
  try {
    await until('GET /healthz to answer 200', 20_000, async () => {
      if (exitCode !== undefined) throw new Error(`the bot exited with ${exitCode} before answering /healthz`);
      // No answer yet (the server is still starting): `until` asks again until its deadline.
      return (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200;
    });
    log('GET /healthz → 200');

    const driver = new SlackDriver({
      botUrl: `http://127.0.0.1:${port}/slack/events`,
      signingSecret: SIGNING_SECRET,
      slack,
    });
    const res = await driver.slashCommand({
      command: '/docs-edit',
      text: 'Add a quickstart for the Python SDK',
      user: 'U0ALICE',
      channel: CHANNEL,
    });
    if (res.status !== 200) throw new Error(`/docs-edit answered HTTP ${res.status}`);
    const reply = await until<SlackMessage>('the pull request link in the thread', 20_000, () =>
      slack.messages.find(
        (m) =>
          m.channel === CHANNEL &&
          m.bot_id &&
          m.thread_ts &&
          m.ts !== m.thread_ts &&
          /https:\/\/github\.com\/\S+\/pull\/\d+/.test(m.text),
      ),
    );
    log(`/docs-edit → ${reply.text}`);

    // The digest's chart: chart.js on @napi-rs/canvas (a native module) from the compiled code.
    const digest = await driver.slashCommand({
      command: '/docs-visitors',
      text: 'digest',
      user: 'U0ALICE',
      channel: CHANNEL,
    });
    if (digest.status !== 200) throw new Error(`/docs-visitors digest answered HTTP ${digest.status}`);
    const upload = await until('the digest chart upload', 20_000, () =>
      slack.calls.find((c) => c.method === 'file_upload' && c.status === 200 && Number(c.args.length) > 10_000),
    );
    log(`/docs-visitors digest → chart PNG uploaded (${String(upload.args.length)} bytes)`);

    bot.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      // The 5 s drain (SHUTDOWN_DRAIN_MS, HTTP mode), then at most 9 s of stop.
      new Promise<string>((r) => setTimeout(() => r('still running 15 s after SIGTERM'), 15_000).unref()),
    ]);
    if (code !== 0) throw new Error(`SIGTERM: expected exit 0, got ${code}`);
    log('SIGTERM → exit 0');
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, API_KEY])
      if (output.includes(secret)) throw new Error("a secret appeared in the bot's output");
  } catch (err) {
    process.stderr.write(`smoke: FAILED: ${(err as Error).message}\n--- bot output ---\n${output}\n`);
    process.exitCode = 1;
  } finally {
    if (bot.exitCode === null && bot.signalCode === null) bot.kill('SIGKILL');
    await slack.close();
    await docs.close();
    const r = new Redis(redis.url);
    const keys = await r.keys(`${prefix}:*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
    await redis.stop();
  }
  if (process.exitCode !== 1) log(`the compiled bot works on Node ${process.version}`);
}

main().then(
  () => process.exit(),
  (err: unknown) => {
    process.stderr.write(`smoke: FAILED: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
