import { WebClient } from '@slack/web-api';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../src/platform/logger.js';
import { toBoltLogger } from '../../../../src/platform/slack/bolt-logger.js';
import { PlatformErrorCode } from '../../../../src/platform/errors.js';
import { InstallationError } from '../../../../src/platform/installation-store.js';
import {
  classifySlackError,
  isInstallationError,
  isSlackError,
  slackErrorCode,
} from '../../../../src/platform/slack/errors.js';
import { createWebClient } from '../../../../src/platform/slack/web-client.js';
import { startFakeSlack, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { freePort } from '../../../../sandbox/free-port.js';

/**
 * Slack errors by kind, on errors thrown by the real @slack/web-api client (against the fake Slack,
 * which answers like slack.com/api: HTTP 200 `{ok:false,error}`, or 429 with Retry-After), plus a
 * bare HTTP server for the status codes Slack's edge may answer with (5xx, 4xx) and a closed port
 * for network errors.
 */

const TOKEN = 'xoxb-errors-test';
let slack: FakeSlack;
let statusServer: Server;
let statusUrl: string;
let status = 503;

beforeAll(async () => {
  slack = await startFakeSlack({ botToken: TOKEN });
  statusServer = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end('upstream trouble');
  });
  await new Promise<void>((r) => statusServer.listen(0, '127.0.0.1', () => r()));
  const addr = statusServer.address();
  statusUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/api/`;
});

afterAll(async () => {
  await slack.close();
  await new Promise<void>((r) => statusServer.close(() => r()));
});

/** A client that gives up at once (no retries), so each case sees the first error. */
const client = (slackApiUrl: string, rejectRateLimitedCalls = true) =>
  new WebClient(TOKEN, {
    slackApiUrl,
    logger: toBoltLogger(createLogger('silent')),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls,
  });

async function errorOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (err) {
    return err;
  }
  throw new Error('the call did not fail');
}

async function platformError(code: string): Promise<unknown> {
  slack.failNext('chat.postMessage', { error: code });
  return errorOf(client(slack.url).chat.postMessage({ channel: 'C0DOCS', text: 'hi' }));
}

describe('classifySlackError', () => {
  it.each(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout'])(
    'platform error %s: transient (try again with backoff)',
    async (code) => {
      expect(classifySlackError(await platformError(code))).toEqual({ kind: 'transient', code });
    },
  );

  it.each([
    'not_in_channel',
    'channel_not_found',
    'is_archived',
    'restricted_action',
    'message_not_found',
    'thread_not_found',
    'cant_update_message',
    'edit_window_closed',
    'user_not_found',
  ])('platform error %s: gone (give up on this place)', async (code) => {
    expect(classifySlackError(await platformError(code))).toEqual({ kind: 'gone', code });
  });

  it.each([
    'invalid_blocks',
    'msg_too_long',
    'msg_blocks_too_long',
    'token_revoked',
    'account_inactive',
    'missing_scope',
    'invalid_auth',
    'some_code_slack_adds_next_year',
  ])('platform error %s: permanent (the same call fails again)', async (code) => {
    expect(classifySlackError(await platformError(code))).toEqual({ kind: 'permanent', code });
  });

  it.each([
    PlatformErrorCode.InstallationNotFound,
    PlatformErrorCode.InstallationNotAllowed,
    PlatformErrorCode.InstallationKeyUnknown,
    PlatformErrorCode.InstallationUnreadable,
  ] as const)('OAuth mode: the store refused the installation (%s): permanent, like a revoked token', (code) => {
    const err = new InstallationError(code, 'team:T0A');
    expect(classifySlackError(err)).toEqual({ kind: 'permanent', code });
    expect(isInstallationError(err)).toBe(true);
  });

  it('HTTP 429 with Retry-After: transient, code ratelimited', async () => {
    slack.failNext('chat.postMessage', { status: 429, retryAfterS: 7 });
    const err = await errorOf(client(slack.url).chat.postMessage({ channel: 'C0DOCS', text: 'hi' }));
    expect(classifySlackError(err)).toEqual({ kind: 'transient', code: 'ratelimited' });
    expect((err as { retryAfter?: number }).retryAfter).toBe(7);
  });

  it.each([500, 502, 503])('HTTP %i from Slack’s edge: transient', async (s) => {
    status = s;
    const err = await errorOf(client(statusUrl).chat.postMessage({ channel: 'C0DOCS', text: 'hi' }));
    expect(classifySlackError(err)).toMatchObject({ kind: 'transient' });
  });

  it.each([400, 403, 404])('HTTP %i: permanent, code http_<status>', async (s) => {
    status = s;
    const err = await errorOf(client(statusUrl).chat.postMessage({ channel: 'C0DOCS', text: 'hi' }));
    expect(classifySlackError(err)).toEqual({ kind: 'permanent', code: `http_${s}` });
  });

  it('a network error (nothing listening): transient', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/api/`;
    const err = await errorOf(client(closed).chat.postMessage({ channel: 'C0DOCS', text: 'hi' }));
    expect(isSlackError(err)).toBe(true);
    expect(classifySlackError(err)).toMatchObject({ kind: 'transient', code: 'slack_webapi_request_error' });
  });

  it('anything that is not a Slack error (our own timeout, a Redis error, a string): transient, not a Slack error', () => {
    for (const err of [
      new Error('timeout'),
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      'boom',
      null,
      undefined,
    ]) {
      expect(classifySlackError(err).kind).toBe('transient');
      expect(isSlackError(err)).toBe(false);
    }
    expect(slackErrorCode(null)).toBeUndefined();
  });

  it('through the bot’s client: the method is named, and each failure is reported once (after retries)', async () => {
    const onError = vi.fn();
    const logger = createLogger('silent');
    const web = createWebClient({ token: TOKEN, slackApiUrl: slack.url, logger, onError });
    slack.failNext('chat.update', { error: 'cant_update_message' });
    const err = await errorOf(web.chat.update({ channel: 'C0DOCS', ts: '1.2', text: 'x' }));
    expect(classifySlackError(err)).toEqual({ kind: 'gone', code: 'cant_update_message', method: 'chat.update' });
    expect(onError).toHaveBeenCalledExactlyOnceWith({
      kind: 'gone',
      code: 'cant_update_message',
      method: 'chat.update',
    });
  });
});
