import type { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { globEscape, unlinkMatching, type ScanClient } from '../../../src/platform/redis-scan.js';
import { dropPrefix, randomPrefix, testRedis } from '../../helpers/redis.js';

/** unlinkMatching on real Redis: what it deletes, its cap, and a Cluster's primaries each scanned. */

const redis = testRedis();
const other = testRedis();
const prefix = randomPrefix();
afterEach(() => dropPrefix(redis, prefix));
afterAll(async () => {
  await dropPrefix(redis, prefix);
  redis.disconnect();
  other.disconnect();
});

async function keys(n: number, name: (i: number) => string): Promise<void> {
  const m = redis.multi();
  for (let i = 0; i < n; i++) m.set(`${prefix}:${name(i)}`, '1');
  await m.exec();
}
const left = async () => (await redis.keys(`${prefix}:*`)).map((k) => k.slice(prefix.length + 1)).sort();

describe('unlinkMatching', () => {
  it('deletes the keys of the pattern only; glob characters in the literal part match themselves', async () => {
    await keys(3, (i) => `a:x:${i}`);
    await keys(1, () => 'a:x');
    await keys(1, () => 'a:xy:0');
    await keys(1, () => 'a*:x:0');
    expect(await unlinkMatching(redis, `${globEscape(`${prefix}:a*:x:`)}*`)).toEqual({ removed: 1, capped: false });
    expect(await unlinkMatching(redis, `${globEscape(`${prefix}:a:x:`)}*`)).toEqual({ removed: 3, capped: false });
    expect(await left()).toEqual(['a:x', 'a:xy:0']);
  });

  it('stops at its cap and says so; the next run deletes what is left', async () => {
    await keys(25, (i) => `c:${i}`);
    const pattern = `${prefix}:c:*`;
    expect(await unlinkMatching(redis, pattern, { cap: 10 })).toEqual({ removed: 10, capped: true });
    expect(await left()).toHaveLength(15);
    expect(await unlinkMatching(redis, pattern, { cap: 10 })).toEqual({ removed: 10, capped: true });
    expect(await unlinkMatching(redis, pattern, { cap: 10 })).toEqual({ removed: 5, capped: false });
    expect(await left()).toEqual([]);
  });

  it("on a Cluster, scans each primary (a cursor is one node's) and deletes through the cluster's client", async () => {
    await keys(4, (i) => `n:${i}`);
    const scanned: string[] = [];
    const node = (name: string, client: Redis) =>
      ({
        scan: (...args: Parameters<Redis['scan']>) => {
          scanned.push(name);
          return client.scan(...args);
        },
      }) as Redis;
    const cluster = {
      isCluster: true,
      nodes: (role: string) => (role === 'master' ? [node('first', redis), node('second', other)] : []),
      scan: () => Promise.reject(new Error('a Cluster client routes SCAN to a random node')),
      unlink: (...k: string[]) => redis.unlink(...k),
    } as unknown as ScanClient;
    expect(await unlinkMatching(cluster, `${prefix}:n:*`)).toEqual({ removed: 4, capped: false });
    expect(new Set(scanned)).toEqual(new Set(['first', 'second']));
    expect(await left()).toEqual([]);
  });
});
