import { describe, expect, it } from 'vitest';
import { answerBlocks, PURPOSE } from '../../../../src/features/ask/blocks.js';
import { expectSlackTakesMessage } from '../../../helpers/block-kit.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';

const base = { answerId: 'abcdef0123456789', asker: 'U0ALICE', siteUrl: undefined, signer: TEST_SIGNER };
const page = { path: '/v2/workspaces', title: 'Workspaces (v2)', content: '', metadata: {} };
const buttons = (blocks: unknown[]) =>
  blocks.flatMap((b) => (b as { elements?: Array<{ action_id?: string }> }).elements ?? []).map((e) => e.action_id);

describe("an answer's blocks: the docs team and the scope", () => {
  it('offers Ask the docs team only under an unanswered answer in a channel with a docs team, signed for it', () => {
    const withTeam = answerBlocks({ ...base, pages: [], unanswered: true, experts: true });
    expectSlackTakesMessage({ blocks: withTeam });
    expect(buttons(withTeam)).toEqual(['ask.document', 'ask.experts', 'ask.feedback']);
    const value = (withTeam[0] as { elements: Array<{ value: string }> }).elements[1]!.value;
    expect(TEST_SIGNER.open(PURPOSE.experts, value)).toEqual({ ok: true, payload: base.answerId });
    expect(buttons(answerBlocks({ ...base, pages: [], unanswered: true }))).not.toContain('ask.experts');
    expect(buttons(answerBlocks({ ...base, pages: [page], unanswered: false, experts: true }))).not.toContain(
      'ask.experts',
    );
  });

  it('offers one way to a docs change: Make this a docs change under an answer, Document this (a form) where the docs had nothing', () => {
    expect(buttons(answerBlocks({ ...base, pages: [page], unanswered: false }))).toEqual([
      'ask.change',
      'ask.feedback',
    ]);
    expect(buttons(answerBlocks({ ...base, pages: [], unanswered: true }))).toEqual(['ask.document', 'ask.feedback']);
  });

  it('names the channel’s docs scope under the sources, its values inert', () => {
    const blocks = answerBlocks({
      ...base,
      pages: [page],
      unanswered: false,
      scope: { version: 'v2', groups: ['<!here>'] },
    });
    expectSlackTakesMessage({ blocks });
    const json = JSON.stringify(blocks);
    expect(json).toContain("Answered from this channel's docs scope: version `v2`, groups `&lt;!here&gt;`.");
    expect(JSON.stringify(answerBlocks({ ...base, pages: [page], unanswered: false }))).not.toContain('docs scope');
  });
});
