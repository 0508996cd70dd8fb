import { describe, expect, it } from 'vitest';
import { sessionTitle } from '../../../../src/features/agent-jobs/job-record.js';

/** An agent session's title (Slack: agents.sessions.setStatus `title`, a string of at most 200 characters). */
describe("a job's agent session title", () => {
  it('is the About line when there is one, else the instruction; never the prompt', () => {
    expect(sessionTitle({ instruction: 'Find out what readers wanted', about: '"sso saml" · 263 searches' })).toBe(
      '"sso saml" · 263 searches',
    );
    expect(sessionTitle({ instruction: 'Put the install steps in tabs', about: '  ' })).toBe(
      'Put the install steps in tabs',
    );
  });

  it("is inert whoever's words it is: no mention, broadcast, link or formatting can form, shown plain or as mrkdwn", () => {
    const about =
      '"<!channel> <!here|x> <!subteam^S0123ABC> <@U0ALICE> <https://evil.example|free> *now*" · 5 searches';
    const title = sessionTitle({ instruction: 'x', about });
    expect(title).not.toMatch(/[<>*]/);
    expect(title).not.toContain('evil.example');
    expect(title).toContain('‹!channel›');
    expect(title.length).toBeLessThanOrEqual(150);
    expect(sessionTitle({ instruction: 'Ping <!everyone> about https://evil.example' })).not.toMatch(
      /<!everyone>|https:\/\/evil/,
    );
  });
});
