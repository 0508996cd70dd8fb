import type { ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * The bot's state connection (records, claims, caches, budgets): commands fail after 2 retries
 * instead of queueing forever, so a Redis outage turns into an answer ("try again") rather than a
 * hang. Connection errors are logged (warn) through pino with the error serializer.
 *
 * @param url - REDIS_URL (`redis://` or `rediss://`).
 */
export function createStateRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, connectionName: 'docs-agent-state' });
  redis.on('error', (err) => logger.warn({ err }, 'redis connection error'));
  return redis;
}

/**
 * BullMQ connection options for REDIS_URL. BullMQ requires `maxRetriesPerRequest: null` on the
 * connections its workers block on (BullMQ docs: "Connections").
 */
export function bullConnection(url: string): ConnectionOptions {
  return { url, maxRetriesPerRequest: null, enableReadyCheck: true };
}

/**
 * @returns true when `redis` answers PING with PONG within `timeoutMs` (ms); never throws.
 */
export async function pingRedis(redis: Pick<Redis, 'ping'>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const pong = await Promise.race([
      redis.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return pong === 'PONG';
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connection options for the intake queue's writes: fail fast when Redis is down
 * (`enableOfflineQueue: false`, one retry, a 1.5 s command timeout), so a listener answers "try
 * again" within Slack's 3 s instead of hanging (BullMQ docs: "Going to production").
 */
export function intakeConnection(url: string): ConnectionOptions {
  return { url, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_500 };
}
