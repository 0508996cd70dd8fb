import { OPEN_GATE } from '../../../../src/platform/access.js';
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { register as registerAgentJobs } from '../../../../src/features/agent-jobs/listeners.js';
import { register as registerConversations } from '../../../../src/features/conversations/listeners.js';
import { register as registerAgentView } from '../../../../src/features/agent-view/listeners.js';
import { register as registerDigests } from '../../../../src/features/reports/digests/listeners.js';
import { register as registerVisitors } from '../../../../src/features/reports/listeners.js';
import { InFlight } from '../../../../src/platform/in-flight.js';
import { createSlackApp } from '../../../../src/platform/slack/app.js';
import { BUSY_TEXT } from '../../../../src/platform/slack/edge.js';
import { postRaw, signatureHeaders, type DriverResponse } from '../../../../sandbox/driver/http.js';
import { startFakeSlack, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { freePort } from '../../../../sandbox/free-port.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';
import { PAGE_ACTIONS } from '../../../../src/features/reports/paging-value.js';

/**
 * The bot's own receiver and edge (src/platform/slack/{receiver,edge}.ts) with the real Bolt app
 * and the features' real listeners, over signed HTTP; only the intake (the one Redis write before
 * the ack) is a fake, so that it can fail. What Slack (and the person) would see: the HTTP status,
 * the ack's body, ephemeral answers through the response_url; what the operator would see: the log.
 */

const SECRET = 'edge-test-signing-secret';
const TOKEN = 'xoxb-edge-test-token';

interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

let slack: FakeSlack;
let app: App;
let url: string;
const logs: LogLine[] = [];
const recorded: Array<{ kind: string; id: string; requestId: string; payload: unknown }> = [];
let redisDown = false;
const postEphemeral = vi.fn<WebClient['chat']['postEphemeral']>(async () => ({ ok: true }));
const intake = {
  record: vi.fn(async (kind: { name: string }, id: string, requestId: string, payload: unknown) => {
    if (redisDown)
      throw Object.assign(new Error("Stream isn't writeable and enableOfflineQueue options is false"), {
        name: 'Error',
      });
    recorded.push({ kind: kind.name, id, requestId, payload });
  }),
};

beforeAll(async () => {
  slack = await startFakeSlack({ botToken: TOKEN });
  const port = await freePort();
  const { logger } = arrayLogger('info', logs);
  const config = {
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_APP_TOKEN: undefined,
    SLACK_API_URL: slack.url,
    PORT: port,
  };
  ({ app } = createSlackApp({
    config,
    logger,
    inFlight: new InFlight(),
    routes: [],
    commands: ['/docs-edit', '/docs-reply', '/docs-visitors'],
  }));
  registerAgentJobs(app, { intake, logger, promptMaxChars: 12_000 });
  registerConversations(app, {
    intake,
    slack: { chat: { postEphemeral } },
    logger,
    promptMaxChars: 12_000,
    threads: { findByThread: async () => (redisDown ? Promise.reject(new Error('Connection is closed.')) : 'job_1') },
  });
  registerVisitors(app, {
    intake,
    logger,
    subcommands: {
      names: ['subscribe'],
      helpLines: [],
      examples: [],
      prepare: () => ({ ok: false, message: 'no' }),
      actionOf: () => 'manage_digests',
    },
  });
  registerAgentView(app, { intake, logger });
  registerDigests(app, {
    intake,
    slack: { views: { open: async () => ({ ok: true }) } },
    access: OPEN_GATE,
    conversations: { isMember: async () => true },
    signer: TEST_SIGNER,
    logger,
    projects: ['proj_e2e'],
  });
  await app.start();
  url = `http://127.0.0.1:${port}/slack/events`;
});

afterAll(async () => {
  await app.stop();
  await slack.close();
});

beforeEach(() => {
  logs.length = 0;
  recorded.length = 0;
  redisDown = false;
  intake.record.mockClear();
  postEphemeral.mockClear();
});

const nowS = () => Math.floor(Date.now() / 1000);
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** POSTs `body` signed with the app's secret at `timestampS` (default now). */
function send(body: string, contentType: string, timestampS = nowS()): Promise<DriverResponse> {
  return postRaw(url, body, { 'Content-Type': contentType, ...signatureHeaders(SECRET, body, timestampS) });
}

function commandForm(fields: Record<string, string> = {}): string {
  return new URLSearchParams({
    command: '/docs-edit',
    text: 'Add a quickstart',
    user_id: 'U0ALICE',
    channel_id: 'C0DOCS',
    team_id: slack.teamId,
    trigger_id: `trig-${Math.random().toString(36).slice(2)}`,
    response_url: slack.responseUrl(undefined, { user: 'U0ALICE', channel: 'C0DOCS' }),
    ...fields,
  }).toString();
}

function clickForm(actionId: string, extra: Record<string, unknown> = {}): string {
  const payload = {
    type: 'block_actions',
    user: { id: 'U0ALICE' },
    team: { id: slack.teamId },
    trigger_id: `trig-${Math.random().toString(36).slice(2)}`,
    channel: { id: 'C0DOCS' },
    container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0DOCS' },
    response_url: slack.responseUrl(undefined, { user: 'U0ALICE', channel: 'C0DOCS' }),
    actions: [
      { action_id: actionId, type: 'button', action_ts: `${nowS()}.${Math.floor(Math.random() * 1e6)}`, value: 'v' },
    ],
    ...extra,
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

const levels = (min: number) => logs.filter((l) => l.level >= min);
const warnings = () => logs.filter((l) => l.level === 40).map((l) => l.msg);

describe('the receiver checks every request before anything reads it', () => {
  it('a timestamp 10 minutes in the future is refused with 401, like an old one', async () => {
    const future = await send(commandForm(), FORM, nowS() + 600);
    const past = await send(commandForm(), FORM, nowS() - 600);
    expect([future.status, past.status]).toEqual([401, 401]);
    expect(intake.record).not.toHaveBeenCalled();
    expect(warnings()).toEqual([
      'refused a request that failed Slack signature verification',
      'refused a request that failed Slack signature verification',
    ]);
    expect(logs.map((l) => l.reason)).toEqual([
      'timestamp too far in the future',
      expect.stringMatching(/stale|old|timestamp/i),
    ]);
  });

  it('a timestamp 4 minutes either way is inside Slack’s window and served', async () => {
    expect((await send(commandForm(), FORM, nowS() + 240)).status).toBe(200);
    expect((await send(commandForm(), FORM, nowS() - 240)).status).toBe(200);
    expect(recorded).toHaveLength(2);
  });

  it('a forged signature is refused with 401', async () => {
    const body = commandForm();
    const res = await postRaw(url, body, { 'Content-Type': FORM, ...signatureHeaders('not-the-secret', body, nowS()) });
    expect(res.status).toBe(401);
    expect(recorded).toHaveLength(0);
  });

  it('a body over 1 MiB is refused with 413, unread, and its connection closed so no client reuses it; the next request is served', async () => {
    const body = `${commandForm()}&pad=${'x'.repeat(1100 * 1024)}`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': FORM, ...signatureHeaders(SECRET, body, nowS()) },
      body,
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    await res.text();
    expect(recorded).toHaveLength(0);
    expect((await send(commandForm(), FORM)).status).toBe(200);
  });

  it.each([
    ['JSON null', 'null', JSON_TYPE],
    ['a JSON array', '[{"type":"event_callback"}]', JSON_TYPE],
    ['a JSON number', '42', JSON_TYPE],
    ['a JSON string', '"hello"', JSON_TYPE],
    ['form payload=null', 'payload=null', FORM],
    ['form payload=[]', 'payload=%5B%5D', FORM],
    ['form payload=7', 'payload=7', FORM],
    ['JSON that does not parse', '{"type":', JSON_TYPE],
    ['form payload that does not parse', 'payload=%7Bnope', FORM],
  ])('%s: 400, one warning, no crash', async (_name, body, type) => {
    const res = await send(body, type);
    expect(res.status).toBe(400);
    expect(levels(50)).toEqual([]);
    expect(warnings()).toHaveLength(1);
    expect(intake.record).not.toHaveBeenCalled();
  });

  it.each([
    [
      'text as a number (JSON command)',
      JSON.stringify({
        command: '/docs-edit',
        text: 5,
        user_id: 'U0ALICE',
        channel_id: 'C0DOCS',
        team_id: 'T0SANDBOX',
        trigger_id: 't',
        response_url: 'https://hooks.slack.com/x',
      }),
      JSON_TYPE,
    ],
    ['no user_id', () => commandForm().replace(/user_id=[^&]*&?/, ''), FORM],
    ['a channel id that is markup', () => commandForm({ channel_id: '<!channel>' }), FORM],
    [
      'an event whose text is an object',
      JSON.stringify({
        type: 'event_callback',
        team_id: 'T0SANDBOX',
        event_id: 'Ev1',
        event: { type: 'message', channel: 'C0DOCS', user: 'U0ALICE', ts: '1700000000.000100', text: { a: 1 } },
      }),
      JSON_TYPE,
    ],
    [
      'an app_mention with text as an array',
      JSON.stringify({
        type: 'event_callback',
        team_id: 'T0SANDBOX',
        event_id: 'Ev2',
        event: { type: 'app_mention', channel: 'C0DOCS', user: 'U0ALICE', ts: '1700000000.000100', text: ['x'] },
      }),
      JSON_TYPE,
    ],
    ['a click with no actions', () => clickForm('link.pr', { actions: [] }), FORM],
    ['an unknown request type', JSON.stringify({ type: 'mystery' }), JSON_TYPE],
    // Found by the fuzz test (test/faults/fuzz.test.ts): Bolt reads these before any listener, and threw (503).
    [
      'an event the bot ignores, with channel null',
      JSON.stringify({
        type: 'event_callback',
        team_id: 'T0SANDBOX',
        event_id: 'Ev3',
        event: { type: 'reaction_added', channel: null, user: 'U0ALICE' },
      }),
      JSON_TYPE,
    ],
    [
      'an event with item as a string',
      JSON.stringify({
        type: 'event_callback',
        team_id: 'T0SANDBOX',
        event_id: 'Ev4',
        event: { type: 'reaction_added', item: 'x', user: 'U0ALICE' },
      }),
      JSON_TYPE,
    ],
    [
      'an event with user null',
      JSON.stringify({
        type: 'event_callback',
        team_id: 'T0SANDBOX',
        event_id: 'Ev5',
        event: { type: 'member_joined_channel', user: null },
      }),
      JSON_TYPE,
    ],
    [
      'an event with authorizations [null]',
      JSON.stringify({
        type: 'event_callback',
        team_id: 'T0SANDBOX',
        event_id: 'Ev6',
        authorizations: [null],
        event: { type: 'reaction_added' },
      }),
      JSON_TYPE,
    ],
    // Found by the fuzz test (test/faults/fuzz.test.ts): String() of this object throws, and it was a 500.
    [
      'a type that cannot be turned into a string',
      'payload=' + encodeURIComponent(JSON.stringify({ type: { toString: 'x', valueOf: 1 }, user: { id: 'U0ALICE' } })),
      FORM,
    ],
  ])(
    'a payload of the wrong shape (%s): 400 and one warning, no listener runs',
    async (_name, body: string | (() => string), type) => {
      const res = await send(typeof body === 'function' ? body() : body, type);
      expect(res.status).toBe(400);
      expect(warnings()).toEqual([expect.stringMatching(/^refused a malformed Slack request$/)]);
      expect(levels(50)).toEqual([]);
      expect(intake.record).not.toHaveBeenCalled();
    },
  );

  it('answers ssl_check and url_verification', async () => {
    expect((await send('ssl_check=1&token=x', FORM)).status).toBe(200);
    const res = await send(JSON.stringify({ type: 'url_verification', challenge: 'c-123', token: 'x' }), JSON_TYPE);
    expect(res.json).toEqual({ challenge: 'c-123' });
  });
});

describe('what a valid request gets', () => {
  it('a /docs-edit is recorded (id from its trigger_id), then acked with an empty 200', async () => {
    const res = await send(commandForm({ trigger_id: 'trig-abc', text: '  Add a &lt;Tabs&gt; example ' }), FORM);
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    expect(recorded).toEqual([
      {
        kind: 'agent-jobs.start',
        id: 'cmd-trig-abc',
        requestId: 'trig-abc',
        payload: expect.objectContaining({
          instruction: 'Add a <Tabs> example',
          channel: 'C0DOCS',
          requester: 'U0ALICE',
        }),
      },
    ]);
    expect(levels(40)).toEqual([]);
  });

  it('a /docs-edit with no instruction gets the usage in the ack and records nothing', async () => {
    const res = await send(commandForm({ text: '   ' }), FORM);
    expect(res.json).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('/docs-edit Add a quickstart for the Python SDK'),
    });
    expect(recorded).toEqual([]);
  });

  it('/docs-reply with no instruction gets its usage', async () => {
    const res = await send(commandForm({ command: '/docs-reply', text: 'job_1' }), FORM);
    expect(res.json).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('/docs-reply <job-id> <instruction>'),
    });
    expect(recorded).toEqual([]);
  });

  it('a command the bot does not have gets a polite ephemeral answer and a warning, not an error', async () => {
    const res = await send(commandForm({ command: '/docs-dance' }), FORM);
    expect(res.json).toEqual({
      response_type: 'ephemeral',
      text: "I don't know `/docs-dance`. I answer `/docs-edit`, `/docs-reply`, `/docs-visitors`.",
    });
    expect(warnings()).toEqual(['no listener for this request; answered politely']);
    expect(levels(50)).toEqual([]);
  });

  it.each(['link.pr', 'link.thread', 'open_pr_link'])(
    'a click on a link button (%s) is acked: no warning triangle, nothing recorded',
    async (actionId) => {
      const res = await send(clickForm(actionId), FORM);
      expect(res.status).toBe(200);
      expect(recorded).toEqual([]);
      expect(levels(40)).toEqual([]);
      expect(slack.messages.filter((m) => m.source === 'response_url')).toEqual([]);
    },
  );

  it('a click on a button the bot no longer has is acked and answered politely', async () => {
    const res = await send(clickForm('old.button'), FORM);
    expect(res.status).toBe(200);
    await slack.waitFor(() =>
      slack.messages.find((m) => m.ephemeralTo === 'U0ALICE' && m.text.includes("don't do any more")),
    );
    expect(warnings()).toEqual(['no listener for this request; answered politely']);
  });
});

describe('Redis will not take the record: the person is told, nothing is half-created', () => {
  it('/docs-edit: the ack says to try again; nothing recorded; a warning, not an error', async () => {
    redisDown = true;
    const res = await send(commandForm(), FORM);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ response_type: 'ephemeral', text: BUSY_TEXT });
    expect(recorded).toEqual([]);
    expect(warnings()).toEqual(['could not record a request; told the person to try again']);
    expect(levels(50)).toEqual([]);
  });

  it('/docs-visitors: the same answer', async () => {
    redisDown = true;
    const res = await send(commandForm({ command: '/docs-visitors', text: '7d' }), FORM);
    expect(res.json).toEqual({ response_type: 'ephemeral', text: BUSY_TEXT });
  });

  it('a click (Next on a report): acked, then told through its response_url', async () => {
    redisDown = true;
    const before = slack.messages.length;
    const res = await send(clickForm(PAGE_ACTIONS.next), FORM);
    expect(res.status).toBe(200);
    const told = await slack.waitFor(() => slack.messages.slice(before).find((m) => m.ephemeralTo === 'U0ALICE'));
    expect(told.text).toBe(BUSY_TEXT);
    expect(recorded).toEqual([]);
  });

  const busyEvent = (eventId: string) => ({
    type: 'event_callback',
    team_id: slack.teamId,
    event_id: eventId,
    event: {
      type: 'message',
      channel: 'C0DOCS',
      user: 'U0ALICE',
      ts: '1700000001.000200',
      thread_ts: '1700000000.000100',
      text: 'also add Go',
    },
  });

  it('a thread reply (event): not acked (503), so Slack redelivers it; nothing recorded, nobody told yet, a warning, not an error', async () => {
    redisDown = true;
    const res = await send(JSON.stringify(busyEvent('EvBUSY1')), JSON_TYPE);
    expect(res.status).toBe(503);
    expect(postEphemeral).not.toHaveBeenCalled();
    expect(recorded).toEqual([]);
    expect(warnings()).toEqual(['could not record an event; not acked, so Slack redelivers it']);
    expect(levels(50)).toEqual([]);
    // Redis is back by the redelivery: recorded once, acked.
    redisDown = false;
    const again = await postRaw(url, JSON.stringify(busyEvent('EvBUSY1')), {
      'Content-Type': JSON_TYPE,
      'X-Slack-Retry-Num': '1',
      'X-Slack-Retry-Reason': 'http_error',
      ...signatureHeaders(SECRET, JSON.stringify(busyEvent('EvBUSY1')), nowS()),
    });
    expect(again.status).toBe(200);
    expect(recorded.map((r) => r.id)).toEqual(['msg-C0DOCS-1700000001.000200']);
  });

  it("Slack's last retry (X-Slack-Retry-Num 3) that still cannot be recorded: the person is told in the thread, ephemerally", async () => {
    redisDown = true;
    const body = JSON.stringify(busyEvent('EvBUSY2'));
    const res = await postRaw(url, body, {
      'Content-Type': JSON_TYPE,
      'X-Slack-Retry-Num': '3',
      'X-Slack-Retry-Reason': 'http_error',
      ...signatureHeaders(SECRET, body, nowS()),
    });
    expect(res.status).toBe(503);
    expect(postEphemeral).toHaveBeenCalledExactlyOnceWith({
      channel: 'C0DOCS',
      user: 'U0ALICE',
      thread_ts: '1700000000.000100',
      text: BUSY_TEXT,
    });
    expect(levels(50)).toEqual([]);
  });

  it('App Home opened (event): not acked (503) either', async () => {
    redisDown = true;
    const event = {
      type: 'event_callback',
      team_id: slack.teamId,
      event_id: 'EvBUSY3',
      event: { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'home' },
    };
    expect((await send(JSON.stringify(event), JSON_TYPE)).status).toBe(503);
    expect(recorded).toEqual([]);
  });

  it('the agent view (app_context_changed): not acked (503), one warning, no error; recorded once on the redelivery', async () => {
    redisDown = true;
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: slack.teamId,
      event_id: 'EvBUSY4',
      event: { type: 'app_context_changed', user: 'U0ALICE', channel: 'D0ALICE', context: { entities: [] } },
    });
    expect((await send(body, JSON_TYPE)).status).toBe(503);
    expect(recorded).toEqual([]);
    expect(logs.filter((l) => l.level === 40)).toEqual([expect.objectContaining({ intake: 'agent-view.prompts' })]);
    expect(levels(50)).toEqual([]);
    redisDown = false;
    const again = await postRaw(url, body, {
      'Content-Type': JSON_TYPE,
      'X-Slack-Retry-Num': '1',
      'X-Slack-Retry-Reason': 'http_error',
      ...signatureHeaders(SECRET, body, nowS()),
    });
    expect(again.status).toBe(200);
    expect(recorded.map((r) => r.id)).toEqual(['prompts-EvBUSY4']);
  });
});
