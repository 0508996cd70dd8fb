import { describe, expect, it } from 'vitest';
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
