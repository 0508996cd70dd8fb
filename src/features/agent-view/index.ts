/**
 * The agent-view feature: the app's Messages tab as the docs agent's conversation (Slack's agent
 * view, `features.agent_view`). Opening the tab sets its suggested prompts; looking at a channel
 * beside it (`app_context_changed`) offers "Document the latest discussion in #channel". The jobs
 * themselves start like any DM to the bot, through the agent-jobs feature.
 */
import type { App } from '@slack/bolt';
import type { AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Redis } from 'ioredis';
import type { Logger } from '../../platform/logger.js';
import { Quota } from '../../platform/quota.js';
import type { AgentSurface } from '../../platform/slack/agent-surface.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { discussionCache, registerHandlers, type AgentViewSlack } from './handlers.js';
import { AGENT_VIEW_EVENTS_PER_MINUTE, register as registerListeners } from './listeners.js';

export { QUESTION_PROMPT, STANDING_PROMPTS, PROMPTS_TITLE } from './prompts.js';

/** What the feature is built from. */
export interface AgentViewOptions {
  /** conversations.info / .history, chat.getPermalink. */
  slack: AgentViewSlack;
  /** Membership of conversations (the cache the message-link rules use too). */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  agent: Pick<AgentSurface, 'suggestPrompts'>;
  intake: Intake;
  /** Who may start a job about a channel: a channel is offered only where they may. */
  access: Pick<AccessGate, 'authorize'>;
  logger: Logger;
  /** The state connection and QUEUE_PREFIX, for the per-person limit on agent-view events (none without them). */
  redis?: Redis;
  prefix?: string;
  /** Asking the docs is on (DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN): the suggestions include a question. */
  askEnabled?: boolean;
}

/** The running feature, as the composition root holds it. */
export interface AgentView {
  /** Registers the Messages tab's `app_home_opened` and `app_context_changed`. */
  register(app: App): void;
}

/** Builds the agent-view feature and registers its intake handler. */
export function createAgentView(o: AgentViewOptions): AgentView {
  const logger = o.logger.child({ feature: 'agent-view' });
  const { slack, conversations, agent, access } = o;
  registerHandlers(o.intake, {
    slack,
    conversations,
    agent,
    access,
    logger,
    discussions: discussionCache(),
    askEnabled: o.askEnabled ?? false,
  });
  const perPerson = o.redis
    ? new Quota(o.redis, {
        keyPrefix: `${o.prefix ?? ''}:agent-view:events`,
        points: AGENT_VIEW_EVENTS_PER_MINUTE,
        durationS: 60,
      })
    : undefined;
  return {
    register: (app) => registerListeners(app, { intake: o.intake, logger, ...(perPerson ? { perPerson } : {}) }),
  };
}
