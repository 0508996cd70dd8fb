import { LogLevel, WebClient, type Logger, type WebAPIPlatformError } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { buildHomeView } from '../../../src/features/agent-jobs/home/index.js';
import { buildImproveModal } from '../../../src/features/reports/digests/improve-modal.js';
import { buildSignalImproveModal } from '../../../src/features/reports/digests/improve-signal.js';
import { decodeSignalImprove, encodeSignalImprove } from '../../../src/features/reports/signals/improve.js';
import { buildEditModal } from '../../../src/features/settings/blocks.js';
import { expectSlackTakesView } from '../../helpers/block-kit.js';
import { TEST_SIGNER } from '../../helpers/signer.js';

/*
 * The fake Slack refuses what Slack refuses (Block Kit reference, views.* and chat.* error tables):
 * each limit planted one past it is refused with Slack's error and message, and the same payload at
 * the limit is taken. The bot's largest views pass the same checks.
 */

const TOKEN = 'xoxb-block-kit';
const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};
let slack: FakeSlack;
let web: WebClient;

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN, now: () => 1_700_000_000_000 });
  // WebClient logs Slack's response_metadata.messages as errors: the refusals here are planted.
  web = new WebClient(TOKEN, { slackApiUrl: slack.url, logger: silent, retryConfig: { retries: 0 } });
});
afterEach(() => slack.close());

type Json = Record<string, unknown>;

/** Slack's answer to a failed call: its error and `response_metadata.messages`. */
async function refusal(p: Promise<unknown>): Promise<{ error?: string; messages?: string[]; data?: Json }> {
  return p.then(
    () => ({}),
    (e: WebAPIPlatformError) => ({
      error: e.data?.error,
      messages: e.data?.response_metadata?.messages,
      data: e.data as unknown as Json,
    }),
  );
}

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });
const plain = (text: string) => ({ type: 'plain_text', text });
const section = (text: string) => ({ type: 'section', text: mrkdwn(text) });
const button = (over: Json = {}) => ({ type: 'button', text: plain('Go'), action_id: 'go', value: 'v', ...over });
const actions = (...elements: unknown[]) => ({ type: 'actions', elements });
const x = (n: number) => 'x'.repeat(n);
const post = (blocks: unknown[]) =>
  web.chat.postMessage({ channel: 'C0DOCS', text: 'fallback', blocks: blocks as never });

/** [what, blocks at the limit, blocks one past it, the JSON pointer Slack names]. */
const LIMITS: Array<[string, unknown[], unknown[], string]> = [
  ['50 blocks per message', Array(50).fill({ type: 'divider' }), Array(51).fill({ type: 'divider' }), '/blocks'],
  ['section text 3,000', [section(x(3000))], [section(x(3001))], '/blocks/0/text/text'],
  [
    'header text 150',
    [{ type: 'header', text: plain(x(150)) }],
    [{ type: 'header', text: plain(x(151)) }],
    '/blocks/0/text/text',
  ],
  [
    'button text 75',
    [actions(button({ text: plain(x(75)) }))],
    [actions(button({ text: plain(x(76)) }))],
    '/blocks/0/elements/0/text/text',
  ],
  [
    'button value 2,000',
    [actions(button({ value: x(2000) }))],
    [actions(button({ value: x(2001) }))],
    '/blocks/0/elements/0/value',
  ],
  [
    'action_id 255',
    [actions(button({ action_id: x(255) }))],
    [actions(button({ action_id: x(256) }))],
    '/blocks/0/elements/0/action_id',
  ],
  [
    'block_id 255',
    [{ ...section('a'), block_id: x(255) }],
    [{ ...section('a'), block_id: x(256) }],
    '/blocks/0/block_id',
  ],
  [
    'fields 10 per section',
    [{ type: 'section', fields: Array(10).fill(mrkdwn('f')) }],
    [{ type: 'section', fields: Array(11).fill(mrkdwn('f')) }],
    '/blocks/0/fields',
  ],
  [
    'field text 2,000',
    [{ type: 'section', fields: [mrkdwn(x(2000))] }],
    [{ type: 'section', fields: [mrkdwn(x(2001))] }],
    '/blocks/0/fields/0/text',
  ],
  [
    'context elements 10',
    [{ type: 'context', elements: Array(10).fill(mrkdwn('c')) }],
    [{ type: 'context', elements: Array(11).fill(mrkdwn('c')) }],
    '/blocks/0/elements',
  ],
  [
    'actions elements 25',
    [actions(...Array(25).fill(button()))],
    [actions(...Array(26).fill(button()))],
    '/blocks/0/elements',
  ],
  [
    'option value 150',
    [actions({ type: 'static_select', action_id: 's', options: [{ text: plain('o'), value: x(150) }] })],
    [actions({ type: 'static_select', action_id: 's', options: [{ text: plain('o'), value: x(151) }] })],
    '/blocks/0/elements/0/options/0/value',
  ],
  ['a known block type', [{ type: 'divider' }], [{ type: 'carousel_of_doom' }], '/blocks/0/type'],
];

describe('fake Slack: Block Kit limits in messages', () => {
  it.each(LIMITS)(
    '%s: taken at the limit, refused one past it with invalid_blocks naming the field',
    async (_what, ok, over, pointer) => {
      expect(await refusal(post(ok))).toEqual({});
      const r = await refusal(post(over));
      expect(r.error).toBe('invalid_blocks');
      expect(r.messages?.some((m) => m.startsWith('[ERROR] ') && m.endsWith(`[json-pointer:${pointer}]`))).toBe(true);
      expect(slack.messages).toHaveLength(1); // only the one at the limit was posted
    },
  );

  it('the same checks on chat.update, chat.postEphemeral and a response_url (HTTP 400 there)', async () => {
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'a', blocks: [section('a')] as never });
    const bad = [section(x(3001))] as never;
    expect((await refusal(web.chat.update({ channel: 'C0DOCS', ts: posted.ts!, text: 'b', blocks: bad }))).error).toBe(
      'invalid_blocks',
    );
    expect(
      (await refusal(web.chat.postEphemeral({ channel: 'C0DOCS', user: 'U0ALICE', text: 'b', blocks: bad }))).error,
    ).toBe('invalid_blocks');
    const url = slack.responseUrl(undefined, { user: 'U0ALICE', channel: 'C0DOCS' });
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ text: 'b', blocks: bad }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toBe('invalid_blocks');
    expect(slack.findMessage('C0DOCS', posted.ts!)?.blocks).toEqual([section('a')]);
    expect(slack.messages).toHaveLength(1);
  });

  it('more than 12,000 characters of text in all blocks together: msg_blocks_too_long', async () => {
    const four = (n: number) => Array.from({ length: 4 }, () => section(x(n)));
    expect(await refusal(post(four(3000)))).toEqual({}); // 12,000
    expect((await refusal(post([...four(3000), section('y')]))).error).toBe('msg_blocks_too_long');
    expect((await refusal(post([{ type: 'markdown', text: x(12_001) }]))).error).toBe('msg_blocks_too_long');
  });

  it('blocks that are not a JSON array: invalid_blocks_format; chat.update text over 4,000: msg_too_long', async () => {
    const r = await refusal(web.apiCall('chat.postMessage', { channel: 'C0DOCS', text: 'a', blocks: 'not json' }));
    expect(r.error).toBe('invalid_blocks_format');
    const posted = await web.chat.postMessage({ channel: 'C0DOCS', text: 'a' });
    expect((await refusal(web.chat.update({ channel: 'C0DOCS', ts: posted.ts!, text: x(4001) }))).error).toBe(
      'msg_too_long',
    );
    expect(await refusal(web.chat.update({ channel: 'C0DOCS', ts: posted.ts!, text: x(4000) }))).toEqual({});
  });
});

describe('fake Slack: views', () => {
  const modal = (over: Json = {}) => ({
    type: 'modal',
    title: plain('Docs'),
    submit: plain('Start'),
    blocks: [{ type: 'input', label: plain('What'), element: { type: 'plain_text_input', action_id: 'w' } }],
    ...over,
  });
  const open = (view: Json) => web.views.open({ trigger_id: slack.triggerId('U0ALICE'), view: view as never });

  it.each([
    ['100 blocks', { blocks: Array(101).fill({ type: 'divider' }) }, '/view/blocks'],
    ['title 24', { title: plain(x(25)) }, '/view/title/text'],
    ['submit 24', { submit: plain(x(25)) }, '/view/submit/text'],
    ['close 24', { close: plain(x(25)) }, '/view/close/text'],
    ['private_metadata 3,000', { private_metadata: x(3001) }, '/view/private_metadata'],
    ['callback_id 255', { callback_id: x(256) }, '/view/callback_id'],
    ['an input block needs submit', { submit: undefined }, '/view/blocks/0/input'],
    ['a section text 3,000 in a modal', { blocks: [section(x(3001))] }, '/view/blocks/0/text/text'],
  ])('a modal past %s: invalid_arguments naming the field; nothing opens', async (_what, over, pointer) => {
    const r = await refusal(open(modal(over)));
    expect(r.error).toBe('invalid_arguments');
    expect(r.messages?.some((m) => m.endsWith(`[json-pointer:${pointer}]`))).toBe(true);
    expect(slack.views).toEqual([]);
  });

  it('a modal at the limits opens; a Home tab takes 100 blocks, not 101; over 250 kB is view_too_large', async () => {
    const full = modal({
      blocks: [
        ...Array(99).fill({ type: 'divider' }),
        {
          type: 'input',
          label: plain(x(2000)),
          element: { type: 'plain_text_input', action_id: 'w', max_length: 3000 },
        },
      ],
      title: plain(x(24)),
      private_metadata: x(3000),
    });
    expect(await refusal(open(full))).toEqual({});
    const home = (n: number) => ({ type: 'home', blocks: Array(n).fill({ type: 'divider' }) });
    expect(await refusal(web.views.publish({ user_id: 'U0ALICE', view: home(100) as never }))).toEqual({});
    expect((await refusal(web.views.publish({ user_id: 'U0ALICE', view: home(101) as never }))).error).toBe(
      'invalid_arguments',
    );
    const huge = { type: 'home', blocks: Array(100).fill(section(x(2600))) };
    expect((await refusal(web.views.publish({ user_id: 'U0ALICE', view: huge as never }))).error).toBe(
      'view_too_large',
    );
  });
});

describe("the bot's largest views pass the same checks", () => {
  it('the App Home with more jobs than it lists, each with the longest instruction, PR link and thread link', () => {
    const jobs = Array.from({ length: 30 }, (_, i) => ({
      jobId: `job_${i}`.padEnd(100, 'x'),
      instruction: '<&>`*'.repeat(2_000),
      state: 'completed' as const,
      prLink: `https://github.com/acme/docs/pull/${'9'.repeat(2_900)}`,
      permalink: `https://sandbox.slack.com/archives/C0DOCS/p${'1'.repeat(2_000)}`,
      createdAt: 0,
      followups: 99,
      rating: 'negative' as const,
    }));
    const defaults = {
      followupPolicy: 'requester' as const,
      ignorePrefix: '!'.repeat(100),
      digestCron: '0 9 * * 1',
      digestTz: 'America/Argentina/ComodRivadavia',
    };
    const budget = { projectId: 'p'.repeat(100), project: 0, perProject: 1000, user: 0, perUser: 1000 };
    expectSlackTakesView(buildHomeView(jobs, defaults, 10 * 86_400_000, budget), 'home');
  });

  it('the Improve modal for the longest path a digest button carries', () => {
    const path = `/${'a-very-long-slug/'.repeat(100)}`.slice(0, 1500);
    const view = buildImproveModal(
      { path, fellPct: 100, current: 0, previous: 1_000_000_000, rangeLabel: 'Nov 16 – Nov 22, 2026' },
      { channel: 'C0DOCS', threadTs: '1763888400.000100', path },
      TEST_SIGNER,
    );
    expectSlackTakesView(view, 'modal');
  });

  it("the Improve modal of a signal for the longest readers' words a button carries", () => {
    const long = '<!channel> *x* https://evil.example '.repeat(40);
    for (const signal of [
      { kind: 'search' as const, term: long, hits: 1e9 },
      {
        kind: 'feedback' as const,
        path: `/${'a'.repeat(300)}`,
        thumbsDown: 1e9,
        thumbsUp: 1e9,
        comments: [long, long, long],
      },
      {
        kind: 'question' as const,
        question: long,
        count: 1e9,
        response: long,
        pageUrl: `https://x.test/${'a'.repeat(280)}`,
      },
    ]) {
      const input = { signal, rangeLabel: 'Nov 16 – Nov 22, 2026', channel: 'C0DOCS', projectId: 'proj_docs' };
      const back = decodeSignalImprove(encodeSignalImprove(input, TEST_SIGNER), TEST_SIGNER);
      if (!back.ok) throw new Error('the value does not round-trip');
      const meta = { channel: 'C0DOCS', threadTs: '1763888400.000100', projectId: 'proj_docs' };
      expectSlackTakesView(buildSignalImproveModal(back.improve, meta, TEST_SIGNER), 'modal');
    }
  });

  it('the settings modal with 100 configured projects of the longest ids', () => {
    const projects = Array.from({ length: 120 }, (_, i) => `p${i}-`.padEnd(100, 'x'));
    const settings = {
      projectId: projects[0]!,
      projectIsDefault: true,
      projectFollowsDefault: true,
      followupPolicy: 'anyone' as const,
      followupIsDefault: true,
      mentions: 'auto' as const,
      answerAll: true,
    };
    for (const asking of [true, false]) {
      const ctx = { defaultFollowupPolicy: 'anyone' as const, asking };
      expectSlackTakesView(buildEditModal('C0DOCS', settings, projects, TEST_SIGNER, ctx), 'modal');
    }
  });
});
