import { Queue } from 'bullmq';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_OPEN_PR } from '../../src/features/agent-jobs/status/index.js';
import { ACTION_RESTART } from '../../src/features/agent-jobs/start/index.js';
import { ACTION_FEEDBACK } from '../../src/features/agent-jobs/feedback.js';
import { ACTION_IMPROVE_PREFIX } from '../../src/features/reports/digests/improve-value.js';
import { ACTION_DIGEST_RETRY } from '../../src/features/reports/digests/retry.js';
import { IMPROVE_CALLBACK_ID } from '../../src/features/reports/digests/improve-modal.js';
import { INSTRUCTION_ACTION, INSTRUCTION_BLOCK } from '../../src/features/agent-jobs/index.js';
import { DOCUMENT_THREAD_MODAL, DOCUMENT_THREAD_SHORTCUT } from '../../src/features/document-thread/index.js';
import {
  ACTION_EDIT,
  EDIT_CALLBACK_ID,
  FOLLOWUPS_ACTION,
  FOLLOWUPS_BLOCK,
  PROJECT_ACTION,
  PROJECT_BLOCK,
} from '../../src/features/settings/blocks.js';
import { INTAKE_QUEUE } from '../../src/platform/intake.js';
import { POLL_QUEUE } from '../../src/features/agent-jobs/poll/worker.js';
import { postRaw, signatureHeaders } from '../../sandbox/driver/http.js';
import type { SlackCall } from '../../sandbox/fake-slack.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { E2E_SECRETS, startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { PAGE_ACTIONS } from '../../src/features/reports/paging-value.js';

/**
 * Hostile but validly signed requests against the running bot (a separate process, as in
 * production), generated with fast-check: bodies that are JSON null / arrays / numbers / strings,
 * `payload=null`, commands, events, clicks (feedback buttons included), modal submissions and shortcuts with missing fields and
 * fields of the wrong type (text as a number, an object, an array), agent view events (the Messages
 * tab, app_context_changed) with hostile `context.entities`, 200 KB bodies, control
 * characters, lone surrogates, mass-mention markup (`<!channel>`, `<!here>`, `<!everyone>`,
 * `@channel`, and Slack's escaped `&lt;!channel&gt;`) in instructions, unknown types.
 *
 * Besides what the generator draws, it always runs the searches, feedback and questions reports and a
 * digest on the fake's hostile reader text, and clicks every Improve with agent they carry.
 *
 * Bar: the process never exits; no HTTP 5xx; every request is answered 200 (an ack) or 400
 * (malformed), or 413 when it is over the 1 MiB limit; no error-level log line; nothing the bot sends
 * (chat.postMessage / update / postEphemeral, response_url, the ack bodies, views.open / push /
 * update / publish: text, blocks, button values, initial values, private_metadata) contains a live
 * mass mention.
 */

const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
/** A live mass mention in Slack's markup (the escaped `&lt;!channel&gt;` is harmless text). */
const MASS_MENTION = /<!(channel|here|everyone|subteam\^[^>]*)[|>]/;

let sb: Sandbox;
let hugeThreadTs = '';
let bot: BotProcess;
let botUrl: string;

/** Placeholders resolved at send time: a response_url / trigger_id the fake Slack honours. */
const RESPONSE_URL = '$RESPONSE_URL';
const TRIGGER = '$TRIGGER';
/** The ts of a 3,000-reply thread in #docs, seeded before the run (a mention there, a shortcut on it). */
const HUGE_THREAD = '$HUGE_THREAD';
const HUGE_THREAD_REPLIES = 3_000;
/** A pasted message naming 3,000 distinct people: at most 25 of them may be looked up (users.info). */
const MENTION_FLOOD = Array.from({ length: 3_000 }, (_, i) => `<@U${String(i).padStart(9, '0')}>`).join(' ');

// ---- generators ---------------------------------------------------------------------------------

const NASTY = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<!here|here>',
  '<!channel|channel>',
  '@channel',
  '@here',
  '@everyone',
  '<!subteam^S0DOCSWRITERS>',
  '<!subteam^S0DOCSWRITERS|@docs-writers>',
  '&lt;!channel&gt;',
  '&lt;!here&gt;',
  '&lt;!everyone|x&gt;',
  '<@U0BOB>',
  '<#C0RANDOM>',
  '<https://evil.example|the docs>',
  '[here [SSO]](https:/evil.example/sso)',
  '[here [SSO]](//evil.example/login)',
  '[go [now]](javascript:alert(1))',
  '\\`https://evil.example/login `',
  '/billing\nhttps://evil.example/login *urgent* <!here>',
  '/billing\r\n\u2028@channel',
  '<mailto:x@evil.example|x>',
  '*bold*',
  '_it_',
  '~s~',
  '`',
  '```',
  '>',
  '&amp;',
  '&lt;',
  '&gt;',
  '\u0000',
  '\u0007',
  '\u0008',
  '\u001b[2J',
  '\r\n',
  '\t',
  '\u2028',
  '\u2029',
  '\uD800',
  '\uDFFF',
  '\uDC00x\uD83D',
  '\u202E',
  '\uFEFF',
  '😀',
  '👩‍👩‍👧',
  'job_',
  'job_abc123',
  '/docs-edit',
  'digest',
  'subscribe',
  'unsubscribe',
  'subscriptions',
  'help',
  'limit=0',
  'limit=999999',
  '7d',
  '2026-13-45',
  '2026-11-01',
  'Monday',
  '25:99',
  'Mars/Olympus',
  '!aside',
  '%',
  '%00',
  '+',
  '=',
  '&',
  '{"a":1}',
  'null',
  'undefined',
  '__proto__',
  'constructor',
];

const word = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'Add a quickstart',
      'document the CLI',
      'also add Go',
      'subscribe monday 09:00 Europe/Berlin',
      '2026-11-01 2026-11-08 limit=5',
    ),
  },
);
/** Text a person could type (or a forger could send). */
const text = fc.oneof(
  { weight: 12, arbitrary: fc.array(word, { maxLength: 8 }).map((a) => a.join(' ')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'x'.repeat(200_000),
      '<!channel> '.repeat(18_000),
      '\uD800'.repeat(60_000),
      `${'&lt;!here&gt; '.repeat(2_800)}`,
    ),
  },
);
/** A value of the wrong type where a string belongs (or a hostile string). */
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.constant({ toString: 'x', valueOf: 1 }),
);
/**
 * Field builders. Half of the requests are shaped as Slack sends them (only the text a person types
 * is hostile), so they reach the listeners and the workers; the other half may have any field
 * missing, of the wrong type, or hostile.
 */
interface Fields {
  maybeWrong(good: fc.Arbitrary<unknown>): fc.Arbitrary<unknown>;
  /** A field that may be missing (undefined is dropped by JSON and by the form encoder). */
  field(good: fc.Arbitrary<unknown>): fc.Arbitrary<unknown>;
}
const wellShaped: Fields = { maybeWrong: (good) => good, field: (good) => good };
const mangled: Fields = {
  maybeWrong: (good) =>
    fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: wrongType }, { weight: 1, arbitrary: text }),
  field: (good) => fc.option(mangled.maybeWrong(good), { nil: undefined, freq: 8 }),
};
/** Both variants of a request generator, well-shaped first. */
const both = (make: (f: Fields) => fc.Arbitrary<FuzzRequest>) => fc.oneof(make(wellShaped), make(mangled));

const ts = fc
  .tuple(fc.integer({ min: 1_700_000_000, max: 1_800_000_000 }), fc.integer({ min: 0, max: 999_999 }))
  .map(([s, us]) => `${s}.${String(us).padStart(6, '0')}`);
/** People and places: mostly ones the bot can serve (so the work goes all the way to a posted message), some it can't. */
const user = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('U0ALICE', 'U0BOB') },
  { weight: 1, arbitrary: fc.constantFrom('U0GUEST', 'U0EXTERNAL', 'U0NOBODY99', 'W0GRID1') },
);
const channel = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('C0DOCS', 'D0ALICE') },
  { weight: 1, arbitrary: fc.constantFrom('C0RANDOM', 'C0CONNECT', 'C0LEADS', 'C0GONE123', 'G0PRIVATE1') },
);
const team = fc.constantFrom('T0SANDBOX', 'T0OTHER1', 'E0GRID1');
/** Mostly one the fake honours; sometimes one nothing listens on (its answers are retried, then given up with a warning). */
const CLOSED_URL = 'http://127.0.0.1:9/closed';
const responseUrl = fc.constantFrom(RESPONSE_URL, RESPONSE_URL, RESPONSE_URL, CLOSED_URL);
const trigger = fc.constantFrom(TRIGGER, TRIGGER, '1234.5678.abcdef');

/** One request: its body (an object encoded at send time, or a raw string) and how it is encoded. */
interface FuzzRequest {
  label: string;
  encoding: 'json' | 'form-fields' | 'form-payload' | 'raw-json' | 'raw-form';
  body: unknown;
}

const command = both(({ maybeWrong, field }) =>
  fc
    .record({
      command: maybeWrong(
        fc.constantFrom(
          '/docs-edit',
          '/docs-edit',
          '/docs-edit',
          '/docs-reply',
          '/docs-visitors',
          '/docs-visitors',
          '/docs-settings',
          '/docs-ask',
          '/docs-ask',
          '/docs-dance',
          '/DOCS-EDIT',
        ),
      ),
      text: field(text),
      user_id: field(user),
      channel_id: field(channel),
      team_id: field(team),
      trigger_id: field(trigger),
      response_url: field(responseUrl),
      user_name: fc.option(text, { nil: undefined }),
    })
    .chain((body) =>
      fc.constantFrom<FuzzRequest>(
        { label: 'command (form)', encoding: 'form-fields', body },
        { label: 'command (JSON)', encoding: 'json', body },
      ),
    ),
);

const event = both(({ maybeWrong, field }) =>
  fc
    .record({
      type: maybeWrong(fc.constant('event_callback')),
      team_id: field(team),
      event_id: field(fc.stringMatching(/^Ev[A-Z0-9]{8}$/)),
      event: maybeWrong(
        fc.record({
          type: maybeWrong(
            fc.constantFrom(
              'message',
              'message',
              'app_mention',
              'app_home_opened',
              'reaction_added',
              'member_joined_channel',
            ),
          ),
          channel: field(channel),
          user: field(user),
          text: field(
            fc.oneof(
              {
                weight: 6,
                arbitrary: fc.oneof(
                  text,
                  text.map((t) => `<@U0DOCSBOT> ${t}`),
                ),
              },
              { weight: 1, arbitrary: fc.constantFrom(MENTION_FLOOD, `<@U0DOCSBOT> document this ${MENTION_FLOOD}`) },
            ),
          ),
          ts: field(ts),
          thread_ts: fc.option(
            maybeWrong(fc.oneof({ weight: 4, arbitrary: ts }, { weight: 1, arbitrary: fc.constant(HUGE_THREAD) })),
            { nil: undefined },
          ),
          subtype: fc.option(
            maybeWrong(fc.constantFrom('bot_message', 'message_changed', 'file_share', 'thread_broadcast')),
            { nil: undefined },
          ),
          bot_id: fc.option(maybeWrong(fc.constant('B0OTHER')), { nil: undefined }),
          channel_type: fc.option(maybeWrong(fc.constantFrom('im', 'channel', 'group')), { nil: undefined }),
          tab: fc.option(maybeWrong(fc.constantFrom('home', 'messages')), { nil: undefined }),
        }),
      ),
    })
    .map((body): FuzzRequest => ({ label: 'event', encoding: 'json', body })),
);

/** The agent view's events: the Messages tab opening and app_context_changed, with hostile `context.entities`. */
const agentViewEvent = both(({ maybeWrong, field }) => {
  const entityType = fc.constantFrom(
    'slack#/types/channel_id',
    'slack#/types/message_context',
    'slack#/types/canvas_id',
    'slack#/types/list_id',
    'slack#/types/nope',
  );
  const value = fc.oneof(
    channel,
    fc.record({ message_ts: maybeWrong(ts), channel_id: maybeWrong(channel) }),
    wrongType,
    text,
  );
  const entity = maybeWrong(
    fc.record({
      type: maybeWrong(entityType),
      value: field(value),
      team_id: fc.option(maybeWrong(team), { nil: undefined }),
    }),
  );
  return fc
    .record({
      type: maybeWrong(fc.constant('event_callback')),
      team_id: field(team),
      event_id: field(fc.stringMatching(/^Ev[A-Z0-9]{8}$/)),
      event: maybeWrong(
        fc.record({
          type: maybeWrong(fc.constantFrom('app_context_changed', 'app_home_opened')),
          user: field(user),
          channel: field(fc.constantFrom('D0ALICE', 'D0ALICE', 'D0NOBODY1', 'C0DOCS')),
          tab: fc.option(maybeWrong(fc.constantFrom('messages', 'messages', 'home')), { nil: undefined }),
          context: field(
            fc.oneof(fc.constant({}), fc.record({ entities: maybeWrong(fc.array(entity, { maxLength: 25 })) })),
          ),
          event_ts: field(ts),
        }),
      ),
    })
    .map((body): FuzzRequest => ({ label: 'agent view event', encoding: 'json', body }));
});

const actionIds = fc.constantFrom(
  ACTION_RESTART,
  ACTION_FEEDBACK,
  ACTION_FEEDBACK,
  PAGE_ACTIONS.next,
  PAGE_ACTIONS.previous,
  PAGE_ACTIONS.retry,
  ACTION_DIGEST_RETRY,
  `${ACTION_IMPROVE_PREFIX}0`,
  `${ACTION_IMPROVE_PREFIX}99`,
  ACTION_OPEN_PR,
  ACTION_EDIT,
  'link.thread',
  'open_pr_link',
  'old.button',
);
const click = both(({ maybeWrong, field }) =>
  fc
    .record({
      type: maybeWrong(fc.constant('block_actions')),
      user: maybeWrong(fc.record({ id: maybeWrong(user) })),
      team: fc.option(maybeWrong(fc.record({ id: maybeWrong(team) })), { nil: undefined }),
      trigger_id: field(trigger),
      channel: fc.option(maybeWrong(fc.record({ id: maybeWrong(channel) })), { nil: undefined }),
      container: fc.option(
        maybeWrong(
          fc.record({ type: fc.constant('message'), message_ts: maybeWrong(ts), channel_id: maybeWrong(channel) }),
        ),
        { nil: undefined },
      ),
      message: fc.option(maybeWrong(fc.record({ ts: maybeWrong(ts) })), { nil: undefined }),
      response_url: field(responseUrl),
      actions: maybeWrong(
        fc.array(
          fc.record({
            action_id: maybeWrong(actionIds),
            type: maybeWrong(fc.constantFrom('button', 'feedback_buttons')),
            action_ts: maybeWrong(ts),
            // Feedback values as the bot sends them (`<rating>:<jobId>`), near misses and junk.
            value: field(
              fc.oneof(
                text,
                fc
                  .tuple(
                    fc.constantFrom('positive', 'negative', 'neutral', '', 'POSITIVE'),
                    fc.oneof(text, fc.constantFrom('job_abc123', 'job_', '../x', 'a:b')),
                  )
                  .map(([r, j]) => `${r}:${j}`),
              ),
            ),
            text: fc.option(
              maybeWrong(fc.record({ type: fc.constant('plain_text'), text: maybeWrong(fc.constantFrom('👍', '👎')) })),
              { nil: undefined },
            ),
            block_id: field(fc.constant('actions')),
          }),
          { minLength: 0, maxLength: 3 },
        ),
      ),
    })
    .map((body): FuzzRequest => ({ label: 'click', encoding: 'form-payload', body })),
);

const submission = both(({ maybeWrong, field }) =>
  fc
    .record({
      type: maybeWrong(fc.constantFrom('view_submission', 'view_closed')),
      user: maybeWrong(fc.record({ id: maybeWrong(user) })),
      team: fc.option(maybeWrong(fc.record({ id: maybeWrong(team) })), { nil: undefined }),
      trigger_id: field(trigger),
      view: maybeWrong(
        fc.record({
          id: maybeWrong(fc.constant('V0FUZZ1')),
          callback_id: maybeWrong(
            fc.constantFrom(IMPROVE_CALLBACK_ID, DOCUMENT_THREAD_MODAL, EDIT_CALLBACK_ID, 'unknown_modal'),
          ),
          hash: fc.constant('h1'),
          private_metadata: field(
            fc.oneof(
              text,
              // Improve with agent's metadata (c, t, p), then Document this thread's (c, t).
              fc
                .record({ c: maybeWrong(channel), t: maybeWrong(ts), p: maybeWrong(text) })
                .map((m) => JSON.stringify(m)),
              fc.record({ c: maybeWrong(channel), t: maybeWrong(ts) }).map((m) => JSON.stringify(m)),
            ),
          ),
          state: maybeWrong(
            fc.record({
              values: maybeWrong(
                fc.record({
                  [INSTRUCTION_BLOCK]: maybeWrong(
                    fc.record({
                      [INSTRUCTION_ACTION]: maybeWrong(
                        fc.record({ type: fc.constant('plain_text_input'), value: field(text) }),
                      ),
                    }),
                  ),
                  // The settings modal's select and radio buttons.
                  [PROJECT_BLOCK]: maybeWrong(
                    fc.record({
                      [PROJECT_ACTION]: maybeWrong(
                        fc.record({
                          type: fc.constant('static_select'),
                          selected_option: maybeWrong(
                            fc.record({ value: field(fc.constantFrom('proj_e2e', 'proj_nope')) }),
                          ),
                        }),
                      ),
                    }),
                  ),
                  [FOLLOWUPS_BLOCK]: maybeWrong(
                    fc.record({
                      [FOLLOWUPS_ACTION]: maybeWrong(
                        fc.record({
                          type: fc.constant('radio_buttons'),
                          selected_option: maybeWrong(
                            fc.record({ value: field(fc.constantFrom('anyone', 'requester', 'everyone')) }),
                          ),
                        }),
                      ),
                    }),
                  ),
                }),
              ),
            }),
          ),
        }),
      ),
    })
    .map((body): FuzzRequest => ({ label: 'modal', encoding: 'form-payload', body })),
);

const shortcut = both(({ maybeWrong, field }) =>
  fc
    .record({
      type: maybeWrong(fc.constantFrom('message_action', 'shortcut', 'interactive_message', 'workflow_step_execute')),
      callback_id: field(fc.constantFrom('docs_edit_from_message', DOCUMENT_THREAD_SHORTCUT, 'nope')),
      trigger_id: field(trigger),
      user: maybeWrong(fc.record({ id: maybeWrong(user) })),
      channel: fc.option(maybeWrong(fc.record({ id: maybeWrong(channel) })), { nil: undefined }),
      message: fc.option(
        maybeWrong(
          fc.record({
            ts: maybeWrong(fc.oneof({ weight: 3, arbitrary: ts }, { weight: 1, arbitrary: fc.constant(HUGE_THREAD) })),
            text: maybeWrong(text),
          }),
        ),
        { nil: undefined },
      ),
      response_url: field(responseUrl),
    })
    .map((body): FuzzRequest => ({ label: 'shortcut', encoding: 'form-payload', body })),
);

const rawBody = fc.oneof(
  fc.constantFrom<FuzzRequest>(
    { label: 'raw', encoding: 'raw-json', body: 'null' },
    { label: 'raw', encoding: 'raw-json', body: '[]' },
    { label: 'raw', encoding: 'raw-json', body: '[null]' },
    { label: 'raw', encoding: 'raw-json', body: '42' },
    { label: 'raw', encoding: 'raw-json', body: '"hello"' },
    { label: 'raw', encoding: 'raw-json', body: 'true' },
    { label: 'raw', encoding: 'raw-json', body: '{}' },
    { label: 'raw', encoding: 'raw-json', body: '{"type":null}' },
    { label: 'raw', encoding: 'raw-json', body: '{"__proto__":{"type":"event_callback"}}' },
    { label: 'raw', encoding: 'raw-form', body: 'payload=null' },
    { label: 'raw', encoding: 'raw-form', body: 'payload=%5B%5D' },
    { label: 'raw', encoding: 'raw-form', body: 'payload=%22x%22' },
    { label: 'raw', encoding: 'raw-form', body: 'payload=1&payload=2' },
    { label: 'raw', encoding: 'raw-form', body: 'ssl_check=1' },
    { label: 'raw', encoding: 'raw-form', body: '' },
    { label: 'raw', encoding: 'raw-json', body: '' },
    { label: 'raw', encoding: 'raw-json', body: `{"type":"event_callback","pad":"${'x'.repeat(200_000)}"}` },
  ),
  fc
    .jsonValue({ maxDepth: 3 })
    .map((v): FuzzRequest => ({ label: 'raw JSON value', encoding: 'raw-json', body: JSON.stringify(v) ?? 'null' })),
  fc.jsonValue({ maxDepth: 3 }).map((v): FuzzRequest => ({
    label: 'raw payload value',
    encoding: 'raw-form',
    body: `payload=${encodeURIComponent(JSON.stringify(v) ?? 'null')}`,
  })),
  fc
    .string({ unit: 'binary', maxLength: 200 })
    .chain((s) =>
      fc.constantFrom<FuzzRequest>(
        { label: 'raw junk', encoding: 'raw-json', body: s },
        { label: 'raw junk', encoding: 'raw-form', body: s },
      ),
    ),
);

const request = fc.oneof(
  { weight: 4, arbitrary: command },
  { weight: 3, arbitrary: event },
  { weight: 2, arbitrary: agentViewEvent },
  { weight: 3, arbitrary: click },
  { weight: 2, arbitrary: submission },
  { weight: 1, arbitrary: shortcut },
  { weight: 2, arbitrary: rawBody },
);

// ---- sending --------------------------------------------------------------------------------------

/** Replaces the placeholders with a response_url / trigger_id the fake Slack honours. */
function resolve(v: unknown, who: () => { user: string; channel: string }): unknown {
  if (v === RESPONSE_URL) return sb.slack.responseUrl(undefined, who());
  if (v === TRIGGER) return sb.slack.triggerId(who().user);
  if (v === HUGE_THREAD) return hugeThreadTs;
  if (Array.isArray(v)) return v.map((x) => resolve(x, who));
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, resolve(x, who)]));
  }
  return v;
}

function encode(r: FuzzRequest): { body: string; contentType: string } {
  const str = (v: unknown) => (typeof v === 'string' ? v : String(v as string));
  const pick = (o: unknown, ...keys: string[]) =>
    keys.reduce<unknown>((x, k) => (x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined), o);
  const who = () => {
    const u = pick(r.body, 'user_id') ?? pick(r.body, 'user', 'id');
    const c = pick(r.body, 'channel_id') ?? pick(r.body, 'channel', 'id');
    return { user: typeof u === 'string' ? u : 'U0ALICE', channel: typeof c === 'string' ? c : 'C0DOCS' };
  };
  switch (r.encoding) {
    case 'raw-json':
      return { body: str(r.body), contentType: JSON_TYPE };
    case 'raw-form':
      return { body: str(r.body), contentType: FORM };
    case 'json':
      return { body: JSON.stringify(resolve(r.body, who)), contentType: JSON_TYPE };
    case 'form-payload':
      return {
        body: new URLSearchParams({ payload: JSON.stringify(resolve(r.body, who)) }).toString(),
        contentType: FORM,
      };
    case 'form-fields': {
      const fields = resolve(r.body, who) as Record<string, unknown>;
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(fields))
        if (v !== undefined) form.set(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
      return { body: form.toString(), contentType: FORM };
    }
  }
}

interface Stats {
  sent: number;
  byStatus: Record<string, number>;
  byLabel: Record<string, number>;
  bad: Array<{ label: string; status: number; body: string; request: string }>;
  ackBodies: string[];
}

async function sendOne(r: FuzzRequest, stats: Stats): Promise<void> {
  const { body, contentType } = encode(r);
  const headers = {
    'Content-Type': contentType,
    ...signatureHeaders(E2E_SECRETS.SLACK_SIGNING_SECRET, body, Date.now() / 1000),
  };
  const res = await postRaw(botUrl, body, headers);
  stats.sent++;
  stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
  stats.byLabel[r.label] = (stats.byLabel[r.label] ?? 0) + 1;
  if (res.body) stats.ackBodies.push(res.body);
  // Bodies over the receiver's 1 MiB limit (several 200 KB fields at once) are refused with 413, unread.
  const tooLarge = Buffer.byteLength(body) > 1024 * 1024;
  const answered = tooLarge
    ? res.status === 413
    : res.status === 400 || (res.status === 200 && (res.body === '' || res.json !== undefined));
  if (!answered)
    stats.bad.push({ label: r.label, status: res.status, body: res.body.slice(0, 300), request: body.slice(0, 300) });
}

/**
 * Everything the bot sent to Slack that people could read or Slack reads back: text, blocks (button
 * values and block_ids included), and the views it opened, pushed, updated or published (their
 * blocks, initial values and private_metadata).
 */
function postedByBot(calls: SlackCall[]): Array<{ method: string; content: string }> {
  const methods = new Set([
    'chat.postMessage',
    'chat.update',
    'chat.postEphemeral',
    'chat.scheduleMessage',
    'chat.startStream',
    'chat.appendStream',
    'chat.stopStream',
    'response_url',
    'files.completeUploadExternal',
    'views.open',
    'views.push',
    'views.update',
    'views.publish',
  ]);
  return calls
    .filter((c) => methods.has(c.method))
    .map((c) => ({
      method: c.method,
      content: JSON.stringify([
        c.args.text,
        c.args.markdown_text,
        c.args.blocks,
        c.args.initial_comment,
        c.args.attachments,
        c.args.view,
      ]),
    }));
}

/** A command as Slack sends it, from a member in #docs. */
function memberCommand(command: string, text: string, user = 'U0ALICE'): FuzzRequest {
  const body = {
    command,
    text,
    user_id: user,
    channel_id: 'C0DOCS',
    team_id: 'T0SANDBOX',
    trigger_id: TRIGGER,
    response_url: RESPONSE_URL,
  };
  return { label: 'reader signals', encoding: 'form-fields', body };
}

/**
 * Clicks, as a member, every "Improve with agent" the bot posted in #docs (reports and digests, on
 * readers' hostile words), with the value the bot gave it: each opens the prefilled modal.
 */
function improveClicks(calls: SlackCall[]): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  for (const c of calls) {
    if (c.method !== 'chat.postMessage' || c.args.channel !== 'C0DOCS' || !Array.isArray(c.args.blocks)) continue;
    const ts = (c.response as { ts?: string } | undefined)?.ts;
    if (!ts) continue;
    for (const b of c.args.blocks as Array<{ block_id?: string; accessory?: { action_id?: string; value?: string } }>) {
      const a = b.accessory;
      if (!a?.action_id || !/^visitors\.(signal|digest)\.improve\.\d+$/.test(a.action_id)) continue;
      const body = {
        type: 'block_actions',
        user: { id: 'U0ALICE' },
        team: { id: 'T0SANDBOX' },
        trigger_id: TRIGGER,
        channel: { id: 'C0DOCS' },
        container: { type: 'message', message_ts: ts, channel_id: 'C0DOCS' },
        message: { ts, blocks: c.args.blocks },
        response_url: RESPONSE_URL,
        actions: [
          { action_id: a.action_id, type: 'button', value: a.value, block_id: b.block_id, action_ts: `${ts}1` },
        ],
      };
      out.push({ label: 'improve click', encoding: 'form-payload', body });
    }
  }
  return out;
}

/** pino lines of the bot at `level` or above, and any line that is not JSON (a stack dump). */
function logLines(out: string) {
  const lines = out.split('\n').filter((l) => l.trim());
  const parsed = lines.map((l) => {
    try {
      return JSON.parse(l) as { level: number; msg: string };
    } catch {
      return undefined;
    }
  });
  return {
    errors: parsed.filter((l): l is { level: number; msg: string } => l !== undefined && l.level >= 50),
    warnings: parsed.filter((l): l is { level: number; msg: string } => l !== undefined && l.level === 40),
    notJson: lines.filter((_l, i) => parsed[i] === undefined),
  };
}

/**
 * Waits until nothing is waiting, active or delayed on `queueName` (or `timeoutMs` passed).
 * @returns the job counts, and what the jobs still retrying said (kind: reason).
 */
async function drained(
  queueName: string,
  timeoutMs: number,
): Promise<{ counts: Record<string, number>; unfinished: string[] }> {
  const q = new Queue(queueName, { connection: { url: TEST_REDIS_URL }, prefix: sb.prefix });
  const deadline = Date.now() + timeoutMs;
  let counts: Record<string, number> = {};
  try {
    while (Date.now() < deadline) {
      counts = await q.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
      const delayed = await q.getJobs(['delayed']);
      const retryingClosedUrl = delayed.filter((j) => j.failedReason?.includes('ECONNREFUSED 127.0.0.1:9')).length;
      if (!counts.waiting && !counts.active && !counts.prioritized && (counts.delayed ?? 0) <= retryingClosedUrl) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // Given up on purpose (a place that is gone, a response_url Slack no longer takes) is "failed" and fine; still retrying is not.
    const stuck = await q.getJobs(['delayed', 'active', 'waiting']);
    return {
      counts,
      unfinished: stuck.map(
        (j) => `${j.name}: ${j.failedReason} ${(j.stacktrace?.[0] ?? '').split('\n').slice(0, 4).join(' | ')}`,
      ),
    };
  } finally {
    await q.close();
  }
}

/** Bytes Redis holds under `prefix` (MEMORY USAGE of every key). */
async function prefixBytes(prefix: string): Promise<number> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    let bytes = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      for (const k of keys) bytes += (await redis.memory('USAGE', k)) ?? 0;
    } while (cursor !== '0');
    return bytes;
  } finally {
    redis.disconnect();
  }
}

// ---- the test -------------------------------------------------------------------------------------

describe('hostile, validly signed requests against the running bot', () => {
  beforeAll(async () => {
    sb = await startSandbox({
      ask: true, // questions (/docs-ask, mentions) are answered: their streams are checked for mass mentions too
      jobDurationMs: 300,
      env: { POLL_MIN_INTERVAL_MS: '200', POLL_MAX_INTERVAL_MS: '400' },
    });
    const root = sb.slack.addUserMessage({
      channel: 'C0DOCS',
      user: 'U0ALICE',
      text: 'The long discussion about the pricing page',
    });
    hugeThreadTs = root.ts;
    for (let i = 0; i < HUGE_THREAD_REPLIES; i++)
      sb.slack.addUserMessage({
        channel: 'C0DOCS',
        user: i % 2 ? 'U0BOB' : 'U0ALICE',
        text: `reply ${i}: ${'words '.repeat(20)}`,
        thread_ts: root.ts,
      });
    ({ bot } = await sb.startBot());
    botUrl = `${bot.url}/slack/events`;
  });
  afterAll(async () => {
    await sb?.close();
  });

  it(
    `${NUM_RUNS} generated requests: no crash, no 5xx, every one answered, no error log, no mass mention posted`,
    { timeout: 300_000 },
    async () => {
      const stats: Stats = { sent: 0, byStatus: {}, byLabel: {}, bad: [], ackBodies: [] };
      const started = Date.now();
      // Whatever the generator draws: the reader-signal reports and a digest on the fake's hostile
      // comments, questions and search terms (sent first, while the analytics budget is whole).
      for (const text of ['feedback', 'questions', 'searches', 'digest'])
        await sendOne(memberCommand('/docs-visitors', text), stats);
      await sb.slack.waitFor(
        () =>
          sb.slack.calls.some(
            (c) => c.method === 'chat.postMessage' && /^Weekly docs digest/.test(String(c.args.text)),
          ),
        30_000,
      );
      await drained(INTAKE_QUEUE, 30_000);
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          await sendOne(r, stats);
          expect(bot.proc.exitCode, 'the bot exited').toBeNull();
          expect(stats.bad, 'a request got no proper answer').toEqual([]);
        }),
        {
          numRuns: NUM_RUNS,
          endOnFailure: true,
          ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
        },
      );
      // And, whatever the generator drew: a member's and a guest's mention flood in the 3,000-reply thread, with the bot mentioned.
      for (const who of ['U0ALICE', 'U0GUEST']) {
        const body = {
          type: 'event_callback',
          team_id: 'T0SANDBOX',
          event_id: `EvFLOOD${who.slice(-4)}`,
          event: {
            type: 'app_mention',
            channel: 'C0DOCS',
            user: who,
            text: `<@U0DOCSBOT> document this ${MENTION_FLOOD}`,
            ts: `${Math.floor(Date.now() / 1000)}.00000${who.length}`,
            thread_ts: HUGE_THREAD,
          },
        };
        await sendOne({ label: 'mention flood in a huge thread', encoding: 'json', body }, stats);
      }
      // And every Improve with agent the bot posted, clicked with its own value: the modals it opens.
      const improves = improveClicks(sb.slack.calls);
      for (const r of improves) await sendOne(r, stats);
      const sendSeconds = (Date.now() - started) / 1000;
      // Let the workers finish what was recorded (intakes, then the jobs they started).
      const intake = await drained(INTAKE_QUEUE, 60_000);
      const poll = await drained(POLL_QUEUE, 30_000);
      const totalSeconds = (Date.now() - started) / 1000;

      const logs = logLines(bot.output());
      const mentions = postedByBot(sb.slack.calls).filter((p) => MASS_MENTION.test(p.content));
      const ackMentions = stats.ackBodies.filter((b) => MASS_MENTION.test(b));
      const jobs = sb.docs.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job')).length;
      const slackCalls = sb.slack.calls.length;
      const usersInfo = sb.slack.calls.filter((c) => c.method === 'users.info').length;
      const replies = sb.slack.calls.filter((c) => c.method === 'conversations.replies').length;
      const redisBytes = await prefixBytes(sb.prefix);
      console.log(
        `fuzz: ${stats.sent} requests in ${sendSeconds.toFixed(1)} s (${totalSeconds.toFixed(1)} s with the workers' follow-through); ` +
          `by kind ${JSON.stringify(stats.byLabel)}; answers ${JSON.stringify(stats.byStatus)}; ${jobs} agent jobs started; ` +
          `${postedByBot(sb.slack.calls).length} messages posted or edited; intake ${JSON.stringify(intake.counts)}; poll ${JSON.stringify(poll.counts)}; ` +
          `${logs.warnings.length} warning lines, ${logs.errors.length} error lines, ${logs.notJson.length} non-JSON lines; ` +
          `Slack calls ${slackCalls} (${(slackCalls / stats.sent).toFixed(2)} a request; users.info ${usersInfo}, conversations.replies ${replies}); ` +
          `Redis ${(redisBytes / 1024).toFixed(0)} KB under the bot's prefix (${(redisBytes / stats.sent).toFixed(0)} B a request)`,
      );
      // A mention flood costs at most 25 name lookups, whoever sends it and however often (cached).
      expect(usersInfo / stats.sent).toBeLessThan(5);
      // A 3,000-reply thread is read at most 5 pages at a time, and a read is cached for a minute.
      expect(replies).toBeLessThan(stats.sent);
      for (const line of [...logs.errors, ...logs.notJson])
        console.log('error line:', JSON.stringify(line).slice(0, 2000));
      for (const u of [...intake.unfinished, ...poll.unfinished]) console.log('unfinished:', u.slice(0, 1000));
      expect(bot.proc.exitCode).toBeNull();
      expect(stats.byStatus['500'] ?? 0).toBe(0);
      expect(Object.keys(stats.byStatus).filter((s) => !['200', '400', '413'].includes(s))).toEqual([]);
      expect(logs.errors.map((l) => l.msg)).toEqual([]);
      expect(logs.notJson).toEqual([]);
      // The reader-signal reports and digest were posted, and their Improve buttons opened modals.
      expect(improves.length).toBeGreaterThan(0);
      expect(sb.slack.calls.filter((c) => c.method === 'views.open').length).toBeGreaterThan(0);
      expect(mentions).toEqual([]);
      expect(ackMentions).toEqual([]);
      // Still retrying after the drain window: only answers to a response_url nothing listens on (a network error, worth retrying).
      expect(intake.unfinished.filter((u) => !u.includes('ECONNREFUSED 127.0.0.1:9'))).toEqual([]);
      expect(poll.unfinished).toEqual([]);
      expect((await fetch(`${bot.url}/healthz`)).status).toBe(200);
    },
  );
});
