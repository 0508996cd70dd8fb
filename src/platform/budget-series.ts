import { Gauge, type Registry } from 'prom-client';
import { METRICS } from './metrics-catalog.js';
import type { Logger } from './logger.js';
import { INSTALLATION_SLOT, SeriesBound } from './metric-series.js';
import { withinTime } from './time-limit.js';

/**
 * Reads what is left of a project's hourly agent budget now (in OAuth mode, of `installation`'s
 * budget of it): the access feature's AgentBudget. @throws Redis errors.
 */
export type BudgetReader = (project: string, installation: string | undefined) => Promise<number>;

/** How often at most a budget that could not be read at a scrape is warned of, in ms. */
const WARN_EVERY_MS = 60_000;

/** One label set of `docs_bot_agent_budget_remaining`. */
type BudgetLabels = { project: string; installation?: string };

/** What {@link BudgetSeries} reads of BotMetrics' options (metrics.ts). */
export interface BudgetSeriesOptions {
  /** The registry the gauge is registered on. */
  registry: Registry;
  /** Most distinct installations of `docs_bot_agent_budget_remaining`; later ones get no series. @defaultValue 100 */
  maxBudgetInstallations?: number;
  /** Longest wait for Redis for one read during a scrape, in ms. @defaultValue 1000 */
  queueTimeoutMs?: number;
  /** Where a budget that could not be read at a scrape is warned of (at most once a minute). */
  logger?: Pick<Logger, 'warn'>;
  /** Clock, epoch ms (the warnings' once a minute, {@link budgetCacheMs}). @defaultValue Date.now */
  now?: () => number;
  /**
   * How long the budgets read at a scrape serve later scrapes, in ms: a scrape reads every label
   * set (in OAuth mode about 12 Redis commands each), so scrapes close together (two Prometheus
   * servers, or anyone who can reach `/metrics` without METRICS_TOKEN) read once. @defaultValue 5000
   */
  budgetCacheMs?: number;
}

/**
 * The series of `docs_bot_agent_budget_remaining` (metrics.ts): which label sets have one (a label
 * set gets it when a request takes from its budget, within the installation bound), and their
 * values read again from Redis at scrapes ({@link collect}; at most once per `budgetCacheMs`), so a
 * window that refilled shows full although nobody asked since.
 */
export class BudgetSeries {
  /** `docs_bot_agent_budget_remaining{project}`, in OAuth mode `{project,installation}`. */
  readonly gauge: Gauge<'project' | 'installation'>;
  private reader: BudgetReader | undefined;
  private readonly seen = new Map<string, BudgetLabels>();
  private readonly installations: SeriesBound;
  private warnedAt = -Infinity;
  /** The read under way, which concurrent scrapes share. */
  private reading: Promise<void> | undefined;
  /** When the last read started (epoch ms, the options' clock). */
  private readAt = -Infinity;

  constructor(private readonly opts: BudgetSeriesOptions) {
    this.gauge = new Gauge({
      ...METRICS.agentBudgetRemaining,
      registers: [opts.registry],
      collect: () => this.collect(),
    });
    this.installations = new SeriesBound(() => opts.maxBudgetInstallations ?? 100);
  }

  /**
   * Reads every label set's budget when scraped from now on, at most once per `budgetCacheMs` (5 s;
   * scrapes meanwhile share the last read), replacing any earlier reader.
   */
  watch(read: BudgetReader): void {
    this.reader = read;
  }

  /** Sets a label set's value (giving it a series if it has none and the bound admits it). */
  set(project: string, remaining: number, installation?: string): void {
    if (installation === undefined) {
      this.seen.set(JSON.stringify([project]), { project });
      return void this.gauge.set({ project }, remaining);
    }
    // Past the bound no series: one shared by several installations would show whichever set it last.
    if (INSTALLATION_SLOT.test(installation) && this.installations.admits(installation)) {
      this.seen.set(JSON.stringify([project, installation]), { project, installation });
      this.gauge.set({ project, installation }, remaining);
    }
  }

  /**
   * The gauge's `collect`: reads the budget left of every label set that has a series (at most
   * `maxBudgetInstallations` installations × the configured projects), each read bounded by `queueTimeoutMs`.
   * A label set that can't be read (or not in time) keeps its last value, and a warning says so at
   * most once a minute: a Redis error never fails the scrape. Scrapes while a read is under way
   * wait for that read, and within `budgetCacheMs` of its start they read nothing: the gauge keeps
   * what that read (or a request taking from a budget since) set.
   */
  collect(): Promise<void> {
    if (this.reading) return this.reading;
    const now = (this.opts.now ?? Date.now)();
    const fresh = now - this.readAt < (this.opts.budgetCacheMs ?? 5_000);
    if (!this.reader || !this.seen.size || fresh) return Promise.resolve();
    this.readAt = now;
    this.reading = this.readAll(this.reader).finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readAll(read: BudgetReader): Promise<void> {
    const timeoutMs = this.opts.queueTimeoutMs ?? 1_000;
    const late = () => {
      throw new Error(`no answer from Redis within ${timeoutMs} ms`);
    };
    const failures: unknown[] = [];
    await Promise.all(
      [...this.seen.values()].map(async (labels) => {
        try {
          this.gauge.set(labels, await withinTime(read(labels.project, labels.installation), timeoutMs, late));
        } catch (err) {
          failures.push(err);
        }
      }),
    );
    if (!failures.length) return;
    const now = (this.opts.now ?? Date.now)();
    if (now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    this.opts.logger?.warn(
      { err: failures[0], series: failures.length },
      'could not read the agent budget for /metrics; docs_bot_agent_budget_remaining keeps its last value',
    );
  }
}
