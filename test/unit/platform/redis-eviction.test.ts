import { describe, expect, it } from 'vitest';
import { checkEvictionPolicy } from '../../../src/platform/redis.js';
import { arrayLogger } from '../../helpers/logs.js';

/** A Redis whose `CONFIG GET maxmemory-policy` answers `reply` (or fails with it). */
const redisWith = (reply: unknown) => ({
  config: (async () => {
    if (reply instanceof Error) throw reply;
    return reply;
  }) as never,
});

describe('checkEvictionPolicy (start-up)', () => {
  it('is quiet when Redis never evicts', async () => {
    const { logger, lines } = arrayLogger();
    expect(await checkEvictionPolicy(redisWith(['maxmemory-policy', 'noeviction']), logger)).toEqual({
      policy: 'noeviction',
      evicts: false,
    });
    expect(lines).toEqual([]);
  });

  it('warns once, naming the policy, when Redis may evict keys (settings and BullMQ need noeviction)', async () => {
    const { logger, lines } = arrayLogger();
    expect(await checkEvictionPolicy(redisWith(['maxmemory-policy', 'allkeys-lru']), logger)).toEqual({
      policy: 'allkeys-lru',
      evicts: true,
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, maxmemoryPolicy: 'allkeys-lru' });
    expect(lines[0]?.msg).toMatch(/channel settings and BullMQ queues could be lost.*noeviction/);
  });

  it('tolerates CONFIG being disabled (managed Redis): one info line, no throw', async () => {
    const { logger, lines } = arrayLogger();
    const res = await checkEvictionPolicy(redisWith(new Error("ERR unknown command 'CONFIG'")), logger);
    expect(res).toEqual({ policy: undefined, error: "ERR unknown command 'CONFIG'" });
    expect(lines.map((l) => l.level)).toEqual([30]);
    expect(lines[0]?.msg).toMatch(/could not read Redis maxmemory-policy/);
  });

  it('an empty CONFIG GET reply (a proxy that hides the setting) is "could not read", not "never evicts"', async () => {
    const { logger, lines } = arrayLogger();
    const res = await checkEvictionPolicy(redisWith([]), logger);
    expect(res).toEqual({ policy: undefined, error: 'no maxmemory-policy in the CONFIG GET reply' });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [30, 'could not read Redis maxmemory-policy (CONFIG may be disabled); make sure it is noeviction'],
    ]);
  });
});
