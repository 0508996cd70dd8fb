/** Block Kit of a start (pure builders): the notice of a start whose fate is unknown, with "Start it again". */
import type { KnownBlock } from '@slack/types';
import { SLACK_LIMITS, escapeMrkdwn, truncate } from '../../../platform/slack/limits.js';
import { quoteReaderText } from '../../../platform/slack/markup.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';

/** `action_id` of "Start it again" on the notice of an uncertain start. */
export const ACTION_RESTART = 'agent_jobs.restart';

/** What "Start it again" values are signed for (src/platform/slack/signed-value.ts). */
export const RESTART_PURPOSE = 'agent-jobs.restart';

/** The label of the button and of its confirmation's confirm button (one name for the one act). */
const RESTART_LABEL = 'Start it again';

/**
 * The confirmation Slack shows before "Start it again" acts (Block Kit confirmation dialog object:
 * plain_text `title` ≤ 100, `text` ≤ 300, `confirm` and `deny` ≤ 30 characters).
 */
export const RESTART_CONFIRM = {
  title: { type: 'plain_text' as const, text: 'A job may already be running' },
  text: {
    type: 'plain_text' as const,
    text: "Starting again always makes a new job; if the first went through, you'll have two. Check the docs platform for a job or pull request with this instruction first.",
  },
  confirm: { type: 'plain_text' as const, text: RESTART_LABEL },
  deny: { type: 'plain_text' as const, text: 'Cancel' },
};

/**
 * The one thread reply after an uncertain start (the bot was stopped while the create request was
 * in flight, and the docs API has no way to ask): says plainly that a job may already be running,
 * that the bot won't report it here or list it in App Home, and where to look (the docs platform's
 * jobs and pull requests, in the project it names); then the instruction, and "Start it again"
 * behind a confirmation ({@link RESTART_CONFIRM}), which carries `restartId` signed
 * ({@link RESTART_PURPOSE}; ≤ 200 + 26 chars; Slack: button value ≤ 2000).
 */
export function buildUncertainNotice(
  p: { requester: string; instruction: string; restartId: string; projectId?: string },
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  const where = p.projectId ? ` in project \`${escapeMrkdwn(p.projectId)}\`` : '';
  const head =
    `<@${p.requester}> I lost the answer to the request that starts your docs job (I was stopped, or the docs service did not answer in time), and the docs service can't tell me whether it started. ` +
    `*A job may already be running*: if so, I won't report its end here and it won't be in my App Home. ` +
    `Look on the docs platform for an agent job or a new pull request${where} with this instruction; only if there is none, start it again. Starting again always makes a new job; if the first went through, you'll have two:`;
  const text = truncate(`${head}\n${quoteReaderText(p.instruction, 2000)}`, SLACK_LIMITS.sectionText);
  const label = { type: 'plain_text' as const, text: RESTART_LABEL };
  const value = signer.sign(RESTART_PURPOSE, p.restartId);
  const again = { type: 'button' as const, text: label, action_id: ACTION_RESTART, value, confirm: RESTART_CONFIRM };
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      { type: 'actions', elements: [again] },
    ],
  };
}
