import { createServer, type Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tryTelling } from '../../../../src/platform/slack/tell.js';
import { arrayLogger } from '../../../helpers/logs.js';

/**
 * The platform's one private reply, in the order the reports use for a failed page (its Retry
 * button in blocks): an ephemeral in the channel first, the click's response_url when Slack
 * refuses it. The default order (response_url first) is covered through the features' tests.
 */
describe('tryTelling, ephemeral first', () => {
  let hook: Server;
  let url: string;
  let received: Record<string, unknown>[];
  let status: number;
  beforeEach(async () => {
    received = [];
    status = 200;
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.statusCode = status;
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;
  });
  afterEach(async () => {
    await new Promise<void>((r) => hook.close(() => r()));
  });

  const blocks = [{ type: 'actions', elements: [] }];
  const message = { text: 'The report failed.', blocks };
  const how = { failure: 'could not tell the person about a report', prefer: 'ephemeral' } as const;

  it('an ephemeral to the clicker in the channel, blocks and all; the response_url is left alone', async () => {
    const postEphemeral = vi.fn(async (_a: unknown) => ({ ok: true }));
    const { logger, lines } = arrayLogger('warn');
    const to = { user: 'U0ALICE', channel: 'C0DOCS', responseUrl: url };
    expect(await tryTelling({ slack: { chat: { postEphemeral } }, logger }, to, message, how)).toBe(true);
    expect(postEphemeral).toHaveBeenCalledExactlyOnceWith({ channel: 'C0DOCS', user: 'U0ALICE', ...message });
    expect(received).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('Slack refuses the ephemeral: a new ephemeral through the response_url; when that fails too, one warn line', async () => {
    const postEphemeral = vi.fn(async (_a: unknown) => Promise.reject(new Error('channel_not_found')));
    const { logger, lines } = arrayLogger('warn');
    const deps = { slack: { chat: { postEphemeral } }, logger };
    const to = { user: 'U0ALICE', channel: 'C0DOCS', responseUrl: url };
    expect(await tryTelling(deps, to, message, how)).toBe(true);
    expect(received).toEqual([{ response_type: 'ephemeral', replace_original: false, ...message }]);
    expect(lines).toEqual([]);
    status = 404;
    expect(await tryTelling(deps, to, message, how)).toBe(false);
    expect(lines.map((l) => l.msg)).toEqual(['could not tell the person about a report']);
  });

  it('Slack refuses the ephemeral and the click came without a response_url: nobody is told, nothing logged', async () => {
    const postEphemeral = vi.fn(async (_a: unknown) => Promise.reject(new Error('channel_not_found')));
    const { logger, lines } = arrayLogger('warn');
    const to = { user: 'U0ALICE', channel: 'C0DOCS', responseUrl: undefined };
    expect(await tryTelling({ slack: { chat: { postEphemeral } }, logger }, to, message, how)).toBe(false);
    expect(received).toEqual([]);
    expect(lines).toEqual([]);
  });
});
