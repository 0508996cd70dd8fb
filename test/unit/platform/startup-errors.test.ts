import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { freePort } from '../../../sandbox/free-port.js';
import { checkBotToken, logStartFailure, StartupError, toStartupError } from '../../../src/platform/slack/startup.js';
import { arrayLogger } from '../../helpers/logs.js';

const TOKEN = 'xoxb-startup-token-1234';

let slack: FakeSlack;

/** The error a real WebClient (no retries) throws for auth.test at `url` with `token`. */
async function authTestError(url: string, token = TOKEN): Promise<unknown> {
  const client = new WebClient(token, { slackApiUrl: url, logLevel: LogLevel.ERROR, retryConfig: { retries: 0 } });
  return client.auth.test().then(
    () => expect.fail('auth.test should have failed'),
    (err: unknown) => err,
  );
}

beforeAll(async () => {
  slack = await startFakeSlack({ botToken: TOKEN });
});
afterAll(() => slack?.close());

describe('checkBotToken (auth.test once at start-up)', () => {
  it('returns the bot ids Bolt needs for the right token', async () => {
    const { logger } = arrayLogger();
    await expect(checkBotToken({ token: TOKEN, slackApiUrl: slack.url, logger })).resolves.toEqual({
      botUserId: slack.botUserId,
      botId: slack.botId,
    });
  });

  it("throws a StartupError naming the variable and Slack's code for a refused token, without the token", async () => {
    const { logger } = arrayLogger();
    const err = await checkBotToken({ token: 'xoxb-wrong-5678', slackApiUrl: slack.url, logger }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).message).toBe(
      'Slack refused SLACK_BOT_TOKEN (invalid_auth): reinstall the app or copy the Bot User OAuth Token (OAuth & Permissions) again',
    );
    expect((err as StartupError).fields).toEqual({ variable: 'SLACK_BOT_TOKEN', slackError: 'invalid_auth' });
  });

  it('says Slack is having trouble for a "try again" code', async () => {
    slack.failNext('auth.test', { error: 'internal_error' });
    const { logger } = arrayLogger();
    const err = await checkBotToken({ token: TOKEN, slackApiUrl: slack.url, logger }).catch((e: unknown) => e);
    expect((err as StartupError).message).toBe(
      'Slack could not check SLACK_BOT_TOKEN (internal_error): Slack is having trouble; start the bot again later',
    );
  });
});

describe('toStartupError', () => {
  it('names the system error when Slack cannot be reached', async () => {
    const url = `http://127.0.0.1:${await freePort()}/api/`;
    const err = toStartupError('SLACK_BOT_TOKEN', await authTestError(url), url);
    expect(err?.message).toBe(
      `Could not reach Slack at ${new URL(url).origin} to check SLACK_BOT_TOKEN (ECONNREFUSED): check the network, the proxy and SLACK_API_URL`,
    );
    expect(err?.fields).toEqual({ variable: 'SLACK_BOT_TOKEN', slackError: 'ECONNREFUSED' });
  });

  it('names the HTTP status when SLACK_API_URL is not a Slack API', async () => {
    const url = `${slack.origin}/not-the-api/`;
    const err = toStartupError('SLACK_BOT_TOKEN', await authTestError(url), url);
    expect(err?.message).toBe(
      `Slack answered HTTP 404 when checking SLACK_BOT_TOKEN at ${slack.origin}: check SLACK_API_URL, or start the bot again later if Slack is down`,
    );
  });

  it('says what to do for the app-level token', async () => {
    const err = toStartupError('SLACK_APP_TOKEN', await authTestError(slack.url, 'xoxb-wrong'), slack.url);
    expect(err?.message).toBe(
      'Slack refused SLACK_APP_TOKEN (invalid_auth): generate a new app-level token with the connections:write scope (Basic Information → App-Level Tokens)',
    );
  });

  it("leaves an error that is not Slack's alone (a bug keeps its stack)", () => {
    expect(toStartupError('SLACK_BOT_TOKEN', new TypeError('x is undefined'), slack.url)).toBeUndefined();
  });
});

describe('logStartFailure', () => {
  it('logs a StartupError as its one fatal line with its fields and no stack', () => {
    const { logger, lines } = arrayLogger();
    logStartFailure(
      logger,
      new StartupError('Slack refused SLACK_BOT_TOKEN (invalid_auth): do this', {
        variable: 'SLACK_BOT_TOKEN',
        slackError: 'invalid_auth',
      }),
    );
    expect(lines).toEqual([
      expect.objectContaining({
        level: 60,
        msg: 'Slack refused SLACK_BOT_TOKEN (invalid_auth): do this',
        variable: 'SLACK_BOT_TOKEN',
        slackError: 'invalid_auth',
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('stack');
  });

  it('logs any other error as `could not start` with its stack', () => {
    const { logger, lines } = arrayLogger();
    logStartFailure(logger, new Error('listen EADDRINUSE'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 60,
      msg: 'could not start',
      err: { message: 'listen EADDRINUSE', stack: expect.stringContaining('Error: listen EADDRINUSE') },
    });
  });
});
