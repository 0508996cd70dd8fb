/** Block Kit of a start (pure builders): the notice of a start whose fate is unknown, with "Start it again". */
import type { KnownBlock } from '@slack/types';
import { SLACK_LIMITS, quote, truncate } from '../../../platform/slack/limits.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';

/** `action_id` of "Start it again" on the notice of an uncertain start. */
export const ACTION_RESTART = 'agent_jobs.restart';

/** What "Start it again" values are signed for (src/platform/slack/signed-value.ts). */
export const RESTART_PURPOSE = 'agent-jobs.restart';

/**
 * The one thread reply after an uncertain start (the bot was stopped while the create request was
 * in flight, and the docs API has no way to ask): the instruction, and "Start it again", which
 * carries `restartId` signed ({@link RESTART_PURPOSE}; ≤ 200 + 26 chars; Slack: button value ≤ 2000).
 */
export function buildUncertainNotice(
  p: { requester: string; instruction: string; restartId: string },
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  const head = `<@${p.requester}> I lost the answer to the request that starts your docs job (I was stopped, or the docs service did not answer in time), and the docs service can't tell me whether it started. If no job or pull request shows up on the docs platform, start it again:`;
  const text = truncate(`${head}\n${quote(p.instruction, 2000)}`, SLACK_LIMITS.sectionText);
  const label = { type: 'plain_text' as const, text: 'Start it again' };
  const value = signer.sign(RESTART_PURPOSE, p.restartId);
  const again = { type: 'button' as const, text: label, action_id: ACTION_RESTART, value };
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      { type: 'actions', elements: [again] },
    ],
  };
}
