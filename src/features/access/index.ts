/** The access feature: who may use the bot (policy over Slack's user facts) and what it may spend (the agent budget). */
import type { App } from '@slack/bolt';
import type { AccessGate } from '../../platform/access.js';
import type { Config } from '../../platform/config.js';
import { currentInstallationSlot } from '../../platform/request-context.js';
import type { Platform } from '../../platform/runtime.js';
import { AgentBudget } from './budget.js';
import type { SlackDirectory } from './directory.js';
import { createAccessDirectory } from './listeners.js';
import { accessPolicyFromConfig, describeAccess, type AccessPolicyConfig, type AccessPolicyVars } from './policy.js';
import { createAccessGate } from './service.js';

export { SlackDirectory } from './directory.js';
export type { AccessPolicyConfig } from './policy.js';

/** The configuration access reads: the access policy, the agent budget, the prompt cap, the default project. */
export type AccessConfig = AccessPolicyVars &
  Pick<Config, 'AGENT_CALLS_PER_HOUR' | 'AGENT_CALLS_PER_USER_PER_HOUR' | 'AGENT_PROMPT_MAX_CHARS' | 'DOCS_PROJECT_ID'>;

/** What the feature is built from: the platform, its configuration, and each channel's docs project. */
export interface AccessOptions {
  /** `slack.web` (users.info, usergroups.users.list, team.info), Redis (the budget, people's changes), the metrics. */
  platform: Pick<
    Platform,
    'redis' | 'prefix' | 'slack' | 'metrics' | 'logger' | 'now' | 'workspaces' | 'installations'
  > &
    /** Each workspace's docs projects (DOCS_WORKSPACE_PROJECTS); absent: every configured project anywhere. */
    Partial<Pick<Platform, 'docsWorkspaces'>>;
  config: AccessConfig;
  /** The docs project a channel uses (the settings feature). @throws the Redis error. */
  projectFor(channel: string): Promise<string>;
  /** Length of the agent budget's window, in seconds (tests shorten it). @defaultValue 3600, the vendor's hour */
  budgetWindowS?: number;
}

/** The running feature, as the composition root holds it. */
export interface Access {
  /** What every other feature asks before acting (see {@link AccessGate}). */
  gate: AccessGate;
  /** The policy in force, from the configuration. */
  policy: AccessPolicyConfig;
  /** Who may start jobs in `channel`, in words (for `/docs-settings`). */
  describe(channel: string): string;
  /** People's Slack facts (users.info, cached ≤ 10 minutes; see {@link SlackDirectory}): e.g. whether a digest channel has guests. */
  people: Pick<SlackDirectory, 'user' | 'knows' | 'inAnyGroup'>;
  /** Registers `user_change` (a person's changed facts are fetched again on every replica). */
  register(app: App): void;
}

/**
 * Builds the access feature: the directory of people's Slack facts (cached, dropped on
 * `user_change`), the workspaces an org-wide install was removed from (`team_access_*`), the agent budget in Redis (AGENT_CALLS_PER_HOUR, AGENT_CALLS_PER_USER_PER_HOUR;
 * in OAuth mode each installation has its own budget of a project),
 * and the gate over them; the budget left is reported to `docs_bot_agent_budget_remaining`
 * (labelled by installation too in OAuth mode) when a request takes from it, and read again when
 * scraped (at most every 5 s: platform/budget-series.ts).
 */
export function createAccess(o: AccessOptions): Access {
  const { redis, prefix, slack, metrics, now, workspaces, docsWorkspaces } = o.platform;
  const { config } = o;
  const logger = o.platform.logger.child({ feature: 'access' });
  const policy = accessPolicyFromConfig(config);
  const perInstallation = o.platform.installations !== undefined;
  const directory = createAccessDirectory({
    slack: slack.web,
    redis,
    prefix,
    now,
    logger,
    workspaces,
    perInstallation,
  });
  const budget = new AgentBudget(redis, prefix, {
    perProject: config.AGENT_CALLS_PER_HOUR,
    perUser: config.AGENT_CALLS_PER_USER_PER_HOUR,
    ...(perInstallation ? { installationOf: currentInstallationSlot } : {}),
    ...(o.budgetWindowS !== undefined ? { windowS: o.budgetWindowS } : {}),
  });
  // Scrapes read the budget again, so the gauge shows it refilled once its window has passed.
  metrics.watchBudget((project, installation) => budget.projectLeft(project, installation));
  const gate = createAccessGate({
    policy,
    directory: directory.directory,
    budget,
    promptMaxChars: config.AGENT_PROMPT_MAX_CHARS,
    defaultProject: config.DOCS_PROJECT_ID,
    projectFor: (channel) => o.projectFor(channel),
    ...(docsWorkspaces?.mapped ? { workspaceProjects: () => docsWorkspaces.current() } : {}),
    onBudget: (project, remaining) =>
      metrics.agentBudget(project, remaining, perInstallation ? currentInstallationSlot() : undefined),
    logger,
    now,
  });
  return {
    gate,
    policy,
    describe: (channel) => describeAccess(policy, channel),
    people: directory.directory,
    register: directory.register,
  };
}
