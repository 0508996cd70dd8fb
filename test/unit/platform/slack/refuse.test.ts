import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { refuseBeforeListeners } from '../../../../src/platform/slack/refuse.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { startResponseUrlHook, type ResponseUrlHook } from '../../../helpers/response-url-hook.js';

/** The answer to a request refused before any listener runs (the guards), or that no listener took (the edge). */
describe('refuseBeforeListeners', () => {
  let hook: ResponseUrlHook;
  beforeEach(async () => {
    hook = await startResponseUrlHook();
  });
  afterEach(() => hook.close());

  const text = 'Not here, sorry.';
  const failure = 'could not tell the person why their request was refused';

  it('a command: the ack carries the answer (ephemeral); its response_url is left alone', async () => {
    const ack = vi.fn(async (_r?: unknown) => undefined);
    const { logger, lines } = arrayLogger('warn');
    const body = { command: '/docs-ask', response_url: hook.url };
    await refuseBeforeListeners(ack, body, text, { logger, failure, slackApiUrl: hook.url });
    expect(ack).toHaveBeenCalledExactlyOnceWith({ response_type: 'ephemeral', text });
    // The edge knows the kind: its word wins over the body's shape.
    await refuseBeforeListeners(ack, { response_url: hook.url }, text, {
      isCommand: true,
      logger,
      failure,
      slackApiUrl: hook.url,
    });
    expect(ack).toHaveBeenLastCalledWith({ response_type: 'ephemeral', text });
    expect(hook.received).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('a click: an empty ack, then one new ephemeral message through its response_url', async () => {
    const ack = vi.fn(async (_r?: unknown) => undefined);
    const { logger, lines } = arrayLogger('warn');
    await refuseBeforeListeners(ack, { type: 'block_actions', response_url: hook.url }, text, {
      logger,
      failure,
      slackApiUrl: hook.url,
    });
    expect(ack).toHaveBeenCalledExactlyOnceWith(undefined);
    expect(hook.received).toEqual([{ response_type: 'ephemeral', replace_original: false, text }]);
    expect(lines).toEqual([]);
  });

  it("responseUrl 'never': a click is acked and nothing is posted", async () => {
    const ack = vi.fn(async (_r?: unknown) => undefined);
    await refuseBeforeListeners(ack, { type: 'block_actions', response_url: hook.url }, text, { responseUrl: 'never' });
    expect(ack).toHaveBeenCalledExactlyOnceWith(undefined);
    expect(hook.received).toEqual([]);
  });

  it('the response_url refuses the post: one warn line, no throw', async () => {
    hook.status = 404;
    const ack = vi.fn(async (_r?: unknown) => undefined);
    const { logger, lines } = arrayLogger('warn');
    const body = { type: 'block_actions', response_url: hook.url };
    await expect(
      refuseBeforeListeners(ack, body, text, { logger, failure, slackApiUrl: hook.url }),
    ).resolves.toBeUndefined();
    expect(hook.received).toHaveLength(1);
    expect(lines.map((l) => l.msg)).toEqual([failure]);
  });

  it("never posts to a response_url that isn't Slack's, whatever guard ran before (defence in depth)", async () => {
    const ack = vi.fn(async (_r?: unknown) => undefined);
    const { logger, lines } = arrayLogger('warn');
    const body = { type: 'block_actions', response_url: hook.url };
    await refuseBeforeListeners(ack, body, text, { logger, failure, slackApiUrl: 'https://slack.com/api/' });
    expect(ack).toHaveBeenCalledExactlyOnceWith(undefined);
    expect(hook.received).toEqual([]);
    expect(lines).toEqual([]);
  });
});
