import { Intake } from '../../src/platform/intake.js';
import type { Logger } from '../../src/platform/logger.js';
import { RedisConnections } from '../../src/platform/redis.js';
import { TEST_REDIS_URL } from './redis.js';

/** The bot's connections to the test Redis, its reconnects not counted. Close them after the test. */
export function testRedisConnections(logger: Logger): RedisConnections {
  return new RedisConnections({ mode: 'url', url: TEST_REDIS_URL }, logger, { redisReconnect: () => undefined });
}

/**
 * An intake on the test Redis under `prefix` (no replica acknowledgement), on connections of its
 * own. Close with {@link closeTestIntake}.
 */
export function testIntake(prefix: string, logger: Logger): { conns: RedisConnections; intake: Intake } {
  const conns = testRedisConnections(logger);
  return { conns, intake: new Intake({ connection: conns.bull('queue'), prefix, logger }, conns.intake()) };
}

/** Closes the intake, then its connections. */
export async function closeTestIntake({ conns, intake }: { conns: RedisConnections; intake: Intake }): Promise<void> {
  await intake.close();
  await conns.close();
}
