import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { Intake } from '../../../src/platform/intake.js';
import { createQueue, createWorker } from '../../../src/platform/queues.js';
import { arrayLogger } from '../../helpers/logs.js';
import { randomPrefix } from '../../helpers/redis.js';

/*
 * BullMQ queues and workers whose Redis is out of reach (a closed port: every connection refused):
 * the connection errors become pino lines naming the queue or worker (BullMQ otherwise prints them
 * to stderr), and nothing crashes.
 */

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe('queues and workers while Redis is out of reach', () => {
  it('a queue, the intake queue and a worker each log their connection errors (warn, warn, error) with their name', async () => {
    const port = await closedPort();
    const { logger, lines } = arrayLogger('warn');
    const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null, retryStrategy: () => 60_000 };
    const ctx = { connection, prefix: randomPrefix(), logger };
    const queue = createQueue(ctx, 'digests', {});
    const worker = createWorker(ctx, 'digests', async () => undefined, { autorun: false });
    const writer = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: null, retryStrategy: () => 60_000 });
    const intake = new Intake({ connection, prefix: ctx.prefix, logger }, writer);
    try {
      await vi.waitFor(
        () => {
          const seen = lines.map((l) => [l.level, l.msg, l.queue ?? l.worker]);
          expect(seen).toContainEqual([40, 'queue error', 'digests']);
          expect(seen).toContainEqual([40, 'queue error', 'intake']);
          expect(seen).toContainEqual([50, 'worker error', 'digests']);
        },
        { timeout: 5_000 },
      );
      expect(lines.find((l) => l.msg === 'queue error')?.err).toMatchObject({
        message: expect.stringContaining('ECONNREFUSED'),
      });
    } finally {
      await Promise.allSettled([queue.close(), worker.close(true), intake.close()]);
      writer.disconnect();
    }
  });
});
