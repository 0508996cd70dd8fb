import { describe, expect, it } from 'vitest';
import { withRequestContext } from '../../../../src/platform/request-context.js';
import { withRequestTeam } from '../../../../src/platform/slack/org-wide.js';

describe('org-wide installs: team_id for the methods that need it', () => {
  it("gives the methods Slack lists the request's team_id, and leaves the others and a caller's own team_id alone", () => {
    withRequestContext({ requestId: 'r1', teamId: 'T0B' }, () => {
      expect(withRequestTeam('users.conversations', { user: 'W1' })).toEqual({ user: 'W1', team_id: 'T0B' });
      expect(withRequestTeam('usergroups.users.list', { usergroup: 'S1' })).toEqual({
        usergroup: 'S1',
        team_id: 'T0B',
      });
      expect(withRequestTeam('users.conversations', { user: 'W1', team_id: 'T0A' })).toEqual({
        user: 'W1',
        team_id: 'T0A',
      });
      expect(withRequestTeam('chat.postMessage', { channel: 'C1' })).toEqual({ channel: 'C1' });
    });
    expect(withRequestTeam('users.conversations', { user: 'W1' })).toEqual({ user: 'W1' });
  });
});
