import { App, LogLevel } from '@slack/bolt';
import { Pool } from 'undici';
import { afterAll, bench, describe } from 'vitest';
import { register as registerAgentJobs } from '../src/features/agent-jobs/listeners.js';
import { InFlight } from '../src/platform/in-flight.js';
import { Intake } from '../src/platform/intake.js';
import { createLogger } from '../src/platform/logger.js';
import { bullConnection, intakeConnection } from '../src/platform/redis.js';
import { createSlackApp } from '../src/platform/slack/app.js';
import { signatureHeaders } from '../sandbox/driver/http.js';
import { startFakeSlack } from '../sandbox/fake-slack.js';
import { freePort } from '../sandbox/free-port.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../test/helpers/redis.js';

/**
 * Ack latency of a slash command, measured from the client (signed HTTP over a keep-alive
 * connection, on this machine), side by side in the same run:
 * - the bot's receiver and edge with the real /docs-edit listener: verify, check the shape, record
 *   the intake (one BullMQ job in the real Redis), then ack;
 * - the same receiver answering a blank /docs-edit (usage in the ack, no Redis write);
 * - a bare Bolt App (its own HTTPReceiver) whose listener only acks.
 * Requests to the three alternate, so machine noise hits them alike. Needs Redis (REDIS_URL).
 */

const SECRET = 'bench-signing-secret';
const TOKEN = 'xoxb-bench-token';
const ROUNDS = Number(process.env.ACK_BENCH_ROUNDS ?? 2_000);
const WARMUP = 200;

const slack = await startFakeSlack({ botToken: TOKEN });
const logger = createLogger('silent');
const prefix = randomPrefix();
const intake = new Intake({ connection: bullConnection(TEST_REDIS_URL), prefix, logger }, intakeConnection(TEST_REDIS_URL));

const botPort = await freePort();
const { app: bot } = createSlackApp({
  config: { SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SECRET, SLACK_APP_TOKEN: undefined, SLACK_API_URL: slack.url, PORT: botPort },
  logger,
  inFlight: new InFlight(),
  routes: [],
  commands: ['/docs-edit'],
});
registerAgentJobs(bot, { intake, slack: { chat: { postEphemeral: async () => ({ ok: true }) } }, logger } as never);
await bot.start();

const barePort = await freePort();
const bare = new App({ token: TOKEN, signingSecret: SECRET, logLevel: LogLevel.ERROR, clientOptions: { slackApiUrl: slack.url } });
bare.command('/docs-edit', async ({ ack }) => ack());
await bare.start(barePort);

const pools = { bot: new Pool(`http://127.0.0.1:${botPort}`, { connections: 1 }), bare: new Pool(`http://127.0.0.1:${barePort}`, { connections: 1 }) };
let n = 0;

/** One signed /docs-edit to `target`; @returns milliseconds until the ack's body was read. */
async function command(target: keyof typeof pools, text: string): Promise<number> {
  const body = new URLSearchParams({
    command: '/docs-edit',
    text,
    user_id: 'U0ALICE',
    channel_id: 'C0DOCS',
    team_id: 'T0SANDBOX',
    trigger_id: `bench-${process.pid}-${++n}`,
    response_url: 'http://127.0.0.1:9/response',
  }).toString();
  const headers = { 'content-type': 'application/x-www-form-urlencoded', ...signatureHeaders(SECRET, body, Date.now() / 1000) };
  const t0 = process.hrtime.bigint();
  const res = await pools[target].request({ method: 'POST', path: '/slack/events', headers, body });
  await res.body.text();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.statusCode !== 200) throw new Error(`${target} answered ${res.statusCode}`);
  return ms;
}

const CASES = [
  { name: 'bot receiver: /docs-edit, one Redis write, then ack', run: () => command('bot', 'Add a quickstart for the Python SDK') },
  { name: 'bot receiver: blank /docs-edit, usage in the ack (no Redis)', run: () => command('bot', '  ') },
  { name: 'bare Bolt App (HTTPReceiver), listener only acks', run: () => command('bare', 'Add a quickstart for the Python SDK') },
];

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const samples = CASES.map(() => [] as number[]);
for (let i = 0; i < WARMUP + ROUNDS; i++) {
  for (const [k, c] of CASES.entries()) {
    const ms = await c.run();
    if (i >= WARMUP) samples[k]!.push(ms);
  }
}
const rows = CASES.map((c, k) => {
  const s = samples[k]!.sort((a, b) => a - b);
  return `| ${c.name} | ${pct(s, 50).toFixed(2)} ms | ${pct(s, 95).toFixed(2)} ms | ${pct(s, 99).toFixed(2)} ms |`;
});
console.log(`\nAck latency, ${ROUNDS} requests each (after ${WARMUP} warm-up), interleaved, keep-alive, client in the same process:\n| case | p50 | p95 | p99 |\n|---|---:|---:|---:|\n${rows.join('\n')}\n`);

describe('ack latency (vitest bench, same servers)', () => {
  afterAll(async () => {
    await bot.stop();
    await bare.stop();
    await Promise.all([pools.bot.close(), pools.bare.close()]);
    await intake.close();
    await slack.close();
    const redis = testRedis();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  for (const c of CASES) {
    bench(c.name, async () => {
      await c.run();
    }, { time: 2_000 });
  }
});
