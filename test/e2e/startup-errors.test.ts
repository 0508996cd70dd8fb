import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../sandbox/free-port.js';
import { runBotToExit } from '../helpers/bot-process.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

/**
 * A token Slack refuses stops the bot at start-up with one error line that names the variable and
 * Slack's error code (the fake Slack refuses a wrong token as Slack does: HTTP 200
 * `{"ok":false,"error":"invalid_auth"}`), exit code 1, no stack and never the token itself.
 */

const WRONG_BOT_TOKEN = 'xoxb-wrong-bot-token-9999';
const WRONG_APP_TOKEN = 'xapp-1-A0DOCSAPP-wrong-app-token-8888';

/** The JSON log lines of `output` at error level or above (pino: 50 error, 60 fatal). */
function errorLines(output: string): { level: number; msg: string; [k: string]: unknown }[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string })
    .filter((l) => l.level >= 50);
}

/** Runs the bot with `env` over the sandbox's until it exits (it must, within 20 s). */
async function runToExit(sb: Sandbox, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return runBotToExit({ ...sb.env, PORT: String(await freePort()), ...env }, 20_000);
}

/** What every refused token's start must look like: exit 1, exactly one error line, no stack, no token. */
function expectOneCleanLine(run: { code: number | null; output: string }, variable: string, wrongToken: string): void {
  expect(run.code, run.output).toBe(1);
  const lines = errorLines(run.output);
  expect(lines, run.output).toHaveLength(1);
  expect(lines[0]!.msg).toContain(variable);
  expect(lines[0]!.msg).toContain('invalid_auth');
  expect(lines[0]).toMatchObject({ variable, slackError: 'invalid_auth' });
  expect(run.output).not.toContain(wrongToken);
  // No stack: neither Node's print of an uncaught error (`WebAPIPlatformError: …` then `    at …`) nor a logged `err.stack`.
  expect(run.output).not.toMatch(/^\w*Error\b|^\s+at\s|"stack"/m);
  expect(run.output).not.toContain('docs-agent-slack is running');
}

describe('start-up with a token Slack refuses (HTTP mode)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb?.close());

  it('a wrong SLACK_BOT_TOKEN: one line naming the variable and invalid_auth, exit 1, auth.test asked once', async () => {
    const run = await runToExit(sb, { SLACK_BOT_TOKEN: WRONG_BOT_TOKEN });
    expectOneCleanLine(run, 'SLACK_BOT_TOKEN', WRONG_BOT_TOKEN);
    expect(errorLines(run.output)[0]!.msg).toBe(
      'Slack refused SLACK_BOT_TOKEN (invalid_auth): reinstall the app or copy the Bot User OAuth Token (OAuth & Permissions) again',
    );
    expect(sb.slack.calls.filter((c) => c.method === 'auth.test').map((c) => c.response)).toEqual([
      { ok: false, error: 'invalid_auth' },
    ]);
  });

  it('the right token: auth.test is asked once at start-up (its answer is handed to Bolt, which does not ask again)', async () => {
    const before = sb.slack.calls.length;
    const { bot } = await sb.startBot();
    expect(sb.slack.calls.slice(before).filter((c) => c.method === 'auth.test')).toHaveLength(1);
    expect(bot.output()).toContain('docs-agent-slack is running');
  });
});

describe('start-up with a token Slack refuses (Socket Mode)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ socketMode: true });
  });
  afterAll(() => sb?.close());

  it('a wrong SLACK_BOT_TOKEN: the same one line, before any socket is opened', async () => {
    const run = await runToExit(sb, { SLACK_BOT_TOKEN: WRONG_BOT_TOKEN });
    expectOneCleanLine(run, 'SLACK_BOT_TOKEN', WRONG_BOT_TOKEN);
    expect(sb.slack.calls.filter((c) => c.method === 'apps.connections.open')).toHaveLength(0);
  });

  it('a wrong SLACK_APP_TOKEN: one line naming SLACK_APP_TOKEN and invalid_auth, exit 1', async () => {
    const run = await runToExit(sb, { SLACK_APP_TOKEN: WRONG_APP_TOKEN });
    expectOneCleanLine(run, 'SLACK_APP_TOKEN', WRONG_APP_TOKEN);
    expect(errorLines(run.output)[0]!.msg).toMatch(
      /^Slack refused SLACK_APP_TOKEN \(invalid_auth\): generate a new app-level token/,
    );
  });
});
