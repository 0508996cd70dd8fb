import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tryTelling } from '../../../../src/platform/slack/tell.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { startResponseUrlHook, type ResponseUrlHook } from '../../../helpers/response-url-hook.js';

/**
 * The platform's one private reply, in the order the reports use for a failed page (its Retry
 * button in blocks): an ephemeral in the channel first, the click's response_url when Slack
 * refuses it. The default order (response_url first) is covered through the features' tests.
 */
describe('tryTelling, ephemeral first', () => {
  let hook: ResponseUrlHook;
  let url: string;
  let received: Record<string, unknown>[];
  beforeEach(async () => {
    hook = await startResponseUrlHook();
    ({ url, received } = hook);
  });
  afterEach(() => hook.close());

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
    hook.status = 404;
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
