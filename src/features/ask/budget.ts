import type { Redis } from 'ioredis';
import { Quota } from '../../platform/quota.js';

/** Budget sizes: ASK_CALLS_PER_USER_PER_HOUR and ASK_CALLS_PER_HOUR (per workspace). */
export interface AskBudgetOptions {
  perUser: number;
  perWorkspace: number;
}

/** Outcome of {@link AskBudget.take}: taken, or which budget is spent and when its next slot frees (ms from now). */
export type AskBudgetTake = { ok: true } | { ok: false; which: 'user' | 'workspace'; msBeforeNext: number };

/**
 * The question budget, shared by every replica through Redis (rate-limiter-flexible, like the agent
 * budget): questions per person per hour and per workspace per hour, each a one-hour window that
 * opens at its first question. A refused question costs nothing (its point is given back) and is
 * refused before any API call.
 */
export class AskBudget {
  private readonly user: Quota;
  private readonly workspace: Quota;

  /** @param redis - the state connection (commands fail rather than queue while Redis is down). */
  constructor(
    redis: Redis,
    prefix: string,
    readonly opts: AskBudgetOptions,
  ) {
    this.user = new Quota(redis, { keyPrefix: `${prefix}:ask-budget:user`, points: opts.perUser, durationS: 3600 });
    this.workspace = new Quota(redis, {
      keyPrefix: `${prefix}:ask-budget:team`,
      points: opts.perWorkspace,
      durationS: 3600,
    });
  }

  /**
   * Takes one question from the person's budget, then the workspace's (giving the person's back
   * when the workspace's is spent). @throws Redis errors.
   */
  async take(teamId: string, user: string): Promise<AskBudgetTake> {
    const u = await this.user.take(`${teamId}:${user}`);
    if (!u.ok) return { ok: false, which: 'user', msBeforeNext: u.msBeforeNext };
    const w = await this.workspace.take(teamId || 'unknown-team');
    if (!w.ok) {
      await this.user.give(`${teamId}:${user}`);
      return { ok: false, which: 'workspace', msBeforeNext: w.msBeforeNext };
    }
    return { ok: true };
  }

  /** Gives one question back to both budgets (it was never sent). @throws Redis errors. */
  async give(teamId: string, user: string): Promise<void> {
    await Promise.all([this.user.give(`${teamId}:${user}`), this.workspace.give(teamId || 'unknown-team')]);
  }
}
