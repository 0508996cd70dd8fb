import { Pool } from 'undici';
import { afterAll, bench, describe } from 'vitest';
import { register as registerAgentJobs } from '../src/features/agent-jobs/listeners.js';
import { InFlight } from '../src/platform/in-flight.js';
import { Intake } from '../src/platform/intake.js';
import { createLogger } from '../src/platform/logger.js';
import { RedisConnections } from '../src/platform/redis.js';
import { createSlackApp } from '../src/platform/slack/app.js';
import { signatureHeaders } from '../sandbox/driver/http.js';
import { startFakeSlack } from '../sandbox/fake-slack.js';
import { freePort } from '../sandbox/free-port.js';
import { primaryWithReplica, RedisTopology } from '../test/helpers/redis-topology.js';

/**
 * Ack latency of /docs-edit with and without REDIS_WAIT_REPLICAS, side by side in the same run:
 * two bot receivers with the real listener on one private primary (with one replica, both
 * redis-server processes started here on loopback), one recording with `WAIT 1 200` after the
 * write, one without. Requests alternate between them, so machine noise hits both alike.
 */

const SECRET = 'bench-signing-secret';
const TOKEN = 'xoxb-bench-token';
const ROUNDS = Number(process.env.ACK_WAIT_BENCH_ROUNDS ?? 1_000);
const WARMUP = 100;

const topo = new RedisTopology();
// vitest bench may end the worker before afterAll has stopped them: never leave redis-servers behind.
process.once('exit', () => topo.killSync());
const { primary } = await primaryWithReplica(topo);
const slack = await startFakeSlack({ botToken: TOKEN });
const logger = createLogger('silent');
const conns = new RedisConnections({ mode: 'url', url: `redis://127.0.0.1:${primary.port}` }, logger, { redisReconnect: () => undefined });
let unreplicated = 0;

async function receiver(replicas: number) {
  const intake = new Intake({ connection: conns.bull('queue'), prefix: `bench-wait-${replicas}`, logger }, conns.intake(), { replicas, timeoutMs: 200, onUnreplicated: () => unreplicated++ });
  const port = await freePort();
  const { app } = createSlackApp({
    config: { SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SECRET, SLACK_APP_TOKEN: undefined, SLACK_API_URL: slack.url, PORT: port },
    logger,
    inFlight: new InFlight(),
    routes: [],
    commands: ['/docs-edit'],
  });
  registerAgentJobs(app, { intake, slack: { chat: { postEphemeral: async () => ({ ok: true }) } }, logger } as never);
  await app.start();
  return { app, intake, pool: new Pool(`http://127.0.0.1:${port}`, { connections: 1 }) };
}

const targets = { without: await receiver(0), with: await receiver(1) };
let n = 0;

/** One signed /docs-edit; @returns milliseconds until the ack's body was read. */
async function command(target: keyof typeof targets): Promise<number> {
  const body = new URLSearchParams({
    command: '/docs-edit',
    text: 'Add a quickstart for the Python SDK',
    user_id: 'U0ALICE',
    channel_id: 'C0DOCS',
    team_id: 'T0SANDBOX',
    trigger_id: `bench-wait-${process.pid}-${++n}`,
    response_url: 'http://127.0.0.1:9/response',
  }).toString();
  const headers = { 'content-type': 'application/x-www-form-urlencoded', ...signatureHeaders(SECRET, body, Date.now() / 1000) };
  const t0 = process.hrtime.bigint();
  const res = await targets[target].pool.request({ method: 'POST', path: '/slack/events', headers, body });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${target} answered ${res.statusCode}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const CASES = [
  { name: 'REDIS_WAIT_REPLICAS=0: record, then ack', run: () => command('without') },
  { name: 'REDIS_WAIT_REPLICAS=1 (WAIT 1 200): record, replica confirms, then ack', run: () => command('with') },
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
console.log(`\nAck latency with and without replica acknowledgement, ${ROUNDS} requests each (after ${WARMUP} warm-up), interleaved, one replica on loopback; ${unreplicated} unconfirmed in 200 ms:\n| case | p50 | p95 | p99 |\n|---|---:|---:|---:|\n${rows.join('\n')}\n`);

afterAll(async () => {
  await topo.stop();
  for (const t of Object.values(targets)) {
    await t.app.stop().catch(() => undefined); // the servers are gone: only closing what is left
    await t.pool.close();
    await t.intake.close().catch(() => undefined); // ditto: its connection has nothing to reach
  }
  conns.state.disconnect();
  await slack.close();
});

describe('ack latency with and without REDIS_WAIT_REPLICAS (vitest bench, same servers)', () => {
  for (const c of CASES) {
    bench(c.name, async () => {
      await c.run();
    }, { time: 2_000 });
  }
});
