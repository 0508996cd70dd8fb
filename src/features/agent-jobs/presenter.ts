import type { WebClient } from '@slack/web-api';
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { settleWithin } from '../../platform/in-flight.js';
import { withLock } from '../../platform/lock.js';
import type { Logger } from '../../platform/logger.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { buildStatusMessage } from './blocks.js';
import type { EditBudget } from './edit-budget.js';
import type { JobRecord, JobStore, StatusState } from './store.js';

/** Reaction on the thread root for each state ('' = none). Slack emoji names, without colons. */
export const STATE_REACTION: Record<StatusState, string> = {
  starting: '',
  start_failed: '',
  active: 'hourglass_flowing_sand',
  completed: 'white_check_mark',
  failed: 'x',
  archived: 'file_cabinet',
  timeout: 'warning',
  uncertain: '',
};

/** Options of {@link StatusPresenter}. */
export interface StatusPresenterOptions {
  /** The state connection: the per-message throttle slot and the edit lock. */
  redis: Redis;
  /** QUEUE_PREFIX. */
  prefix: string;
  store: Pick<JobStore, 'get' | 'update'>;
  /**
   * Web API client for chat.update and reactions. It should reject rate-limited calls
   * (`rejectRateLimitedCalls: true`) so the presenter can wait out `Retry-After` itself and then
   * send the latest state, instead of a stale one.
   */
  slack: { chat: Pick<WebClient['chat'], 'update'>; reactions: Pick<WebClient['reactions'], 'add' | 'remove'> };
  logger: Logger;
  /** Clock in epoch ms. */
  now: () => number;
  /** Least time between two chat.update calls on one message, in ms. @defaultValue 2000 */
  minIntervalMs?: number;
  /** The workspace's shared budget of chat.update calls (SLACK_UPDATE_BUDGET_PER_MINUTE); absent: unlimited. */
  budget?: Pick<EditBudget, 'take'>;
}

/** What {@link StatusPresenter.show} did: `deferredMs` when the final edit must wait that long for the budget. */
export interface ShowOutcome {
  deferredMs?: number;
}

/** States after which the status message will not change again (its last edit is never dropped). */
const FINAL_STATES: ReadonlySet<StatusState> = new Set(['completed', 'failed', 'archived', 'timeout', 'start_failed', 'uncertain']);

/**
 * The one place that controls what people see of a job's lifecycle: the status message's state
 * line (edited in place with chat.update) and the reaction on the thread root
 * (⏳ active → ✅ completed / ❌ failed / 🗄 archived).
 *
 * Edits are throttled to one chat.update per message per `minIntervalMs` across every replica (a
 * Redis `SET NX PX` slot per message). A request that finds the slot taken is deferred to when it
 * frees; the deferred render reads the record from Redis at that moment, so a burst collapses into
 * one update that shows the last state. A 429 from Slack extends the slot by its `Retry-After`.
 * (Slack: chat.update is Tier 3, ~50/min; 429 carries Retry-After in seconds.)
 *
 * An edit is sent only when what people see changes (a fingerprint of the message is kept in the
 * record), and within the workspace's shared budget: when the budget is spent, an intermediate
 * edit is dropped (a later one will show the newer state) and the final one is deferred: `show`
 * resolves with `deferredMs`, and the caller (the poll step) asks again after that long.
 */
/** The per-message edit lock: lives 10 s if its holder dies (refreshed while held); waited for up to 30 s. */
const EDIT_LOCK = { lockTimeoutMs: 10_000, acquireTimeoutMs: 30_000 };

export class StatusPresenter {
  /** Renders under way, per job; `dirty` asks for one more render once the current one ends. */
  private readonly pending = new Map<string, { promise: Promise<ShowOutcome>; dirty: boolean }>();
  private readonly minIntervalMs: number;

  constructor(private readonly opts: StatusPresenterOptions) {
    this.minIntervalMs = opts.minIntervalMs ?? 2_000;
  }

  /**
   * Makes the status message and the reaction show the job's current record. Resolves once they
   * do (at once, or after the throttle/Retry-After wait), or with `deferredMs` when the final edit
   * waits for the workspace's budget. Never throws: Slack and Redis failures are logged.
   */
  show(jobId: string): Promise<ShowOutcome | void> {
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
        } catch (err) {
          // Redis or Slack trouble must never reject: callers fire and forget.
          this.opts.logger.warn({ jobId, err }, 'status render failed');
        }
      } while (entry.dirty);
      return outcome;
    })().finally(() => this.pending.delete(jobId));
    this.pending.set(jobId, entry);
    return entry.promise;
  }

  /** Waits for every deferred render (for shutdown), at most `timeoutMs` ms. */
  async flush(timeoutMs: number): Promise<void> {
    await settleWithin([...this.pending.values()].map((e) => e.promise), timeoutMs);
  }

  private async render(jobId: string): Promise<ShowOutcome> {
    const log = this.opts.logger.child({ jobId });
    for (let attempt = 0; ; attempt++) {
      const first = await this.opts.store.get(jobId);
      if (!first) return {};
      const slot = `${this.opts.prefix}:status-slot:${first.channel}:${first.statusTs}`;
      // After many waits (a long Retry-After, heavy contention) take the slot anyway: the last
      // state must land.
      const got = attempt >= MAX_SLOT_WAITS ? 'OK' : await this.opts.redis.set(slot, '1', 'PX', this.minIntervalMs, 'NX');
      if (got !== 'OK') {
        const wait = await this.opts.redis.pttl(slot);
        await sleep(Math.max(20, wait + 10));
        continue;
      }
      // Read, edit and record what is shown under one lock per message, so that a slow replica's
      // older state can never land after a newer one (the record is read again inside it).
      const lock = `${this.opts.prefix}:status-edit:${first.channel}:${first.statusTs}`;
      const step = await withLock(this.opts.redis, lock, EDIT_LOCK, () => this.editOnce(jobId, log, attempt), log);
      if (step === 'retry') continue;
      return step;
    }
  }

  /** One render under the message's lock: 'retry' after a 429 (the caller waits for the slot). */
  private async editOnce(jobId: string, log: Logger, attempt: number): Promise<ShowOutcome | 'retry'> {
    const rec = await this.opts.store.get(jobId);
    if (!rec) return {};
    const msg = this.message(rec);
    const shown = fingerprint(msg);
    if (shown === rec.shown) {
      await this.react(rec, log); // nothing new to show: no edit, no budget
      return {};
    }
    const final = FINAL_STATES.has(rec.state);
    const grant = await this.takeBudget(rec, log);
    if (!grant.ok) {
      if (final) return { deferredMs: grant.retryMs };
      log.debug('edit budget spent; intermediate status edit dropped');
      return {};
    }
    const outcome = await this.send(rec, msg, shown, log);
    if (outcome === 'retry' && attempt < MAX_SLOT_WAITS) return 'retry';
    await this.react(rec, log);
    return {};
  }

  /** One edit from the workspace's budget; a Redis failure spends nothing and lets the edit go. */
  private async takeBudget(rec: JobRecord, log: Logger): Promise<{ ok: true } | { ok: false; retryMs: number }> {
    if (!this.opts.budget) return { ok: true };
    try {
      return await this.opts.budget.take(rec.teamId);
    } catch (err) {
      log.warn({ err }, 'could not read the edit budget; editing anyway');
      return { ok: true };
    }
  }

  /**
   * Sends the edit and records its fingerprint. On a 429 the slot is held for `Retry-After`.
   * @returns 'retry' after a 429 (the caller tries again), else 'done' (failures are logged).
   */
  private async send(rec: JobRecord, msg: { text: string; blocks: unknown[] }, shown: string, log: Logger): Promise<'retry' | 'done'> {
    try {
      await this.opts.slack.chat.update({ channel: rec.channel, ts: rec.statusTs, text: msg.text, blocks: msg.blocks as never });
      await this.opts.store.update(rec.jobId, { shown });
    } catch (err) {
      const retryAfterS = (err as { retryAfter?: number }).retryAfter;
      if (slackErrorCode(err) === 'ratelimited' && retryAfterS !== undefined) {
        log.warn({ retryAfterS }, 'chat.update rate limited; waiting for Retry-After');
        const slot = `${this.opts.prefix}:status-slot:${rec.channel}:${rec.statusTs}`;
        await this.opts.redis.set(slot, '1', 'PX', Math.max(1, Math.ceil(retryAfterS * 1000)));
        return 'retry';
      }
      log.warn({ slackError: slackErrorCode(err) }, 'could not update the status message');
    }
    return 'done';
  }

  private message(rec: JobRecord): { text: string; blocks: unknown[] } {
    return buildStatusMessage({
      requester: rec.requester,
      instruction: rec.instruction,
      jobId: rec.jobId,
      state: rec.state,
      elapsedMs: (rec.endedAt > 0 ? rec.endedAt : this.opts.now()) - rec.cycleStartedAt,
      startedAt: rec.cycleStartedAt,
      prLink: rec.prLink,
      followups: rec.cycle,
      note: rec.note || undefined,
    });
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

/** A short fingerprint of a status message (what people would see). */
function fingerprint(msg: { text: string; blocks: unknown[] }): string {
  return createHash('sha1').update(JSON.stringify(msg)).digest('base64url').slice(0, 12);
}

/** Waits for the edit slot (throttle or Retry-After) before one last edit is sent regardless. */
const MAX_SLOT_WAITS = 30;
