import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tryLock, withLock } from '../../../src/platform/lock.js';
import { arrayLogger } from '../../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../../helpers/redis.js';

/** Redis locks (redis-semaphore's Mutex) on the real Redis when Redis fails under them. */
const redis = testRedis();
const prefix = randomPrefix();
afterAll(async () => {
  await dropPrefix(redis, `mutex:${prefix}`);
  redis.disconnect();
});

/** A connection of the lock's own, failing at once once disconnected (no offline queue, no retries). */
async function ownConnection(): Promise<Redis> {
  const conn = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true });
  await conn.connect();
  return conn;
}

describe('a lock whose release Redis refuses', () => {
  it("withLock: the work's result stands; a warning says the lock lapses on its own, and it does (TTL set)", async () => {
    const { logger, lines } = arrayLogger('warn');
    const conn = await ownConnection();
    const key = `${prefix}:with`;
    const result = await withLock(
      conn,
      key,
      { lockTimeoutMs: 30_000, acquireTimeoutMs: 1_000 },
      async () => {
        conn.disconnect(); // Redis goes away while the lock is held
        return 'done';
      },
      logger,
    );
    expect(result).toBe('done');
    expect(lines.map((l) => [l.msg, l.lock])).toEqual([['could not release a lock; it lapses on its own', key]]);
    const ttl = await redis.pttl(`mutex:${key}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('tryLock: releasing does not throw; a warning says the lock lapses on its own', async () => {
    const { logger, lines } = arrayLogger('warn');
    const conn = await ownConnection();
    const release = await tryLock(conn, `${prefix}:try`, 30_000, logger);
    expect(release).toBeDefined();
    conn.disconnect();
    await expect(release!()).resolves.toBeUndefined();
    expect(lines.map((l) => l.msg)).toEqual(['could not release a lock; it lapses on its own']);
  });
});

describe('a lock taken from its holder (it lapsed and someone else holds it)', () => {
  it.each(['withLock', 'tryLock'] as const)('%s: its next refresh notices, and a warning says so', async (kind) => {
    const { logger, lines } = arrayLogger('warn');
    const key = `${prefix}:lost-${kind}`;
    // redis-semaphore refreshes a held lock every 80% of its timeout: here every 80 ms.
    const stolen = () => redis.set(`mutex:${key}`, 'another holder', 'PX', 10_000);
    const noticed = () =>
      vi.waitFor(() => expect(lines.map((l) => l.msg)).toContain('a lock lapsed while held'), { timeout: 5_000 });
    if (kind === 'withLock') {
      await withLock(
        redis,
        key,
        { lockTimeoutMs: 100, acquireTimeoutMs: 1_000 },
        async () => {
          await stolen();
          await noticed();
        },
        logger,
      );
    } else {
      const release = await tryLock(redis, key, 100, logger);
      await stolen();
      await noticed();
      await release!();
    }
    expect(await redis.get(`mutex:${key}`)).toBe('another holder'); // the other holder's lock is left alone
  });
});
