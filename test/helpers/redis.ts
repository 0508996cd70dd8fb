import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';

/** The Redis the tests use (real Redis: BullMQ's Lua scripts need it). */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh key prefix, so tests running side by side never see each other's keys. */
export function randomPrefix(): string {
  return `t-${randomBytes(5).toString('hex')}`;
}

/** A Redis client for a test; close it with {@link dropPrefix}. */
export function testRedis(): Redis {
  return new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
}

/** Deletes every key under `prefix` (state and BullMQ alike). */
export async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}
