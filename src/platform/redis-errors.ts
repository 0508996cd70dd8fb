/**
 * Codes of Redis failures, as ioredis reports them. A server's error reply becomes a `ReplyError`
 * whose message starts with the reply's error prefix: "the first upper-case word after the `-`, up
 * to the first space or newline, represents the kind of error returned" (Redis docs, "Redis
 * serialization protocol specification", Simple errors): READONLY, NOPERM, ERR, … . ioredis'
 * `commandTimeout` rejects with a plain `Error('Command timed out')` (ioredis Command.setTimeout),
 * the one failure it gives neither a class nor a code; this module is the one place that reads it,
 * and test/integration/platform/redis-errors.test.ts checks both against the installed ioredis.
 */
import { ReplyError } from 'ioredis';

/** The Redis failures the bot decides on. */
export const RedisErrorCode = {
  /** The server is a replica now (a failover demoted it): `READONLY You can't write against a read only replica.` */
  ReadOnly: 'READONLY',
  /** No answer within ioredis' `commandTimeout`: the command may or may not have run. */
  CommandTimeout: 'command_timeout',
} as const;

/** The message ioredis rejects a command with when its `commandTimeout` lapses (ioredis Command.js). */
const IOREDIS_COMMAND_TIMEOUT = 'Command timed out';

/**
 * The error prefix of a Redis error reply (READONLY, NOPERM, ERR, …); undefined when Redis did not
 * answer with an error.
 */
export function redisReplyCode(err: unknown): string | undefined {
  // ioredis' ReplyError carries no code: this is where it becomes one, so the class is read here alone.
  // eslint-disable-next-line local/no-error-class-decision
  if (!(err instanceof ReplyError)) return undefined;
  const prefix = /^[A-Z][A-Z_-]*/.exec((err as Error).message)?.[0];
  return prefix ?? 'ERR';
}

/**
 * The code of a Redis failure: the error prefix of an error reply ({@link redisReplyCode}), or
 * {@link RedisErrorCode.CommandTimeout}; undefined for anything else (a connection closed or
 * refused: nothing was written).
 */
export function redisErrorCode(err: unknown): string | undefined {
  const reply = redisReplyCode(err);
  if (reply) return reply;
  if (err instanceof Error && err.message === IOREDIS_COMMAND_TIMEOUT) return RedisErrorCode.CommandTimeout;
  return undefined;
}
