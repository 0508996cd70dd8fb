import { Redis, type RedisOptions } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { TEST_KIND } from '../../helpers/intake-kinds.js';
import { healthHandler } from '../../../src/platform/health.js';
import { Intake, RecordUnconfirmedError } from '../../../src/platform/intake.js';
import { UnreplicatedStepError } from '../../../src/platform/replica-guard.js';
import { StartupError } from '../../../src/platform/startup-error.js';
import { RedisConnections, type RedisRole } from '../../../src/platform/redis.js';
import { arrayLogger } from '../../helpers/logs.js';
import { command, primaryWithReplica, primaryWithReplicas, until } from '../../helpers/redis-topology.js';
import { useRedisTopologies } from '../../helpers/topology-fixture.js';

/**
 * The bot's Redis connections on real redis-server processes (a primary and its replica, started
 * here on free ports): a failover behind one endpoint (a TCP proxy re-pointed to the promoted
 * replica, existing connections left on the demoted primary) is met with READONLY and survived by
 * reconnecting; `/healthz`'s probe is a write; REDIS_WAIT_REPLICAS waits for the replica, and
 * concurrent records share their WAITs (a stopped replica costs each about 2 × the timeout, not
 * one timeout per record queued ahead of it).
 */

const { topology, closers } = useRedisTopologies();

function observer() {
  const counts: Partial<Record<RedisRole, number>> = {};
  return { counts, redisReconnect: (r: RedisRole) => void (counts[r] = (counts[r] ?? 0) + 1) };
}

/** The bot's connections to the Redis on 127.0.0.1:`port` (closed after the test). */
function connectTo(port: number, logger = arrayLogger().logger, obs = observer()): RedisConnections {
  const conns = new RedisConnections({ mode: 'url', url: `redis://127.0.0.1:${port}` }, logger, obs);
  closers.push(() => conns.close());
  return conns;
}

/** Promotes `replica` and demotes `primary` under it, as a managed service's failover does. */
async function failover(primaryPort: number, replicaPort: number): Promise<void> {
  await command(replicaPort, 'REPLICAOF', 'NO', 'ONE');
  await command(primaryPort, 'REPLICAOF', '127.0.0.1', replicaPort);
}

async function health(redis: RedisConnections['state'], probeKey: string): Promise<number> {
  let status = 0;
  const res = { writeHead: (s: number) => void (status = s), end: () => undefined };
  await healthHandler({ redis, probeKey })({} as never, res as never);
  return status;
}

describe('failover behind one endpoint', () => {
  it('a write that meets READONLY reconnects (logged with READONLY as the cause, counted) and lands on the promoted replica; /healthz is 503 meanwhile and 200 after', async () => {
    const topo = topology();
    const { primary, replica } = await primaryWithReplica(topo);
    const proxy = await topo.proxy(primary.port);
    const { logger, lines } = arrayLogger();
    const obs = observer();
    const conns = connectTo(proxy.port, logger, obs);
    const redis = conns.state;
    await redis.set('before', '1');
    expect(await health(redis, 'probe')).toBe(200);

    await failover(primary.port, replica.port);
    // The endpoint still leads to the demoted primary: writes are refused, so /healthz says 503.
    expect(await command(primary.port, 'SET', 'x', '1').catch((e: Error) => e.message)).toMatch(/READONLY/);
    expect(await health(redis, 'probe')).toBe(503);

    proxy.repoint(replica.port);
    await until('a write through the endpoint to land', 10_000, async () => (await redis.set('after', '2')) === 'OK');
    expect(await command(replica.port, 'GET', 'after')).toBe('2');
    expect(await health(redis, 'probe')).toBe(200);
    expect(obs.counts.state).toBe(1);
    const restored = lines.filter((l) => l.msg.startsWith('Redis connection restored'));
    expect(restored.length).toBeGreaterThanOrEqual(1);
    expect(restored[0]).toMatchObject({ cause: 'READONLY (the server was demoted)', mode: 'url' });
  });

  it(
    'an endpoint that still leads to the demoted primary for a while: each reconnect meets READONLY again, yet the failover counts 1 reconnect (docs/operations.md, DocsBotRedisReconnecting); a later cut counts 1 more',
    { timeout: 30_000 },
    async () => {
      const topo = topology();
      const { primary, replica } = await primaryWithReplica(topo);
      const proxy = await topo.proxy(primary.port);
      const obs = observer();
      const conns = connectTo(proxy.port, arrayLogger().logger, obs);
      const redis = conns.state;
      await redis.set('before', '1');
      const connectionsSoFar = async () =>
        Number(/total_connections_received:(\d+)/.exec(String(await command(primary.port, 'INFO', 'stats')))?.[1]);
      const before = await connectionsSoFar();

      await failover(primary.port, replica.port);
      // Each write is refused, reconnects through the endpoint to the demoted primary and is refused again.
      for (let i = 0; i < 3; i++) await expect(redis.set(`k${i}`, '1')).rejects.toThrow(/^READONLY/);
      // Several connections were made to the demoted primary (our own INFO connection is one).
      expect((await connectionsSoFar()) - before - 1).toBeGreaterThanOrEqual(5);

      proxy.repoint(replica.port);
      await until('a write through the endpoint to land', 10_000, async () => (await redis.set('after', '2')) === 'OK');
      expect(obs.counts.state).toBe(1);

      // A later outage of its own (the connection cut, no READONLY) is counted again.
      for (const socket of proxy.sockets) socket.destroy();
      await until('the cut connection to be back', 10_000, async () => (await redis.set('cut', '3')) === 'OK');
      expect(obs.counts.state).toBe(2);
    },
  );

  it(
    'an endpoint that still leads to the demoted primary (a DNS cache): reconnects back off, and a write fails after a few seconds instead of hanging',
    { timeout: 30_000 },
    async () => {
      const topo = topology();
      const { replica } = await primaryWithReplica(topo);
      const conns = connectTo(replica.port);
      await conns.state.ping();
      const connectionsSoFar = async () =>
        Number(/total_connections_received:(\d+)/.exec(String(await command(replica.port, 'INFO', 'stats')))?.[1]);
      const before = await connectionsSoFar();
      const t0 = Date.now();
      // The first write is sent again after each of the first reconnects (100 ms, 200 ms, … apart), then fails.
      await expect(conns.state.set('k0', '1')).rejects.toThrow(/^READONLY/);
      expect(Date.now() - t0).toBeLessThan(6_000);
      // Later writes of the streak fail at their first refusal (after at most one 2-s reconnect).
      for (let i = 1; i <= 3; i++) {
        const ti = Date.now();
        await expect(conns.state.set(`k${i}`, '1')).rejects.toThrow(/^READONLY/);
        expect(Date.now() - ti).toBeLessThan(3_000);
      }
      // Our own check connection counts one. Looping, it would reconnect about every 100 ms.
      const made = (await connectionsSoFar()) - before - 1;
      expect(made).toBeLessThanOrEqual(5 + Math.ceil((Date.now() - t0) / 1_000));
    },
  );

  it(
    'BullMQ-style clients made from one options object keep a streak each: their writes still fail after a few seconds instead of looping',
    { timeout: 30_000 },
    async () => {
      const topo = topology();
      const { replica } = await primaryWithReplica(topo);
      const conns = connectTo(replica.port);
      // BullMQ makes every client of a queue or worker from these options (its own copy of them each).
      const { url, ...opts } = conns.bull('worker') as RedisOptions & { url: string };
      const clients = [0, 1, 2].map(() => new Redis(url, opts));
      closers.push(async () => clients.forEach((c) => c.disconnect()));
      await Promise.all(clients.map((c) => c.ping()));
      const t0 = Date.now();
      // Refused 40 ms apart, one connection after another, as a worker's connections are.
      const settled = await Promise.allSettled(
        clients.map(async (c, i) => {
          await new Promise((r) => setTimeout(r, 40 * i));
          return c.set(`k${i}`, '1');
        }),
      );
      expect(settled.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(
        clients.map(() => expect.stringMatching(/READONLY/)),
      );
      expect(Date.now() - t0).toBeLessThan(8_000);
    },
  );

  it('a connection to a replica answers /healthz 503 (PING would pass: writes are refused)', async () => {
    const topo = topology();
    const { replica } = await primaryWithReplica(topo);
    const conns = connectTo(replica.port);
    expect(await conns.state.ping()).toBe('PONG');
    expect(await health(conns.state, 'probe')).toBe(503);
  });
});

describe('REDIS_WAIT_REPLICAS', () => {
  it('records wait for the replica; when it has just left, a record is answered "can\'t tell" for 10 s; after that it is acked without it, with one warning and one count', async () => {
    const topo = topology();
    const { primary, replica } = await primaryWithReplica(topo);
    const { logger, lines } = arrayLogger();
    const conns = connectTo(primary.port, logger);
    let unreplicated = 0;
    let now = Date.parse('2026-11-26T10:00:00Z');
    const replication = { replicas: 1, timeoutMs: 300, onUnreplicated: () => unreplicated++ };
    const intake = new Intake({ connection: conns.bull('queue'), prefix: 'w', logger }, conns.intake(), replication, {
      now: () => now,
    });
    closers.push(() => intake.close());

    await intake.record(TEST_KIND, 'one', 'req-1', { n: 1 });
    expect(unreplicated).toBe(0);
    // The replica has it the moment the ack could go out.
    expect(Number(await command(replica.port, 'EXISTS', 'w:intake:test.kind-one'))).toBe(1);

    // Its only replica gone a moment ago: what the primary took just before may be on none.
    await replica.kill9();
    await expect(intake.record(TEST_KIND, 'two', 'req-2', { n: 2 })).rejects.toBeInstanceOf(RecordUnconfirmedError);
    expect(unreplicated).toBe(1);

    now += 10_000;
    const t0 = Date.now();
    await intake.record(TEST_KIND, 'three', 'req-3', { n: 3 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(unreplicated).toBe(2);
    const warn = lines.find((l) => l.msg.startsWith('a request was recorded on the primary but fewer replicas'));
    expect(warn).toMatchObject({ level: 40, replicas: 1, confirmed: 0, requestId: 'req-3' });
  });

  it('a record whose connection was re-established before its WAIT is unconfirmed (a WAIT on the new connection covers nothing): record() says it cannot tell', async () => {
    const topo = topology();
    const { primary } = await primaryWithReplica(topo);
    const { logger, lines } = arrayLogger();
    const conns = connectTo(primary.port, logger);
    let unreplicated = 0;
    const writer = conns.intake();
    const intake = new Intake({ connection: conns.bull('queue'), prefix: 'w', logger }, writer, {
      replicas: 1,
      timeoutMs: 300,
      onUnreplicated: () => unreplicated++,
    });
    closers.push(() => intake.close());
    await intake.record(TEST_KIND, 'one', 'req-1', { n: 1 });
    expect(unreplicated).toBe(0);

    // The writing connection drops right after the write and is back before the WAIT is sent.
    const client = writer;
    const add = intake.queue.add.bind(intake.queue);
    intake.queue.add = (async (...args: Parameters<typeof add>) => {
      const job = await add(...args);
      client.disconnect(true);
      await new Promise((r) => client.once('ready', r));
      return job;
    }) as typeof add;
    await expect(intake.record(TEST_KIND, 'two', 'req-2', { n: 2 })).rejects.toBeInstanceOf(RecordUnconfirmedError);
    expect(unreplicated).toBe(1);
    const warn = lines.find(
      (l) => l.requestId === 'req-2' && l.msg.startsWith('a request was written but no WAIT could tell'),
    );
    expect(warn).toMatchObject({ level: 40, error: expect.stringContaining('re-established') });
  });
});

describe('REDIS_WAIT_REPLICAS through a graceful failover with two replicas (or a primary Sentinel is cut off from)', () => {
  it('while the old primary has one replica fewer than a moment ago (its other replica was promoted), a record is answered "can\'t tell" and a saved step is held; a replica gone longer than the suspect time is no longer waited for', async () => {
    const topo = topology();
    const { primary, replicas } = await primaryWithReplicas(topo, 2);
    const [promoted, kept] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const { logger, lines } = arrayLogger();
    const conns = connectTo(primary.port, logger);
    const counts = { unreplicated: 0, held: 0 };
    let now = Date.parse('2026-11-26T10:00:00Z');
    const intake = new Intake(
      { connection: conns.bull('queue'), prefix: 'w', logger },
      conns.intake(),
      {
        replicas: 1,
        timeoutMs: 300,
        suspectMs: 10_000,
        onUnreplicated: () => counts.unreplicated++,
        onStepUnreplicated: () => counts.held++,
      },
      { now: () => now },
    );
    closers.push(() => intake.close());
    await intake.record(TEST_KIND, 'before', 'req-0', {});
    expect(counts.unreplicated).toBe(0);

    // SENTINEL FAILOVER promotes one replica (so does Sentinel when it can no longer reach the primary
    // but the bot still can); the old primary keeps the other until Sentinel re-points it.
    await command(promoted.port, 'REPLICAOF', 'NO', 'ONE');
    await expect(intake.record(TEST_KIND, 'during', 'req-1', {})).rejects.toBeInstanceOf(RecordUnconfirmedError);
    const step = intake.guard.confirmSteps(intake.guard.mark(), 'create');
    await expect(step).rejects.toBeInstanceOf(UnreplicatedStepError);
    expect(counts).toEqual({ unreplicated: 1, held: 1 });
    // A WAIT 1 would have confirmed it (the kept replica has it); the promoted one never will.
    expect(Number(await command(kept.port, 'EXISTS', 'w:intake:test.kind-during'))).toBe(1);
    expect(Number(await command(promoted.port, 'EXISTS', 'w:intake:test.kind-during'))).toBe(0);
    expect(Number(await command(promoted.port, 'EXISTS', 'w:intake:test.kind-before'))).toBe(1);
    const warned = lines.find((l) => l.requestId === 'req-1');
    expect(warned).toMatchObject({ level: 40, error: expect.stringContaining('fewer replicas than a moment ago') });

    // Still one replica 10 s later: it is gone, not a failover's moment; the kept one confirms again.
    now += 10_000;
    await intake.record(TEST_KIND, 'after', 'req-2', {});
    await intake.guard.confirmSteps(intake.guard.mark(), 'create');
    expect(counts).toEqual({ unreplicated: 1, held: 1 });
  });
});

describe('REDIS_WAIT_REPLICAS at start-up', () => {
  it('a Redis that refuses WAIT (an ACL without it) stops the start with one line naming REDIS_WAIT_REPLICAS; too few replicas connected is one warning', async () => {
    const topo = topology();
    const primary = await topo.start();
    await command(primary.port, 'ACL', 'SETUSER', 'nowait', 'on', '>secret-pass', '~*', '&*', '+@all', '-wait');
    const { logger, lines } = arrayLogger();
    const refused = new RedisConnections(
      { mode: 'url', url: `redis://nowait:secret-pass@127.0.0.1:${primary.port}` },
      logger,
      observer(),
    );
    closers.push(() => refused.close());
    const strict = new Intake({ connection: refused.bull('queue'), prefix: 'w', logger }, refused.intake(), {
      replicas: 1,
      timeoutMs: 200,
    });
    closers.push(() => strict.close());
    const err = await strict.checkReplication().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).fields).toMatchObject({ variable: 'REDIS_WAIT_REPLICAS', redisError: 'NOPERM' });
    expect((err as Error).message).not.toContain('secret-pass');

    // The default user may WAIT, but no replica is connected: the bot starts, with one warning.
    const conns = connectTo(primary.port, logger);
    const intake = new Intake({ connection: conns.bull('queue'), prefix: 'w', logger }, conns.intake(), {
      replicas: 1,
      timeoutMs: 200,
    });
    closers.push(() => intake.close());
    await intake.checkReplication();
    expect(lines.filter((l) => l.msg.startsWith('fewer replicas are connected'))).toMatchObject([
      { level: 40, replicas: 1, connected: 0 },
    ]);
  });
});

describe('REDIS_WAIT_REPLICAS with concurrent records', () => {
  // Redis checks blocked clients' timeouts about every 100 ms (hz 10): a WAIT takes its timeout plus up to that.
  const TIMEOUT_MS = 500;
  const RECORDS = 20;

  async function setUp() {
    const topo = topology();
    const { primary, replica } = await primaryWithReplica(topo);
    const { logger, lines } = arrayLogger();
    const conns = connectTo(primary.port, logger);
    const counts = { unreplicated: 0 };
    const intake = new Intake({ connection: conns.bull('queue'), prefix: 'w', logger }, conns.intake(), {
      replicas: 1,
      timeoutMs: TIMEOUT_MS,
      onUnreplicated: () => counts.unreplicated++,
    });
    closers.push(() => intake.close());
    // One record first (confirmed), so BullMQ's script is loaded and the burst below is only records.
    await intake.record(TEST_KIND, 'warm-up', 'req-warm-up', {});
    expect(counts.unreplicated).toBe(0);
    await command(primary.port, 'CONFIG', 'RESETSTAT');
    return { primary, replica, intake, lines, counts };
  }

  /** Records `RECORDS` requests at once; @returns each one's ms from the common start until its record() returned. */
  async function burst(intake: Intake): Promise<number[]> {
    const t0 = Date.now();
    return Promise.all(
      Array.from({ length: RECORDS }, async (_, i) => {
        await intake.record(TEST_KIND, `burst-${i}`, `req-${i}`, { i });
        return Date.now() - t0;
      }),
    );
  }

  /** How many WAIT commands the server on `port` ran since CONFIG RESETSTAT (INFO commandstats). */
  async function waitCalls(port: number): Promise<number> {
    const stats = String(await command(port, 'INFO', 'commandstats'));
    return Number(/cmdstat_wait:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  }

  it(`with the replica stopped, ${RECORDS} concurrent records all return within 3 × the timeout (grouped WAITs, not one per record in a row), each warned and counted once`, async () => {
    const { primary, replica, intake, lines, counts } = await setUp();
    // A stopped replica acknowledges nothing: every WAIT runs its whole timeout.
    replica.proc.kill('SIGSTOP');
    closers.push(async () => replica.proc.kill('SIGCONT'));

    const took = await burst(intake);
    expect(Math.max(...took)).toBeLessThan(3 * TIMEOUT_MS);
    // Each waited for a WAIT sent after its write that timed out.
    expect(Math.min(...took)).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(counts.unreplicated).toBe(RECORDS);
    const warnings = lines.filter((l) => l.msg.startsWith('a request was recorded on the primary but fewer replicas'));
    expect(warnings.map((l) => l.requestId).sort()).toEqual(
      Array.from({ length: RECORDS }, (_, i) => `req-${i}`).sort(),
    );
    // Each verdict is a WAIT's answer (0 replicas), not a client-side timeout of a WAIT left queued.
    expect(warnings.filter((l) => l.confirmed !== 0 || l.error !== undefined)).toEqual([]);
    expect(await waitCalls(primary.port)).toBeLessThanOrEqual(3);
  });

  it(`with the replica healthy, ${RECORDS} concurrent records are all confirmed: the replica has each when record() returns`, async () => {
    const { replica, intake, lines, counts } = await setUp();
    await burst(intake);
    expect(counts.unreplicated).toBe(0);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    const keys = Array.from({ length: RECORDS }, (_, i) => `w:intake:test.kind-burst-${i}`);
    expect(Number(await command(replica.port, 'EXISTS', ...keys))).toBe(RECORDS);
  });
});
