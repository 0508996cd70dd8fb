import { loadavg } from 'node:os';
import { afterAll, bench, describe } from 'vitest';
import { Intake } from '../src/platform/intake.js';
import { createLogger } from '../src/platform/logger.js';
import { RedisConnections } from '../src/platform/redis.js';
import { startFakeSlack } from '../sandbox/fake-slack.js';
import { primaryWithReplica, RedisTopology, until, writeConfirmed } from '../test/helpers/redis-topology.js';
import {
  BENCH_TOKEN,
  docsEdit,
  expectRecorded,
  interleaved,
  percentileRow,
  startBotReceiver,
  type BenchCase,
} from './ack-helpers.js';

/**
 * Ack latency of /docs-edit with and without REDIS_WAIT_REPLICAS, side by side in the same run:
 * two bot receivers with the real listener on one private primary (with one replica, both
 * redis-server processes started here on loopback), one recording with `WAIT 1 200` after the
 * write, one without. Cases alternate between them, so machine noise hits both alike:
 * - one request at a time;
 * - bursts of 20 simultaneous /docs-edit (20 keep-alive connections), where the records' WAITs
 *   are grouped (one in flight, one queued);
 * - the same bursts with the replica not confirming (SIGSTOPped): every WAIT runs its 200 ms.
 * Each row says how many of its records no replica confirmed in time.
 */

const ROUNDS = Number(process.env.ACK_WAIT_BENCH_ROUNDS ?? 1_000);
const WARMUP = 100;
const BURST = 20;
const BURSTS = Number(process.env.ACK_WAIT_BENCH_BURSTS ?? 50);
const STOPPED_BURSTS = Number(process.env.ACK_WAIT_BENCH_STOPPED_BURSTS ?? 15);
const TIMEOUT_MS = 200;
const TEXT = 'Add a quickstart for the Python SDK';

const topo = new RedisTopology();
// vitest bench may end the worker before afterAll has stopped them: never leave redis-servers
// behind (SIGKILL ends a stopped one too).
process.once('exit', () => topo.killSync());
const { primary, replica } = await primaryWithReplica(topo);
const slack = await startFakeSlack({ botToken: BENCH_TOKEN });
const logger = createLogger('silent');
const conns = new RedisConnections({ mode: 'url', url: `redis://127.0.0.1:${primary.port}` }, logger, {
  redisReconnect: () => undefined,
});

async function receiver(replicas: number) {
  const counts = { unreplicated: 0 };
  const intake = new Intake(
    { connection: conns.bull('queue'), prefix: `bench-wait-${replicas}`, logger },
    conns.intake(),
    { replicas, timeoutMs: TIMEOUT_MS, onUnreplicated: () => counts.unreplicated++ },
  );
  return { ...(await startBotReceiver(intake, slack.url, logger, BURST)), intake, counts };
}

const targets = { without: await receiver(0), with: await receiver(1) };
type Target = (typeof targets)[keyof typeof targets];
const burst = (t: Target) => Promise.all(Array.from({ length: BURST }, () => docsEdit(t.pool, TEXT)));

/** Runs the cases (`[case, its receiver]`) interleaved after a warm-up; @returns their rows, each with the records no replica confirmed. */
async function measure(
  cases: [BenchCase, Target][],
  warmup: number,
  rounds: number,
  requests: number,
): Promise<string[]> {
  await interleaved(
    cases.map(([c]) => c),
    0,
    warmup,
  );
  const before = cases.map(([, t]) => t.counts.unreplicated);
  const samples = await interleaved(
    cases.map(([c]) => c),
    0,
    rounds,
  );
  return cases.map(([c, t], k) =>
    percentileRow(c.name, samples[k]!, [`${t.counts.unreplicated - before[k]!} of ${rounds * requests}`]),
  );
}

const rows = [
  ...(await measure(
    [
      [
        {
          name: 'one at a time, `REDIS_WAIT_REPLICAS=0`: record, then the ack',
          run: () => docsEdit(targets.without.pool, TEXT),
        },
        targets.without,
      ],
      [
        {
          name: 'one at a time, `REDIS_WAIT_REPLICAS=1` (`WAIT 1 200`): record, the replica confirms, then the ack',
          run: () => docsEdit(targets.with.pool, TEXT),
        },
        targets.with,
      ],
    ],
    WARMUP,
    ROUNDS,
    1,
  )),
  ...(await measure(
    [
      [{ name: `bursts of ${BURST}, \`REDIS_WAIT_REPLICAS=0\``, run: () => burst(targets.without) }, targets.without],
      [
        { name: `bursts of ${BURST}, \`REDIS_WAIT_REPLICAS=1\`, the replica confirms`, run: () => burst(targets.with) },
        targets.with,
      ],
    ],
    5,
    BURSTS,
    BURST,
  )),
];
// The replica stops confirming: every WAIT runs its whole timeout.
replica.proc.kill('SIGSTOP');
rows.push(
  ...(await measure(
    [
      [
        { name: `bursts of ${BURST}, \`REDIS_WAIT_REPLICAS=0\`, replica stopped`, run: () => burst(targets.without) },
        targets.without,
      ],
      [
        {
          name: `bursts of ${BURST}, \`REDIS_WAIT_REPLICAS=1\`, replica stopped (not confirming)`,
          run: () => burst(targets.with),
        },
        targets.with,
      ],
    ],
    2,
    STOPPED_BURSTS,
    BURST,
  )),
);
replica.proc.kill('SIGCONT');
await until('the replica to confirm writes again', 30_000, () => writeConfirmed(primary.port));
for (const t of Object.values(targets))
  await expectRecorded(t.intake, WARMUP + ROUNDS + (5 + BURSTS + 2 + STOPPED_BURSTS) * BURST);

console.log(
  `\nAck latency with and without replica acknowledgement (WAIT timeout ${TIMEOUT_MS} ms), one replica on loopback, interleaved; ` +
    `${ROUNDS} single requests each (after ${WARMUP} warm-up), ${BURSTS} bursts of ${BURST} each (after 5), ${STOPPED_BURSTS} bursts each with the replica stopped (after 2); ` +
    `Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}:\n` +
    `| case | p50 | p95 | p99 | unconfirmed |\n|---|---:|---:|---:|---:|\n${rows.join('\n')}\n`,
);

afterAll(async () => {
  await topo.stop();
  for (const t of Object.values(targets)) {
    await t.app.stop().catch(() => undefined); // the servers are gone: only closing what is left
    await t.pool.close();
    await t.intake.close().catch(() => undefined); // ditto: its connection has nothing to reach
  }
  await conns.close().catch(() => undefined); // the servers are gone: closes what is left
  await slack.close();
});

describe('ack latency with and without REDIS_WAIT_REPLICAS (vitest bench, same servers)', () => {
  bench('one at a time, REDIS_WAIT_REPLICAS=0', async () => void (await docsEdit(targets.without.pool, TEXT)), {
    time: 2_000,
  });
  bench(
    'one at a time, REDIS_WAIT_REPLICAS=1 (WAIT 1 200)',
    async () => void (await docsEdit(targets.with.pool, TEXT)),
    { time: 2_000 },
  );
  bench(`a burst of ${BURST}, REDIS_WAIT_REPLICAS=0`, async () => void (await burst(targets.without)), { time: 2_000 });
  bench(`a burst of ${BURST}, REDIS_WAIT_REPLICAS=1 (grouped WAITs)`, async () => void (await burst(targets.with)), {
    time: 2_000,
  });
});
