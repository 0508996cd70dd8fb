import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ReplicaGuard, UnreplicatedStepError } from '../../../src/platform/replica-guard.js';
import { arrayLogger } from '../../helpers/logs.js';
import { randomPrefix, TEST_REDIS_URL } from '../../helpers/redis.js';

/*
 * The replica guard when its replicas or Redis fail it: a step short of REDIS_WAIT_REPLICAS goes
 * ahead with one warning (the test Redis has no replica: WAIT 1 answers 0 after its timeout); a WAIT
 * Redis refuses holds the step; a start-up check that cannot reach Redis carries on with a warning.
 */

const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
afterAll(() => redis.disconnect());

/** A Redis client the guard talks to, whose WAIT Redis refuses (as with an ACL without it, found at run time). */
function waitRefusingClient() {
  const client = new EventEmitter() as EventEmitter & Record<string, unknown>;
  const master = ['master', 0, []];
  const refused = Object.assign(new Error("NOPERM User bot has no permissions to run the 'wait' command"), {
    name: 'ReplyError',
  });
  client.set = vi.fn(async () => 'OK');
  client.role = vi.fn(async () => master);
  client.pipeline = () => {
    const p = {
      role: () => p,
      wait: () => p,
      exec: async () => [
        [null, master],
        [refused, null],
        [null, master],
      ],
    };
    return p;
  };
  return client;
}

describe('ReplicaGuard', () => {
  it('a saved step on fewer replicas than REDIS_WAIT_REPLICAS goes ahead, with one warning and one count', async () => {
    const { logger, lines } = arrayLogger('warn');
    const onStep = vi.fn();
    const guard = new ReplicaGuard(redis, {
      replicas: 1,
      timeoutMs: 50,
      barrierKey: `${randomPrefix()}:barrier`,
      logger,
      onStep,
    });
    try {
      await expect(guard.confirmSteps(guard.mark(), 'create')).resolves.toBeUndefined();
      expect(onStep).toHaveBeenCalledExactlyOnceWith('went_ahead');
      expect(lines).toEqual([
        expect.objectContaining({
          step: 'create',
          replicas: 1,
          confirmed: 0,
          msg: 'a saved step is not on REDIS_WAIT_REPLICAS replicas in time; going ahead (a failover now could repeat it)',
        }),
      ]);
    } finally {
      guard.close();
    }
  });

  it('a WAIT Redis refuses holds the step (UnreplicatedStepError naming the refusal), counted as held', async () => {
    const { logger } = arrayLogger('warn');
    const onStep = vi.fn();
    const guard = new ReplicaGuard(waitRefusingClient() as never, {
      replicas: 1,
      timeoutMs: 50,
      barrierKey: 'b',
      logger,
      onStep,
    });
    try {
      const err = await guard.confirmSteps(guard.mark(), 'post').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnreplicatedStepError);
      expect((err as Error).message).toContain('NOPERM');
      expect(onStep).toHaveBeenCalledExactlyOnceWith('held');
    } finally {
      guard.close();
    }
  });

  it('the start-up check when Redis is out of reach (refused, or not ready in time): one warning, and the start carries on', async () => {
    const { logger, lines } = arrayLogger('warn');
    const guard = new ReplicaGuard(waitRefusingClient() as never, {
      replicas: 1,
      timeoutMs: 50,
      barrierKey: 'b',
      logger,
    });
    try {
      const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
      await expect(guard.checkAtStartup(() => Promise.reject(down))).resolves.toBeUndefined();
      await expect(guard.checkAtStartup(() => new Promise<void>(() => undefined), 10)).resolves.toBeUndefined();
      const msg = 'could not check at start-up that Redis accepts WAIT (REDIS_WAIT_REPLICAS); carrying on';
      expect(lines.map((l) => [l.msg, (l.err as { message: string }).message])).toEqual([
        [msg, 'connect ECONNREFUSED 127.0.0.1:6379'],
        [msg, 'Redis not ready within 10 ms'],
      ]);
    } finally {
      guard.close();
    }
  });
});
