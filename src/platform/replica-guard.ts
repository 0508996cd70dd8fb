import type { Cluster, Redis } from 'ioredis';
import { GroupedWait } from './grouped-wait.js';
import type { Logger } from './logger.js';
import { StartupError } from './startup-error.js';
import { withinTime } from './time-limit.js';
import { PlatformErrorCode } from './errors.js';
import { redisReplyCode } from './redis-errors.js';

/**
 * Whether writes would survive a failover (REDIS_WAIT_REPLICAS above 0): the intake's record
 * before the ack, and the saved step before each irreversible one (a status message posted, a job
 * created, a follow-up sent, an announcement posted).
 *
 * After a write, `WAIT n timeoutMs` on the connection that made it (or after a small "barrier"
 * write there: a WAIT covers every write of its server made before that connection's last one)
 * says how many replicas have it (Redis docs: WAIT). It cannot see one thing: in a graceful
 * failover (`SENTINEL FAILOVER`), or when Sentinel cuts off a primary it can no longer reach, the
 * replica being promoted leaves the old primary first, and the old primary keeps taking writes,
 * confirmed by its other replicas, until Sentinel re-points them (about a second), and Sentinel
 * discards them all when it demotes it. So the guard also reads the primary's replicas (`ROLE`)
 * before and after each WAIT and every few seconds: while the primary has fewer than it had a
 * moment ago (none included: the writes it took before its last replica left may be on none), no
 * write is confirmed, for `suspectMs`; past that, the missing replica is taken to be gone and the
 * count lowered.
 *
 * The WAIT asks for every replica the primary has (at least `replicas`), so a write a replica
 * confirmed is on whichever one Sentinel promotes (it promotes by a replication offset that may be
 * seconds old); a write counts as confirmed once `replicas` have it.
 */
interface ReplicaGuardOptions {
  /** REDIS_WAIT_REPLICAS: 0 turns the guard off (everything is confirmed at once). */
  replicas: number;
  /** REDIS_WAIT_TIMEOUT_MS: how long one WAIT may take. */
  timeoutMs: number;
  /** Key of the barrier write (under the bot's prefix). */
  barrierKey: string;
  logger: Logger;
  /** ms a replica that left is taken for a failover under way before it is taken to be gone. @defaultValue 10000 */
  suspectMs?: number;
  /** ms between reads of the primary's replicas while nothing is written. @defaultValue 5000 */
  probeEveryMs?: number;
  /** Told when saved steps are not confirmed: `held` (the step waits), `went_ahead` (too few replicas had them). */
  onStep?: (outcome: 'held' | 'went_ahead') => void;
  /** Clock in epoch ms. */
  now?: () => number;
}

/** Taken before writes that will be checked: a check fails when the connection was re-established since. */
export interface GuardMark {
  readonly epoch: number;
}

/** What a check found (`required`: the replicas the WAIT asked for; `confirmed`: how many had the writes). */
type GuardVerdict =
  | { kind: 'confirmed'; confirmed: number; required: number }
  /** Fewer than REDIS_WAIT_REPLICAS had them: replicas lagging or gone, not a failover under way. */
  | { kind: 'short'; confirmed: number; required: number }
  /** Nothing confirmed: the connection failed or was re-established, or a replica left the primary a moment ago. */
  | { kind: 'unconfirmed'; reason: string; confirmed?: number; required?: number };

/** Why a check fails when the connection closed since the mark. */
const RECONNECTED = 'the connection was re-established since the write';
/** Why a check fails while the primary has fewer replicas than a moment ago. */
const REPLICA_LEFT = 'the primary has fewer replicas than a moment ago (a failover may be under way)';

/** A saved step could not be confirmed on the replicas before the step it guards: try it again later. */
export class UnreplicatedStepError extends Error {
  readonly code = PlatformErrorCode.StepUnreplicated;
  constructor(readonly reason: string) {
    super(`a saved step could not be confirmed on the Redis replicas: ${reason}`);
    this.name = 'UnreplicatedStepError';
  }
}

interface Reply {
  confirmed: number;
  required: number;
  /** Replicas of the primary as `ROLE` listed them just before the WAIT; -1 when the server is no primary. */
  now: number;
}

/** See {@link ReplicaGuardOptions}. One guard per connection it WAITs on. */
export class ReplicaGuard {
  /** Times the connection closed: a mark from before is stale. */
  private epoch = 0;
  /** Most replicas the primary of this connection has had since it connected (lowered after `suspectMs` of fewer). */
  private most = 0;
  /** Epoch ms since when the primary has had fewer replicas than {@link most}. */
  private fewerSince: number | undefined;
  private readonly grouped = new GroupedWait<Reply>(() => this.send());
  private readonly probe: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  /** @param client - the connection the WAITs run on (the intake writer: it fails fast when Redis is down). */
  constructor(
    private readonly client: Redis | Cluster,
    private readonly o: ReplicaGuardOptions,
  ) {
    this.now = o.now ?? Date.now;
    if (o.replicas <= 0) return;
    client.on('close', () => {
      this.epoch++;
      this.most = 0;
      this.fewerSince = undefined;
    });
    client.on('ready', () => void this.readReplicas());
    this.probe = setInterval(() => void this.readReplicas(), o.probeEveryMs ?? 5_000);
    this.probe.unref();
  }

  /** Whether REDIS_WAIT_REPLICAS is above 0. */
  get enabled(): boolean {
    return this.o.replicas > 0;
  }

  /** A mark for writes about to be made (see {@link GuardMark}). */
  mark(): GuardMark {
    return { epoch: this.epoch };
  }

  /**
   * Whether the writes made since `mark` would survive a failover: on this connection (`barrier`
   * false: the writes were its own), or on any connection to the same server (`barrier`: a small
   * write here first). Concurrent checks share their WAITs (at most one in flight, one queued).
   * Never throws.
   */
  async check(mark: GuardMark, opts: { barrier?: boolean } = {}): Promise<GuardVerdict> {
    if (!this.enabled) return { kind: 'confirmed', confirmed: 0, required: 0 };
    let reply: Reply;
    try {
      if (mark.epoch !== this.epoch) return { kind: 'unconfirmed', reason: RECONNECTED };
      if (opts.barrier) await this.client.set(this.o.barrierKey, String(this.now()), 'PX', 60_000);
      reply = await this.grouped.wait();
    } catch (err) {
      return { kind: 'unconfirmed', reason: err instanceof Error ? err.message : String(err) };
    }
    const { confirmed, required } = reply;
    const unconfirmed = (reason: string): GuardVerdict => ({ kind: 'unconfirmed', reason, confirmed, required });
    if (mark.epoch !== this.epoch) return unconfirmed(`${RECONNECTED}: its WAIT could not cover it`);
    if (reply.now < 0) return unconfirmed('the server is a replica now (demoted)');
    if (this.replicaLeft()) return unconfirmed(REPLICA_LEFT);
    return { kind: confirmed >= this.o.replicas ? 'confirmed' : 'short', confirmed, required };
  }

  /**
   * Before an irreversible step: the steps saved since `mark` (on any connection to this server)
   * would survive a failover. Fewer replicas than REDIS_WAIT_REPLICAS (lagging or gone) is one
   * warning and goes ahead, as before the guard.
   * @throws {@link UnreplicatedStepError} when they can't be confirmed (see {@link GuardVerdict}).
   */
  async confirmSteps(mark: GuardMark, what: string): Promise<void> {
    const v = await this.check(mark, { barrier: true });
    if (v.kind === 'confirmed') return;
    this.o.onStep?.(v.kind === 'short' ? 'went_ahead' : 'held');
    if (v.kind === 'short') {
      this.o.logger.warn(
        { step: what, replicas: this.o.replicas, confirmed: v.confirmed },
        'a saved step is not on REDIS_WAIT_REPLICAS replicas in time; going ahead (a failover now could repeat it)',
      );
      return;
    }
    throw new UnreplicatedStepError(v.reason);
  }

  /**
   * Start-up check (REDIS_WAIT_REPLICAS above 0): the server must accept `WAIT` (`WAIT 0 0` answers
   * at once with the replicas connected now). A server that refuses it (a managed service or an
   * ACL without it) would leave every ack unconfirmed; fewer replicas connected than configured
   * makes every ack wait its whole timeout (one warn line). Redis out of reach within
   * `readyTimeoutMs` is not a refusal: one warn line, and the records say "try again" until it is back.
   * @param ready - resolves once the connection is ready.
   * @throws {@link StartupError} naming REDIS_WAIT_REPLICAS when Redis refuses `WAIT`.
   */
  async checkAtStartup(ready: () => Promise<void>, readyTimeoutMs = 5_000): Promise<void> {
    const { replicas } = this.o;
    if (replicas <= 0) return;
    let connected: number;
    try {
      await withinTime(ready(), readyTimeoutMs, () => {
        throw new Error(`Redis not ready within ${readyTimeoutMs} ms`);
      });
      connected = Number(await this.client.wait(0, 0));
    } catch (err) {
      const redisError = redisReplyCode(err); // Redis answered with an error: it refuses WAIT
      if (redisError !== undefined) {
        const why = `Redis refused WAIT (${(err as Error).message.slice(0, 120)}), which REDIS_WAIT_REPLICAS needs: `;
        const fix = "allow the WAIT command for the bot's Redis user and service, or set REDIS_WAIT_REPLICAS=0";
        throw new StartupError(why + fix, { variable: 'REDIS_WAIT_REPLICAS', redisError });
      }
      const msg = 'could not check at start-up that Redis accepts WAIT (REDIS_WAIT_REPLICAS); carrying on';
      this.o.logger.warn({ err }, msg);
      return;
    }
    if (connected < replicas) {
      this.o.logger.warn(
        { replicas, connected },
        'fewer replicas are connected to the Redis primary than REDIS_WAIT_REPLICAS: until they are, every ack ' +
          'waits REDIS_WAIT_TIMEOUT_MS and is counted in docs_bot_intake_unreplicated_total',
      );
    }
  }

  /** Stops reading the replicas in the background. */
  close(): void {
    if (this.probe) clearInterval(this.probe);
  }

  /**
   * One grouped round trip: the primary's replicas (`ROLE`), `WAIT` for all of them (at least
   * REDIS_WAIT_REPLICAS), and `ROLE` again (a replica that left during the WAIT counts too).
   */
  private async send(): Promise<Reply> {
    const required = Math.max(this.o.replicas, this.most);
    const res = await this.client.pipeline().role().wait(required, this.o.timeoutMs).role().exec();
    type Result = [Error | null, unknown];
    const [[beforeErr, before], [waitErr, confirmed], [afterErr, after]] = res as [Result, Result, Result];
    if (waitErr) throw waitErr;
    const listed = [beforeErr ? this.most : this.note(before), afterErr ? this.most : this.note(after)];
    return { confirmed: Number(confirmed), required, now: Math.min(...listed) };
  }

  /** Reads the primary's replicas in the background (a failover needs a count from before it). Failures are ignored. */
  private async readReplicas(): Promise<void> {
    try {
      this.note(await this.client.role());
    } catch (err) {
      this.o.logger.debug({ err }, "could not read the Redis primary's replicas (ROLE)");
    }
  }

  /** Notes a `ROLE` reply; @returns how many replicas it lists (-1 when the server is no primary). */
  private note(role: unknown): number {
    if (!Array.isArray(role) || role[0] !== 'master') return -1;
    const now = Array.isArray(role[2]) ? role[2].length : 0;
    // Down to none counts too: what the primary took before its last replica left may be on none.
    if (now >= this.most) {
      this.most = now;
      this.fewerSince = undefined;
    } else {
      this.fewerSince ??= this.now();
      if (this.now() - this.fewerSince >= (this.o.suspectMs ?? 10_000)) {
        const msg = 'a replica left the Redis primary a while ago and has not come back; no longer waiting for it';
        this.o.logger.warn({ had: this.most, now }, msg);
        this.most = now;
        this.fewerSince = undefined;
      }
    }
    return now;
  }

  /** Whether a replica left the primary within the last `suspectMs`. */
  private replicaLeft(): boolean {
    return this.fewerSince !== undefined;
  }
}
