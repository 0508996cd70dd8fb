import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { CANNOT_POST, slackErrorCode } from '../../slack/slack-errors.js';
import { decodePageState } from '../../visitors/paging-value.js';
import { buildReportErrorMessage, loadReport, visitorsServices } from '../../visitors/report-service.js';
import { INVITE_FIRST } from './docs-visitors.js';

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/** Answer to a button whose value can't be read (an old or tampered message). */
export const STALE_BUTTON = 'This button belongs to an older report I can no longer read; run `/docs-visitors` again.';

function where(body: BlockAction): { channel?: string; ts?: string } {
  return { channel: body.channel?.id ?? body.container?.channel_id, ts: body.container?.message_ts ?? body.message?.ts };
}

/**
 * Previous / Next on a report (block_actions `visitors.page.previous` / `visitors.page.next`):
 * acks at once, reads the whole query from the button's value (no session: any replica, any
 * clicker), fetches the neighbouring page through the cache and edits the message in place with
 * chat.update. On failure the clicker gets an ephemeral note with a Retry button; the report stays.
 */
export function pageAction(deps: Deps) {
  return async ({ ack, body, action, client, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const svc = visitorsServices(deps);
    const state = decodePageState(action.value);
    const { channel, ts } = where(body);
    if (!state || !channel || !ts) {
      await respond({ response_type: 'ephemeral', replace_original: false, text: STALE_BUTTON });
      return;
    }
    const loaded = await loadReport(svc, state);
    if (!loaded.ok) {
      const msg = buildReportErrorMessage(loaded.text, { ...state, messageTs: ts }, loaded.retryable);
      await client.chat.postEphemeral({ channel, user: body.user.id, ...msg }).catch(() => respond({ response_type: 'ephemeral', replace_original: false, ...msg }));
      return;
    }
    try {
      await client.chat.update({ channel, ts, text: loaded.message.text, blocks: loaded.message.blocks });
    } catch (err) {
      svc.logger.warn({ slackError: slackErrorCode(err), channel }, 'could not edit a visitors report');
      await respond({ response_type: 'ephemeral', replace_original: false, text: 'Slack would not let me edit the report; run `/docs-visitors` again.' });
    }
  };
}

/**
 * Retry on a failed report (block_actions `visitors.report.retry`, on an ephemeral message): loads
 * the report again; on success edits the report it belongs to (`messageTs` in the value) or posts a
 * new one, and removes the ephemeral note; on failure replaces the note with the new reason.
 */
export function retryAction(deps: Deps) {
  return async ({ ack, body, action, client, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const svc = visitorsServices(deps);
    const state = decodePageState(action.value);
    const { channel } = where(body);
    if (!state || !channel) {
      await respond({ response_type: 'ephemeral', replace_original: true, text: STALE_BUTTON });
      return;
    }
    const { messageTs, ...query } = state;
    const loaded = await loadReport(svc, { ...query, requester: query.requester ?? body.user.id });
    if (!loaded.ok) {
      await respond({ response_type: 'ephemeral', replace_original: true, ...buildReportErrorMessage(loaded.text, state, loaded.retryable) });
      return;
    }
    try {
      if (messageTs) await client.chat.update({ channel, ts: messageTs, text: loaded.message.text, blocks: loaded.message.blocks });
      else await client.chat.postMessage({ channel, text: loaded.message.text, blocks: loaded.message.blocks, unfurl_links: false, unfurl_media: false });
    } catch (err) {
      const code = slackErrorCode(err);
      await respond({
        response_type: 'ephemeral',
        replace_original: true,
        text: code && CANNOT_POST.has(code) ? INVITE_FIRST : 'Slack would not take the report; try again in a moment.',
      });
      return;
    }
    await respond({ delete_original: true });
  };
}
