import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { App, ErrorCode, LogLevel, type Receiver } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { EventNotRecordedError, SlackEdge, type EdgeResponse } from '../../src/platform/slack/edge.js';
import { freePort } from '../../sandbox/free-port.js';
import { arrayLogger } from '../helpers/logs.js';

/*
 * What the bot relies on in the installed @slack/bolt, beyond its typed surface, pinned here so an
 * upgrade that changes it fails this file (and not a redelivery in production):
 * - SlackEdge hands each verified request to `App.processEvent({ body, ack, retryNum, retryReason })`,
 *   which acks an event itself before its listeners run (the edge holds that ack back), resolves
 *   once they are done and rejects with what `app.error` throws;
 * - a listener's error reaches `app.error` wrapped: one failing listener as Bolt's UnknownError
 *   (`code` slack_bolt_unknown_error, the error in `original`), several as MultipleListenerError
 *   (`originals`); the edge looks through both for EventNotRecordedError, to answer 503 so Slack
 *   redelivers the event;
 * - Bolt's HTTPReceiver exits the process on a validly signed `null` body: the reproduction in
 *   docs/reliability.md ("Known issues") still crashes the installed Bolt, which is why the bot's
 *   receiver refuses such bodies itself.
 */

interface LogLine {
  level: number;
  msg: string;
}

const MENTION = {
  token: 'legacy',
  team_id: 'T0SANDBOX',
  api_app_id: 'A0DOCSAPP',
  type: 'event_callback',
  event_id: 'Ev0CONTRACT',
  event_time: 1_700_000_000,
  event: {
    type: 'app_mention',
    user: 'U0ALICE',
    text: '<@U0DOCSBOT> hi',
    ts: '1700000000.000100',
    channel: 'C0DOCS',
    event_ts: '1700000000.000100',
  },
};

/** A Bolt app built as createSlackApp builds it (own receiver, `app.error` rethrows), with `listeners` app_mention listeners. */
function boltApp(listeners: Array<() => Promise<void>>): { app: App; edge: SlackEdge; logs: LogLine[] } {
  const logs: LogLine[] = [];
  const edge = new SlackEdge({
    logger: arrayLogger('warn', logs).logger,
    commands: [],
    slackApiUrl: 'https://slack.com/api/',
  });
  const receiver: Receiver = { init: (a) => edge.init(a), start: async () => undefined, stop: async () => undefined };
  const app = new App({
    token: 'xoxb-contract',
    botId: 'B0DOCSBOT',
    botUserId: 'U0DOCSBOT',
    receiver,
    logLevel: LogLevel.ERROR,
  });
  app.error(async (err) => {
    throw err;
  });
  for (const l of listeners) app.event('app_mention', l);
  return { app, edge, logs };
}

const notRecorded = () => new EventNotRecordedError('test.mention', { cause: new Error('READONLY') });

async function rejection(p: Promise<unknown>): Promise<Record<string, unknown>> {
  return p.then(
    () => ({}),
    (e: unknown) => e as Record<string, unknown>,
  );
}

function edgeAnswer(edge: SlackEdge): Promise<EdgeResponse> {
  return new Promise((resolve) => void edge.handle(structuredClone(MENTION), {}, resolve));
}

describe('Bolt internals the edge relies on', () => {
  it('processEvent acks an event itself before its listeners run, and resolves after them', async () => {
    // The edge therefore keeps an event's ack back until processEvent resolves (see SlackEdge.dispatch).
    const order: string[] = [];
    const { app } = boltApp([async () => void order.push('listener')]);
    await app.processEvent({ body: structuredClone(MENTION), ack: async () => void order.push('ack') });
    order.push('resolved');
    expect(order).toEqual(['ack', 'listener', 'resolved']);
  });

  it('one failing listener: processEvent rejects with its error as is when it has a `code` (ours do), else with UnknownError holding it in `original`', async () => {
    const err = notRecorded();
    const { app } = boltApp([() => Promise.reject(err)]);
    const thrown = await rejection(app.processEvent({ body: structuredClone(MENTION), ack: async () => undefined }));
    expect(thrown).toBe(err);
    const plain = new Error('no code');
    const other = boltApp([() => Promise.reject(plain)]);
    const wrapped = await rejection(
      other.app.processEvent({ body: structuredClone(MENTION), ack: async () => undefined }),
    );
    expect(wrapped.code).toBe(ErrorCode.UnknownError);
    expect(wrapped.original).toBe(plain);
  });

  it('several failing listeners: MultipleListenerError holding each in `originals`', async () => {
    const [a, b] = [notRecorded(), new Error('other')];
    const { app } = boltApp([() => Promise.reject(a), () => Promise.reject(b)]);
    const thrown = await rejection(app.processEvent({ body: structuredClone(MENTION), ack: async () => undefined }));
    expect(thrown.code).toBe(ErrorCode.MultipleListenerError);
    expect(thrown.originals).toEqual([a, b]);
  });

  it('so the edge answers 503 (Slack redelivers) whichever way Bolt wrapped the not-recorded event', async () => {
    expect((await edgeAnswer(boltApp([() => Promise.reject(notRecorded())]).edge)).status).toBe(503);
    const two = boltApp([() => Promise.reject(new Error('other')), () => Promise.reject(notRecorded())]);
    expect((await edgeAnswer(two.edge)).status).toBe(503);
    expect(two.logs.map((l) => l.msg)).not.toContain('a listener failed');
    const other = boltApp([() => Promise.reject(new Error('a bug'))]);
    expect(await edgeAnswer(other.edge)).toEqual({ status: 503 });
    expect(other.logs.map((l) => l.msg)).toContain('a listener failed');
  });
});

describe('the Bolt crash docs/reliability.md reproduces', () => {
  it("still exits the installed Bolt's HTTPReceiver on a validly signed null body", async () => {
    const doc = readFileSync(new URL('../../docs/reliability.md', import.meta.url), 'utf8');
    const repro = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((c) => c.includes('ssl_check'));
    expect(repro, 'the reproduction is in docs/reliability.md').toBeDefined();
    const port = String(await freePort());
    const code = repro!.replaceAll('3977', port);
    const cwd = new URL('../../', import.meta.url);
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, ['--input-type=module', '-e', code], { cwd, timeout: 20_000 }, (err, _out, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stderr }),
      ),
    );
    expect(result.stderr).toContain("Cannot read properties of null (reading 'ssl_check')");
    expect(result.code).toBe(1);
  }, 30_000);
});
