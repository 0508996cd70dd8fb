/**
 * What the intake worker does with a record it cannot hand to a handler: one of a kind (or a
 * version) this replica doesn't know is left for a replica that does (a rolling upgrade that adds
 * a kind: the old replicas' workers take the new replicas' records too), and one whose payload
 * fails its schema is given up at once. Either way the record is never completed unhandled. And
 * what a handler's failure becomes: tried again shortly, retried with backoff, or given up.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { z } from 'zod';
import {
  replyToOf,
  type DeferReason,
  type IntakeData,
  type IntakeKind,
  type IntakeObserver,
  type RejectReason,
  type ReplyTo,
} from './intake-kind.js';
import type { Logger } from './logger.js';
import type { UnreplicatedStepError } from './replica-guard.js';
import { classifySlackError, isInstallationError, isSlackError } from './slack/errors.js';
import { ResponseUrlError } from './slack/respond.js';
import { hasCode, PlatformErrorCode } from './errors.js';

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
const DEFAULT_DEFERRAL: DeferralPolicy = { firstDelayMs: 1_000, maxDelayMs: 10_000, giveUpAfterMs: 15 * 60_000 };

/**
 * Tells the person behind a record something privately; resolves false when the record names
 * nowhere to tell them. Never throws.
 */
export type TellPerson = (to: ReplyTo, text: string) => Promise<boolean>;

/** What the person hears when no replica handled their request in time. */
export const NOT_HANDLED_TEXT =
  "Sorry, I couldn't handle that request: it needs a newer version of me than the one running here, and none " +
  'took it within 15 minutes (an upgrade may have stopped half-way). Nothing was done; send it again in a while, ' +
  'or tell the admin.';

/** What the person hears when their recorded request can't be read back (a record of the version this replica writes). */
export const UNREADABLE_TEXT =
  "Sorry, I couldn't read your request back after recording it, so nothing was done. Please send it again.";

/** The same, for a record an older version of the bot made (its schema version is older than this replica's). */
export const UNREADABLE_OLDER_TEXT =
  "Sorry, I couldn't read your request back: an older version of me recorded it, and I was upgraded since, " +
  'so nothing was done. Please send it again.';

/** What the person hears when their request was held past {@link HOLD_LIMIT_MS} (its steps not confirmed on the Redis replicas). */
export const HELD_TOO_LONG_TEXT =
  "Sorry, I stopped working on your request: for 2 minutes my database couldn't confirm that its progress was " +
  "safely copied (it may be failing over), and going on could have done something twice. Check what's there, " +
  'and send it again if it is missing.';

/** How long, in all, a record's handler may be held for its saved steps to reach the Redis replicas (ms; 2 min). */
export const HOLD_LIMIT_MS = 2 * 60_000;

/** Options of {@link IntakeAdmission}. */
export interface AdmissionOptions {
  logger: Logger;
  observer?: IntakeObserver;
  tell?: TellPerson;
  policy?: Partial<DeferralPolicy>;
  /** How long a record may be held in all, in ms. @defaultValue {@link HOLD_LIMIT_MS} */
  holdLimitMs?: number;
  /** Clock in epoch ms (how long a record has been left for others, or held). */
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
  async defer(
    job: Pick<Job<IntakeData>, 'data' | 'updateData' | 'moveToDelayed'>,
    token: string | undefined,
    reason: DeferReason,
    known: number | undefined,
  ): Promise<never> {
    const data = job.data;
    const since = data.deferredSince ?? this.now();
    const deferrals = data.deferrals ?? 0;
    const fields = { intake: data.kind, requestId: data.requestId, reason, version: data.v ?? 1, knownVersion: known };
    const { giveUpAfterMs } = this.policy;
    if (this.now() - since >= giveUpAfterMs) {
      return this.reject(data, reason, `no replica took it within ${giveUpAfterMs / 60_000} minutes`);
    }
    const left = 'a request of a kind or version this replica does not handle; left for one that does (an upgrade?)';
    if (deferrals === 0) this.o.logger.warn(fields, left);
    else this.o.logger.debug({ ...fields, deferrals }, 'left for another replica again');
    await job.updateData({ ...data, deferredSince: since, deferrals: deferrals + 1 });
    const delayMs = Math.min(this.policy.maxDelayMs, this.policy.firstDelayMs * 2 ** Math.min(deferrals, 20));
    await job.moveToDelayed(Date.now() + delayMs, token);
    this.o.observer?.intakeDeferred(reason);
    throw new DelayedError();
  }

  /**
   * Gives a record up: one error line with its kind and request id (never the payload), the
   * person told where the record says how when someone waits on it (`known.awaited`, or for a kind
   * unknown here the record's envelope: `{}` for a kind nobody waits on), counted; BullMQ keeps it
   * as failed (7 days).
   * @param known - the kind, when this replica knows it.
   * @throws UnrecoverableError always (no retry can help).
   */
  async reject(data: IntakeData, reason: RejectReason, detail: string, known?: IntakeKind<unknown>): Promise<never> {
    const version = data.v ?? 1;
    const to = (known?.awaited ?? true) ? (data.replyTo ?? replyToOf(data.payload)) : {};
    const somewhere = Boolean(to.responseUrl || (to.user && to.channel));
    const told = this.o.tell && somewhere ? await this.o.tell(to, rejectText(reason, version, known?.version)) : false;
    this.o.logger.error(
      { intake: data.kind, requestId: data.requestId, reason, version, detail, told },
      REJECT_LOG[reason],
    );
    this.o.observer?.intakeRejected(reason);
    throw new UnrecoverableError(`intake ${data.kind}: ${reason}`);
  }

  /**
   * A handler's saved step is not on the replicas yet (a failover under way): it acted on nothing,
   * so it runs again shortly, without spending one of its attempts (BullMQ step job: `updateData`,
   * `moveToDelayed` + `DelayedError`); the first hold is an info line, the later ones debug. Past
   * {@link HOLD_LIMIT_MS} held in all (a lasting "can't confirm": `WAIT` refused, a role stuck
   * "demoted"), it is given up instead ({@link reject}, reason `unreplicated`).
   * @throws DelayedError (put back), UnrecoverableError (given up); the Redis error when it can't be moved.
   */
  async hold(
    job: Job<IntakeData>,
    token: string | undefined,
    log: Logger,
    err: UnreplicatedStepError,
    known: IntakeKind<unknown>,
  ): Promise<never> {
    const data = job.data;
    const since = data.heldSince ?? this.now();
    const limitMs = this.o.holdLimitMs ?? HOLD_LIMIT_MS;
    if (this.now() - since >= limitMs) {
      return this.reject(
        data,
        'unreplicated',
        `saved steps not confirmed on the replicas for ${limitMs / 1000} s (${err.reason})`,
        known,
      );
    }
    const holds = data.holds ?? 0;
    const fields = { reason: err.reason, requestId: data.requestId };
    if (holds === 0) log.info(fields, 'a saved step is not on the Redis replicas yet; trying again shortly');
    else log.debug({ ...fields, holds }, 'a saved step is still not on the Redis replicas; trying again shortly');
    await job.updateData({ ...data, heldSince: since, holds: holds + 1 });
    await job.moveToDelayed(Date.now() + REPLICAS_RETRY_MS, token);
    throw new DelayedError();
  }
}

/** The error line of each way a record is given up. */
const REJECT_LOG: Record<RejectReason, string> = {
  invalid: 'a recorded request does not match its schema; given up',
  unknown_kind: 'no replica handled a recorded request in time; given up',
  newer_version: 'no replica handled a recorded request in time; given up',
  unreplicated: 'a request held too long for its saved steps to reach the Redis replicas; given up',
};

/** What the person hears when a record is given up for `reason` (recorded with schema `version`; `known`: this replica's). */
function rejectText(reason: RejectReason, version: number, known: number | undefined): string {
  if (reason === 'unreplicated') return HELD_TOO_LONG_TEXT;
  if (reason !== 'invalid') return NOT_HANDLED_TEXT;
  return known !== undefined && version < known ? UNREADABLE_OLDER_TEXT : UNREADABLE_TEXT;
}

/** ms a handler whose saved step was not on the replicas waits before it is run again. */
const REPLICAS_RETRY_MS = 1_000;

/**
 * What a handler's error becomes: an {@link UnrecoverableError} (no more attempts) when the same
 * call would fail again, else the error itself (BullMQ retries with backoff). A place that is gone
 * (a channel or user that does not exist or is closed to the bot: what the request named) and a
 * response_url Slack no longer takes are one warning; any other refusal (bad content, a revoked
 * token, a missing scope: the operator's to fix) is one error line with the code and the method.
 */
export function unlessWorthRetrying(err: unknown, log: Logger, requestId: string): unknown {
  if (hasCode<ResponseUrlError>(err, PlatformErrorCode.ResponseUrlRefused) && err.permanent) {
    log.warn({ status: err.status, requestId }, 'the response_url is no longer taken; not retried');
    return new UnrecoverableError(err.message);
  }
  const info = classifySlackError(err);
  if ((!isSlackError(err) && !isInstallationError(err)) || info.kind === 'transient') return err;
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
