import { ReplyError } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { READONLY_FAILOVER_MS, roleOptions, type RedisRole } from '../../../src/platform/redis-reconnect.js';

const READONLY = new ReplyError("READONLY You can't write against a read only replica.");

/** One connection's options, driven as ioredis drives them: a refusal, then the reconnect's first attempt. */
function connection() {
  const counted: RedisRole[] = [];
  const opts = roleOptions('state', { redisReconnect: (r) => void counted.push(r) });
  const self = {};
  const refused = () => {
    opts.reconnectOnError!.call(self, READONLY);
    opts.retryStrategy!.call(self, 1);
  };
  const cut = () => void opts.retryStrategy!.call(self, 1);
  return { counted, refused, cut };
}

describe('counting Redis reconnects (docs_bot_redis_reconnects_total)', () => {
  afterEach(() => vi.useRealTimers());

  it('a failover met with READONLY for under a minute counts once; READONLY that persists counts once a minute', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const c = connection();
    for (let i = 0; i < 15; i += 1) {
      c.refused();
      vi.advanceTimersByTime(3_000);
    }
    expect(c.counted).toHaveLength(1);
    // Refused every 3 s for three minutes more: the same streak, but an operator must hear of it.
    for (let i = 0; i < 60; i += 1) {
      c.refused();
      vi.advanceTimersByTime(3_000);
    }
    // Counted at 0 s, then at 60, 120 and 180 s (READONLY_FAILOVER_MS apart).
    expect(READONLY_FAILOVER_MS).toBe(60_000);
    expect(c.counted).toHaveLength(4);
  });

  it('a cut connection always counts, even moments after a failover was counted', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const c = connection();
    c.refused();
    vi.advanceTimersByTime(1_000);
    c.cut();
    expect(c.counted).toEqual(['state', 'state']);
  });
});
