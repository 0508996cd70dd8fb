import type { Logger } from './logger.js';

/** A `host:port` of a Sentinel or a Cluster seed node. */
export interface HostPort {
  host: string;
  port: number;
}

/**
 * Where the bot's Redis is, in one of three modes (docs/operations.md "Redis"):
 * - `url`: one endpoint (REDIS_URL; `rediss://` is TLS with the server's certificate verified). A
 *   managed service's primary endpoint, whose address moves to the promoted replica on failover.
 * - `sentinel`: ask the Sentinels (REDIS_SENTINELS) for the primary named REDIS_SENTINEL_NAME.
 * - `cluster`: Redis Cluster from seed nodes (REDIS_CLUSTER_NODES); every key of the bot shares
 *   one hash tag (see {@link keyPrefix}).
 */
export type RedisTarget =
  | { mode: 'url'; url: string }
  | {
      mode: 'sentinel';
      sentinels: HostPort[];
      name: string;
      sentinelPassword?: string;
      sentinelTls: boolean;
      username?: string;
      password?: string;
      tls: boolean;
    }
  | { mode: 'cluster'; nodes: HostPort[]; username?: string; password?: string; tls: boolean };

/** The configuration's Redis variables (as validated by readConfig). */
export interface RedisVars {
  REDIS_URL?: string | undefined;
  REDIS_SENTINELS: string[];
  REDIS_SENTINEL_NAME?: string | undefined;
  REDIS_SENTINEL_PASSWORD?: string | undefined;
  REDIS_SENTINEL_TLS: boolean;
  REDIS_CLUSTER_NODES: string[];
  REDIS_USERNAME?: string | undefined;
  REDIS_PASSWORD?: string | undefined;
  REDIS_TLS: boolean;
  QUEUE_PREFIX: string;
}

/** Where REDIS_URL points when no mode is configured. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

const hostPort = (s: string): HostPort => {
  const i = s.lastIndexOf(':');
  return { host: s.slice(0, i), port: Number(s.slice(i + 1)) };
};

/** The connection mode the configuration chose (readConfig has refused any mix). */
export function redisTarget(c: RedisVars): RedisTarget {
  const auth = {
    ...(c.REDIS_USERNAME ? { username: c.REDIS_USERNAME } : {}),
    ...(c.REDIS_PASSWORD ? { password: c.REDIS_PASSWORD } : {}),
    tls: c.REDIS_TLS,
  };
  if (c.REDIS_CLUSTER_NODES.length) return { mode: 'cluster', nodes: c.REDIS_CLUSTER_NODES.map(hostPort), ...auth };
  if (c.REDIS_SENTINELS.length) {
    return {
      mode: 'sentinel',
      sentinels: c.REDIS_SENTINELS.map(hostPort),
      name: c.REDIS_SENTINEL_NAME ?? '',
      ...(c.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: c.REDIS_SENTINEL_PASSWORD } : {}),
      sentinelTls: c.REDIS_SENTINEL_TLS,
      ...auth,
    };
  }
  return { mode: 'url', url: c.REDIS_URL ?? DEFAULT_REDIS_URL };
}

/**
 * The prefix of every key of the bot, BullMQ's and its own: QUEUE_PREFIX, wrapped in a hash tag
 * (`{docs-agent}`) on a Cluster, so that every key hashes to one slot (Redis Cluster spec: only the
 * part between the first `{` and `}` is hashed). BullMQ needs all keys of a queue in one slot
 * (BullMQ docs, "Redis Cluster"); the bot's own multi-key transactions and scripts (a job's record
 * with its thread index, the budgets, locks) need theirs too. One slot means one primary holds the
 * bot's data: a Cluster gives the bot failover, not sharding.
 */
export function keyPrefix(c: Pick<RedisVars, 'QUEUE_PREFIX' | 'REDIS_CLUSTER_NODES'>): string {
  return c.REDIS_CLUSTER_NODES.length ? `{${c.QUEUE_PREFIX}}` : c.QUEUE_PREFIX;
}

/** Host names and addresses that never leave the machine: `localhost` (and `*.localhost`), 127.0.0.0/8, `::1`. */
function isLocalHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * The Redis passwords the configuration would send without TLS to a host that is not this machine,
 * as the variables that hold them (never the values): REDIS_URL with a password and `redis://`;
 * REDIS_PASSWORD without REDIS_TLS (on a Cluster, to its seeds; with Sentinel, to the data nodes
 * the Sentinels name, judged by the Sentinels' own hosts); REDIS_SENTINEL_PASSWORD without
 * REDIS_SENTINEL_TLS. (Redis AUTH sends the password as it is; anyone on the path can read it.)
 */
export function plaintextPasswords(t: RedisTarget): string[] {
  if (t.mode === 'url') {
    let url: URL;
    try {
      url = new URL(t.url);
    } catch {
      return [];
    }
    return url.protocol === 'redis:' && url.password !== '' && !isLocalHost(url.hostname) ? ['REDIS_URL'] : [];
  }
  const hosts = t.mode === 'cluster' ? t.nodes : t.sentinels;
  const remote = hosts.some((h) => !isLocalHost(h.host));
  const out: string[] = [];
  if (remote && t.password && !t.tls) out.push('REDIS_PASSWORD');
  if (remote && t.mode === 'sentinel' && t.sentinelPassword && !t.sentinelTls) out.push('REDIS_SENTINEL_PASSWORD');
  return out;
}

/**
 * Start-up check: one warn line naming the variables whose Redis password would go without TLS to
 * a host that is not this machine ({@link plaintextPasswords}; never the password itself), or nothing.
 * @returns those variables.
 */
export function warnPlaintextPasswords(t: RedisTarget, logger: Pick<Logger, 'warn'>): string[] {
  const variables = plaintextPasswords(t);
  if (variables.length) {
    logger.warn(
      { variables, mode: t.mode },
      'a Redis password is sent without TLS to a host that is not this machine (anyone on the path can read it): ' +
        'use rediss:// in REDIS_URL, or REDIS_TLS / REDIS_SENTINEL_TLS',
    );
  }
  return variables;
}
