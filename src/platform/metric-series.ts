/**
 * Bounds on the label values of the bot's metrics (metrics.ts): Prometheus keeps one series per
 * label set, so a label whose values come from outside (Slack's error codes, installations) keeps
 * at most a fixed number of distinct values; later ones count as `other` (Slack's errors) or get no
 * series (installations, see {@link INSTALLATION_SLOT}).
 */

/** At most `max` distinct keys (a label value, or a label set joined) get a series of their own. */
export class SeriesBound {
  private readonly seen = new Set<string>();

  /** @param max - how many distinct keys are admitted (read at each new key). */
  constructor(private readonly max: () => number) {}

  /** Whether `key` has, or now gets, a series of its own (false past `max` distinct keys: `other`, or no series). */
  admits(key: string): boolean {
    if (this.seen.has(key)) return true;
    if (this.seen.size >= this.max()) return false;
    this.seen.add(key);
    return true;
  }
}

/**
 * An installation as request-context's currentInstallationSlot names it: `team:T…` or
 * `enterprise:E…` (ids, not secrets). `docs_bot_agent_budget_remaining` is labelled with it in
 * OAuth mode (so an operator sees which installation ran out; single-token mode keeps the one label
 * `project`); installations are few (one per workspace or org the app is in), so past
 * `maxBudgetInstallations` (default 100) distinct ones, or for a value not of this shape, no series
 * is set (a gauge shared by several installations would show whichever set it last).
 */
export const INSTALLATION_SLOT = /^(team:T|enterprise:E)[A-Z0-9]{1,32}$/;
