import { describe, expect, it } from 'vitest';
import type { SlackMessage } from '../../sandbox/fake-slack.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { validateRequest } from '../helpers/openapi.js';
import { E2E_SECRETS, ephemeralsTo, sandboxWithBot, threadReplies, type Sandbox } from '../helpers/sandbox.js';
import { shownText } from '../helpers/block-kit.js';

/**
 * What readers couldn't find, end to end: the real bot process against the fake Slack and the fake
 * docs API (signed HTTP). The searches, feedback and questions reports, paged in place both ways and
 * switched with the menu; a cursor the API no longer accepts; Improve with agent on each kind of
 * signal through to a pull request in the report's thread; refusals and Slack failures.
 */

const CHANNEL = 'C0DOCS';
let sb: Sandbox;
let bot: BotProcess;
let driver: SlackDriver;
/** Added to the fake docs API's clock: 16 minutes on makes it forget the cursors it handed out. */
let docsSkew = 0;
const WEEK = '2026-11-15 2026-11-22';

const analyticsCalls = () => sb.docs.requests.filter((r) => r.path.includes('/v1/analytics/'));
const reports = (title: string): SlackMessage[] =>
  sb.slack.messages.filter(
    (m) =>
      m.channel === CHANNEL && m.bot_id && !m.thread_ts && !m.ephemeralTo && !m.deleted && m.text.startsWith(title),
  );

async function report(text: string, title: string, user = 'U0ALICE'): Promise<SlackMessage> {
  const before = reports(title).length;
  const res = await driver.slashCommand({ command: '/docs-visitors', text, user, channel: CHANNEL });
  expect(res.status).toBe(200);
  return sb.slack.waitFor(() => reports(title)[before], 10_000);
}

/** Clicks `actionId` on `m` and waits until the message's fallback text changes. */
async function clickAndWait(m: SlackMessage, actionId: string, user = 'U0BOB', selected?: string): Promise<string> {
  const was = m.text;
  await driver.blockAction({ user, channel: CHANNEL, messageTs: m.ts, actionId, ...(selected ? { selected } : {}) });
  await sb.slack.waitFor(() => m.text !== was, 10_000);
  return m.text;
}

/** The first Improve button of a message. */
function firstImprove(m: SlackMessage): string {
  const b = ((m.blocks ?? []) as { accessory?: { action_id?: string } }[]).find((x) =>
    x.accessory?.action_id?.startsWith('visitors.signal.improve.'),
  );
  return b!.accessory!.action_id!;
}

sandboxWithBot({ docs: { now: () => Date.now() + docsSkew } }, (s) => ({ sb, bot, driver } = s));

describe('the reports', () => {
  it('searches: no unfurls, reader text escaped; paged in place at no cost; the menu opens feedback', async () => {
    const m = await report(`searches ${WEEK}`, 'Docs searches');
    const post = sb.slack.calls.find(
      (c) =>
        c.method === 'chat.postMessage' &&
        c.args.channel === CHANNEL &&
        String(c.args.text).startsWith('Docs searches'),
    )!;
    // Form-encoded, as WebClient sends them.
    expect(post.args).toMatchObject({ unfurl_links: 'false', unfurl_media: 'false' });
    expect(shownText(m)).toContain('sso saml · ');
    expect(shownText(m).replace(/<@U0ALICE>/g, '')).not.toMatch(/<[@!#]|<https?:|https?:\/\/evil/);
    expect(analyticsCalls()).toHaveLength(1);
    expect(await clickAndWait(m, 'visitors.signals.next')).toContain('rows 11–20');
    expect(await clickAndWait(m, 'visitors.signals.previous')).toContain('rows 1–10');
    expect(analyticsCalls()).toHaveLength(1);
    expect(await clickAndWait(m, 'visitors.menu', 'U0BOB', 'feedback')).toMatch(
      /^Docs feedback, Nov 15 – Nov 21, 2026/,
    );
    expect(shownText(m)).toContain('Requested by <@U0BOB>');
    expect(analyticsCalls().map((r) => r.path.replace('/v1/analytics/proj_e2e', ''))).toEqual([
      '/searches',
      '/feedback/by-page',
      '/feedback',
    ]);
    for (const r of analyticsCalls()) expect(validateRequest(r)).toEqual([]);
    expect(await clickAndWait(m, 'visitors.menu', 'U0BOB', 'visitors')).toMatch(
      /^Docs visitors, Nov 15 – Nov 21, 2026: [\d,]+ visitors/,
    );
    expect(shownText(m)).toContain('*Views*');
  });

  it('questions over 90 days: Next goes on by its cursor; a forgotten one: "this page expired"', async () => {
    const m = await report('questions 2026-08-24 2026-11-22 limit=20', 'Unanswered questions');
    const calls = analyticsCalls().length;
    expect(shownText(m)).toContain('*Next* goes on with the following ones.');
    expect(await clickAndWait(m, 'visitors.signals.next')).toMatch(/rows 1–\d+ \(conversations 1,001–[\d,]+\)$/);
    const page2 = analyticsCalls().at(-1)!;
    expect(page2.query.cursor).toMatch(/^[0-9A-Z]{26}$/);
    expect(analyticsCalls()).toHaveLength(calls + 1);
    expect(await clickAndWait(m, 'visitors.signals.previous')).toMatch(/rows \d+–\d+ \(conversations 1–1,000\)$/);
    expect(analyticsCalls()).toHaveLength(calls + 1);

    const again = await report('questions 2026-08-23 2026-11-22 limit=20', 'Unanswered questions');
    docsSkew = 16 * 60_000;
    const seen = ephemeralsTo(sb.slack, 'U0BOB').length;
    await driver.blockAction({
      user: 'U0BOB',
      channel: CHANNEL,
      messageTs: again.ts,
      actionId: 'visitors.signals.next',
    });
    const note = await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'U0BOB')[seen], 10_000);
    expect(note.text).toContain('This page of the report expired; run the report again.');
    expect(JSON.stringify(note.blocks ?? [])).not.toContain('visitors.signals.retry');
    docsSkew = 0;
  });

  it('the same refusals: bad input in the ack, a guest refused privately; no analytics call', async () => {
    const calls = analyticsCalls().length;
    const res = await driver.slashCommand({
      command: '/docs-visitors',
      text: 'feedback 2026-13-01',
      user: 'U0ALICE',
      channel: CHANNEL,
    });
    expect(res.json).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('`2026-13-01` is not a real calendar date'),
    });
    const seen = ephemeralsTo(sb.slack, 'U0GUEST').length;
    await driver.slashCommand({ command: '/docs-visitors', text: 'questions', user: 'U0GUEST', channel: CHANNEL });
    await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'U0GUEST')[seen], 10_000);
    expect(analyticsCalls()).toHaveLength(calls);
  });

  it('Slack failing: not in the channel gets the /invite answer; a report Slack will not edit says so', async () => {
    sb.slack.failNext('chat.postMessage', { error: 'not_in_channel' });
    const seen = ephemeralsTo(sb.slack, 'U0ALICE').length;
    await driver.slashCommand({
      command: '/docs-visitors',
      text: `feedback ${WEEK}`,
      user: 'U0ALICE',
      channel: CHANNEL,
    });
    const note = await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'U0ALICE')[seen], 10_000);
    expect(note.text).toContain('/invite @Docs Agent');
    const m = await report(`searches ${WEEK} limit=5`, 'Docs searches');
    sb.slack.failNext('chat.update', { error: 'cant_update_message' });
    const bob = ephemeralsTo(sb.slack, 'U0BOB').length;
    await driver.blockAction({ user: 'U0BOB', channel: CHANNEL, messageTs: m.ts, actionId: 'visitors.signals.next' });
    expect((await sb.slack.waitFor(() => ephemeralsTo(sb.slack, 'U0BOB')[bob], 10_000)).text).toBe(
      'Slack would not let me edit the report; run `/docs-visitors` again.',
    );
  });
});

describe('Improve with agent on a signal, through to a pull request', () => {
  it.each([
    [
      'searches',
      'Docs searches',
      'reader_search_term',
      'Find out what readers searching the docs for the term below were looking for.',
      'Readers searched the docs for the term quoted below',
      /^"[^"]+" · [\d,]+ searches$/,
    ],
    [
      'feedback',
      'Docs feedback',
      'reader_comments',
      "Read the readers' comments on the page below",
      'Readers rated /guides/custom-domain 👎',
      /^\/guides\/custom-domain · 👎 [\d,]+, 👍 [\d,]+ · \d+ comments?$/,
    ],
    [
      'questions',
      'Unanswered questions',
      'reader_question',
      'Add or extend the docs so that the question below is answered',
      'Readers asked the docs assistant the question quoted below',
      /^"[^"]+" · asked [\d,]+ times?$/,
    ],
  ])(
    "%s: the form holds plain guidance and shows the readers' words read-only; the job gets them fenced, and an About line",
    async (kind, title, fence, guidance, facts, about) => {
      const m = await report(`${kind} ${WEEK}`, title);
      const views = sb.slack.views.length;
      await driver.blockAction({ user: 'U0BOB', channel: CHANNEL, messageTs: m.ts, actionId: firstImprove(m) });
      const modal = await sb.slack.waitFor(
        () =>
          sb.slack.views
            .slice(views)
            .find((v) => v.view.callback_id === 'visitors_improve_signal' && v.userId === 'U0BOB'),
        10_000,
      );
      const blocks = modal.view.blocks as { type: string; element?: { initial_value?: string } }[];
      const input = blocks.find((b) => b.type === 'input')!;
      const instruction = input.element!.initial_value!;
      // The editable instruction: the bot's guidance, no fence, no reader text, count or date.
      expect(instruction.startsWith(guidance)).toBe(true);
      expect(instruction).not.toMatch(/reader_|[<>]|\d|Nov/);
      // The readers' words, read-only under it.
      // (The page shows as inline code there.)
      expect(JSON.stringify(blocks.slice(blocks.indexOf(input) + 1)).replace(/`/g, '')).toContain(facts);
      const jobs = sb.docs.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job')).length;
      const res = await driver.viewSubmission({
        user: 'U0BOB',
        view: {
          callback_id: 'visitors_improve_signal',
          state: { values: { instruction: { instruction: { type: 'plain_text_input', value: instruction } } } },
        },
      });
      expect(res.status).toBe(200);
      const create = await sb.docs.waitForRequest(
        (r) =>
          r.method === 'POST' &&
          r.path === '/v2/agent/proj_e2e/job' &&
          sb.docs.requests.filter((x) => x.method === 'POST' && x.path.endsWith('/job')).indexOf(r) >= jobs,
        10_000,
      );
      // The agent gets the instruction, then the signal with the readers' words fenced as data.
      const prompt = (create.body as { prompt: string }).prompt;
      expect(prompt.startsWith(`${instruction}\n\n${facts}`)).toBe(true);
      expect(prompt).toMatch(new RegExp(`\\n<${fence}_([0-9a-f]{16})>\\n[^]*\\n</${fence}_\\1>$`));
      const status = await sb.slack.waitFor(
        () => sb.slack.messages.find((x) => x.thread_ts === m.ts && x.bot_id && x.text.startsWith('Docs agent job')),
        10_000,
      );
      expect(status.text).toContain('for <@U0BOB>');
      // The status message quotes the instruction and says what it is about; no fence, no prompt.
      const shownStatus = shownText(status);
      expect(shownStatus).toContain(`> ${instruction.slice(0, 40)}`);
      const aboutLine = shownStatus.split('\n').find((l) => l.startsWith('About: '));
      expect(aboutLine?.slice('About: '.length).replace(/\u2060/g, '')).toMatch(about);
      expect(shownStatus).not.toMatch(/reader_|ˍ/);
      // The agent session is titled by the About line, not the prompt.
      const session = await sb.slack.waitFor(() => sb.slack.agent.sessions.get(`${CHANNEL}:${m.ts}`), 10_000);
      expect(session.title?.replace(/\u2060/g, '')).toMatch(about);
      await sb.slack.waitFor(
        () =>
          threadReplies(sb.slack, CHANNEL, m.ts).find((r) =>
            /ready for review: https:\/\/github\.com\/acme\/docs\/pull\//.test(r.text),
          ),
        20_000,
      );
      // App Home (Bob's) lists the job with its About line.
      const homes = sb.slack.views.length;
      await driver.appHomeOpened('U0BOB');
      const home = await sb.slack.waitFor(
        () => sb.slack.views.slice(homes).find((v) => v.kind === 'home' && v.userId === 'U0BOB'),
        10_000,
      );
      expect(JSON.stringify(home.view)).toContain('About: ');
      expect(JSON.stringify(home.view)).not.toMatch(/reader_/);
    },
  );

  it('never prints or posts a secret', () => {
    const everything = `${bot.output()}\n${JSON.stringify(sb.slack.messages)}`;
    for (const secret of Object.values(E2E_SECRETS)) expect(everything).not.toContain(secret);
  });
});
