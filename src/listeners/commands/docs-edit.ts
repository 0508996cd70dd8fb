import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { startAgentJob, startJobDeps } from '../../agent-jobs/start-job.js';
import type { Deps } from '../../deps.js';

/** Usage text of `/docs-edit` (shown for an empty instruction). */
export const DOCS_EDIT_USAGE =
  'Tell me what to change in the docs, for example:\n`/docs-edit Add a quickstart for the Python SDK`\nI will start an agent job, post its status here, and reply in the thread with the pull request.';

/**
 * `/docs-edit <instruction>`: acks at once (Slack: within 3 s), then starts an agent job whose
 * status message is posted in the channel. Bad input and failures get an ephemeral answer.
 */
export function docsEditCommand(deps: Deps) {
  return async ({ command, ack, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    const instruction = command.text.trim();
    if (!instruction) {
      await ack({ response_type: 'ephemeral', text: DOCS_EDIT_USAGE });
      return;
    }
    await ack();
    const result = await startAgentJob(startJobDeps(deps, client), {
      teamId: command.team_id,
      channel: command.channel_id,
      requester: command.user_id,
      instruction,
    });
    if (!result.ok) await respond({ response_type: 'ephemeral', text: result.message });
  };
}
