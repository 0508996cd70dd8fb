import { describe, expect, it, vi } from 'vitest';
import { responseUrlGuard } from '../../../../src/platform/slack/response-url-guard.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { responseUrlAllowed } from '../../../../src/platform/slack/respond.js';

describe('responseUrlAllowed: the bot posts only to Slack or to the configured Slack API origin', () => {
  const slackApi = 'https://slack.com/api/';
  it("accepts Slack's hooks host over https", () => {
    expect(responseUrlAllowed('https://hooks.slack.com/commands/T1/123/abc', slackApi)).toBe(true);
    expect(responseUrlAllowed('https://hooks.slack.com/actions/T1/123/abc', slackApi)).toBe(true);
  });

  it('accepts the origin of SLACK_API_URL (a proxy, the fakes) and nothing else there', () => {
    const fake = 'http://127.0.0.1:4567/api/';
    expect(responseUrlAllowed('http://127.0.0.1:4567/response/rurl-1', fake)).toBe(true);
    expect(responseUrlAllowed('http://127.0.0.1:4568/response/rurl-1', fake)).toBe(false);
    expect(responseUrlAllowed('http://localhost:4567/response/rurl-1', fake)).toBe(false);
  });

  it.each([
    ['another host', 'https://evil.example/commands/x'],
    ['a look-alike host', 'https://hooks.slack.com.evil.example/commands/x'],
    ['a sub-domain of Slack that is not the hooks host', 'https://files.slack.com/x'],
    ["http to Slack's host", 'http://hooks.slack.com/commands/x'],
    ["another port on Slack's host", 'https://hooks.slack.com:8443/commands/x'],
    ['credentials in the URL', 'https://user:pw@hooks.slack.com/commands/x'],
    ['not a URL', 'hooks.slack.com/commands/x'],
    ['http localhost (no longer a special case)', 'http://localhost:3000/x'],
  ])('refuses %s', (_what, url) => {
    expect(responseUrlAllowed(url, slackApi)).toBe(false);
  });
});

describe('the response_url guard (middleware)', () => {
  it('a command whose response_url is not a URL at all: refused in the ack, no listener runs, the warning says "not a URL" (not the value)', async () => {
    const { logger, lines } = arrayLogger('warn');
    const ack = vi.fn(async () => undefined);
    const next = vi.fn(async () => undefined);
    const body = { command: '/docs-settings', text: 'show', response_url: 'javascript:alert(1)//not-a-url-secret' };
    await responseUrlGuard('https://slack.com/api/', logger)({ body, ack, next } as never);
    expect(next).not.toHaveBeenCalled();
    expect(ack).toHaveBeenCalledWith({
      response_type: 'ephemeral',
      text: "This request came with a reply address that isn't Slack's, so I didn't act on it.",
    });
    expect(lines).toEqual([
      expect.objectContaining({ msg: "refused a request whose response_url is not Slack's", responseUrlHost: '' }),
    ]);
    const unparsable = { command: '/docs-settings', response_url: 'hooks.slack.com/commands/x' };
    await responseUrlGuard('https://slack.com/api/', logger)({ body: unparsable, ack, next } as never);
    expect(lines[1]).toMatchObject({ responseUrlHost: 'not a URL' });
    expect(JSON.stringify(lines)).not.toContain('secret');
  });
});
