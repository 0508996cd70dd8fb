import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { startAgentJob, startJobDeps } from '../../agent-jobs/start-job.js';
import type { Deps } from '../../deps.js';
import { slackErrorCode } from '../../slack/slack-errors.js';
import { decodeImproveValue } from '../../visitors/digest-blocks.js';
import { buildImproveModal, decodeImproveMetadata, INSTRUCTION_ACTION, INSTRUCTION_BLOCK } from '../../visitors/improve-modal.js';
import { visitorsServices } from '../../visitors/report-service.js';
import { getSubscription, sendDigestNow } from '../../visitors/subscriptions.js';

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/**
 * "Improve with agent" next to a falling page of a digest (block_actions
 * `visitors.digest.improve.<i>`): acks, then opens the modal with views.open (the trigger_id is
 * valid for 3 s) pre-filled with an instruction about that page. The digest's channel and ts ride
 * in the modal's private_metadata, so the job starts in the digest's thread.
 */
export function improveAction(deps: Deps) {
  return async ({ ack, body, action, client, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const page = decodeImproveValue(action.value);
    const channel = body.channel?.id ?? body.container?.channel_id;
    const ts = body.container?.message_ts ?? body.message?.ts;
    if (!page || !channel || !ts) {
      await respond({ response_type: 'ephemeral', replace_original: false, text: "This button belongs to an older digest I can't read any more." });
      return;
    }
    try {
      await client.views.open({ trigger_id: body.trigger_id, view: buildImproveModal(page, { channel, threadTs: ts, path: page.path }) });
    } catch (err) {
      visitorsServices(deps).logger.warn({ slackError: slackErrorCode(err) }, 'could not open the Improve with agent modal');
      await respond({ response_type: 'ephemeral', replace_original: false, text: 'Slack would not open the form; click the button again.' });
    }
  };
}

/**
 * Submission of the "Improve with agent" modal (view_submission `visitors_improve`): a blank
 * instruction is refused inside the modal (`response_action: errors`); otherwise the modal closes
 * and a docs agent job starts with the (edited) instruction, its status message in the digest's
 * thread. If it cannot start, the person gets an ephemeral message saying why.
 */
export function improveSubmission(deps: Deps) {
  return async ({ ack, body, view, client }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs): Promise<void> => {
    const instruction = view.state.values[INSTRUCTION_BLOCK]?.[INSTRUCTION_ACTION]?.value?.trim() ?? '';
    const meta = decodeImproveMetadata(view.private_metadata);
    if (!instruction) {
      await ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: 'Tell the agent what to change.' } });
      return;
    }
    if (!meta) {
      await ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: 'This form is out of date; open it again from the digest.' } });
      return;
    }
    await ack();
    const result = await startAgentJob(startJobDeps(deps, client), {
      teamId: body.team?.id ?? body.user.team_id ?? '',
      channel: meta.channel,
      requester: body.user.id,
      instruction,
      threadTs: meta.threadTs,
      // Several jobs may share a digest's thread: each shows its state on its own status message.
      reactOnStatusMessage: true,
    });
    if (!result.ok) {
      await client.chat.postEphemeral({ channel: meta.channel, user: body.user.id, thread_ts: meta.threadTs, text: result.message }).catch(() => undefined);
    }
  };
}

/**
 * Retry on a digest that could not be built (block_actions `visitors.digest.retry`): queues the
 * channel's digest again and edits the notice to say so.
 */
export function digestRetryAction(deps: Deps) {
  return async ({ ack, body, client, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const channel = body.channel?.id ?? body.container?.channel_id;
    const ts = body.container?.message_ts ?? body.message?.ts;
    const teamId = body.team?.id ?? body.user.team_id;
    if (!channel || !teamId) return;
    try {
      const sub = await getSubscription(deps.digestQueue, teamId, channel);
      await sendDigestNow(deps.digestQueue, { teamId, channel, requestedBy: body.user.id, tz: sub?.schedule.tz ?? deps.config.DIGEST_TZ }, deps.now());
    } catch {
      await respond({ response_type: 'ephemeral', replace_original: false, text: "I couldn't queue the digest; try again in a moment." });
      return;
    }
    if (ts) {
      const text = `:hourglass_flowing_sand: <@${body.user.id}> asked to try the weekly digest again; it is on its way.`;
      await client.chat.update({ channel, ts, text, blocks: [] }).catch(() => undefined);
    }
  };
}
