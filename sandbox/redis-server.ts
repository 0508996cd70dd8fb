import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

/** A Redis the sandbox (or the test run) can use; `stop` ends a private server it started. */
export interface SandboxRedis {
  url: string;
  /** true when we started a private redis-server for this run. */
  private: boolean;
  stop(): Promise<void>;
}

/** How to get Redis, printed when there is none. */
export const NO_REDIS_HELP = [
  'No Redis answered and no redis-server binary is on PATH.',
  'Get one of:',
  '  - Debian/Ubuntu: sudo apt-get install redis-server   (the sandbox then starts a private one itself)',
  '  - macOS: brew install redis',
  '  - Docker: docker run -d -p 6379:6379 redis:7   (then REDIS_URL=redis://127.0.0.1:6379)',
].join('\n');

/** @returns whether a Redis at `url` answers PING within `timeoutMs` (ms). */
export async function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Finds a Redis: `preferredUrl` if it answers; else a private `redis-server` (no persistence) on a
 * free loopback port, when the binary is on PATH.
 * @throws Error with {@link NO_REDIS_HELP} when neither is possible.
 */
export async function ensureRedis(preferredUrl = 'redis://127.0.0.1:6379'): Promise<SandboxRedis> {
  if (await redisAnswers(preferredUrl)) return { url: preferredUrl, private: false, stop: async () => undefined };
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) throw new Error(NO_REDIS_HELP);
  const port = await freePort();
  const proc: ChildProcess = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await redisAnswers(url, 300)) {
      return {
        url,
        private: true,
        stop: async () => {
          proc.kill('SIGTERM');
          await new Promise((r) => (proc.exitCode !== null ? r(undefined) : proc.once('exit', r)));
        },
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`started redis-server on port ${port}, but it did not answer`);
}
