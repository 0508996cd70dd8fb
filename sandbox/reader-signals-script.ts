/**
 * The sandbox script's "what readers couldn't find" part: @alice runs the searches and feedback
 * reports, asks for this channel's digest (with its "What readers couldn't find" section), and @bob
 * turns a search nobody clicked through into a pull request with Improve with agent (the modal,
 * pre-filled and fenced, then the job in the report's thread).
 */
import type { Printer } from './agent-view-script.js';
import type { FakeDocsApi } from './fake-docs-api.js';
import type { FakeSlack, SlackMessage } from './fake-slack.js';
import type { SandboxDriver } from './socket-as-http.js';
import { renderBlocks } from './transcript.js';

/** What the scene plays on. */
export interface ReaderSignalsSandbox {
  slack: FakeSlack;
  docs: FakeDocsApi;
  driver: SandboxDriver;
}

/** The bot's top-level messages in `channel` whose fallback text starts with `title`. */
function posted(slack: FakeSlack, channel: string, title: string): SlackMessage[] {
  return slack.messages.filter(
    (m) =>
      m.channel === channel && m.bot_id && !m.thread_ts && !m.ephemeralTo && !m.deleted && m.text.startsWith(title),
  );
}

async function report(
  sb: ReaderSignalsSandbox,
  p: Printer,
  channel: string,
  words: string,
  title: string,
): Promise<SlackMessage> {
  p.say(`@alice in #docs: /docs-visitors ${words}`);
  const before = posted(sb.slack, channel, title).length;
  await sb.driver.slashCommand({ command: '/docs-visitors', text: words, user: 'U0ALICE', channel });
  return sb.slack.waitFor(() => posted(sb.slack, channel, title)[before], 10_000);
}

/** The first "Improve with agent" of a message that offers one on a signal. */
function improveButton(m: SlackMessage): string | undefined {
  const blocks = (m.blocks ?? []) as { accessory?: { action_id?: string } }[];
  return blocks.find((b) => b.accessory?.action_id?.startsWith('visitors.signal.improve.'))?.accessory?.action_id;
}

/** The analytics requests the fake docs API served so far. */
const analyticsCalls = (docs: FakeDocsApi) => docs.requests.filter((r) => r.path.includes('/v1/analytics/')).length;

/** Plays the scene in `channel`. */
export async function readerSignalsScene(sb: ReaderSignalsSandbox, p: Printer, channel: string): Promise<void> {
  let calls = analyticsCalls(sb.docs);
  const searches = await report(sb, p, channel, 'searches last-week', 'Docs searches');
  p.say(
    p.dim(
      '  …the top search terms, and those searched often that nobody clicked through, each with ' +
        `[ Improve with agent ] (${analyticsCalls(sb.docs) - calls} analytics call)`,
    ),
  );
  calls = analyticsCalls(sb.docs);
  await report(sb, p, channel, 'feedback last-week', 'Docs feedback');
  p.say(
    p.dim(
      "  …pages by 👎 with their latest comments, readers' words shown as plain text " +
        `(${analyticsCalls(sb.docs) - calls} analytics calls)`,
    ),
  );
  calls = analyticsCalls(sb.docs);
  p.say(`@alice in #docs: /docs-visitors digest`);
  const digests = posted(sb.slack, channel, 'Weekly docs digest').length;
  await sb.driver.slashCommand({ command: '/docs-visitors', text: 'digest', user: 'U0ALICE', channel });
  await sb.slack.waitFor(() => posted(sb.slack, channel, 'Weekly docs digest')[digests], 20_000);
  p.say(
    p.dim(
      `  …this channel's digest, with "What readers couldn't find" after the visitors ` +
        `(${analyticsCalls(sb.docs) - calls} analytics calls for all of it)`,
    ),
  );
  await improveSearch(sb, p, channel, searches);
}

/** @bob clicks Improve on a search nobody clicked through: modal, job in the report's thread, pull request. */
async function improveSearch(
  sb: ReaderSignalsSandbox,
  p: Printer,
  channel: string,
  searches: SlackMessage,
): Promise<void> {
  const actionId = improveButton(searches);
  if (!actionId) return;
  p.say(`@bob clicks [ Improve with agent ] next to the first search nobody clicked through`);
  const views = sb.slack.views.length;
  await sb.driver.blockAction({ user: 'U0BOB', channel, messageTs: searches.ts, actionId });
  const modal = await sb.slack.waitFor(
    () => sb.slack.views.slice(views).find((v) => v.view.callback_id === 'visitors_improve_signal'),
    10_000,
  );
  p.say(
    p.dim(
      "  …the Improve form opens: a short instruction to edit, and the search under it, read-only (the readers' words go to the agent fenced as quoted data):",
    ),
  );
  renderBlocks(sb.slack, modal.view.blocks as unknown[])
    .split('\n')
    .forEach((line) => p.say(p.dim(`    │ ${line}`)));
  const input = (modal.view.blocks as { type: string; element?: { initial_value?: string } }[]).find(
    (b) => b.type === 'input',
  );
  const instruction = input?.element?.initial_value ?? '';
  p.say(`@bob clicks [ Start job ]`);
  const state = { values: { instruction: { instruction: { type: 'plain_text_input', value: instruction } } } };
  await sb.driver.viewSubmission({ user: 'U0BOB', view: { callback_id: 'visitors_improve_signal', state } });
  const replies = () =>
    sb.slack.messages.filter(
      (m) => m.thread_ts === searches.ts && m.bot_id && !m.ephemeralTo && m.text.includes('ready for review'),
    );
  await sb.slack.waitFor(() => replies().length > 0, 30_000);
  const done = () =>
    sb.slack.messages.some((m) => m.thread_ts === searches.ts && m.reactions.includes('white_check_mark'));
  // The state reaction lands with the throttled status edit; the transcript is right without it too.
  await sb.slack.waitFor(done, 10_000).catch(() => undefined);
  p.say(
    p.dim(
      "  …the job ran in the report's thread, its status message saying what it is about (the search), and its pull request was announced there",
    ),
  );
}
