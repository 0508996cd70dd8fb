import type { Redis } from 'ioredis';
import { tryLock } from '../../../platform/lock.js';
import type { Logger } from '../../../platform/logger.js';
import { classifySlackError, slackErrorCode } from '../../../platform/slack/errors.js';

/**
 * The per-message edit lock lives this long if its holder dies (refreshed while held), in ms. It is
 * never waited for.
 */
const EDIT_LOCK_MS = 10_000;

/** A status message, as Slack names it. */
interface MessageRef {
  channel: string;
  statusTs: string;
}

/**
 * Each status message's right to be edited now, shared by every replica: a throttle slot (Redis
 * `SET NX PX` under `{prefix}:status-slot:{channel}:{ts}`: one chat.update per message per
 * `minIntervalMs`, held for `Retry-After` after Slack answers 429) and an edit lock (never waited
 * for). Nothing here sleeps: a slot or lock taken says when to try again.
 */
export class EditSlots {
  /** @param o.minIntervalMs - least time between two edits of one message, in ms. */
  constructor(private readonly o: { redis: Redis; prefix: string; minIntervalMs: number }) {}

  /**
   * Runs `fn` holding the message's edit slot and lock, or says when to try again. `force` takes
   * no slot and runs even when the lock is held elsewhere or Redis cannot be asked for it (a
   * caller's last try).
   * @throws the Redis error when the slot or lock cannot be read (not with `force`), or what `fn` throws.
   */
  async run<T>(
    target: MessageRef,
    log: Logger,
    force: boolean,
    fn: () => Promise<T>,
  ): Promise<T | { retryInMs: number }> {
    const { redis, prefix, minIntervalMs } = this.o;
    if (!force) {
      const got = await redis.set(this.slotKey(target), '1', 'PX', minIntervalMs, 'NX');
      if (got !== 'OK') return { retryInMs: Math.max(20, (await redis.pttl(this.slotKey(target))) + 10) };
    }
    // A last try is not held back by Redis: with the lock unreadable, it edits without it.
    const release = await tryLock(
      redis,
      `${prefix}:status-edit:${target.channel}:${target.statusTs}`,
      EDIT_LOCK_MS,
      log,
    ).catch((err: unknown) => {
      if (!force) throw err;
      log.warn({ err }, "could not take the status message's edit lock; the last try edits without it");
      return undefined;
    });
    if (!release && !force) return { retryInMs: minIntervalMs };
    try {
      return await fn();
    } finally {
      await release?.();
    }
  }

  private slotKey(target: MessageRef): string {
    return `${this.o.prefix}:status-slot:${target.channel}:${target.statusTs}`;
  }

  /**
   * Makes one Slack call on the message. A 429 holds the message's slot for `Retry-After` and
   * returns `retry` (unless `force`); other failures are logged. `settled`: it went through, or
   * failed for good (a transient failure is worth another try).
   */
  async call(
    target: MessageRef,
    log: Logger,
    fn: () => Promise<unknown>,
    force: boolean,
  ): Promise<{ retry?: { retryInMs: number }; settled: boolean }> {
    try {
      await fn();
      return { settled: true };
    } catch (err) {
      const retryAfterS = (err as { retryAfter?: number }).retryAfter;
      const code = slackErrorCode(err);
      if (code === 'ratelimited') {
        const retryInMs = Math.max(1, Math.ceil((retryAfterS ?? 1) * 1000));
        log.warn({ retryAfterS }, 'status message edit rate limited; asking again after Retry-After');
        await this.o.redis.set(this.slotKey(target), '1', 'PX', retryInMs);
        if (!force) return { retry: { retryInMs }, settled: false };
      } else {
        log.warn({ err, slackError: code }, 'could not change the status message');
      }
      return { settled: classifySlackError(err).kind !== 'transient' };
    }
  }
}
