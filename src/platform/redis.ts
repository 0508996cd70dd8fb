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

/** What {@link checkEvictionPolicy} found: Redis' `maxmemory-policy`, or why it could not be read. */
export type EvictionCheck = { policy: string; evicts: boolean } | { policy: undefined; error: string };

/**
 * Start-up check of Redis' `maxmemory-policy` (`CONFIG GET`): anything but `noeviction` lets Redis
 * drop keys under memory pressure, which would silently lose channel settings (kept without TTL)
 * and BullMQ's queues (BullMQ docs, "Going to production": `maxmemory-policy` must be
 * `noeviction`). Logs one warn line in that case. Managed Redis often disables CONFIG: then it
 * logs one info line and carries on. Never throws.
 */
export async function checkEvictionPolicy(redis: Pick<Redis, 'config'>, logger: Logger): Promise<EvictionCheck> {
  try {
    const reply = (await redis.config('GET', 'maxmemory-policy')) as unknown;
    const policy = Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : undefined;
    if (policy === undefined) throw new Error('no maxmemory-policy in the CONFIG GET reply');
    const evicts = policy !== 'noeviction';
    if (evicts) {
      logger.warn(
        { maxmemoryPolicy: policy },
        'Redis may evict keys (maxmemory-policy is not noeviction): channel settings and BullMQ queues could be lost under memory pressure; set maxmemory-policy noeviction and persistence (AOF)',
      );
    }
    return { policy, evicts };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    logger.info({ error }, 'could not read Redis maxmemory-policy (CONFIG may be disabled); make sure it is noeviction');
    return { policy: undefined, error };
  }
}
