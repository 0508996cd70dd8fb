import type { RecordedView } from '../../sandbox/fake-slack.js';
import type { DriverResponse, SlackDriver } from '../../sandbox/slack-driver.js';
import type { Sandbox } from './sandbox.js';

/**
 * `user` clicks `actionId` under the bot's answer `answerTs` in the thread `threadTs` of #docs:
 * Document this (`ask.document`, the default) or Make this a docs change (`ask.change`, which
 * opens the same form for anyone but the asker). Returns the bot's HTTP answer to the click and
 * the Document this form (callback_id `ask_document`) opened after it; rejects when none opens
 * within 5 s.
 */
export async function openDocumentThis(
  sb: Sandbox,
  driver: SlackDriver,
  p: { user: string; answerTs: string; threadTs: string; actionId?: 'ask.document' | 'ask.change' },
): Promise<{ click: DriverResponse; modal: RecordedView }> {
  const viewsBefore = sb.slack.views.length;
  const click = await driver.blockAction({
    user: p.user,
    channel: 'C0DOCS',
    messageTs: p.answerTs,
    actionId: p.actionId ?? 'ask.document',
    threadTs: p.threadTs,
  });
  const modal = await sb.slack.waitFor(
    () => sb.slack.views.slice(viewsBefore).find((v) => v.kind === 'modal' && v.view.callback_id === 'ask_document'),
    5_000,
  );
  return { click, modal };
}

/**
 * `user` submits the Document this form `modal` (from {@link openDocumentThis}) with `instruction`
 * in its one input, as Slack posts a `view_submission`; returns the bot's HTTP answer.
 */
export function submitDocumentThis(
  driver: SlackDriver,
  user: string,
  modal: RecordedView,
  instruction: string,
): Promise<DriverResponse> {
  return driver.viewSubmission({
    user,
    view: {
      callback_id: 'ask_document',
      private_metadata: modal.view.private_metadata as string,
      state: { values: { instruction: { instruction: { type: 'plain_text_input', value: instruction } } } },
    },
  });
}
