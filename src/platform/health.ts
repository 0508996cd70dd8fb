import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import { pingRedis } from './redis.js';

/** Milliseconds `/healthz` waits for Redis's PONG before answering 503. */
export const HEALTH_TIMEOUT_MS = 1_000;

/**
 * Answers `GET /healthz`: 200 `{"status":"ok","redis":"up"}` when Redis answers PING within
 * {@link HEALTH_TIMEOUT_MS}, else 503 `{"status":"unavailable","redis":"down"}` (Redis is the one
 * dependency without which nothing can be taken or done; the docs API and Slack are retried).
 */
export function healthHandler(deps: { redis: Pick<Redis, 'ping'> }) {
  return async (_req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const ok = await pingRedis(deps.redis, HEALTH_TIMEOUT_MS);
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { status: 'ok', redis: 'up' } : { status: 'unavailable', redis: 'down' }));
  };
}
