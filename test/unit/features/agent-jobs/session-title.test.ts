import { describe, expect, it } from 'vitest';
import { newJobRecord, sessionTitle } from '../../../../src/features/agent-jobs/job-record.js';

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
    expect(sessionTitle({ instruction: 'Ping <!everyone> about https://evil.example' })).not.toMatch(
      /<!everyone>|https:\/\/evil/,
    );
  });

  it('is the same from the start request and from the record a follow-up reads, never half an emoji; words no one can see leave the instruction', () => {
    const about = `"${'z'.repeat(146)}🚀🚀" · 5 searches`;
    const req = { instruction: 'Find out', about };
    const rec = newJobRecord(
      { teamId: 'T0TEST', channel: 'C0DOCS', requester: 'U0ALICE', ...req },
      { jobId: 'job_1', projectId: 'proj', threadTs: '1.1', statusTs: '1.2', now: 0 },
    );
    expect(sessionTitle(rec)).toBe(sessionTitle(req));
    expect(sessionTitle(req)).not.toContain('\uFFFD');
    expect(sessionTitle(req).length).toBeLessThanOrEqual(200);
    expect(sessionTitle({ instruction: 'Put the steps in tabs', about: '\u200b\u200e' })).toBe('Put the steps in tabs');
  });
});
