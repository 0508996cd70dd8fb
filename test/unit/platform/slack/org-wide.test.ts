import { describe, expect, it } from 'vitest';
import { withRequestContext } from '../../../../src/platform/request-context.js';
import { requestTeamId, withRequestTeam } from '../../../../src/platform/slack/org-wide.js';

describe('org-wide installs: the workspace of the request', () => {
  it('is read from events, commands and interactions; an enterprise id or a null team is no workspace', () => {
    expect(requestTeamId({ team_id: 'E0ORG', context_team_id: 'T0B', type: 'event_callback' })).toBe('T0B');
    expect(requestTeamId({ team_id: 'T0A', command: '/docs-edit' })).toBe('T0A');
    expect(requestTeamId({ type: 'block_actions', team: { id: 'T0B' } })).toBe('T0B');
    expect(requestTeamId({ type: 'view_submission', team: null, user: { team_id: 'T0C' } })).toBe('T0C');
    expect(requestTeamId({ team_id: null, enterprise_id: 'E0ORG', event: { type: 'team_access_granted' } })).toBe(
      undefined,
    );
    expect(requestTeamId({ team_id: 'E0ORG' })).toBeUndefined();
  });

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
