import { describe, expect, it } from 'vitest';
import { TEST_KIND } from '../../helpers/intake-kinds.js';
import { Intake } from '../../../src/platform/intake.js';
import { RedisConnections } from '../../../src/platform/redis.js';
import { arrayLogger } from '../../helpers/logs.js';
import { command, until } from '../../helpers/redis-topology.js';
import { useRedisTopologies } from '../../helpers/topology-fixture.js';

/**
 * What Redis errors put in the logs: ioredis attaches the failed command, arguments included, to
 * its errors, and the bot logs errors with their fields. Neither a Redis password nor a recorded
 * request's text may come out that way.
 */

const { topology, closers } = useRedisTopologies();

const observer = { redisReconnect: () => undefined };

describe('Redis errors in the logs', () => {
  it('credentials Redis refuses (HELLO … AUTH user password) are logged without the password, naming the command', async () => {
    const topo = topology();
    const server = await topo.start();
    await command(server.port, 'CONFIG', 'SET', 'requirepass', 'right-password-0000');
    const { logger, lines } = arrayLogger();
    const wrong = new RedisConnections(
      { mode: 'url', url: `redis://bot:WRONG-password-1111@127.0.0.1:${server.port}` },
      logger,
      observer,
    );
    closers.push(() => wrong.close());
    await until('a connection error to be logged', 10_000, () => lines.some((l) => l.msg === 'redis connection error'));
    const out = JSON.stringify(lines);
    expect(out).not.toContain('WRONG-password-1111');
    const line = lines.find((l) => l.msg === 'redis connection error') as {
      err?: { command?: unknown; message?: string };
    };
    expect(line.err?.message).toMatch(/WRONGPASS|NOAUTH|invalid username-password/i);
    expect(line.err?.command).toEqual({ name: 'hello' });
  });

  it("a recorded request refused by a demoted primary (READONLY) is logged without the request's text", async () => {
    const topo = topology();
    const primary = await topo.start();
    const replica = await topo.start([`replicaof 127.0.0.1 ${primary.port}`]);
    await until('the replica to sync', 15_000, async () =>
      String(await command(replica.port, 'INFO', 'replication')).includes('master_link_status:up'),
    );
    const { logger, lines } = arrayLogger();
    // The intake writes straight to the replica, as a connection left on a demoted primary would.
    const conns = new RedisConnections({ mode: 'url', url: `redis://127.0.0.1:${replica.port}` }, logger, observer);
    closers.push(() => conns.close());
    const intake = new Intake({ connection: conns.bull('queue'), prefix: 'w', logger }, conns.intake());
    closers.push(() => intake.close());
    const err = await intake.record(TEST_KIND, 'one', 'req-1', { text: 'PRIVATE instruction 2222' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String(err)).toMatch(/READONLY/);
    logger.warn({ err }, 'could not record the request');
    const out = JSON.stringify(lines);
    expect(out).toContain('READONLY');
    expect(out).not.toContain('PRIVATE instruction 2222');
  });
});
