/**
 * What the intake worker does with a record it cannot hand to a handler: one of a kind (or a
 * version) this replica doesn't know is left for a replica that does (a rolling upgrade that adds
 * a kind: the old replicas' workers take the new replicas' records too), and one whose payload
 * fails its schema is given up at once. Either way the record is never completed unhandled. And
 * what a handler's failure becomes: tried again shortly, retried with backoff, or given up.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { z } from 'zod';
import { replyToOf, type DeferReason, type IntakeData, type IntakeObserver, type RejectReason, type ReplyTo } from './intake-kind.js';
import type { Logger } from './logger.js';
import type { UnreplicatedStepError } from './replica-guard.js';
import { classifySlackError, isSlackError } from './slack/errors.js';
import { ResponseUrlError } from './slack/respond.js';

/**
 * How long a record of an unknown kind or a newer version is left for other replicas: put back
 * in the delayed set for `firstDelayMs`, doubling up to `maxDelayMs`, until `giveUpAfterMs` after
 * the first time; then given up, with the person told. (ms)
 */
export interface DeferralPolicy {
  /** @defaultValue 1000 */
  firstDelayMs: number;
  /** @defaultValue 10000 */
  maxDelayMs: number;
  /** @defaultValue 900000 (15 minutes: longer than a rolling upgrade takes) */
  giveUpAfterMs: number;
}

/** The defaults of {@link DeferralPolicy}. */
export const DEFAULT_DEFERRAL: DeferralPolicy = { firstDelayMs: 1_000, maxDelayMs: 10_000, giveUpAfterMs: 15 * 60_000 };

/** Tells the person behind a record something privately; resolves false when the record names nowhere to tell them. Never throws. */
export type TellPerson = (to: ReplyTo, text: string) => Promise<boolean>;

/** What the person hears when no replica handled their request in time. */
export const NOT_HANDLED_TEXT =
  "Sorry, I couldn't handle that request: it needs a newer version of me than the one running here, and none took it within 15 minutes (an upgrade may have stopped half-way). Nothing was done; send it again in a while, or tell the admin.";

/** What the person hears when their recorded request can't be read back. */
export const UNREADABLE_TEXT =
  "Sorry, I couldn't read your request back after recording it (it was recorded by another version of me), so nothing was done. Please send it again.";

/** Options of {@link IntakeAdmission}. */
export interface AdmissionOptions {
  logger: Logger;
  observer?: IntakeObserver;
  tell?: TellPerson;
  policy?: Partial<DeferralPolicy>;
  /** Clock in epoch ms (how long a record has been left for others). */
  now?: () => number;
}

/** The worker's checks before a handler runs: defer what this replica doesn't know, give up what can't be read. */
export class IntakeAdmission {
  private readonly policy: DeferralPolicy;
  private readonly now: () => number;

  constructor(private readonly o: AdmissionOptions) {
    this.policy = { ...DEFAULT_DEFERRAL, ...o.policy };
    this.now = o.now ?? Date.now;
  }

  /**
   * Leaves the record for a replica that knows its kind (or version): saves when it was first
   * left, moves it to the delayed set (BullMQ step job: `moveToDelayed` + `DelayedError`; no
   * attempt is spent) and counts it. Past {@link DeferralPolicy.giveUpAfterMs}, gives it up instead.
   * @throws DelayedError (put back, expected) or UnrecoverableError (given up).
   */
  async defer(job: Pick<Job<IntakeData>, 'data' | 'updateData' | 'moveToDelayed'>, token: string | undefined, reason: DeferReason, known: number | undefined): Promise<never> {
    const data = job.data;
    const since = data.deferredSince ?? this.now();
    const deferrals = data.deferrals ?? 0;
    const fields = { intake: data.kind, requestId: data.requestId, reason, version: data.v ?? 1, knownVersion: known };
    if (this.now() - since >= this.policy.giveUpAfterMs) return this.reject(data, reason, `no replica took it within ${this.policy.giveUpAfterMs / 60_000} minutes`);
    if (deferrals === 0) this.o.logger.warn(fields, 'a request of a kind or version this replica does not handle; left for a replica that does (a rolling upgrade?)');
    else this.o.logger.debug({ ...fields, deferrals }, 'left for another replica again');
    await job.updateData({ ...data, deferredSince: since, deferrals: deferrals + 1 });
    const delayMs = Math.min(this.policy.maxDelayMs, this.policy.firstDelayMs * 2 ** Math.min(deferrals, 20));
    await job.moveToDelayed(Date.now() + delayMs, token);
    this.o.observer?.intakeDeferred(reason);
    throw new DelayedError();
  }

  /**
   * Gives a record up: one error line with its kind and request id (never the payload), the
   * person told where the record says how, counted; BullMQ keeps it as failed (7 days).
   * @throws UnrecoverableError always (no retry can help).
   */
  async reject(data: IntakeData, reason: RejectReason, detail: string): Promise<never> {
    const to = data.replyTo ?? replyToOf(data.payload);
    const told = this.o.tell ? await this.o.tell(to, reason === 'invalid' ? UNREADABLE_TEXT : NOT_HANDLED_TEXT) : false;
    const msg = reason === 'invalid' ? 'a recorded request does not match its schema; given up' : 'no replica handled a recorded request in time; given up';
    this.o.logger.error({ intake: data.kind, requestId: data.requestId, reason, version: data.v ?? 1, detail, told }, msg);
    this.o.observer?.intakeRejected(reason);
    throw new UnrecoverableError(`intake ${data.kind}: ${reason}`);
  }
}

/** ms a handler whose saved step was not on the replicas waits before it is run again. */
const REPLICAS_RETRY_MS = 1_000;

/**
 * A handler's saved step is not on the replicas yet (a failover under way): it acted on nothing,
 * so it runs again shortly, without spending one of its attempts (BullMQ step job:
 * `moveToDelayed` + `DelayedError`). @throws DelayedError; the Redis error when it can't be moved.
 */
export async function holdForReplicas(job: Job<IntakeData>, token: string | undefined, log: Logger, err: UnreplicatedStepError): Promise<never> {
  log.info({ reason: err.reason, requestId: job.data.requestId }, 'a saved step is not on the Redis replicas yet; trying again shortly');
  await job.moveToDelayed(Date.now() + REPLICAS_RETRY_MS, token);
  throw new DelayedError();
}

/**
 * What a handler's error becomes: an {@link UnrecoverableError} (no more attempts) when the same
 * call would fail again, else the error itself (BullMQ retries with backoff). A place that is gone
 * (a channel or user that does not exist or is closed to the bot: what the request named) and a
 * response_url Slack no longer takes are one warning; any other refusal (bad content, a revoked
 * token, a missing scope: the operator's to fix) is one error line with the code and the method.
 */
export function unlessWorthRetrying(err: unknown, log: Logger, requestId: string): unknown {
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

/** Where a payload fails its schema, as paths and zod's codes (never the values: they may hold message text). */
export function schemaIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(payload)'}: ${i.code}`)
    .join('; ');
}
