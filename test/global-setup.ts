import { ensureRedis, type SandboxRedis } from '../sandbox/redis-server.js';

let redis: SandboxRedis | undefined;

/**
 * Makes sure the tests have a real Redis: REDIS_URL (default 127.0.0.1:6379) if it answers, else a
 * private redis-server for this run. Tests read it from process.env.REDIS_URL.
 */
export async function setup(): Promise<void> {
  redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  process.env.REDIS_URL = redis.url;
  if (redis.private) console.log(`tests: started a private redis-server at ${redis.url}`);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
}
