/**
 * The conversations feature: people's messages to the bot (mentions, DMs, replies in the bot's
 * threads), recorded before the ack and routed to the feature they are for — agent-jobs (a job's
 * thread, a docs change) or ask (a question, an answer's thread) — by the channel's mentions mode
 * and the mention rule. Built after both, so wiring flows one way: it asks them, they never call it.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { registerHandlers, type RouterDeps } from './handlers.js';
import { register as registerListeners } from './listeners.js';

export { routeMessage, type MentionsMode, type Route } from './handlers.js';
export { MESSAGE_INTAKE, type MessageIntake } from './intake.js';

/** What the feature is built from. */
export interface ConversationsOptions extends Omit<RouterDeps, 'logger' | 'slack'> {
  intake: Intake;
  slack: { chat: Pick<WebClient['chat'], 'postEphemeral'> };
  /** AGENT_PROMPT_MAX_CHARS: a message's recorded text is cut to it. */
  promptMaxChars: number;
  logger: Logger;
}

/** The running feature. */
export interface Conversations {
  /** Registers `message` and `app_mention`. */
  register(app: App): void;
}

/** Builds the conversations feature and registers its intake handler. */
export function createConversations(o: ConversationsOptions): Conversations {
  const logger = o.logger.child({ feature: 'conversations' });
  registerHandlers(o.intake, {
    jobs: o.jobs,
    jobThreads: o.jobThreads,
    ask: o.ask,
    mentionsModeFor: o.mentionsModeFor,
    ignorePrefix: o.ignorePrefix,
    slack: o.slack,
    logger,
  });
  // A reply that mentions no one is recorded only in a thread the bot owns: a job's (or one starting),
  // or an answer's that takes replies from its author (anyone's in the bot's thread, the asker's in theirs).
  const threads = {
    findByThread: async (channel: string, threadTs: string, user: string) => {
      const [job, answer] = await Promise.all([
        o.jobThreads(channel, threadTs),
        o.ask.takesReplyFrom(channel, threadTs, user),
      ]);
      return job ?? (answer ? 'answer' : undefined);
    },
  };
  return {
    register: (app) =>
      registerListeners(app, { intake: o.intake, slack: o.slack, logger, promptMaxChars: o.promptMaxChars, threads }),
  };
}
