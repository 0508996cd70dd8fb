import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { startAgentJob, startJobDeps } from '../../agent-jobs/start-job.js';
import type { Deps } from '../../deps.js';
import { unescapeSlackText } from '../../slack/markup-to-text.js';

/** Usage text of `/docs-edit` (shown for an empty instruction). */
export const DOCS_EDIT_USAGE =
  'Tell me what to change in the docs, for example:\n`/docs-edit Add a quickstart for the Python SDK`\nI will start an agent job, post its status here, and reply in the thread with the pull request.';

/**
 * `/docs-edit <instruction>`: acks at once (Slack: within 3 s), then starts an agent job whose
 * status message is posted in the channel. The instruction is trimmed and Slack's escaping undone
 * (`&lt;Tabs&gt;` → `<Tabs>`), otherwise sent as typed. Bad input and failures get an ephemeral
 * answer.
 */
export function docsEditCommand(deps: Deps) {
  return async ({ command, ack, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    if (!command.text.trim()) {
      await ack({ response_type: 'ephemeral', text: DOCS_EDIT_USAGE });
      return;
    }
    await ack();
    // Trimmed, otherwise as typed: only Slack's own escaping of & < > is undone (should_escape is
    // false in the manifest, so mentions and links arrive as typed).
    const instruction = unescapeSlackText(command.text).trim();
    const result = await startAgentJob(startJobDeps(deps, client), {
      teamId: command.team_id,
      channel: command.channel_id,
      requester: command.user_id,
      instruction,
    });
    if (!result.ok) await respond({ response_type: 'ephemeral', text: result.message });
  };
}
