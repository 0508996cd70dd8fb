import type { ConnectionOptions } from 'bullmq';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';
import type { RedisTarget } from './redis-target.js';
import { SwitchSafeSentinelConnector } from './redis-sentinel.js';

export {
  DEFAULT_REDIS_URL,
  keyPrefix,
  plaintextPasswords,
  redisTarget,
  warnPlaintextPasswords,
  type HostPort,
  type RedisTarget,
  type RedisVars,
} from './redis-target.js';

export {
  isReadOnlyError,
  reconnectDelayMs,
  REDIS_ROLES,
  type RedisObserver,
  type RedisRole,
} from './redis-reconnect.js';
import { reconnectDelayMs, roleOptions, type RedisObserver, type RedisRole } from './redis-reconnect.js';

/** ioredis options of the mode (Sentinel or a single endpoint), without the role's. */
function modeOptions(target: Exclude<RedisTarget, { mode: 'cluster' }>): RedisOptions {
  if (target.mode === 'url') return {};
  return {
    sentinels: target.sentinels,
    name: target.name,
    ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
    ...(target.sentinelTls ? { sentinelTLS: {} } : {}),
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    // Sentinel publishes +switch-master on a failover: reconnect at once instead of at the next error,
    // without ending a client whose reconnect is under way (redis-sentinel.ts).
    failoverDetector: true,
    Connector: SwitchSafeSentinelConnector,
    sentinelRetryStrategy: reconnectDelayMs,
  };
}

/**
 * ioredis Cluster options of `role`: the role's per-node options without their retry strategy (a
 * node the cluster client loses is found again through the slot map, not retried on its own),
 * outages counted through `clusterRetryStrategy` (the whole cluster unreachable). With TLS, the
 * nodes' addresses from `CLUSTER SLOTS` are used as given, not resolved again (ioredis README,
 * "Special Note: Aws Elasticache Clusters with TLS": otherwise the certificate's host name does
 * not match).
 */
function clusterOptions(
  target: Extract<RedisTarget, { mode: 'cluster' }>,
  role: RedisRole,
  observer: RedisObserver,
  extra: RedisOptions,
): ClusterOptions {
  const { retryStrategy: _r, ...perNode } = roleOptions(role, observer);
  return {
    redisOptions: {
      ...perNode,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
      ...extra,
    },
    clusterRetryStrategy: (times) => {
      if (times === 1) observer.redisReconnect(role);
      return reconnectDelayMs(times);
    },
    ...(role === 'intake' ? { enableOfflineQueue: false } : {}),
    ...(target.tls
      ? {
          dnsLookup: (address: string, callback: (err: Error | null, address: string) => void) =>
            callback(null, address),
        }
      : {}),
  };
}

/** BullMQ connection options (not a client: BullMQ makes its clients from them) of a Sentinel or single-endpoint target. */
function bullOptions(
  t: Exclude<RedisTarget, { mode: 'cluster' }>,
  role: RedisRole,
  observer: RedisObserver,
  extra: RedisOptions,
): ConnectionOptions {
  const base = { ...modeOptions(t), ...roleOptions(role, observer), ...extra };
  // BullMQ's own RedisOptions type lags ioredis 6's; the fields are ioredis'.
  return (t.mode === 'url' ? { url: t.url, ...base } : base) as ConnectionOptions;
}

// autoResendUnfulfilledCommands: a write the listener already answered "try again" for (timed
// out, or cut by a lost connection) must not be sent again after a reconnect and recorded after all.
const INTAKE_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 1_500,
  autoResendUnfulfilledCommands: false,
};

/**
 * The bot's Redis connections in the configured mode: the state client (records, claims, caches,
 * budgets) and the BullMQ connection options of queues, workers and the intake writer, all of the
 * same kind. Every connection reconnects on READONLY and counts its outages through the observer;
 * the state client logs one line per failover (when its connection comes back: how long it was
 * down and whether a READONLY refusal showed the failover).
 */
export class RedisConnections {
  readonly state: Redis;
  private readonly owned: (Redis | Cluster)[] = [];

  constructor(
    readonly target: RedisTarget,
    private readonly logger: Logger,
    private readonly observer: RedisObserver,
  ) {
    this.state = this.createState();
  }

  /**
   * The state client: commands fail after 2 retries instead of queueing forever, so a Redis outage
   * turns into an answer ("try again") rather than a hang. On a Cluster it is an ioredis `Cluster`,
   * which has the same command interface (typed as `Redis` for the stores that use it).
   */
  private createState(): Redis {
    let downSince: number | undefined;
    let readOnly = false;
    const opts: RedisOptions = {
      ...roleOptions('state', this.observer, () => (readOnly = true)),
      maxRetriesPerRequest: 2,
    };
    const client = this.create('state', opts);
    client.on('error', (err: Error) => this.logger.warn({ err }, 'redis connection error'));
    client.on('reconnecting', () => (downSince ??= Date.now()));
    client.on('ready', () => {
      if (downSince === undefined) return;
      const fields = {
        downMs: Date.now() - downSince,
        cause: readOnly ? 'READONLY (the server was demoted)' : 'connection lost',
        mode: this.target.mode,
      };
      downSince = undefined;
      readOnly = false;
      this.logger.warn(fields, 'Redis connection restored after a failover or outage');
    });
    return client as Redis;
  }

  private create(role: RedisRole, extra: RedisOptions): Redis | Cluster {
    const t = this.target;
    const client =
      t.mode === 'cluster'
        ? new Cluster(t.nodes, clusterOptions(t, role, this.observer, extra))
        : t.mode === 'url'
          ? new Redis(t.url, { ...roleOptions(role, this.observer), ...extra })
          : new Redis({ ...modeOptions(t), ...roleOptions(role, this.observer), ...extra });
    this.owned.push(client);
    return client;
  }

  /**
   * BullMQ connection of queues (`queue`) or workers (`worker`): `maxRetriesPerRequest: null`, as
   * BullMQ requires on connections its workers block on (BullMQ docs: "Connections"). A Cluster is
   * handed over as an instance (BullMQ duplicates it for a worker's blocking connection); otherwise
   * as options, from which BullMQ makes its own clients.
   */
  bull(role: 'queue' | 'worker'): ConnectionOptions {
    const extra: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true };
    return this.bullConnection(role, extra);
  }

  /**
   * The intake writer: an ioredis client owned here (closed by {@link close}) that the intake's
   * BullMQ queue writes with and that runs the intake's `WAIT`s (a WAIT covers the writes of its
   * own connection). It fails fast when Redis is down (`enableOfflineQueue: false`, one retry, a
   * 1.5 s command timeout), so a listener answers "try again" within Slack's 3 s instead of
   * hanging (BullMQ docs: "Going to production").
   */
  intake(): Redis | Cluster {
    return this.create('intake', INTAKE_OPTIONS);
  }

  private bullConnection(role: RedisRole, extra: RedisOptions): ConnectionOptions {
    const t = this.target;
    if (t.mode === 'cluster') return this.create(role, extra) as unknown as ConnectionOptions;
    return bullOptions(t, role, this.observer, extra);
  }

  /** Closes every client made here (BullMQ closes the ones it made from options). */
  async close(): Promise<void> {
    await Promise.all(this.owned.map((c) => c.quit().catch(() => c.disconnect())));
  }
}

/** What {@link checkEvictionPolicy} found: Redis' `maxmemory-policy`, or why it could not be read. */
type EvictionCheck = { policy: string; evicts: boolean } | { policy: undefined; error: string };

/**
 * Start-up check of Redis' `maxmemory-policy` (`CONFIG GET`; on a Cluster, of whichever node the
 * client asks, not necessarily the one holding the bot's slot): anything but `noeviction` lets Redis
 * drop keys under memory pressure, which would silently lose channel settings (kept without TTL)
 * and BullMQ's queues (BullMQ docs, "Going to production": `maxmemory-policy` must be
 * `noeviction`). Logs one warn line in that case. Managed Redis often disables CONFIG: then it
 * logs one info line and carries on. Never throws.
 */
export async function checkEvictionPolicy(redis: Pick<Redis, 'config'>, logger: Logger): Promise<EvictionCheck> {
  try {
    const reply = (await redis.config('GET', 'maxmemory-policy')) as unknown;
    const policy = Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : undefined;
    if (policy === undefined) throw new Error('no maxmemory-policy in the CONFIG GET reply');
    const evicts = policy !== 'noeviction';
    if (evicts) {
      logger.warn(
        { maxmemoryPolicy: policy },
        'Redis may evict keys (maxmemory-policy is not noeviction): channel settings and BullMQ queues could be lost under memory pressure; set maxmemory-policy noeviction and persistence (AOF)',
      );
    }
    return { policy, evicts };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    logger.info(
      { error },
      'could not read Redis maxmemory-policy (CONFIG may be disabled); make sure it is noeviction',
    );
    return { policy: undefined, error };
  }
}
