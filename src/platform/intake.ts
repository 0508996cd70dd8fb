import { Queue, type ConnectionOptions, type Job, type Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import {
  IntakeAdmission,
  schemaIssues,
  unlessWorthRetrying,
  type AdmissionOptions,
  type DeferralPolicy,
} from './intake-admission.js';
import { stepsOf } from './steps.js';
import type { IntakeContext, IntakeData, IntakeHandler, IntakeKind } from './intake-kind.js';
import { createWorker, type QueueContext } from './queues.js';
import { ReplicaGuard, type GuardMark, type UnreplicatedStepError } from './replica-guard.js';
import {
  currentEnterpriseRef,
  currentRequestContext,
  installationRefOf,
  withRequestContext,
} from './request-context.js';
import { hasCode, PlatformErrorCode } from './errors.js';

/** BullMQ queue where every entry point records what a request asks for, before the ack. */
export const INTAKE_QUEUE = 'intake';

export { intakeKind, type IntakeData, type IntakeKind, type IntakePayload, type ReplyTo } from './intake-kind.js';
export type { IntakeContext, IntakeHandler } from './intake-kind.js';

/**
 * Written, but no `WAIT` could tell whether a replica has it (the primary may have died with it): a
 * command is answered "can't tell"; an event is left unacked for Slack to redeliver (same id).
 */
export class RecordUnconfirmedError extends Error {
  readonly code = PlatformErrorCode.IntakeUnconfirmed;
  constructor(
    readonly kind: string,
    detail: string,
  ) {
    super(`the ${kind} record's replica acknowledgement failed: ${detail}`);
    this.name = 'RecordUnconfirmedError';
  }
}

/**
 * Replica acknowledgement of a record before the ack, and of saved steps before irreversible ones
 * (REDIS_WAIT_REPLICAS, REDIS_WAIT_TIMEOUT_MS; see {@link ReplicaGuard}): after the write, Redis'
 * `WAIT` on the writing connection returns how many replicas have it. Concurrent records share
 * their WAITs (one in flight, one queued), so a record waits at most about 2 × `timeoutMs`.
 * `replicas` 0 skips it.
 */
export interface IntakeReplication {
  replicas: number;
  /** ms one WAIT may take; a record may wait for the one in flight, then for its own (about 2 × this at most); the ack is sent after it either way. */
  timeoutMs: number;
  /**
   * Told when fewer than `replicas` confirmed in time, or nothing could be confirmed (counts
   * `docs_bot_intake_unreplicated_total`).
   */
  onUnreplicated?: () => void;
  /** ms a replica that left the primary is taken for a failover under way ({@link ReplicaGuard}; tests shorten it). */
  suspectMs?: number;
  /** Told when a handler's saved steps are not confirmed (counts `docs_bot_steps_unreplicated_total`). */
  onStepUnreplicated?: (outcome: 'held' | 'went_ahead') => void;
}

/** How a record is kept (see {@link Intake.record}); by default a day after it is handled, 7 days if it failed. */
export interface RecordOptions {
  /** ms from the first record during which a duplicate is ignored; the record itself goes once handled. */
  dedupeWindowMs?: number;
}

/**
 * What the worker does besides running handlers (all optional): counting records left for other
 * replicas and given up (`observer`), telling the person when one is given up (`tell`), how long a
 * handler may be held in all for its steps to reach the replicas (`holdLimitMs`), the clock
 * (`now`), as {@link AdmissionOptions}; and how long a record of a kind or version unknown here is
 * left for other replicas (`deferral`; tests shorten both).
 */
export type IntakeOptions = Pick<AdmissionOptions, 'observer' | 'tell' | 'holdLimitMs' | 'now'> & {
  deferral?: Partial<DeferralPolicy>;
};

/** Attempts of an intake job, and the first backoff (doubling): about 4 minutes in all. */
const ATTEMPTS = 8;
const BACKOFF_MS = 1_000;

/**
 * Durable intake. A listener calls {@link record} (one Redis write: a BullMQ job whose id is
 * derived from the request) and then acks; a worker on any replica runs the handler the feature
 * registered for that kind. A duplicate delivery maps to the same job id and is ignored by BullMQ
 * (completed jobs are kept for a day, so late redeliveries are recognised too; a record made with
 * `dedupeWindowMs` is deleted once handled instead, and recognised by its deduplication key for that
 * long). A replica killed mid-handler leaves a stalled job that another replica (or the restarted
 * one) runs again, with the progress the handler saved.
 */
export class Intake {
  readonly queue: Queue<IntakeData>;
  private readonly handlers = new Map<string, { kind: IntakeKind<unknown>; handler: IntakeHandler<unknown> }>();
  /**
   * Replica acknowledgement on the writing connection: of records before the ack, of handlers'
   * steps ({@link IntakeContext.confirm}) and of others' (the announcements').
   */
  readonly guard: ReplicaGuard;
  private readonly admission: IntakeAdmission;

  /**
   * @param ctx - the queue context (worker connection, prefix, logger).
   * @param writer - the ioredis client `record` writes with (the queue shares it; its owner closes
   *   it) and runs the WAITs on: it should fail fast when Redis is down (`enableOfflineQueue:
   *   false`), so a listener can say so instead of hanging past Slack's 3 s
   *   ({@link RedisConnections.intake}).
   * @param replication - replica acknowledgement of records ({@link IntakeReplication}).
   * @param options - metrics, telling people, the deferral policy ({@link IntakeOptions}).
   */
  constructor(
    private readonly ctx: QueueContext,
    writer: Redis | Cluster,
    private readonly replication: IntakeReplication = { replicas: 0, timeoutMs: 0 },
    options: IntakeOptions = {},
  ) {
    const { replicas, timeoutMs, suspectMs, onStepUnreplicated: onStep } = replication;
    const barrierKey = `${ctx.prefix}:replica-barrier`;
    const optional = { ...(suspectMs ? { suspectMs } : {}), ...(onStep ? { onStep } : {}), ...pick(options, 'now') };
    this.guard = new ReplicaGuard(writer, { replicas, timeoutMs, barrierKey, logger: ctx.logger, ...optional });
    const admission = pick(options, 'observer', 'tell', 'now', 'holdLimitMs');
    this.admission = new IntakeAdmission({ logger: ctx.logger, policy: options.deferral ?? {}, ...admission });
    this.queue = new Queue<IntakeData>(INTAKE_QUEUE, {
      // BullMQ takes an ioredis instance as its connection and shares it (BullMQ docs: "Connections").
      connection: writer as unknown as ConnectionOptions,
      prefix: ctx.prefix,
      defaultJobOptions: {
        attempts: ATTEMPTS,
        backoff: { type: 'exponential', delay: BACKOFF_MS },
        removeOnComplete: { age: 24 * 3600 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    });
    this.queue.on('error', (err) => ctx.logger.warn({ err, queue: INTAKE_QUEUE }, 'queue error'));
  }

  /**
   * Start-up check of replica acknowledgement: {@link ReplicaGuard.checkAtStartup}.
   * @throws StartupError when Redis refuses `WAIT`.
   */
  checkReplication(readyTimeoutMs = 5_000): Promise<void> {
    return this.guard.checkAtStartup(() => this.queue.waitUntilReady(), readyTimeoutMs);
  }

  /**
   * Registers the handler of `kind` (a feature registers its own, e.g. `agent-jobs.start`): this
   * replica's worker then takes records of that kind up to its version, checks their payloads
   * against its schema and runs `handler`, typed from the schema.
   * @throws Error when the kind is registered twice (a programming error).
   */
  on<T>(kind: IntakeKind<T>, handler: IntakeHandler<NoInfer<T>>): void {
    if (this.handlers.has(kind.name)) throw new Error(`intake kind ${kind.name} is registered twice`);
    this.handlers.set(kind.name, { kind: kind as IntakeKind<unknown>, handler: handler as IntakeHandler<unknown> });
  }

  /**
   * Records a request durably. Idempotent: the same `(kind, id)` again does nothing.
   * With replication configured, it then waits for that many replicas to have the write: a
   * `WAIT` sent after the write, shared with the records made meanwhile (at most one in flight and
   * one queued), so at most about 2 × `timeoutMs` however many records arrive at once. When fewer
   * confirm, it logs a warning (one per record) and returns anyway: Slack's 3 s matter more, and
   * the record is on the primary. When the `WAIT` could not answer at all (its connection failed or
   * was re-established since the write: the primary that took the record may be gone), it warns,
   * counts, and throws {@link RecordUnconfirmedError}: the caller can't tell the person it was taken.
   * @param id - derived from the request (e.g. `trigger_id`), so a redelivery maps to the same job.
   * @param opts - `dedupeWindowMs`: the record is deleted as soon as it is handled (not kept a day)
   *   and only a small BullMQ deduplication key (`{prefix}:intake:de:<job id>`, PX that many ms from
   *   the first record) keeps later duplicates out. Per-job `removeOnComplete` age/count cannot be
   *   used for this: BullMQ applies it to the whole completed set, so it would also trim the other
   *   kinds' day-long records.
   * @throws the Redis error when it could not be recorded (the listener then answers "try again");
   *   {@link RecordUnconfirmedError} when it was written but its fate is unknown.
   */
  async record<T>(
    kind: IntakeKind<T>,
    id: string,
    requestId: string,
    payload: NoInfer<T>,
    opts?: RecordOptions,
  ): Promise<void> {
    const jobId = intakeJobId(kind.name, id);
    const short = opts?.dedupeWindowMs
      ? { removeOnComplete: true, deduplication: { id: jobId, ttl: opts.dedupeWindowMs } }
      : {};
    const mark = this.guard.mark();
    const replyTo = kind.awaited ? kind.replyTo(payload) : {}; // nobody to tell about a kind nobody waits on
    const teamId = currentRequestContext()?.teamId;
    const data: IntakeData = {
      kind: kind.name,
      v: kind.version,
      requestId,
      ...(teamId ? { teamId } : {}),
      ...currentEnterpriseRef(),
      payload,
      replyTo,
      receivedAt: Date.now(),
    };
    await this.queue.add(kind.name, data, { jobId, ...short });
    if (this.replication.replicas > 0) await this.awaitReplicas(kind.name, requestId, mark);
  }

  /** A (grouped) `WAIT` on the connection that wrote the record, sent after the write; this record's verdict. */
  private async awaitReplicas(kind: string, requestId: string, mark: GuardMark): Promise<void> {
    const { replicas, timeoutMs } = this.replication;
    const v = await this.guard.check(mark);
    if (v.kind === 'confirmed') return;
    this.replication.onUnreplicated?.();
    if (v.kind === 'short') {
      this.ctx.logger.warn(
        { intake: kind, requestId, replicas, confirmed: v.confirmed, timeoutMs },
        'a request was recorded on the primary but fewer replicas than REDIS_WAIT_REPLICAS confirmed it in time; acking anyway (a failover now could lose it)',
      );
      return;
    }
    const confirmed = v.confirmed === undefined ? {} : { confirmed: v.confirmed };
    this.ctx.logger.warn(
      { intake: kind, requestId, replicas, timeoutMs, error: v.reason, ...confirmed },
      'a request was written but no WAIT could tell whether a replica has it (its connection failed, or a replica ' +
        'left the primary a moment ago: a failover may be under way); ' +
        'the person is told I cannot tell whether it was taken',
    );
    throw new RecordUnconfirmedError(kind, v.reason);
  }

  /**
   * Starts the worker that runs the handlers: concurrency 10; a job's lock (10 s) is renewed while
   * its handler runs, so a killed replica's jobs are taken over by another within ~15 s (lock +
   * stall check), however many times that happens (`maxStalledCount` 50).
   */
  startWorker(): Worker<IntakeData> {
    return createWorker<IntakeData, void>(this.ctx, INTAKE_QUEUE, (job, token) => this.run(job, token), {
      concurrency: 10,
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 50,
    });
  }

  /**
   * Runs a record's handler, once its kind and version are known here and its payload matches the
   * kind's schema; otherwise leaves it for another replica or gives it up ({@link IntakeAdmission}).
   */
  private async run(job: Job<IntakeData>, token?: string): Promise<void> {
    const data = job.data;
    const registered = this.handlers.get(data.kind);
    if (!registered || (data.v ?? 1) > registered.kind.version) {
      return this.admission.defer(job, token, registered ? 'newer_version' : 'unknown_kind', registered?.kind.version);
    }
    const parsed = registered.kind.schema.safeParse(data.payload);
    if (!parsed.success) return this.admission.reject(data, 'invalid', schemaIssues(parsed.error), registered.kind);
    const log = this.ctx.logger.child({ intake: data.kind });
    // What the handler gets: its steps, kept on the job's data (a retry resumes them), confirmed on the replicas.
    const ids = { requestId: data.requestId, jobId: String(job.id), receivedAt: data.receivedAt };
    const context: IntakeContext = { ...stepsOf(job, this.guard), ...ids, log };
    try {
      const request = { requestId: data.requestId, ...installationRefOf(data) };
      await withRequestContext(request, () => registered.handler(parsed.data, context));
    } catch (err) {
      if (hasCode<UnreplicatedStepError>(err, PlatformErrorCode.StepUnreplicated))
        return this.admission.hold(job, token, log, err, registered.kind);
      throw unlessWorthRetrying(err, log, data.requestId);
    }
  }

  async close(): Promise<void> {
    this.guard.close();
    await this.queue.close();
  }
}

function pick<O extends object, K extends keyof O>(o: O, ...keys: K[]): Partial<Pick<O, K>> {
  const out: Partial<Pick<O, K>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** BullMQ job id of an intake: `<kind>-<id>`, with anything but letters, digits, `_`, `.` and `-` replaced (BullMQ ids may not contain `:`). */
export function intakeJobId(kind: string, id: string): string {
  return `${kind}-${id}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 200);
}
