import type { RedisOptions } from 'ioredis';
import { RedisErrorCode, redisReplyCode } from './redis-errors.js';

/**
 * How each of the bot's Redis connections reconnects (redis.ts makes them): after READONLY (a
 * failover demoted its server), with a backoff that grows along a READONLY streak, and how its
 * outages and failovers are counted ({@link RedisObserver}, `docs_bot_redis_reconnects_total`).
 */

/** Which of the bot's Redis connections: labels `docs_bot_redis_reconnects_total`. */
export const REDIS_ROLES = ['state', 'intake', 'queue', 'worker'] as const;

/** One of {@link REDIS_ROLES}. */
export type RedisRole = (typeof REDIS_ROLES)[number];

/**
 * Told when a connection lost its server: once per outage (at the first reconnect attempt), and
 * for a failover met with READONLY once a minute at most, however many times the endpoint still
 * leads the connection back to the demoted primary (see {@link READONLY_FAILOVER_MS}).
 */
export interface RedisObserver {
  redisReconnect(role: RedisRole): void;
}

/** Whether a Redis error says the server is a replica now (a failover demoted it): `READONLY You can't write against a read only replica.` */
export function isReadOnlyError(err: Error): boolean {
  return redisReplyCode(err) === RedisErrorCode.ReadOnly;
}

/**
 * READONLY reconnects of one connection within this many ms of each other are one streak: the
 * endpoint keeps leading to the demoted primary (its DNS not moved yet, or moving). Each
 * reconnect of a streak waits longer ({@link reconnectDelayMs} of its place in the streak), and
 * after {@link READONLY_RESENDS} the refused commands are no longer sent again but fail, so a
 * write does not hang for as long as the endpoint takes to move.
 */
const READONLY_STREAK_MS = 5_000;

/** Reconnects of a READONLY streak after which the refused command is no longer resent (about 3 s of backoff). */
const READONLY_RESENDS = 5;

/**
 * A READONLY reconnect is counted ({@link RedisObserver}) only when the connection counted no
 * reconnect in this many ms before: while a managed endpoint still leads to the demoted primary,
 * each reconnect reaches it, is refused again and reconnects (ioredis restarts `times` at 1 after
 * each connection made), which is still the one failover; READONLY that persists counts once per
 * this many ms, so an alert on the count still hears of it.
 */
export const READONLY_FAILOVER_MS = 60_000;

/** ms before reconnect attempt `times` (1, 2, …): 100 ms, then up to 2 s apart. */
export function reconnectDelayMs(times: number): number {
  return Math.min(100 * 2 ** (times - 1), 2_000);
}

/** One connection's READONLY streak and what its reconnects counted. */
interface Streak {
  /** Place in the streak of the last READONLY reconnect. */
  streak: number;
  /** When it was last refused with READONLY (ms). */
  last: number;
  /** When it last counted a reconnect (ms). */
  counted: number;
  /** The READONLY refusal that asked for the reconnect to come (`again`: of a failover already seen). */
  readOnly?: { at: number; again: boolean };
}

/**
 * ioredis options every connection of `role` shares: a write refused with READONLY (the server was
 * demoted by a failover, but this connection still reaches it) drops the connection and reconnects,
 * which asks the Sentinels again or resolves the endpoint's new address (ioredis
 * `reconnectOnError`); the refused command is sent again after the reconnect (`2`), except on the
 * intake connection, which fails fast instead (the listener answers "try again" within Slack's 3 s),
 * and after {@link READONLY_RESENDS} reconnects in a streak (see {@link READONLY_STREAK_MS}).
 */
export function roleOptions(role: RedisRole, observer: RedisObserver, onReadOnly?: () => void): RedisOptions {
  // One streak per connection: ioredis calls these on the client's own copy of the options (`this`),
  // while BullMQ makes many clients from one options object.
  const streaks = new WeakMap<object, Streak>();
  const streakOf = (client: object | undefined) => {
    const key = client ?? streaks;
    let s = streaks.get(key);
    if (!s) streaks.set(key, (s = { streak: 0, last: -Infinity, counted: -Infinity }));
    return s;
  };
  return {
    connectionName: `docs-agent-${role}`,
    reconnectOnError(this: object | undefined, err: Error) {
      if (!isReadOnlyError(err)) return false;
      onReadOnly?.();
      const s = streakOf(this);
      const now = Date.now();
      // The first refusal before the reconnect decides whether it counts (the others of a pipeline follow it):
      // not within a minute of this connection's last counted reconnect, so READONLY that persists counts once a minute.
      s.readOnly ??= { at: now, again: now - s.counted < READONLY_FAILOVER_MS };
      // Commands refused together (one pipeline) are one reconnect of the streak.
      if (now - s.last >= 100) s.streak = now - s.last < READONLY_STREAK_MS ? s.streak + 1 : 1;
      s.last = now;
      return role === 'intake' || s.streak > READONLY_RESENDS ? 1 : 2;
    },
    retryStrategy(this: object | undefined, times: number) {
      const s = streakOf(this);
      if (times === 1) {
        const readOnly = s.readOnly;
        s.readOnly = undefined;
        // A refusal of this failover seen moments ago (not one left over from a reconnect already under way).
        const sameFailover = readOnly !== undefined && readOnly.again && Date.now() - readOnly.at < READONLY_STREAK_MS;
        if (!sameFailover) {
          observer.redisReconnect(role);
          s.counted = Date.now();
        }
      }
      return Math.max(
        reconnectDelayMs(times),
        Date.now() - s.last < READONLY_STREAK_MS ? reconnectDelayMs(s.streak) : 0,
      );
    },
  };
}
