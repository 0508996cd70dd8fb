import { SentinelConnector, type SentinelConnectionOptions } from 'ioredis';

/**
 * ioredis' Sentinel connector with its failover detector's race closed.
 *
 * With `failoverDetector: true`, ioredis subscribes to the Sentinels' `+switch-master` and, when a
 * failover is announced, calls the connector's `disconnect()`, which also marks the connector as no
 * longer connecting. When the primary died first (`kill -9`, a lost host), the client is already
 * reconnecting: a connect is asking a Sentinel for the primary, and on its answer it finds itself
 * "no longer connecting", throws `Connection is closed.`, and ioredis ends the client for good
 * (status `end`: every later command fails with `Connection is closed.`, no further reconnect).
 * Seen here in the Redis failover fault test (a bot whose state connection never came back);
 * possibly the same as redis/ioredis#1683 ("Connection is closed" for 2–3 of 6 pods after a
 * Sentinel failover). ioredis 6.0.0, built/connectors/SentinelConnector/index.js (`connect`'s
 * `if (!this.connecting) throw`) and FailoverDetector.js (`this.connector.disconnect()`).
 *
 * Here `+switch-master` only ends the current connection (the client reconnects and asks the
 * Sentinels again) and closes the detector's subscriptions (a new detector subscribes after the next
 * connect), as ioredis does, but leaves a connect under way going: it then asks a Sentinel, which
 * names the new primary. A `disconnect()` of the client itself (quit, close) still stops everything.
 *
 * Passed as ioredis' `Connector` option (redis.ts); clients BullMQ makes from those options, and
 * their duplicates, get it too.
 */
export class SwitchSafeSentinelConnector extends SentinelConnector {
  /** @param options - ioredis' options of the client (Sentinel mode: `sentinels`, `name`, `failoverDetector`). */
  constructor(options: unknown) {
    super(options as SentinelConnectionOptions);
    // ioredis assigns `this.failoverDetector` a new detector after each connect: the detector is
    // handed this connector's switch instead of its disconnect() as it is assigned.
    let detector: Detector | null = (this as unknown as { failoverDetector: Detector | null }).failoverDetector;
    Object.defineProperty(this, 'failoverDetector', {
      configurable: true,
      get: () => detector,
      set: (d: Detector | null) => {
        detector = d;
        if (d) d.connector = { disconnect: () => this.switchMaster() };
      },
    });
  }

  /**
   * `+switch-master`: ioredis' own disconnect (the current stream ended, destroyed if it does not
   * close within `disconnectTimeout`; the detector's subscriptions closed), with a connect under way
   * left going.
   */
  private switchMaster(): void {
    const connecting = this.connecting;
    this.disconnect();
    this.connecting = connecting;
  }
}

/** What this connector reaches of ioredis' FailoverDetector: the connector it disconnects on `+switch-master`. */
interface Detector {
  connector: { disconnect(): void };
}
