import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { settleWithin } from '../../platform/in-flight.js';
import type { Logger } from '../../platform/logger.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { buildStatusMessage } from './blocks.js';
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
  redis: Pick<Redis, 'set' | 'pttl'>;
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
}

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
 */
export class StatusPresenter {
  /** Renders under way, per job; `dirty` asks for one more render once the current one ends. */
  private readonly pending = new Map<string, { promise: Promise<void>; dirty: boolean }>();
  private readonly minIntervalMs: number;

  constructor(private readonly opts: StatusPresenterOptions) {
    this.minIntervalMs = opts.minIntervalMs ?? 2_000;
  }

  /**
   * Makes the status message and the reaction show the job's current record. Resolves once they
   * do (at once, or after the throttle/Retry-After wait). Never throws: Slack failures are logged.
   */
  show(jobId: string): Promise<void> {
    const existing = this.pending.get(jobId);
    if (existing) {
      existing.dirty = true;
      return existing.promise;
    }
    const entry = { promise: Promise.resolve(), dirty: false };
    entry.promise = (async () => {
      do {
        entry.dirty = false;
        try {
          await this.render(jobId);
        } catch (err) {
          // Redis or Slack trouble must never reject: callers fire and forget.
          this.opts.logger.warn({ jobId, err }, 'status render failed');
        }
      } while (entry.dirty);
    })().finally(() => this.pending.delete(jobId));
    this.pending.set(jobId, entry);
    return entry.promise;
  }

  /** Waits for every deferred render (for shutdown), at most `timeoutMs` ms. */
  async flush(timeoutMs: number): Promise<void> {
    await settleWithin([...this.pending.values()].map((e) => e.promise), timeoutMs);
  }

  private async render(jobId: string): Promise<void> {
    const log = this.opts.logger.child({ jobId });
    for (let attempt = 0; ; attempt++) {
      const rec = await this.opts.store.get(jobId);
      if (!rec) return;
      const slot = `${this.opts.prefix}:status-slot:${rec.channel}:${rec.statusTs}`;
      // After many waits (a long Retry-After, heavy contention) take the slot anyway: the last
      // state must land.
      const got = attempt >= MAX_SLOT_WAITS ? 'OK' : await this.opts.redis.set(slot, '1', 'PX', this.minIntervalMs, 'NX');
      if (got !== 'OK') {
        const wait = await this.opts.redis.pttl(slot);
        await sleep(Math.max(20, wait + 10));
        continue;
      }
      try {
        await this.update(rec);
      } catch (err) {
        const retryAfterS = (err as { retryAfter?: number }).retryAfter;
        if (slackErrorCode(err) === 'ratelimited' && retryAfterS !== undefined && attempt < MAX_SLOT_WAITS) {
          log.warn({ retryAfterS }, 'chat.update rate limited; waiting for Retry-After');
          await this.opts.redis.set(slot, '1', 'PX', Math.max(1, Math.ceil(retryAfterS * 1000)));
          continue;
        }
        log.warn({ slackError: slackErrorCode(err) }, 'could not update the status message');
      }
      await this.react(rec, log);
      return;
    }
  }

  private async update(rec: JobRecord): Promise<void> {
    const now = this.opts.now();
    const msg = buildStatusMessage({
      requester: rec.requester,
      instruction: rec.instruction,
      jobId: rec.jobId,
      state: rec.state,
      elapsedMs: (rec.endedAt > 0 ? rec.endedAt : now) - rec.cycleStartedAt,
      prLink: rec.prLink,
      followups: rec.cycle,
      note: rec.note || undefined,
    });
    await this.opts.slack.chat.update({ channel: rec.channel, ts: rec.statusTs, text: msg.text, blocks: msg.blocks });
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

/** Waits for the edit slot (throttle or Retry-After) before one last edit is sent regardless. */
const MAX_SLOT_WAITS = 30;
