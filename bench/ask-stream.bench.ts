import { LogLevel, WebClient } from '@slack/web-api';
import { Pool } from 'undici';
import { afterAll, bench, describe } from 'vitest';
import { register as registerAgentJobs } from '../src/features/agent-jobs/listeners.js';
import { AskBudget } from '../src/features/ask/admission.js';
import { register as registerAsk } from '../src/features/ask/listeners.js';
import { askQuestion, type AskDeps } from '../src/features/ask/handlers.js';
import { AskStore } from '../src/features/ask/store.js';
import type { AnswerJobDeps, StreamSlack } from '../src/features/ask/answer/index.js';
import { OPEN_GATE } from '../src/platform/access.js';
import { DiscoveryClient } from '../src/platform/docs-api/discovery-client.js';
import { InFlight } from '../src/platform/in-flight.js';
import { Intake } from '../src/platform/intake.js';
import { createLogger } from '../src/platform/logger.js';
import { memorySteps } from '../src/platform/steps.js';
import { RedisConnections } from '../src/platform/redis.js';
import { createSlackApp } from '../src/platform/slack/app.js';
import { signatureHeaders } from '../sandbox/driver/http.js';
import { FAKE_ASSISTANT_KEY, FAKE_DOCS_DOMAIN, startFakeDocsApi } from '../sandbox/fake-docs-api.js';
import { startFakeSlack } from '../sandbox/fake-slack.js';
import { freePort } from '../sandbox/free-port.js';
import { answersWrittenAtOnce } from '../test/helpers/answers.js';
import { TEST_SIGNER } from '../test/helpers/signer.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../test/helpers/redis.js';
import { BENCH_SECRET, BENCH_TOKEN, interleaved, percentile, percentileRow } from './ack-helpers.js';

/**
 * Asking the docs, measured on this machine with real Redis, the fake Slack (real HTTP, chat
 * streaming) and the fake discovery API (real SSE streams), side by side in one run:
 * 1. First streamed text: 20 questions at once, the fake assistant's first token at a fixed delay
 *    (ASK_BENCH_FIRST_TOKEN_MS, default 200 ms). For each question, from the moment the token could
 *    first be written (the request's arrival + the delay; a late timer of the fake only makes this
 *    larger) to the moment chat.startStream with that text reached the fake Slack. Goal: p95 ≤ 300 ms.
 * 2. Ack latency of `/docs-ask` next to `/docs-edit` on the bot's receiver (signature, shape, one
 *    Redis write, ack), requests interleaved. Goal: the same.
 */

const ROUNDS = Number(process.env.ASK_BENCH_ROUNDS ?? 10);
const AT_ONCE = 20;
const FIRST_TOKEN_MS = Number(process.env.ASK_BENCH_FIRST_TOKEN_MS ?? 200);
const ACK_ROUNDS = Number(process.env.ASK_BENCH_ACK_ROUNDS ?? 1_000);

const logger = createLogger('silent');
const redis = testRedis();
const prefix = randomPrefix();
const slack = await startFakeSlack({ botToken: BENCH_TOKEN });
const docs = await startFakeDocsApi({
  apiKey: 'mint_bench',
  projectId: 'proj',
  discovery: { firstTokenDelayMs: FIRST_TOKEN_MS },
});
const web = new WebClient(BENCH_TOKEN, {
  slackApiUrl: slack.url,
  logLevel: LogLevel.ERROR,
  retryConfig: { retries: 0 },
});
const discovery = new DiscoveryClient({
  baseUrl: `${docs.url}/discovery`,
  apiKey: FAKE_ASSISTANT_KEY,
  domain: FAKE_DOCS_DOMAIN,
});
const answerDeps: Omit<AskDeps, 'answers'> & AnswerJobDeps = {
  configured: true,
  discovery,
  store: new AskStore(redis, prefix),
  writer: { slack: web as unknown as StreamSlack, budget: { take: async () => ({ ok: true }) }, logger, now: Date.now },
  signer: TEST_SIGNER,
  siteUrl: 'https://docs.acme.example',
  fingerprint: (_team, user) => `fp-${user}`,
  access: OPEN_GATE,
  budget: new AskBudget(redis, prefix, { perUser: 1_000_000, perWorkspace: 1_000_000 }),
  slack: web,
  logger,
  now: Date.now,
};
const unexpected = async (t: string) => void console.error(`unexpected: ${t}`);
const deps: AskDeps = { ...answerDeps, answers: answersWrittenAtOnce(answerDeps, unexpected) };
const users = Array.from({ length: AT_ONCE }, (_, i) => `U0B${String(i).padStart(3, '0')}`);
slack.users.push(...users.map((id) => ({ id, name: id.toLowerCase() })));

let asked = 0;
/** One round: 20 questions at once; @returns each question's ms from its first token to its first text in Slack. */
async function round(): Promise<number[]> {
  const calls = slack.calls.length;
  const requests = docs.requests.length;
  await Promise.all(
    users.map(async (user) => {
      asked += 1;
      const root = (await web.chat.postMessage({ channel: 'C0DOCS', text: `q ${asked}` })).ts!;
      const req = {
        teamId: 'T0SANDBOX',
        channel: 'C0DOCS',
        user,
        question: 'How do I rotate an API key?',
        threadTs: root,
        key: `b${asked}`,
        receivedAt: Date.now(),
      };
      await askQuestion(deps, req, memorySteps(), {
        to: { user, channel: 'C0DOCS' },
        tell: unexpected,
      });
    }),
  );
  return users.map((user) => {
    const message = docs.requests.slice(requests).find((r) => (r.body as { fp?: string }).fp === `fp-${user}`);
    const start = slack.calls
      .slice(calls)
      .find((c) => c.method === 'chat.startStream' && c.args.recipient_user_id === user);
    if (!message || !start) throw new Error(`no answer streamed for ${user}`);
    return start.at - (message.at + FIRST_TOKEN_MS);
  });
}

const firstText: number[] = [];
await round(); // warm-up
for (let i = 0; i < ROUNDS; i++) firstText.push(...(await round()));

// Ack latency: the bot's receiver with the real /docs-edit and /docs-ask listeners.
const conns = new RedisConnections({ mode: 'url', url: TEST_REDIS_URL }, logger, { redisReconnect: () => undefined });
const intake = new Intake({ connection: conns.bull('queue'), prefix, logger }, conns.intake());
const port = await freePort();
const { app } = createSlackApp({
  config: {
    SLACK_BOT_TOKEN: BENCH_TOKEN,
    SLACK_SIGNING_SECRET: BENCH_SECRET,
    SLACK_APP_TOKEN: undefined,
    SLACK_API_URL: slack.url,
    PORT: port,
  },
  logger,
  inFlight: new InFlight(),
  routes: [],
  commands: ['/docs-edit', '/docs-ask'],
});
registerAgentJobs(app, { intake, logger, promptMaxChars: 12_000 });
registerAsk(app, {
  intake,
  configured: true,
  signer: TEST_SIGNER,
  store: new AskStore(redis, prefix),
  access: OPEN_GATE,
  conversations: { isMember: async () => true },
  slack: web,
  logger,
});
await app.start();
const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
let n = 0;
async function command(name: string, text: string): Promise<number> {
  const body = new URLSearchParams({
    command: name,
    text,
    user_id: 'U0ALICE',
    channel_id: 'C0DOCS',
    team_id: 'T0SANDBOX',
    trigger_id: `ask-bench-${++n}`,
    response_url: 'https://hooks.slack.com/commands/T0SANDBOX/1/bench',
  }).toString();
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    ...signatureHeaders(BENCH_SECRET, body, Date.now() / 1000),
  };
  const t0 = process.hrtime.bigint();
  const res = await pool.request({ method: 'POST', path: '/slack/events', headers, body });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`the receiver answered ${res.statusCode}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}
const ACKS = [
  {
    name: '/docs-edit: one Redis write, then ack',
    run: () => command('/docs-edit', 'Add a quickstart for the Python SDK'),
  },
  { name: '/docs-ask: one Redis write, then ack', run: () => command('/docs-ask', 'How do I rotate an API key?') },
];
const acks = await interleaved(ACKS, 100, ACK_ROUNDS);

const ms = (v: number) => `${v.toFixed(1)} ms`;
const cells = [...[50, 95, 99].map((p) => ms(percentile(firstText, p))), ms(Math.max(...firstText))];
const ackRows = ACKS.map((c, k) => percentileRow(c.name, acks[k]!)).join('\n');
console.log(
  `\nFirst streamed text after the assistant's first token (fixed at ${FIRST_TOKEN_MS} ms), ` +
    `${AT_ONCE} questions at once, ${ROUNDS} rounds (${firstText.length} answers):\n` +
    `| p50 | p95 | p99 | max |\n|---:|---:|---:|---:|\n| ${cells.join(' | ')} |\n` +
    `\nAck latency, ${ACK_ROUNDS} requests each (after 100 warm-up), interleaved, keep-alive:\n` +
    `| case | p50 | p95 | p99 |\n|---|---:|---:|---:|\n${ackRows}\n`,
);

describe('asking the docs (vitest bench, same servers)', () => {
  afterAll(async () => {
    await app.stop();
    await pool.close();
    await intake.close();
    await conns.close();
    await discovery.close();
    await slack.close();
    await docs.close();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  for (const c of ACKS) bench(c.name, async () => void (await c.run()), { time: 1_000 });
});
