import type { ChainableCommander, Redis } from 'ioredis';

/** A Lua script registered on a client (see {@link defineScript}). */
export interface RedisScript {
  /** Runs it (EVALSHA; ioredis sends the body again only when the server answers NOSCRIPT). */
  run(keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  /** Adds it to a MULTI or pipeline. */
  queue(chain: ChainableCommander, keys: readonly string[], args: readonly (string | number)[]): ChainableCommander;
}

type Callable = Record<string, (...a: (string | number)[]) => unknown>;

/**
 * Registers `lua` on `redis` as the custom command `name` (ioredis `defineCommand`), so each call
 * sends the script's SHA, not its body; registering the same name twice keeps one definition.
 * On a Cluster every key of one call must hash to one slot: the bot's keys share one hash tag
 * (keyPrefix), so any keys under the bot's prefix do.
 *
 * @param numberOfKeys - how many of the leading arguments are keys (KEYS[1..n]).
 */
export function defineScript(
  redis: Pick<Redis, 'defineCommand'>,
  name: string,
  numberOfKeys: number,
  lua: string,
): RedisScript {
  const cmd = `docsAgent${name}`;
  if (typeof (redis as unknown as Callable)[cmd] !== 'function') redis.defineCommand(cmd, { numberOfKeys, lua });
  const check = (keys: readonly string[]) => {
    if (keys.length !== numberOfKeys) throw new Error(`script ${name} takes ${numberOfKeys} keys, got ${keys.length}`);
  };
  return {
    run: async (keys, args) => {
      check(keys);
      return (redis as unknown as Callable)[cmd]!(...keys, ...args);
    },
    queue: (chain, keys, args) => {
      check(keys);
      return (chain as unknown as Record<string, (...a: (string | number)[]) => ChainableCommander>)[cmd]!(
        ...keys,
        ...args,
      );
    },
  };
}
