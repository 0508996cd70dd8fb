/**
 * The sandbox script's asking part: @alice asks the docs with `/docs-ask`, the answer streams into
 * the question's thread with its sources, @bob follows up in the thread (the same assistant
 * conversation), a question the docs don't cover becomes a pull request through Document this, and
 * for one exchange the channel is a question channel (`/docs-settings answer-all on`).
 */
import type { Printer } from './agent-view-script.js';
import type { FakeDocsApi } from './fake-docs-api.js';
import type { FakeSlack, SlackMessage } from './fake-slack.js';
import type { SandboxDriver } from './socket-as-http.js';

/** What the scene plays on. */
export interface AskSceneSandbox {
  slack: FakeSlack;
  docs: FakeDocsApi;
  driver: SandboxDriver;
}

/** The bot's finished answers in a thread (they end with the answer's buttons). */
function answers(slack: FakeSlack, threadTs: string): SlackMessage[] {
  return slack.messages.filter(
    (m) =>
      m.thread_ts === threadTs &&
      m.bot_id &&
      !m.ephemeralTo &&
      JSON.stringify(m.blocks ?? []).includes('"ask.feedback"'),
  );
}

/** Plays the asking scene in `channel`. */
export async function askScene(sb: AskSceneSandbox, p: Printer, channel: string): Promise<void> {
  p.say(`@alice in #docs: /docs-ask How do I rotate an API key?`);
  await sb.driver.slashCommand({ command: '/docs-ask', text: 'How do I rotate an API key?', user: 'U0ALICE', channel });
  const question = await sb.slack.waitFor(
    () => sb.slack.messages.find((m) => m.channel === channel && m.bot_id && m.text.includes('asked the docs')),
    10_000,
  );
  await sb.slack.waitFor(() => answers(sb.slack, question.ts).length > 0, 30_000);
  const streamed = sb.slack.calls.filter((c) => c.method === 'chat.appendStream').length;
  const methods = streamed > 0 ? 'chat.startStream, appendStream, stopStream' : 'chat.startStream, stopStream';
  p.say(p.dim(`  …the bot posted the question and streamed the answer into its thread (${methods}), with its sources`));
  p.say(`@bob replies in that thread (no mention): and how long does the old one keep working?`);
  await sb.driver.message({
    channel,
    user: 'U0BOB',
    thread_ts: question.ts,
    text: 'and how long does the old one keep working?',
  });
  await sb.slack.waitFor(() => answers(sb.slack, question.ts).length > 1, 30_000);
  p.say(p.dim('  …answered in the same assistant conversation (its thread id and key stay in Redis for 7 days)'));
  p.say(`@alice in #docs: @Docs Agent how do I configure a custom domain for the status page?`);
  const ask = await sb.driver.appMention({
    channel,
    user: 'U0ALICE',
    text: '<@U0DOCSBOT> how do I configure a custom domain for the status page?',
  });
  const [unanswered] = await sb.slack.waitFor(
    () => (answers(sb.slack, ask.ts).length > 0 ? answers(sb.slack, ask.ts) : undefined),
    30_000,
  );
  p.say(
    p.dim(
      '  …a question (the mention rule), answered in its thread: ' +
        "the docs don't cover it, so the answer offers Document this",
    ),
  );
  p.say(`@alice clicks [ Document this ] and then [ Start job ]`);
  const views = sb.slack.views.length;
  await sb.driver.blockAction({
    user: 'U0ALICE',
    channel,
    messageTs: unanswered!.ts,
    actionId: 'ask.document',
    threadTs: ask.ts,
  });
  const modal = await sb.slack.waitFor(
    () => sb.slack.views.slice(views).find((v) => v.view.callback_id === 'ask_document'),
    10_000,
  );
  const blocks = modal.view.blocks as Array<{ element?: { initial_value?: string } }>;
  const instruction = blocks.find((b) => b.element?.initial_value)?.element?.initial_value ?? 'Document this.';
  await sb.driver.viewSubmission({
    user: 'U0ALICE',
    view: {
      callback_id: 'ask_document',
      private_metadata: modal.view.private_metadata as string,
      state: { values: { instruction: { instruction: { type: 'plain_text_input', value: instruction } } } },
    },
  });
  await sb.slack.waitFor(
    () => sb.slack.messages.some((m) => m.thread_ts === ask.ts && m.bot_id && m.text.includes('pull')),
    30_000,
  );
  // The state reaction lands with the throttled status edit; the transcript is right without it too.
  await sb.slack
    .waitFor(
      () => sb.slack.messages.some((m) => m.thread_ts === ask.ts && m.reactions.includes('white_check_mark')),
      10_000,
    )
    .catch(() => undefined);
  p.say(
    p.dim(
      '  …the form was filled from the question; ' +
        'the job ran in the same thread and its pull request was announced there',
    ),
  );
  await questionChannelExchange(sb, p, channel);
}

/** @dana makes `channel` a question channel, @bob posts a plain question and it is answered in its thread; then off again. */
async function questionChannelExchange(sb: AskSceneSandbox, p: Printer, channel: string): Promise<void> {
  const settings = async (text: string, said: string) => {
    await sb.driver.slashCommand({ command: '/docs-settings', text, user: 'U0ADMIN', channel });
    await sb.slack.waitFor(() => sb.slack.messages.find((m) => m.channel === channel && m.text.includes(said)), 10_000);
  };
  p.say('@dana (a workspace admin) in #docs: /docs-settings answer-all on');
  await settings('answer-all on', 'answer-all: every new message');
  p.say('@bob in #docs (no mention): How do I verify a webhook signature?');
  const q = await sb.driver.message({ channel, user: 'U0BOB', text: 'How do I verify a webhook signature?' });
  await sb.slack.waitFor(() => answers(sb.slack, q.ts).length > 0, 30_000);
  p.say(p.dim('  …a question channel: the message was answered in its thread, with its sources, like a mention'));
  await settings('answer-all off', 'answer-all: only mentions');
  p.say(p.dim('  …and @dana turned it off again: only mentions, DMs and /docs-ask are answered'));
}
