import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../sandbox/free-port.js';
import { SlackDriver } from '../../sandbox/slack-driver.js';
import { E2E_SECRETS, startSandbox, type Sandbox } from '../helpers/sandbox.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `.env.example` with `values` filled in, as a person would edit it (commented-out lines are uncommented). */
function editedEnvExample(values: Record<string, string>): string {
  let text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  for (const [key, value] of Object.entries(values)) {
    const line = new RegExp(`^#? ?${key}=.*$`, 'm');
    expect(text, `.env.example names ${key}`).toMatch(line);
    text = text.replace(line, `${key}=${value}`);
  }
  return text;
}

/**
 * A checkout as a user has it after `npm ci` and `cp .env.example .env`: package.json and the
 * tsconfig copied into a temporary directory, `src` and `node_modules` linked to this repository,
 * and the edited `.env` — so the test runs the real `npm start` without writing a .env here.
 */
function checkoutWithEnv(envFile: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'docs-agent-dotenv-'));
  for (const f of ['package.json', 'tsconfig.json']) copyFileSync(join(ROOT, f), join(dir, f));
  symlinkSync(join(ROOT, 'src'), join(dir, 'src'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, '.env'), envFile);
  return dir;
}

describe('npm start reads .env (cp .env.example .env, edit, npm start)', () => {
  let sb: Sandbox;
  let dir: string;
  let proc: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    if (proc?.pid && proc.exitCode === null && proc.signalCode === null) process.kill(-proc.pid, 'SIGKILL');
    await sb?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('takes the settings from .env, and a real environment variable wins over the file', async () => {
    const [filePort, realPort] = [await freePort(), await freePort()];
    dir = checkoutWithEnv(
      editedEnvExample({
        SLACK_BOT_TOKEN: E2E_SECRETS.SLACK_BOT_TOKEN,
        SLACK_SIGNING_SECRET: E2E_SECRETS.SLACK_SIGNING_SECRET,
        SLACK_API_URL: sb.env.SLACK_API_URL!,
        DOCS_API_URL: sb.env.DOCS_API_URL!,
        DOCS_API_KEY: E2E_SECRETS.DOCS_API_KEY,
        DOCS_PROJECT_ID: 'proj_e2e',
        REDIS_URL: sb.env.REDIS_URL!,
        QUEUE_PREFIX: sb.prefix,
        PORT: String(filePort),
      }),
    );
    // Only PATH (this test's node first, so the suite on Node 24 starts the bot on Node 24), HOME and PORT come from the real environment.
    const env = {
      PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
      HOME: process.env.HOME ?? dir,
      PORT: String(realPort),
    };
    proc = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    // 'close' comes once every process holding the pipes (npm, the bot it started) has exited.
    const closed = new Promise<void>((resolve) => proc!.once('close', () => resolve()));

    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${realPort}/healthz`).catch(() => undefined))?.status, {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(200)
      .catch((err: unknown) => {
        throw new Error(`npm start never answered on PORT=${realPort}: ${String(err)}\n${output}`);
      });
    // The .env's PORT lost to the real one; the .env's tokens and URLs were used.
    await expect(fetch(`http://127.0.0.1:${filePort}/healthz`)).rejects.toThrow();
    expect(sb.slack.calls.some((c) => c.method === 'auth.test')).toBe(true);
    const driver = new SlackDriver({
      botUrl: `http://127.0.0.1:${realPort}/slack/events`,
      signingSecret: E2E_SECRETS.SLACK_SIGNING_SECRET,
      slack: sb.slack,
    });
    expect(
      (
        await driver.slashCommand({
          command: '/docs-edit',
          text: 'Fix the typo on /quickstart',
          user: 'U0ALICE',
          channel: 'C0DOCS',
        })
      ).status,
    ).toBe(200);
    const create = await sb.docs.waitForRequest(
      (r) => r.method === 'POST' && r.path === '/v2/agent/proj_e2e/job',
      10_000,
    );
    expect(create.headers.authorization).toBe(`Bearer ${E2E_SECRETS.DOCS_API_KEY}`);

    // SIGTERM to npm and the bot (the process group, as a terminal's Ctrl-C would): the bot shuts down cleanly.
    process.kill(-proc.pid!, 'SIGTERM');
    await closed;
    expect(output).toContain('shutdown complete');
    for (const secret of Object.values(E2E_SECRETS)) expect(output).not.toContain(secret);
  });
});
