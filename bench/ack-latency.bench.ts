import { App, LogLevel } from '@slack/bolt';
import { Pool } from 'undici';
import { afterAll, bench, describe } from 'vitest';
import { Intake } from '../src/platform/intake.js';
import { createLogger } from '../src/platform/logger.js';
import { RedisConnections } from '../src/platform/redis.js';
import { startFakeSlack } from '../sandbox/fake-slack.js';
import { freePort } from '../sandbox/free-port.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../test/helpers/redis.js';
import {
  BENCH_SECRET,
  BENCH_TOKEN,
  docsEdit,
  expectRecorded,
  interleaved,
  percentileRow,
  startBotReceiver,
} from './ack-helpers.js';

/**
 * Ack latency of a slash command, measured from the client (signed HTTP over a keep-alive
 * connection, on this machine), side by side in the same run:
 * - the bot's receiver and edge with the real /docs-edit listener: verify, check the shape, record
 *   the intake (one BullMQ job in the real Redis), then ack;
 * - the same receiver answering a blank /docs-edit (usage in the ack, no Redis write);
 * - a bare Bolt App (its own HTTPReceiver) whose listener only acks.
 * Requests to the three alternate, so machine noise hits them alike. Needs Redis (REDIS_URL).
 */

const ROUNDS = Number(process.env.ACK_BENCH_ROUNDS ?? 2_000);
const WARMUP = 200;

const slack = await startFakeSlack({ botToken: BENCH_TOKEN });
const logger = createLogger('silent');
const prefix = randomPrefix();
const conns = new RedisConnections({ mode: 'url', url: TEST_REDIS_URL }, logger, { redisReconnect: () => undefined });
const intake = new Intake({ connection: conns.bull('queue'), prefix, logger }, conns.intake());
const bot = await startBotReceiver(intake, slack.url, logger);

const barePort = await freePort();
const bare = new App({
  token: BENCH_TOKEN,
  signingSecret: BENCH_SECRET,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: slack.url },
});
bare.command('/docs-edit', async ({ ack }) => ack());
await bare.start(barePort);
const barePool = new Pool(`http://127.0.0.1:${barePort}`, { connections: 1 });

const CASES = [
  {
    name: 'bot receiver: /docs-edit, one Redis write, then ack',
    run: () => docsEdit(bot.pool, 'Add a quickstart for the Python SDK'),
  },
  { name: 'bot receiver: blank /docs-edit, usage in the ack (no Redis)', run: () => docsEdit(bot.pool, '  ') },
  {
    name: 'bare Bolt App (HTTPReceiver), listener only acks',
    run: () => docsEdit(barePool, 'Add a quickstart for the Python SDK'),
  },
];

const samples = await interleaved(CASES, WARMUP, ROUNDS);
await expectRecorded(intake, WARMUP + ROUNDS); // the first case's requests, and only those
const rows = CASES.map((c, k) => percentileRow(c.name, samples[k]!));
console.log(
  `\nAck latency, ${ROUNDS} requests each (after ${WARMUP} warm-up), interleaved, keep-alive, client in the same process:\n| case | p50 | p95 | p99 |\n|---|---:|---:|---:|\n${rows.join('\n')}\n`,
);

describe('ack latency (vitest bench, same servers)', () => {
  afterAll(async () => {
    await bot.app.stop();
    await bare.stop();
    await Promise.all([bot.pool.close(), barePool.close()]);
    await intake.close();
    await conns.close();
    await slack.close();
    const redis = testRedis();
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });
  for (const c of CASES) {
    bench(
      c.name,
      async () => {
        await c.run();
      },
      { time: 2_000 },
    );
  }
});
