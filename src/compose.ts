/**
 * Builders the composition root (main.ts) calls for features that need more than a line of
 * wiring: `/docs-settings`, the access policy's settings, and asking the docs. Each takes what is
 * already built; none reaches a feature built after it.
 */
import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import { accessPolicyFromConfig, describeAccess } from './features/access/index.js';
import type { StartJobDeps } from './features/agent-jobs/index.js';
import { createAsk, fingerprinter, type Ask } from './features/ask/index.js';
import { createSettings, type Settings } from './features/settings/index.js';
import { createConversations, type Conversations, type ConversationsOptions } from './features/conversations/index.js';
import type { AccessGate } from './platform/access.js';
import { askConfigured, docsProjects, type Config } from './platform/config.js';
import { DiscoveryClient } from './platform/docs-api/discovery-client.js';
import type { Intake } from './platform/intake.js';
import type { Logger } from './platform/logger.js';
import type { QueueContext } from './platform/queues.js';
import type { BotMetrics } from './platform/metrics.js';
import type { ConversationDirectory } from './platform/slack/conversations.js';
import type { ValueSigner } from './platform/slack/signed-value.js';
import type { UserNames } from './platform/slack/user-names.js';

/** The platform pieces these builders use (main.ts's Platform has them all). */
export interface SettingsPlatform {
  config: Config;
  logger: Logger;
  redis: Redis;
  prefix: string;
  intake: Intake;
  queues: QueueContext;
  slack: WebClient;
  names: UserNames;
  metrics: BotMetrics;
  /** Signs the values the bot puts in buttons and modals. */
  signer: ValueSigner;
  now: () => number;
}

/**
 * `/docs-settings`, built last: who may change settings is the access policy's `change_settings`
 * (guests and outsiders never; a check that could not be made throws, so settings says so and
 * changes nothing), and a channel's digest subscription is the digests feature's description.
 */
export function buildSettings(
  p: SettingsPlatform,
  access: AccessGate,
  conversations: ConversationDirectory,
  describeDigest: (teamId: string, channel: string) => Promise<string>,
): Settings {
  const { config } = p;
  const policy = accessPolicyFromConfig(config);
  return createSettings({
    isSettingsAdmin: async (user) => {
      const decision = await access.authorize({ user }, 'change_settings', '', { audit: false });
      if (!decision.allowed && decision.reason === 'check_failed')
        throw new Error('the access check could not be made');
      return decision.allowed;
    },
    describeAccess: (channel) => Promise.resolve(describeAccess(policy, channel)),
    authorizeView: (actor, channel) => access.authorize(actor, 'view_settings', channel),
    intake: p.intake,
    redis: p.redis,
    prefix: p.prefix,
    projects: docsProjects(config),
    defaultFollowupPolicy: config.FOLLOWUP_POLICY,
    adminUsers: config.ADMIN_USERS,
    describeDigest,
    slack: p.slack,
    conversations,
    signer: p.signer,
    logger: p.logger,
    now: p.now,
  });
}

/** The discovery client of the docs assistant, when asking is configured (DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN). */
export function discoveryClient(config: Config, metrics: BotMetrics): DiscoveryClient | undefined {
  if (!askConfigured(config)) return undefined;
  return new DiscoveryClient({
    baseUrl: config.DOCS_DISCOVERY_URL,
    apiKey: config.DOCS_ASSISTANT_API_KEY ?? '',
    domain: config.DOCS_DOMAIN ?? '',
    observer: metrics,
  });
}

/**
 * Asking the docs: the ask feature over the discovery client (undefined while it is off), its
 * answers' buttons signed with the bot's signer, `fp` from the same secret, and agent-jobs' start
 * for "Make this a docs change" (agent-jobs is built before it).
 */
export function buildAsk(
  p: SettingsPlatform,
  deps: {
    discovery: DiscoveryClient | undefined;
    access: AccessGate;
    conversations: ConversationDirectory;
    start: StartJobDeps;
    /** The answers' own Slack client, rejecting 429s (see `AskOptions.streamSlack`). */
    streamSlack?: WebClient;
  },
): Ask {
  const { config } = p;
  return createAsk({
    discovery: deps.discovery,
    siteUrl: config.DOCS_SITE_URL,
    redis: p.redis,
    prefix: p.prefix,
    queues: p.queues,
    intake: p.intake,
    access: deps.access,
    conversations: deps.conversations,
    budget: { perUser: config.ASK_CALLS_PER_USER_PER_HOUR, perWorkspace: config.ASK_CALLS_PER_HOUR },
    updateBudgetPerMinute: config.SLACK_UPDATE_BUDGET_PER_MINUTE,
    slack: p.slack,
    ...(deps.streamSlack ? { streamSlack: deps.streamSlack } : {}),
    names: p.names,
    signer: p.signer,
    fingerprint: fingerprinter(config.SLACK_SIGNING_SECRET || config.SLACK_APP_TOKEN || ''),
    start: deps.start,
    logger: p.logger,
    now: p.now,
    metrics: p.metrics,
  });
}

/**
 * The router of people's messages (the conversations feature), built after agent-jobs and ask:
 * it asks them who owns a thread and hands each message to one of them.
 */
export function buildRouter(
  p: SettingsPlatform,
  deps: Pick<ConversationsOptions, 'jobs' | 'jobThreads' | 'ask' | 'mentionsModeFor'>,
): Conversations {
  const { config } = p;
  return createConversations({
    ...deps,
    intake: p.intake,
    slack: p.slack,
    logger: p.logger,
    promptMaxChars: config.AGENT_PROMPT_MAX_CHARS,
    ignorePrefix: config.FOLLOWUP_IGNORE_PREFIX,
  });
}
