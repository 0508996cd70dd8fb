import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TEST_KIND } from '../../helpers/intake-kinds.js';
import { Intake, INTAKE_QUEUE } from '../../../src/platform/intake.js';
import { BotMetrics } from '../../../src/platform/metrics.js';
import { createQueue } from '../../../src/platform/queues.js';
import { RedisConnections } from '../../../src/platform/redis.js';
import { arrayLogger } from '../../helpers/logs.js';
import { Scrape } from '../../helpers/prometheus.js';
import { command, primaryWithReplica, until } from '../../helpers/redis-topology.js';
import { useRedisTopologies } from '../../helpers/topology-fixture.js';

/**
 * `/metrics` reads the intake queue's depth as the composition root wires it: through a queue of
 * its own on the queues' connection, not the intake writer's connection, which waits out every
 * `WAIT` of REDIS_WAIT_REPLICAS (a blocked client runs nothing else). With the replica stopped,
 * the writer's reads queue behind WAITs of REDIS_WAIT_TIMEOUT_MS each.
 */

const { topology, closers } = useRedisTopologies();

const WAIT_TIMEOUT_MS = 500;

describe('the intake queue depth on /metrics during a replica outage', () => {
  it('is read on the queue connection: in the scrape, at once, while records wait for the stopped replica', async () => {
    const topo = topology();
    const { primary, replica } = await primaryWithReplica(topo);
    const { logger } = arrayLogger();
    const conns = new RedisConnections({ mode: 'url', url: `redis://127.0.0.1:${primary.port}` }, logger, {
      redisReconnect: () => undefined,
    });
    closers.push(() => conns.close());
    const ctx = { connection: conns.bull('queue'), prefix: 'd', logger };
    const intake = new Intake(ctx, conns.intake(), { replicas: 1, timeoutMs: WAIT_TIMEOUT_MS });
    closers.push(() => intake.close());
    const depth = createQueue(ctx, INTAKE_QUEUE, {});
    closers.push(() => depth.close());
    const metrics = new BotMetrics({ registry: new Registry(), defaultMetrics: false, queueTimeoutMs: 1_000 });
    metrics.watchQueues([depth]);
    await intake.record(TEST_KIND, 'warm-up', 'req-0', {});
    await depth.getJobCounts(); // connected and scripts loaded before the outage

    replica.proc.kill('SIGSTOP');
    closers.push(async () => replica.proc.kill('SIGCONT'));
    // A record whose WAIT now blocks the writer's connection for up to WAIT_TIMEOUT_MS.
    const record = intake.record(TEST_KIND, 'one', 'req-1', {});
    await until("the record's WAIT blocked on the primary", 5_000, async () =>
      /cmd=wait\b/.test(String(await command(primary.port, 'CLIENT', 'LIST'))),
    );

    const t0 = Date.now();
    const s = new Scrape(await metrics.registry.metrics());
    const scrapeMs = Date.now() - t0;
    const t1 = Date.now();
    await intake.queue.getJobCounts('waiting');
    const writerReadMs = Date.now() - t1;
    await record;

    expect(s.series('docs_bot_queue_jobs').map((l) => l.queue)).toContain('intake');
    expect(s.value('docs_bot_queue_jobs', { queue: 'intake', state: 'waiting' })).toBeGreaterThanOrEqual(1);
    expect(scrapeMs).toBeLessThan(WAIT_TIMEOUT_MS / 2);
    // The same read on the writer's connection waits for a WAIT to time out first.
    expect(writerReadMs).toBeGreaterThanOrEqual(WAIT_TIMEOUT_MS / 2);
    console.log(
      `intake depth read during a replica outage: ${scrapeMs} ms on the queue connection (whole scrape), ${writerReadMs} ms on the intake writer's`,
    );
  });
});
