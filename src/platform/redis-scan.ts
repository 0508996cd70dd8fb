import type { Cluster, Redis } from 'ioredis';

/** Keys SCAN is asked to look at per call (Redis' COUNT hint; it may return more or fewer). */
const SCAN_COUNT = 1_000;
/** Keys {@link unlinkMatching} deletes at most, by default: past it, it stops and says so (`capped`). */
const DEFAULT_CAP = 10_000;

/** The client {@link unlinkMatching} scans with: a single Redis, or a Cluster (`isCluster`, its primaries scanned). */
export type ScanClient = Pick<Redis, 'scan' | 'unlink' | 'isCluster'>;

/** What {@link unlinkMatching} did: the keys it deleted, and whether it stopped at its cap with keys maybe left. */
export interface UnlinkOutcome {
  removed: number;
  capped: boolean;
}

/** `text` with Redis' glob characters escaped (`*`, `?`, `[`, `]`, `\`), to match it as it is in a SCAN pattern. */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * Deletes every key matching `pattern` (a Redis glob; escape the literal parts with
 * {@link globEscape}): SCAN with COUNT {@link SCAN_COUNT}, each page's keys UNLINKed as found, so
 * memory stays bounded and a second run (a redelivered event) deletes what the first did not reach.
 * Stops after `cap` keys (default {@link DEFAULT_CAP}) with `capped: true`. On a Cluster SCAN runs on
 * every primary (a SCAN cursor is one node's): the bot's keys share one hash tag (QUEUE_PREFIX in
 * braces, redis-target.ts' keyPrefix), so they are on one of them, and one UNLINK of several of
 * them is within one slot. SCAN visits the node's whole keyspace (the pattern only filters), so it
 * costs about one round trip per {@link SCAN_COUNT} keys in Redis.
 * @returns the keys deleted and whether the cap stopped it.
 * @throws the Redis error (what was deleted before it stays deleted).
 */
export async function unlinkMatching(
  redis: ScanClient,
  pattern: string,
  opts: { cap?: number } = {},
): Promise<UnlinkOutcome> {
  const cap = opts.cap ?? DEFAULT_CAP;
  const nodes: Pick<Redis, 'scan'>[] = redis.isCluster ? (redis as unknown as Cluster).nodes('master') : [redis];
  let removed = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      const batch = keys.slice(0, cap - removed);
      if (batch.length) removed += await redis.unlink(...batch);
      if (batch.length < keys.length || (removed >= cap && cursor !== '0')) return { removed, capped: true };
    } while (cursor !== '0');
  }
  return { removed, capped: false };
}
