/**
 * Kinds of intake record: what each payload looks like (a zod schema), which version of it a
 * replica knows, and where the person behind a record can be told something. A feature lists its
 * kinds in its `intake.ts` (one object, kind by kind); `Intake.record` and `Intake.on` take a kind,
 * so a payload is typed from its schema on both sides, and the worker checks it against the schema
 * before the handler sees it (records stay in Redis across deploys); a handler gets the payload and
 * an {@link IntakeContext}.
 */
import { z } from 'zod';
import type { Logger } from './logger.js';
import type { PrivateTarget } from './slack/tell.js';
import type { Steps } from './steps.js';

/**
 * Where the person behind a record can be told privately: a `response_url` (a command's or
 * click's), else an ephemeral message to `user` in `channel` (in the thread `threadTs`, if any).
 * The platform's {@link PrivateTarget} without a click's `respond` (a record outlives the request).
 */
export type ReplyTo = Omit<PrivateTarget, 'respond'>;

/** One kind of intake record (see {@link intakeKind}). */
export interface IntakeKind<T> {
  /** `<feature>.<kind>`, e.g. `agent-jobs.start`: the BullMQ job name and part of its id. */
  readonly name: string;
  /**
   * The payload's version this replica writes and reads (from 1). Records carry it; a replica
   * leaves a record of a newer version for one that knows it.
   */
  readonly version: number;
  /** What a payload of any version up to {@link version} looks like. */
  readonly schema: z.ZodType<T>;
  /** Where to tell the person: kept in the record's envelope, so that any replica can (even one without the kind). */
  readonly replyTo: (payload: T) => ReplyTo;
  /**
   * Someone waits on the outcome (a command, a click, a form, a message to the bot): when the
   * record is given up, they are told. False for records nobody waits on (a tab opened, an
   * agent-view suggestion): given up quietly, and their envelope names nowhere to tell.
   */
  readonly awaited: boolean;
}

/** The payload type of a kind. */
export type IntakePayload<K> = K extends IntakeKind<infer T> ? T : never;

/**
 * Declares a kind of intake record.
 *
 * Rules that keep rolling upgrades safe (docs/architecture.md, "Adding a feature"):
 * - a new optional field needs no new version (older replicas ignore it; make the schema loose
 *   with `z.looseObject` so that nothing is dropped on the way);
 * - anything an older replica would get wrong (a new field it must not ignore, a changed meaning)
 *   bumps `version`: older replicas then leave such records for newer ones;
 * - the schema must still accept every older version's payload (records wait in Redis across
 *   deploys), e.g. a field added later is optional.
 *
 * @param name - `<feature>.<kind>`: letters, digits, `-` and `.`.
 * @param schema - the payload's schema (no transforms or defaults: what is recorded is what the handler gets).
 * @param opts - `version` (default 1); `awaited` (default false): someone waits on the outcome and
 *   is told when the record is given up (opt in: a kind nobody waits on is given up quietly);
 *   `replyTo` when the payload does not name the person in the usual fields (`responseUrl`, `user`
 *   or `requester`, `channel`, `threadTs`; also inside `msg` or `caller`): see {@link replyToOf}. It
 *   must return only those fields (they are kept with the record).
 * @throws Error for a name that is not of that shape or a version below 1 (a programming error).
 */
export function intakeKind<T>(
  name: string,
  schema: z.ZodType<T>,
  opts: { version?: number; awaited?: boolean; replyTo?: (payload: T) => ReplyTo } = {},
): IntakeKind<T> {
  const version = opts.version ?? 1;
  if (!/^[a-z0-9-]+\.[a-z0-9.-]+$/.test(name)) throw new Error(`intake kind name ${name} is not <feature>.<kind>`);
  if (!Number.isInteger(version) || version < 1) {
    throw new Error(`intake kind ${name}: version must be a whole number from 1`);
  }
  return { name, version, schema, replyTo: opts.replyTo ?? replyToOf, awaited: opts.awaited ?? false };
}

const str = z.string().min(1).max(3_000);
const where = z.looseObject({
  responseUrl: str.optional().catch(undefined),
  user: str.optional().catch(undefined),
  requester: str.optional().catch(undefined),
  channel: str.optional().catch(undefined),
  threadTs: str.optional().catch(undefined),
  ephemeralThreadTs: str.optional().catch(undefined),
  thread_ts: str.optional().catch(undefined),
});

/**
 * Where a payload says its person can be told, read from the usual fields (`responseUrl`; `user`
 * or `requester`; `channel`; `ephemeralThreadTs`, `threadTs` or `thread_ts`), at the top or inside
 * `msg` or `caller`.
 * Reads anything (a record of a kind unknown here, or one that fails its schema) and never throws.
 * @returns the fields found; `{}` when none.
 */
export function replyToOf(payload: unknown): ReplyTo {
  const layers = [payload, field(payload, 'msg'), field(payload, 'caller')]
    .map((p) => where.safeParse(p))
    .flatMap((r) => (r.success ? [r.data] : []));
  const pick = (get: (w: z.infer<typeof where>) => string | undefined) => layers.map(get).find((v) => v !== undefined);
  const out: ReplyTo = {};
  const responseUrl = pick((w) => w.responseUrl);
  const user = pick((w) => w.user ?? w.requester);
  const channel = pick((w) => w.channel);
  const threadTs = pick((w) => w.ephemeralThreadTs ?? w.threadTs ?? w.thread_ts);
  if (responseUrl) out.responseUrl = responseUrl;
  if (user) out.user = user;
  if (channel) out.channel = channel;
  if (threadTs) out.threadTs = threadTs;
  return out;
}

function field(v: unknown, key: string): unknown {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
}

/** One recorded request (a BullMQ job's data): who handles it (`kind`), with what, and the progress of its handling. */
export interface IntakeData {
  kind: string;
  /** The version of the kind's payload it was recorded with (absent: 1, recorded before records carried it). */
  v?: number;
  /** The Slack request's id (`trigger_id`, `event_id`, `action_ts`): every log line of its handling carries it. */
  requestId: string;
  /** The workspace of the request (request context `teamId`), for an org-wide install's calls. */
  teamId?: string;
  /** OAuth mode: the Grid org of the request's installation (request context `enterpriseId`). */
  enterpriseId?: string;
  /** OAuth mode: the request came through an org-wide install; with `teamId` and `enterpriseId`, whose token the handler uses. */
  enterpriseInstall?: boolean;
  payload: unknown;
  /**
   * Where the person can be told (absent in records made before it was kept: then read from the
   * payload); `{}` for a kind nobody waits on.
   */
  replyTo?: ReplyTo;
  /** Steps already taken, saved by the handler (so a retry after a crash resumes, never repeats). */
  progress?: Record<string, unknown>;
  /** Epoch ms when it was recorded. */
  receivedAt: number;
  /** Epoch ms when a replica first left it for another (its kind or version unknown there). */
  deferredSince?: number;
  /** How many times replicas left it for another. */
  deferrals?: number;
  /** Epoch ms when its handler was first held because a saved step was not on the Redis replicas. */
  heldSince?: number;
  /** How many times its handler was held so. */
  holds?: number;
}

/** Why a record was not handled here: a kind this replica has no handler for, or a newer version of one it has. */
export type DeferReason = 'unknown_kind' | 'newer_version';

/**
 * Why a record was given up: without running its handler (`invalid`, or a {@link DeferReason}), or
 * with its handler held too long because its saved steps could not be confirmed on the Redis
 * replicas (`unreplicated`).
 */
export type RejectReason = DeferReason | 'invalid' | 'unreplicated';

/** Told what the intake worker did with records it could not handle (metrics). */
export interface IntakeObserver {
  /** A record put back for a replica that knows its kind or version (`docs_bot_intake_deferred_total{reason}`). */
  intakeDeferred(reason: DeferReason): void;
  /** A record given up (`docs_bot_intake_rejected_total{reason}`). */
  intakeRejected(reason: RejectReason): void;
}

/** What a handler gets besides its payload: the request's ids, and its steps (platform/steps.ts). */
export interface IntakeContext extends Steps {
  requestId: string;
  /** The intake's BullMQ job id: unique per request, the same on every retry (keys what is done at most once). */
  jobId: string;
  /** Epoch ms when the request was recorded. */
  receivedAt: number;
  /** Steps saved by earlier runs of this intake (empty on the first); `save` adds more, durably, before the step they guard. */
  progress: Record<string, unknown>;
  /**
   * Before an irreversible step (REDIS_WAIT_REPLICAS above 0): the steps saved so far are on the
   * replicas, so a failover now cannot make a retry repeat it. No-op without replication.
   * @throws UnreplicatedStepError when they can't be confirmed (BullMQ retries the handler).
   */
  confirm(what: string): Promise<void>;
  /** True on the last attempt BullMQ will make: a handler tells the person before giving up. */
  finalAttempt: boolean;
  log: Logger;
}

/** Handles one kind of recorded request; throwing makes BullMQ retry it (with backoff). */
export type IntakeHandler<T> = (payload: T, ctx: IntakeContext) => Promise<void>;
