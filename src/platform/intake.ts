import { Queue, UnrecoverableError, type ConnectionOptions, type Job, type Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { GroupedWait } from './grouped-wait.js';
import type { Logger } from './logger.js';
import { createWorker, type QueueContext } from './queues.js';
import { StartupError } from './startup-error.js';
import { withinTime } from './time-limit.js';
import { withRequestContext } from './request-context.js';
import { classifySlackError, isSlackError } from './slack/errors.js';
import { ResponseUrlError } from './slack/respond.js';

/** BullMQ queue where every entry point records what a request asks for, before the ack. */
export const INTAKE_QUEUE = 'intake';

/** One recorded request: who handles it (`kind`), with what, and the progress of its handling. */
export interface IntakeData {
  kind: string;
  /** The Slack request's id (`trigger_id`, `event_id`, `action_ts`): every log line of its handling carries it. */
  requestId: string;
  payload: unknown;
  /** Steps already taken, saved by the handler (so a retry after a crash resumes, never repeats). */
  progress?: Record<string, unknown>;
  /** Epoch ms when it was recorded. */
  receivedAt: number;
}

/** What a handler gets besides its payload. */
export interface IntakeContext {
  requestId: string;
  /** The intake's BullMQ job id: unique per request, the same on every retry (keys what is done at most once). */
  jobId: string;
  /** Epoch ms when the request was recorded. */
  receivedAt: number;
  /** Steps saved by earlier runs of this intake (empty on the first). */
  progress: Record<string, unknown>;
  /** Saves more steps (merged into `progress`) durably, before the step they guard. @throws on Redis errors. */
  save(patch: Record<string, unknown>): Promise<void>;
  /** True on the last attempt BullMQ will make: a handler tells the person before giving up. */
  finalAttempt: boolean;
  log: Logger;
}

/**
 * Written, but no `WAIT` could tell whether a replica has it (the primary may have died with it): a
 * command is answered "can't tell"; an event is left unacked for Slack to redeliver (same id).
 */
export class RecordUnconfirmedError extends Error {
  constructor(
    readonly kind: string,
    detail: string,
  ) {
    super(`the ${kind} record's replica acknowledgement failed: ${detail}`);
    this.name = 'RecordUnconfirmedError';
  }
}

/** Handles one kind of recorded request; throwing makes BullMQ retry it (with backoff). */
export type IntakeHandler<T> = (payload: T, ctx: IntakeContext) => Promise<void>;

/**
 * Replica acknowledgement of a record before the ack (REDIS_WAIT_REPLICAS, REDIS_WAIT_TIMEOUT_MS):
 * after the write, Redis' `WAIT replicas timeoutMs` on the same connection returns how many
 * replicas have it (Redis docs: WAIT: it covers every earlier write of its connection). Concurrent
 * records share their WAITs ({@link GroupedWait}: one in flight, one queued), so a record waits at
 * most about 2 × `timeoutMs`. `replicas` 0 skips it.
 */
export interface IntakeReplication {
  replicas: number;
  /** ms one WAIT may take; a record may wait for the one in flight, then for its own (about 2 × this at most); the ack is sent after it either way. */
  timeoutMs: number;
  /** Told when fewer than `replicas` confirmed in time, or no WAIT could answer (counts `docs_bot_intake_unreplicated_total`). */
  onUnreplicated?: () => void;
}

/** How a record is kept (see {@link Intake.record}); by default a day after it is handled, 7 days if it failed. */
export interface RecordOptions {
  /** ms from the first record during which a duplicate is ignored; the record itself goes once handled. */
  dedupeWindowMs?: number;
}

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
  private readonly handlers = new Map<string, IntakeHandler<never>>();
  /** WAITs on the connection `record` writes with, shared by concurrent records. */
  private readonly replicaWait = new GroupedWait(async () => Number(await this.writer.wait(this.replication.replicas, this.replication.timeoutMs)));
  /**
   * How many times the writing connection has closed. A WAIT on a connection made after the write
   * covers nothing (it has written nothing, so it answers at once): a record whose connection
   * closed in between is unconfirmed, whatever that WAIT says.
   */
  private connections = 0;

  /**
   * @param ctx - the queue context (worker connection, prefix, logger).
   * @param writer - the ioredis client `record` writes with (the queue shares it; its owner closes
   *   it) and runs the WAITs on: it should fail fast when Redis is down (`enableOfflineQueue:
   *   false`), so a listener can say so instead of hanging past Slack's 3 s
   *   ({@link RedisConnections.intake}).
   */
  constructor(
    private readonly ctx: QueueContext,
    private readonly writer: Redis | Cluster,
    private readonly replication: IntakeReplication = { replicas: 0, timeoutMs: 0 },
  ) {
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
    if (replication.replicas > 0) writer.on('close', () => this.connections++);
  }

  /**
   * Start-up check of replica acknowledgement (REDIS_WAIT_REPLICAS above 0): the server must
   * accept `WAIT` (`WAIT 0 0` answers at once with the replicas connected now). A server that
   * refuses it (a managed service or an ACL without it) would leave every ack unconfirmed; fewer
   * replicas connected than configured makes every ack wait its whole timeout (one warn line).
   * Redis out of reach within `readyTimeoutMs` is not a refusal: one warn line, and the records
   * say "try again" until it is back.
   * @throws {@link StartupError} naming REDIS_WAIT_REPLICAS when Redis refuses `WAIT`.
   */
  async checkReplication(readyTimeoutMs = 5_000): Promise<void> {
    const { replicas } = this.replication;
    if (replicas <= 0) return;
    let connected: number;
    try {
      await withinTime(this.queue.waitUntilReady(), readyTimeoutMs, () => {
        throw new Error(`Redis not ready within ${readyTimeoutMs} ms`);
      });
      connected = Number(await this.writer.wait(0, 0));
    } catch (err) {
      if (err instanceof Error && err.name === 'ReplyError') {
        const redisError = err.message.split(' ')[0] ?? 'ERR';
        throw new StartupError(`Redis refused WAIT (${err.message.slice(0, 120)}), which REDIS_WAIT_REPLICAS needs: allow the WAIT command for the bot's Redis user and service, or set REDIS_WAIT_REPLICAS=0`, { variable: 'REDIS_WAIT_REPLICAS', redisError });
      }
      this.ctx.logger.warn({ err }, 'could not check at start-up that Redis accepts WAIT (REDIS_WAIT_REPLICAS); carrying on');
      return;
    }
    if (connected < replicas) {
      this.ctx.logger.warn(
        { replicas, connected },
        'fewer replicas are connected to the Redis primary than REDIS_WAIT_REPLICAS: until they are, every ack waits REDIS_WAIT_TIMEOUT_MS and is counted in docs_bot_intake_unreplicated_total',
      );
    }
  }

  /** Registers the handler of `kind` (a feature registers its own, e.g. `agent-jobs.start`). */
  on<T>(kind: string, handler: IntakeHandler<T>): void {
    if (this.handlers.has(kind)) throw new Error(`intake kind ${kind} is registered twice`);
    this.handlers.set(kind, handler as IntakeHandler<never>);
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
  async record<T>(kind: string, id: string, requestId: string, payload: T, opts?: RecordOptions): Promise<void> {
    const jobId = intakeJobId(kind, id);
    const short = opts?.dedupeWindowMs ? { removeOnComplete: true, deduplication: { id: jobId, ttl: opts.dedupeWindowMs } } : {};
    const connection = this.connections;
    await this.queue.add(kind, { kind, requestId, payload, receivedAt: Date.now() }, { jobId, ...short });
    if (this.replication.replicas > 0) await this.awaitReplicas(kind, requestId, connection);
  }

  /** A (grouped) `WAIT` on the connection that wrote the record, sent after the write; this record's verdict. */
  private async awaitReplicas(kind: string, requestId: string, connectionBeforeWrite: number): Promise<void> {
    const { replicas, timeoutMs } = this.replication;
    let confirmed: number | undefined;
    let error: string | undefined;
    try {
      confirmed = await this.replicaWait.wait();
      if (this.connections !== connectionBeforeWrite) {
        error = 'the connection was re-established since the write: its WAIT could not cover it';
        confirmed = undefined;
      }
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (confirmed !== undefined && confirmed >= replicas) return;
    this.replication.onUnreplicated?.();
    if (confirmed !== undefined) {
      this.ctx.logger.warn(
        { intake: kind, requestId, replicas, confirmed, timeoutMs },
        'a request was recorded on the primary but fewer replicas than REDIS_WAIT_REPLICAS confirmed it in time; acking anyway (a failover now could lose it)',
      );
      return;
    }
    this.ctx.logger.warn(
      { intake: kind, requestId, replicas, timeoutMs, error },
      'a request was written but no WAIT could tell whether a replica has it (its connection failed: the primary may be gone); the person is told I cannot tell whether it was taken',
    );
    throw new RecordUnconfirmedError(kind, error ?? 'no answer');
  }

  /**
   * Starts the worker that runs the handlers: concurrency 10; a job's lock (10 s) is renewed while
   * its handler runs, so a killed replica's jobs are taken over by another within ~15 s (lock +
   * stall check), however many times that happens (`maxStalledCount` 50).
   */
  startWorker(): Worker<IntakeData> {
    return createWorker<IntakeData, void>(this.ctx, INTAKE_QUEUE, (job) => this.run(job), {
      concurrency: 10,
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 50,
    });
  }

  private async run(job: Job<IntakeData>): Promise<void> {
    const data = job.data;
    const handler = this.handlers.get(data.kind);
    const log = this.ctx.logger.child({ intake: data.kind });
    if (!handler) {
      log.error('no handler for this kind of request; dropped');
      return;
    }
    const progress = { ...data.progress };
    const context: IntakeContext = {
      requestId: data.requestId,
      jobId: String(job.id),
      receivedAt: data.receivedAt,
      progress,
      save: async (patch) => {
        Object.assign(progress, patch);
        await job.updateData({ ...data, progress });
      },
      finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
      log,
    };
    try {
      await withRequestContext({ requestId: data.requestId }, () => handler(data.payload as never, context));
    } catch (err) {
      throw this.unlessWorthRetrying(err, log, data.requestId);
    }
  }

  /**
   * What a handler's error becomes: an {@link UnrecoverableError} (no more attempts) when the same
   * call would fail again, else the error itself (BullMQ retries with backoff). A place that is gone
   * (a channel or user that does not exist or is closed to the bot: what the request named) and a
   * response_url Slack no longer takes are one warning; any other refusal (bad content, a revoked
   * token, a missing scope: the operator's to fix) is one error line with the code and the method.
   */
  private unlessWorthRetrying(err: unknown, log: Logger, requestId: string): unknown {
    if (err instanceof ResponseUrlError && err.permanent) {
      log.warn({ status: err.status, requestId }, 'the response_url is no longer taken; not retried');
      return new UnrecoverableError(err.message);
    }
    const info = classifySlackError(err);
    if (!isSlackError(err) || info.kind === 'transient') return err;
    const fields = { slackError: info.code, slackMethod: info.method, requestId };
    if (info.kind === 'gone') log.warn(fields, 'the conversation or user is gone or closed to the bot; not retried');
    else log.error(fields, 'Slack refused this for good; not retried');
    return new UnrecoverableError(`Slack refused ${info.method ?? 'a call'}: ${info.code}`);
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

/** BullMQ job id of an intake: `<kind>-<id>`, with anything but letters, digits, `_`, `.` and `-` replaced (BullMQ ids may not contain `:`). */
export function intakeJobId(kind: string, id: string): string {
  return `${kind}-${id}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 200);
}
