import { describe, expect, it } from 'vitest';
import { refusedPostProblem } from '../../../../src/features/ask/experts-broken.js';
import { REPLY_UNKNOWN_TEXT } from '../../../../src/features/ask/document-answer.js';
import { NO_EXPERTS_TEXT } from '../../../../src/features/ask/experts.js';
import { OLDER_DIGEST_TEXT } from '../../../../src/features/reports/digests/listeners.js';

describe("what a person reads when the docs team can't be asked", () => {
  it('a failed mention of a user group is told for this channel (invite me back), not as a channel to replace', () => {
    const group = { kind: 'usergroup' as const, id: 'S0DOCS' };
    expect(refusedPostProblem(group, 'not_in_channel')).toBe(
      "I mention <!subteam^S0DOCS> in this channel's thread, and I'm no longer in this channel: invite me back (`/invite @Docs Agent`).",
    );
    expect(refusedPostProblem(group, 'is_archived')).toBe(
      "I mention <!subteam^S0DOCS> in this channel's thread, and this channel is archived: ask in another channel.",
    );
    expect(refusedPostProblem(group, 'restricted_action')).toBe(
      "I mention <!subteam^S0DOCS> in this channel's thread, and Slack doesn't let me post here (restricted_action): " +
        'name a channel as the docs team instead (`/docs-settings experts #channel`).',
    );
    for (const code of ['not_in_channel', 'channel_not_found', 'is_archived', 'restricted_action', undefined])
      expect(refusedPostProblem(group, code)).not.toMatch(/name another channel/);
    // A channel team keeps its channel advice.
    expect(refusedPostProblem({ kind: 'channel', id: 'C0EXPERTS' }, 'is_archived')).toBe(
      '<#C0EXPERTS> is archived: name another channel.',
    );
  });

  it('names the docs team the way /docs-settings and its usage hint take it', () => {
    expect(NO_EXPERTS_TEXT).toBe(
      'No docs team is set for this channel, so I asked no one. An admin names one with `/docs-settings experts #channel|@usergroup`.',
    );
  });
});

describe('answers that used to end with no next step', () => {
  it('a reply no longer kept, and a button of an older digest, say what to do instead', () => {
    expect(REPLY_UNKNOWN_TEXT).toBe(
      "I don't have that reply any more (replies are kept for 7 days), so there is nothing to quote. " +
        'To add it to the docs, start a job with /docs-edit and paste the answer into it.',
    );
    expect(OLDER_DIGEST_TEXT).toBe(
      "This button belongs to an older digest I can't read any more: use the button on a newer digest, or start a job with `/docs-edit`.",
    );
  });
});
