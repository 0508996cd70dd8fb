import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { verifySlackRequest } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../sandbox/fake-slack.js';
import { readCommands, REPL_HELP, SandboxRepl } from '../../../sandbox/repl.js';
import { SlackDriver } from '../../../sandbox/slack-driver.js';
import { fakeSlackClient } from '../../helpers/fake-slack-client.js';

const TOKEN = 'xoxb-repl-test';
const SECRET = 'repl-signing-secret';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

type Json = Record<string, unknown>;

let slack: FakeSlack;
let web: WebClient;
let bot: { server: Server; url: string; requests: Received[]; publishHome: boolean };
let printed: string[];
let repl: SandboxRepl;

/** What the stub bot does for one request before answering: a bit of what the real bot would. */
async function react(body: string): Promise<Json> {
  if (body.startsWith('{')) {
    const { event } = JSON.parse(body) as { event?: Json };
    if (event?.type === 'app_home_opened' && bot.publishHome) {
      const blocks = [
        { type: 'header', text: { type: 'plain_text', text: 'Your recent docs jobs' } },
        { type: 'section', text: { type: 'mrkdwn', text: `Hi <@${String(event.user)}>, no jobs yet.` } },
      ];
      await web.views.publish({ user_id: String(event.user), view: { type: 'home', blocks } });
    }
    if (event?.type === 'message' && event.channel_type === 'im')
      await web.chat.postMessage({ channel: String(event.channel), text: `Got: ${String(event.text)}` });
    return {};
  }
  const form = new URLSearchParams(body);
  return form.get('command') ? { response_type: 'ephemeral', text: `Usage of ${form.get('command') ?? ''}` } : {};
}

/** A stand-in bot endpoint: records each signed request, reacts a little, answers 200 JSON. */
async function stubBot(): Promise<typeof bot> {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ headers: req.headers, body });
      void react(body).then((answer) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/slack/events`, requests, publishHome: true };
}

/** The request verifies with the signing secret (Bolt's own check), and its parsed body. */
function verified(req: Received | undefined): Json {
  if (!req) throw new Error('the driver sent nothing');
  verifySlackRequest({
    signingSecret: SECRET,
    body: req.body,
    headers: {
      'x-slack-signature': String(req.headers['x-slack-signature']),
      'x-slack-request-timestamp': Number(req.headers['x-slack-request-timestamp']),
    },
  });
  if (req.headers['content-type'] === 'application/json') return JSON.parse(req.body) as Json;
  const form = Object.fromEntries(new URLSearchParams(req.body));
  return form.payload ? (JSON.parse(form.payload) as Json) : form;
}

const out = (): string => printed.join('\n');

beforeEach(async () => {
  slack = await startFakeSlack({ botToken: TOKEN });
  web = fakeSlackClient(slack, TOKEN);
  bot = await stubBot();
  printed = [];
  const driver = new SlackDriver({ botUrl: bot.url, signingSecret: SECRET, slack });
  repl = new SandboxRepl({ slack, driver, say: (line = '') => printed.push(line), homeTimeoutMs: 300 });
});

afterEach(async () => {
  bot.server.closeAllConnections();
  await new Promise<void>((resolve) => bot.server.close(() => resolve()));
  await slack.close();
});

describe('sandbox REPL: show and click', () => {
  it('numbers the buttons of the shown transcript and clicks one with a signed block_actions', async () => {
    const pr = await web.chat.postMessage({
      channel: 'C0DOCS',
      text: 'Docs agent job done',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'Opened a pull request' } },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              action_id: 'agent.open_pr',
              text: { type: 'plain_text', text: 'View pull request' },
              url: 'https://github.com/acme/docs/pull/7',
            },
          ],
        },
      ],
    });
    const report = await web.chat.postMessage({
      channel: 'C0DOCS',
      text: 'Docs visitors, rows 11–20',
      blocks: [
        {
          type: 'actions',
          block_id: 'paging',
          elements: [
            {
              type: 'button',
              action_id: 'visitors.page.prev',
              text: { type: 'plain_text', text: '← Previous' },
              value: 'p1',
            },
            {
              type: 'button',
              action_id: 'visitors.page.next',
              text: { type: 'plain_text', text: 'Next →' },
              value: 'p3',
            },
          ],
        },
      ],
    });

    expect(await repl.handle('show')).toBe('continue');
    expect(out()).toContain('[1: View pull request ↗ https://github.com/acme/docs/pull/7]');
    expect(out()).toContain('Docs Agent: [2: ← Previous] [3: Next →]');
    expect(repl.buttons[2]).toEqual({
      n: 3,
      label: 'Next →',
      channel: 'C0DOCS',
      messageTs: report.ts,
      actionId: 'visitors.page.next',
      value: 'p3',
      blockId: 'paging',
    });

    await repl.handle('click 3');
    expect(verified(bot.requests[0])).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0ALICE' },
      container: { type: 'message', channel_id: 'C0DOCS', message_ts: report.ts },
      actions: [{ type: 'button', action_id: 'visitors.page.next', value: 'p3', block_id: 'paging' }],
    });

    await repl.handle('click 1'); // a link button: Slack opens the URL and still sends block_actions
    expect(verified(bot.requests[1])).toMatchObject({
      type: 'block_actions',
      container: { message_ts: pr.ts },
      actions: [{ action_id: 'agent.open_pr', url: 'https://github.com/acme/docs/pull/7' }],
    });
    expect(out()).toContain('you click [1: View pull request] — Slack opens https://github.com/acme/docs/pull/7');

    await repl.handle('click 9');
    expect(printed.at(-1)).toBe('  no button 9: the last transcript shows buttons 1–3');
    expect(bot.requests).toHaveLength(2);
  });
});

describe('sandbox REPL: dm and home', () => {
  it("sends alice's DM as an im message event, and show dm prints that conversation", async () => {
    await repl.handle('dm what changed in the quickstart?');
    expect(verified(bot.requests[0])).toMatchObject({
      type: 'event_callback',
      event: {
        type: 'message',
        channel: 'D0ALICE',
        channel_type: 'im',
        user: 'U0ALICE',
        text: 'what changed in the quickstart?',
      },
    });
    printed = [];
    await repl.handle('show dm');
    expect(out()).toBe(
      [
        '── @alice (DM) ──',
        'alice: what changed in the quickstart?',
        'Docs Agent: Got: what changed in the quickstart?',
      ].join('\n'),
    );
    expect(repl.buttons).toEqual([]);
  });

  it("opens alice's App Home and prints the view the bot published", async () => {
    await repl.handle('home');
    expect(verified(bot.requests[0])).toMatchObject({
      event: { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'home' },
    });
    expect(out()).toContain('── App Home ──\n== Your recent docs jobs ==\nHi @alice, no jobs yet.');

    bot.publishHome = false;
    printed = [];
    await repl.handle('home');
    expect(out()).toContain('(no new App Home within 300 ms; this is the last one the bot published)');
    expect(out()).toContain('Hi @alice, no jobs yet.');
  });

  it('says so when the bot publishes no App Home at all', async () => {
    bot.publishHome = false;
    await repl.handle('home');
    expect(out()).toBe('  the bot published no App Home for you');
  });
});

describe('sandbox REPL: the existing commands', () => {
  it('keeps slash commands, reply, @bot, help and quit', async () => {
    await repl.handle('/docs-visitors help');
    expect(verified(bot.requests[0])).toMatchObject({
      command: '/docs-visitors',
      text: 'help',
      user_id: 'U0ALICE',
      channel_id: 'C0DOCS',
    });
    expect(printed.at(-1)).toBe('  (only visible to you) Usage of /docs-visitors');

    await repl.handle('reply also add Go');
    expect(printed.at(-1)).toBe('  no job yet: start one with /docs-edit');
    const status = await web.chat.postMessage({ channel: 'C0DOCS', text: 'Docs agent job job_abc: working' });
    await repl.handle('reply also add Go');
    expect(verified(bot.requests[1])).toMatchObject({
      event: { type: 'message', channel: 'C0DOCS', thread_ts: status.ts, text: 'also add Go' },
    });

    await repl.handle('@bot fix the typo');
    expect(verified(bot.requests[2])).toMatchObject({
      event: { type: 'app_mention', user: 'U0ALICE', text: '<@U0DOCSBOT> fix the typo' },
    });

    printed = [];
    await repl.handle('help');
    expect(printed).toEqual([...REPL_HELP]);
    expect(out()).toMatch(/click N .*\n.*home .*\n.*show .*\n.*show dm/);
    await repl.handle('bogus');
    expect(printed.at(-1)).toMatch(/^ {2}unknown command/);
    expect(await repl.handle('  ')).toBe('continue');
    expect(await repl.handle('quit')).toBe('quit');
  });
});

describe('sandbox REPL: reading commands', () => {
  it('runs piped lines in order until quit and goes on after a failing command', async () => {
    const nowhere = new SlackDriver({ botUrl: 'http://127.0.0.1:9/slack/events', signingSecret: SECRET, slack });
    const lines: string[] = [];
    const offline = new SandboxRepl({ slack, driver: nowhere, say: (line = '') => lines.push(line) });
    const input = new PassThrough();
    input.end('dm hello\nshow dm\nquit\ndm never sent\n');
    await readCommands(offline, input, new PassThrough(), (line) => lines.push(line));
    expect(lines[0]).toMatch(/^ {2}failed: /); // nothing listens on the discard port
    expect(lines.slice(1)).toEqual(['── @alice (DM) ──\nalice: hello']);
    expect(slack.messages.map((m) => m.text)).toEqual(['hello']);
  });
});
