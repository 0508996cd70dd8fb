import type { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { SlackEdge, UNSURE_TEXT, type EdgeResponse } from '../../../../src/platform/slack/edge.js';
import { arrayLogger } from '../../../helpers/logs.js';

/**
 * The edge answers for a listener that has not acked within its budget (Slack waits 3 s). Such a
 * listener is most likely still recording the request, which may yet be kept: the answer must not
 * say it was not taken (a retry would start a second job).
 */
describe('the edge answering for a slow listener', () => {
  it("a /docs-edit not acked within the budget is answered 'I can't tell whether I took it', once", async () => {
    const { logger, lines } = arrayLogger();
    const edge = new SlackEdge({
      logger,
      commands: ['/docs-edit'],
      ackTimeoutMs: 20,
      slackApiUrl: 'https://slack.com/api/',
    });
    let finish!: () => void;
    const listenerDone = new Promise<void>((r) => (finish = r));
    let answered!: (r: EdgeResponse) => void;
    const reply = new Promise<EdgeResponse>((r) => (answered = r));
    const replies: EdgeResponse[] = [];
    // A listener still recording: it acks only once the test lets it, long after the budget.
    edge.init({
      processEvent: async ({ ack }: { ack: () => Promise<void> }) => {
        await listenerDone;
        await ack();
      },
    } as unknown as App);
    const body = {
      command: '/docs-edit',
      text: 'Add a quickstart',
      user_id: 'U0ALICE',
      channel_id: 'C0DOCS',
      team_id: 'T0SANDBOX',
      trigger_id: 'trig-slow',
      response_url: 'https://hooks.slack.com/commands/T0SANDBOX/1/x',
    };
    const handled = edge.handle(body, {}, (r) => {
      replies.push(r);
      answered(r);
    });
    expect(await reply).toEqual({ status: 200, body: { response_type: 'ephemeral', text: UNSURE_TEXT } });
    finish();
    await handled;
    expect(replies).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'no ack within the budget; answered for the listener')).toHaveLength(1);
  });
});
