import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { continueAgentJob, continueJobDeps } from '../../agent-jobs/continue-job.js';
import type { Deps } from '../../deps.js';
import { quote } from '../../slack/limits.js';
import { markupToText } from '../../slack/markup-to-text.js';
import { threadPermalink } from '../../slack/permalink.js';
import { userNameLookup } from '../../slack/user-names.js';

/** Usage of `/docs-reply`. */
export const DOCS_REPLY_USAGE =
  'Continue a job from the channel with `/docs-reply <job-id> <instruction>`, for example:\n`/docs-reply job_abc123 Also add a Go example`\nThe job id is on the job\'s status message. (Slack does not run slash commands inside threads, so in a thread just reply.)';

/**
 * `/docs-reply <job-id> <instruction>`: sends the follow-up, posts a note in the job's thread
 * ("@user continued this job from the channel: …"), and answers the person ephemerally with a link
 * to that thread. Unknown ids and missing instructions get an ephemeral answer and no API call.
 */
export function docsReplyCommand(deps: Deps) {
  return async ({ command, ack, respond, client, context }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    const [jobId = '', ...rest] = command.text.trim().split(/\s+/);
    const raw = command.text.trim().slice(jobId.length).trim();
    if (!jobId || rest.length === 0 || !raw) {
      await ack({ response_type: 'ephemeral', text: DOCS_REPLY_USAGE });
      return;
    }
    await ack();
    const prompt = await markupToText(raw, context.botUserId, userNameLookup(client));
    const res = await deps.followups.run(jobId, () =>
      continueAgentJob(continueJobDeps(deps), { jobId, author: command.user_id, prompt, fromChannel: command.channel_id }),
    );
    if (!res.ok) {
      await respond({ response_type: 'ephemeral', text: res.message });
      return;
    }
    const rec = res.rec;
    await client.chat
      .postMessage({
        channel: rec.channel,
        thread_ts: rec.threadTs,
        text: `<@${command.user_id}> continued this job from the channel:\n${quote(prompt, 2800)}`,
        unfurl_links: false,
      })
      .catch((err: unknown) => deps.logger.warn({ err: { message: (err as Error).message } }, 'could not post the /docs-reply note'));
    const link = await threadPermalink(client, deps.store, rec);
    await respond({
      response_type: 'ephemeral',
      text: `Sent your follow-up to job \`${jobId}\`. I'll reply in ${link ? `<${link}|its thread>` : 'its thread'} when the agent is done.`,
    });
  };
}
