import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { consumeOne as consume } from '../../platform/quota.js';
import { requiredSlot } from '../../platform/request-context.js';

/** Vendor: agent requests (job create + follow-up message) per project per hour (docs/using.md "Who can use it"). */
const VENDOR_AGENT_CALLS_PER_HOUR = 100;
/** Length of a budget window, in seconds. */
const BUDGET_WINDOW_S = 3600;

/** Budget sizes: AGENT_CALLS_PER_HOUR (per project) and AGENT_CALLS_PER_USER_PER_HOUR. */
interface AgentBudgetOptions {
  perProject: number;
  perUser: number;
  /**
   * OAuth mode: the installation the current request runs as (`team:T…` / `enterprise:E…`,
   * request-context's currentInstallationSlot): each installation then has its own hourly budget
   * of a shared project, and a request with no installation (undefined) is refused
   * (NoInstallationError, `installation_missing`) rather than counted against a budget every
   * installation would share. Absent: one budget per project (single-token mode).
   */
  installationOf?: () => string | undefined;
  /**
   * OAuth mode: the most requests all installations together send for one project in an hour
   * (default {@link VENDOR_AGENT_CALLS_PER_HOUR}, the docs API's own limit), so the installations'
   * budgets together never earn the project a 429 that would hold it for all.
   */
  perProjectTotal?: number;
  /** Length of a budget window, in seconds (tests shorten it). @defaultValue {@link BUDGET_WINDOW_S} (an hour, the vendor's) */
  windowS?: number;
}

/** Outcome of {@link AgentBudget.take}: taken, or which budget is used up and when its next slot frees (ms from now). */
type BudgetTake = { ok: true } | { ok: false; which: 'user' | 'project'; msBeforeNext: number };

/**
 * The agent budget, shared by every replica through Redis (rate-limiter-flexible's
 * RateLimiterRedis): per docs project and per Slack user, each a one-hour window that opens at its
 * first request. A 429 from the docs API blocks the project's window until its Retry-After.
 * In OAuth mode the project's count is kept per installation (`<slot>:<project>`), so a flood from
 * one workspace never uses up another's budget of a shared project; all installations together
 * are held to the project's total (`perProjectTotal`, the docs API's limit), and a 429 still holds
 * the project for every installation (the docs API's limit is the project's). A request with no
 * installation in its context is refused there (fails closed: `installation_missing`), never
 * counted against a per-project budget all installations would share.
 */
export class AgentBudget {
  private readonly project: RateLimiterRedis;
  private readonly user: RateLimiterRedis;
  /** OAuth mode: every installation's requests of a project together. */
  private readonly total: RateLimiterRedis;

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
    const duration = opts.windowS ?? BUDGET_WINDOW_S;
    this.project = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:agent-budget:project`,
      points: opts.perProject,
      duration,
    });
    this.total = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:agent-budget:project-total`,
      points: opts.perProjectTotal ?? VENDOR_AGENT_CALLS_PER_HOUR,
      duration,
    });
    this.user = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:agent-budget:user`,
      points: opts.perUser,
      duration,
    });
  }

  /**
   * Takes one request from the user's budget, then the project's (in OAuth mode the installation's
   * share, then the project's total), giving back what was taken when a later one is used up.
   * @throws Redis errors; in OAuth mode NoInstallationError (`installation_missing`) when the
   *   request has no installation, before anything is taken.
   */
  async take(user: string, project: string): Promise<BudgetTake> {
    const key = this.keyOf(project);
    const u = await consume(this.user, user);
    if (u) return { ok: false, which: 'user', msBeforeNext: u.msBeforeNext };
    const shared = key !== project;
    let p = (shared ? await this.held(project) : undefined) ?? (await consume(this.project, key));
    if (!p && shared) {
      p = await consume(this.total, project);
      if (p) await this.project.reward(key, 1);
    }
    if (p) {
      await this.user.reward(user, 1);
      return { ok: false, which: 'project', msBeforeNext: p.msBeforeNext };
    }
    return { ok: true };
  }

  /**
   * Gives one request back to every budget it was taken from (it was never sent).
   * @throws Redis errors; NoInstallationError as {@link take} (nothing given back).
   */
  async give(user: string, project: string): Promise<void> {
    const key = this.keyOf(project);
    await Promise.all([
      this.user.reward(user, 1),
      this.project.reward(key, 1),
      key !== project ? this.total.reward(project, 1) : undefined,
    ]);
  }

  /**
   * The project's count's key: the project, prefixed by the current installation in OAuth mode.
   * @throws NoInstallationError in OAuth mode when the request has no installation.
   */
  private keyOf(project: string): string {
    const slot = requiredSlot(this.opts.installationOf, 'the agent budget');
    return slot ? `${slot}:${project}` : project;
  }

  /** OAuth mode: a 429's hold on `project` (every installation's), if one is on. @throws Redis errors. */
  private async held(project: string): Promise<{ msBeforeNext: number } | undefined> {
    const res = await this.project.get(project);
    return res && res.remainingPoints <= 0 ? { msBeforeNext: res.msBeforeNext } : undefined;
  }

  /** Marks the project's budget as used up for `ms` (a 429 from the docs API), for every installation. @throws Redis errors. */
  async block(project: string, ms: number): Promise<void> {
    await this.project.block(project, Math.max(1, Math.ceil(ms / 1000)));
  }

  /** Requests left this hour for the project and the user. @throws Redis errors; NoInstallationError as {@link take}. */
  async remaining(user: string, project: string): Promise<{ project: number; user: number }> {
    const key = this.keyOf(project);
    const [p, u] = await Promise.all([this.projectLeftAt(project, key), this.user.get(user)]);
    return { project: p, user: Math.max(0, u?.remainingPoints ?? this.opts.perUser) };
  }

  /**
   * Requests left this hour for `project`, read outside any request (the metrics gauge at a scrape):
   * in OAuth mode of `installation`'s budget of it (`team:T…` / `enterprise:E…`), as
   * {@link remaining} says it inside that installation's request.
   * @throws Redis errors; in OAuth mode NoInstallationError when `installation` is undefined.
   */
  async projectLeft(project: string, installation: string | undefined): Promise<number> {
    const slot = requiredSlot(this.opts.installationOf && (() => installation), 'the agent budget');
    return this.projectLeftAt(project, slot ? `${slot}:${project}` : project);
  }

  /** What is left of the project's count under `key` (OAuth mode: the share, the total and a 429's hold). @throws Redis errors. */
  private async projectLeftAt(project: string, key: string): Promise<number> {
    const shared = key !== project;
    const [p, hold, t] = await Promise.all([
      this.project.get(key),
      shared ? this.held(project) : undefined,
      shared ? this.total.get(project) : undefined,
    ]);
    const share = Math.max(0, p?.remainingPoints ?? this.opts.perProject);
    const total = shared
      ? Math.max(0, t?.remainingPoints ?? this.opts.perProjectTotal ?? VENDOR_AGENT_CALLS_PER_HOUR)
      : share;
    return hold ? 0 : Math.min(share, total);
  }
}
