import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import { settleWithin } from '../../../platform/in-flight.js';
import type { Logger } from '../../../platform/logger.js';
import { slackErrorCode } from '../../../platform/slack/errors.js';
import type { EditBudget } from './edit-budget.js';
import { EditSlots } from './edit-slots.js';
import { fingerprint, STATE_REACTION, statusMessageOf } from './view.js';
import type { JobRecord, JobStore, StatusState } from '../store.js';

export { STATE_REACTION } from './view.js';

/** Options of {@link StatusPresenter}. */
interface StatusPresenterOptions {
  /** The state connection: the per-message throttle slot and the edit lock. */
  redis: Redis;
  /** QUEUE_PREFIX. */
  prefix: string;
  store: Pick<JobStore, 'get' | 'update'>;
  /**
   * Web API client for chat.update, chat.delete and reactions. It should reject rate-limited calls
   * (`rejectRateLimitedCalls: true`): the presenter then returns `Retry-After` to its caller, who
   * asks again later with the latest state, instead of the client holding a stale one.
   */
  slack: {
    chat: Pick<WebClient['chat'], 'update' | 'delete'>;
    reactions: Pick<WebClient['reactions'], 'add' | 'remove'>;
  };
  logger: Logger;
  /** Clock in epoch ms. */
  now: () => number;
  /** Least time between two chat.update calls on one message, in ms. @defaultValue 2000 */
  minIntervalMs?: number;
  /** The workspace's shared budget of chat.update calls (SLACK_UPDATE_BUDGET_PER_MINUTE); absent: unlimited. */
  budget?: Pick<EditBudget, 'take'>;
}

/**
 * What {@link StatusPresenter.show} did. `retryInMs`: the edit could not be made now (the message's
 * edit slot is taken, Slack answered 429 with `Retry-After`, or a final edit waits for the
 * workspace's budget): ask again after that long, in ms. The presenter never waits itself, so a
 * BullMQ worker is never held: the caller reschedules its step (moveToDelayed + DelayedError).
 */
export interface ShowOutcome {
  retryInMs?: number;
  /**
   * Redis failed the render: `retryInMs` backs off ({@link RENDER_RETRY_MS}, doubling for each
   * failure of this job's renders in a row, at most {@link RENDER_RETRY_MAX_MS}).
   */
  renderFailed?: boolean;
}

/** A status message that has no job record (a start that failed, or whose fate is unknown). */
export interface StatusTarget {
  teamId: string;
  channel: string;
  statusTs: string;
}

/** The last change to an unrecorded status message: remove it, or replace it with `text`/`blocks`. */
export type StatusChange = { delete: true } | { text: string; blocks: unknown[] };

/** States after which the status message will not change again (its last edit is never dropped). */
const FINAL_STATES: ReadonlySet<StatusState> = new Set([
  'completed',
  'failed',
  'archived',
  'timeout',
  'start_failed',
  'uncertain',
]);

/**
 * ms after which a render that failed (Redis unreachable or failing over) is asked for again;
 * doubled for each failure in a row.
 */
export const RENDER_RETRY_MS = 2_000;
/** Most ms between tries of a render that keeps failing. */
export const RENDER_RETRY_MAX_MS = 60_000;

/**
 * The one writer of a job's status message: its state line (edited in place with chat.update),
 * the reaction on the thread root (⏳ active → ✅ completed / ❌ failed / 🗄 archived), and the
 * last change to a status message that never got a job record ({@link settleUnrecorded}).
 *
 * Edits are throttled to one chat.update per message per `minIntervalMs` across every replica (a
 * Redis `SET NX PX` slot per message), made under one Redis lock per message (the record is read
 * again inside it, so a slow replica's older state can never land after a newer one), sent only
 * when what people see changes (a fingerprint kept in the record), and within the workspace's
 * shared budget. Nothing here sleeps: when the slot or lock is taken, Slack answered 429 (the slot
 * is then held for `Retry-After`), or a final edit waits for the budget, the call resolves with
 * `retryInMs` and the caller asks again then. An intermediate edit the budget cannot pay for is
 * dropped; the next poll shows the newer state. (Slack: chat.update is Tier 3, ~50/min; a 429
 * carries Retry-After in seconds.)
 */
export class StatusPresenter {
  /** Renders under way, per job; `dirty` asks for one more render once the current one ends. */
  private readonly pending = new Map<string, { promise: Promise<ShowOutcome>; dirty: boolean }>();
  /** Renders of a job that Redis failed in a row (in this process), for the backoff. */
  private readonly renderFailures = new Map<string, number>();
  /** Each message's edit slot and lock, and the one Slack call of an edit. */
  private readonly slots: EditSlots;

  constructor(private readonly opts: StatusPresenterOptions) {
    this.slots = new EditSlots({ redis: opts.redis, prefix: opts.prefix, minIntervalMs: opts.minIntervalMs ?? 2_000 });
  }

  /**
   * Makes the status message and the reaction show the job's current record, or says when to ask
   * again (`retryInMs`: slot or lock taken, Retry-After, edit budget, or a backoff from
   * {@link RENDER_RETRY_MS} after Redis failed the render: `renderFailed`). Never waits; never
   * throws: Slack and Redis failures are logged.
   */
  show(jobId: string): Promise<ShowOutcome> {
    const existing = this.pending.get(jobId);
    if (existing) {
      existing.dirty = true;
      return existing.promise;
    }
    const entry = { promise: Promise.resolve<ShowOutcome>({}), dirty: false };
    entry.promise = (async () => {
      let outcome: ShowOutcome = {};
      do {
        entry.dirty = false;
        try {
          outcome = await this.render(jobId);
          this.renderFailures.delete(jobId);
        } catch (err) {
          // Redis trouble never rejects; callers that keep the final edit (the poll step) ask again, later each time.
          const failures = (this.renderFailures.get(jobId) ?? 0) + 1;
          this.renderFailures.set(jobId, failures);
          const retryInMs = Math.min(RENDER_RETRY_MAX_MS, RENDER_RETRY_MS * 2 ** Math.min(failures - 1, 10));
          this.opts.logger.warn({ jobId, err, retryInMs }, 'status render failed; asking again');
          outcome = { retryInMs, renderFailed: true };
        }
      } while (entry.dirty && outcome.retryInMs === undefined);
      return outcome;
    })().finally(() => this.pending.delete(jobId));
    this.pending.set(jobId, entry);
    return entry.promise;
  }

  /** True when the status message and the reaction already show `rec` (no Redis, no Slack call). */
  isCurrent(rec: JobRecord): boolean {
    const shown = fingerprint(statusMessageOf(rec, this.opts.now()));
    return shown === rec.shown && STATE_REACTION[rec.state] === rec.reaction;
  }

  /**
   * The last change to a status message that has no job record: a start that failed for sure
   * (`{ delete: true }`), could not be recorded, or cannot tell whether it started. Under the
   * message's slot and lock, within the budget (edits), like {@link show}.
   *
   * @param opts.force - on a caller's last try: take no slot, budget or lock turn, send now.
   * @returns `retryInMs` when the change must wait (ask again then), with `renderFailed` when Redis
   *   failed the slot or lock (a forced try sends without them); a Slack failure is logged. Never throws.
   */
  async settleUnrecorded(
    target: StatusTarget,
    change: StatusChange,
    opts: { force?: boolean } = {},
  ): Promise<ShowOutcome> {
    const log = this.opts.logger.child({ channel: target.channel, statusTs: target.statusTs });
    try {
      return await this.slots.run(target, log, opts.force ?? false, async () => {
        if (!('delete' in change) && !opts.force) {
          const grant = await this.takeBudget(target.teamId, log);
          if (!grant.ok) return { retryInMs: grant.retryMs };
        }
        const call = () =>
          'delete' in change
            ? this.opts.slack.chat.delete({ channel: target.channel, ts: target.statusTs })
            : this.opts.slack.chat.update({
                channel: target.channel,
                ts: target.statusTs,
                text: change.text,
                blocks: change.blocks as never,
              });
        return (await this.slots.call(target, log, call, opts.force ?? false)).retry ?? {};
      });
    } catch (err) {
      // Redis failed the slot or lock: not "done" (the message would keep saying Starting…); a last try is forced.
      log.warn({ err }, 'could not change the status message');
      return opts.force ? {} : { retryInMs: RENDER_RETRY_MS, renderFailed: true };
    }
  }

  /** Waits for every render under way (for shutdown), at most `timeoutMs` ms. */
  async flush(timeoutMs: number): Promise<void> {
    await settleWithin(
      [...this.pending.values()].map((e) => e.promise),
      timeoutMs,
    );
  }

  private async render(jobId: string): Promise<ShowOutcome> {
    const log = this.opts.logger.child({ jobId });
    const first = await this.opts.store.get(jobId);
    if (!first || this.isCurrent(first)) return {};
    return this.slots.run(first, log, false, () => this.editOnce(jobId, log));
  }

  /** One render under the message's lock. */
  private async editOnce(jobId: string, log: Logger): Promise<ShowOutcome> {
    const rec = await this.opts.store.get(jobId);
    if (!rec) return {};
    const msg = statusMessageOf(rec, this.opts.now());
    const shown = fingerprint(msg);
    if (shown === rec.shown) {
      await this.react(rec, log); // nothing new to show: no edit, no budget
      return {};
    }
    const grant = await this.takeBudget(rec.teamId, log);
    if (!grant.ok) {
      if (FINAL_STATES.has(rec.state)) return { retryInMs: grant.retryMs };
      log.debug('edit budget spent; intermediate status edit dropped');
      return {};
    }
    const sent = await this.slots.call(
      rec,
      log,
      () =>
        this.opts.slack.chat.update({
          channel: rec.channel,
          ts: rec.statusTs,
          text: msg.text,
          blocks: msg.blocks as never,
        }),
      false,
    );
    if (sent.retry) return sent.retry;
    // A message that is gone or refused for good is not tried again on every poll.
    if (sent.settled) await this.opts.store.update(rec.jobId, { shown });
    await this.react(rec, log);
    return {};
  }

  /** One edit from the workspace's budget; a Redis failure spends nothing and lets the edit go. */
  private async takeBudget(teamId: string, log: Logger): Promise<{ ok: true } | { ok: false; retryMs: number }> {
    if (!this.opts.budget) return { ok: true };
    try {
      return await this.opts.budget.take(teamId);
    } catch (err) {
      log.warn({ err }, 'could not read the edit budget; editing anyway');
      return { ok: true };
    }
  }

  private async react(rec: JobRecord, log: Logger): Promise<void> {
    const want = STATE_REACTION[rec.state];
    if (want === rec.reaction) return;
    const target = { channel: rec.channel, timestamp: rec.reactionTs };
    try {
      if (rec.reaction) {
        await this.opts.slack.reactions.remove({ ...target, name: rec.reaction }).catch((err: unknown) => {
          if (slackErrorCode(err) !== 'no_reaction') throw err;
        });
      }
      if (want) {
        await this.opts.slack.reactions.add({ ...target, name: want }).catch((err: unknown) => {
          if (slackErrorCode(err) !== 'already_reacted') throw err;
        });
      }
      await this.opts.store.update(rec.jobId, { reaction: want });
    } catch (err) {
      log.warn({ slackError: slackErrorCode(err) }, 'could not set the status reaction');
    }
  }
}
