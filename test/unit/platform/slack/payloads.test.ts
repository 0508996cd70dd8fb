import { describe, expect, it } from 'vitest';
import { requestTeamId } from '../../../../src/platform/slack/payloads.js';

describe('the workspace of a request (org-wide installs)', () => {
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
});
