import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { consumeOne as consume } from '../../platform/quota.js';

/** Vendor: agent requests (job create + follow-up message) per project per hour (docs/using.md "Who can use it"). */
export const VENDOR_AGENT_CALLS_PER_HOUR = 100;
/** Length of a budget window, in seconds. */
export const BUDGET_WINDOW_S = 3600;

/** Budget sizes: AGENT_CALLS_PER_HOUR (per project) and AGENT_CALLS_PER_USER_PER_HOUR. */
export interface AgentBudgetOptions {
  perProject: number;
  perUser: number;
}

/** Outcome of {@link AgentBudget.take}: taken, or which budget is used up and when its next slot frees (ms from now). */
export type BudgetTake = { ok: true } | { ok: false; which: 'user' | 'project'; msBeforeNext: number };

/**
 * The agent budget, shared by every replica through Redis (rate-limiter-flexible's
 * RateLimiterRedis): per docs project and per Slack user, each a one-hour window that opens at its
 * first request. A 429 from the docs API blocks the project's window until its Retry-After.
 */
export class AgentBudget {
  private readonly project: RateLimiterRedis;
  private readonly user: RateLimiterRedis;

  /**
   * @param redis - the state connection (commands must fail rather than queue while Redis is down
   *   for long: callers turn errors into "I couldn't check").
   * @param prefix - QUEUE_PREFIX.
   */
  constructor(
    redis: Redis,
    prefix: string,
    readonly opts: AgentBudgetOptions,
  ) {
    this.project = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:agent-budget:project`,
      points: opts.perProject,
      duration: BUDGET_WINDOW_S,
    });
    this.user = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:agent-budget:user`,
      points: opts.perUser,
      duration: BUDGET_WINDOW_S,
    });
  }

  /**
   * Takes one request from the user's budget, then the project's (giving the user's back when the
   * project's is used up). @throws Redis errors.
   */
  async take(user: string, project: string): Promise<BudgetTake> {
    const u = await consume(this.user, user);
    if (u) return { ok: false, which: 'user', msBeforeNext: u.msBeforeNext };
    const p = await consume(this.project, project);
    if (p) {
      await this.user.reward(user, 1);
      return { ok: false, which: 'project', msBeforeNext: p.msBeforeNext };
    }
    return { ok: true };
  }

  /** Gives one request back to both budgets (it was never sent). @throws Redis errors. */
  async give(user: string, project: string): Promise<void> {
    await Promise.all([this.user.reward(user, 1), this.project.reward(project, 1)]);
  }

  /** Marks the project's budget as used up for `ms` (a 429 from the docs API). @throws Redis errors. */
  async block(project: string, ms: number): Promise<void> {
    await this.project.block(project, Math.max(1, Math.ceil(ms / 1000)));
  }

  /** Requests left this hour for the project and the user. @throws Redis errors. */
  async remaining(user: string, project: string): Promise<{ project: number; user: number }> {
    const [p, u] = await Promise.all([this.project.get(project), this.user.get(user)]);
    return {
      project: Math.max(0, p?.remainingPoints ?? this.opts.perProject),
      user: Math.max(0, u?.remainingPoints ?? this.opts.perUser),
    };
  }
}
