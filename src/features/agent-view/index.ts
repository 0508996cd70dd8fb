/**
 * The agent-view feature: the app's Messages tab as the docs agent's conversation (Slack's agent
 * view, `features.agent_view`). Opening the tab sets its suggested prompts; looking at a channel
 * beside it (`app_context_changed`) offers "Document the latest discussion in #channel". The jobs
 * themselves start like any DM to the bot, through the agent-jobs feature.
 */
import type { App } from '@slack/bolt';
import type { AccessGate } from '../../platform/access.js';
import { askConfigured, type Config } from '../../platform/config.js';
import { Quota } from '../../platform/quota.js';
import type { Platform } from '../../platform/runtime.js';
import { discussionCache, registerHandlers } from './handlers.js';
import { AGENT_VIEW_EVENTS_PER_MINUTE, register as registerListeners } from './listeners.js';

export { STANDING_PROMPTS, suggestionKind } from './prompts.js';

/** What the feature is built from: the platform, its configuration, and the access gate. */
export interface AgentViewOptions {
  /**
   * `slack.reads` (conversations.info / .history, chat.getPermalink), `slack.agent` (suggested
   * prompts), `conversations` (membership: the cache the message-link rules use too), and Redis
   * for the per-person limit on agent-view events.
   */
  platform: Pick<Platform, 'slack' | 'conversations' | 'intake' | 'logger' | 'redis' | 'prefix'>;
  /** Asking the docs is on (DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN): the suggestions include a question. */
  config: Pick<Config, 'DOCS_ASSISTANT_API_KEY' | 'DOCS_DOMAIN'>;
  /** Who may start a job about a channel: a channel is offered only where they may. */
  access: Pick<AccessGate, 'authorize'>;
}

/** The running feature, as the composition root holds it. */
export interface AgentView {
  /** Registers the Messages tab's `app_home_opened` and `app_context_changed`. */
  register(app: App): void;
}

/** Builds the agent-view feature and registers its intake handler. */
export function createAgentView(o: AgentViewOptions): AgentView {
  const { slack, conversations, intake, redis, prefix } = o.platform;
  const logger = o.platform.logger.child({ feature: 'agent-view' });
  registerHandlers(intake, {
    slack: slack.reads,
    conversations,
    agent: slack.agent,
    access: o.access,
    logger,
    discussions: discussionCache(),
    askEnabled: askConfigured(o.config),
  });
  const perPerson = new Quota(redis, {
    keyPrefix: `${prefix}:agent-view:events`,
    points: AGENT_VIEW_EVENTS_PER_MINUTE,
    durationS: 60,
  });
  return { register: (app) => registerListeners(app, { intake, logger, perPerson }) };
}
