/**
 * The conversations feature: people's messages to the bot (mentions, DMs, replies in the bot's
 * threads, new messages in question channels), recorded before the ack and routed to the feature they are for — agent-jobs (a job's
 * thread, a docs change) or ask (a question, an answer's thread) — by the channel's mentions mode
 * and the mention rule. Built after both, so wiring flows one way: it asks them, they never call it.
 */
import type { App } from '@slack/bolt';
import type { Config } from '../../platform/config.js';
import type { Platform } from '../../platform/runtime.js';
import { registerHandlers, type RouterDeps } from './handlers.js';
import { register as registerListeners } from './listeners.js';

/** What the feature is built from: the platform, its configuration, and the features it routes to. */
export interface ConversationsOptions extends Omit<RouterDeps, 'logger' | 'slack' | 'ignorePrefix'> {
  /** Whether `channel` is a question channel (`/docs-settings answer-all on`). @throws the Redis error. */
  answersAllIn: (channel: string) => Promise<boolean>;
  /** `slack.web` (chat.postEphemeral) and the intake it records messages on. */
  platform: Pick<Platform, 'intake' | 'slack' | 'logger'>;
  /** AGENT_PROMPT_MAX_CHARS (a message's recorded text is cut to it); FOLLOWUP_IGNORE_PREFIX. */
  config: Pick<Config, 'AGENT_PROMPT_MAX_CHARS' | 'FOLLOWUP_IGNORE_PREFIX'>;
}

/** The running feature. */
export interface Conversations {
  /** Registers `message` and `app_mention`. */
  register(app: App): void;
}

/** Builds the conversations feature and registers its intake handler. */
export function createConversations(o: ConversationsOptions): Conversations {
  const { intake } = o.platform;
  const slack = o.platform.slack.web;
  const logger = o.platform.logger.child({ feature: 'conversations' });
  registerHandlers(intake, {
    jobs: o.jobs,
    jobThreads: o.jobThreads,
    ask: o.ask,
    mentionsModeFor: o.mentionsModeFor,
    ...(o.suggestionKind ? { suggestionKind: o.suggestionKind } : {}),
    ignorePrefix: o.config.FOLLOWUP_IGNORE_PREFIX,
    slack,
    logger,
  });
  // A reply that mentions no one is recorded only in a thread the bot owns: a job's (or one starting),
  // or an answer's that takes replies from its author (anyone's in the bot's thread, the asker's in theirs),
  // or a question's whose docs team was asked (anyone's but the asker's: maybe the team's answer).
  const threads = {
    findByThread: async (channel: string, threadTs: string, user: string) => {
      const [job, answer, teamAnswer] = await Promise.all([
        o.jobThreads(channel, threadTs),
        o.ask.takesReplyFrom(channel, threadTs, user),
        o.ask.answerReplyFrom(channel, threadTs, user),
      ]);
      return job ?? (answer || teamAnswer ? 'answer' : undefined);
    },
  };
  const promptMaxChars = o.config.AGENT_PROMPT_MAX_CHARS;
  const questionChannels = { enabled: o.ask.configured, answersAllIn: o.answersAllIn };
  return {
    register: (app) => registerListeners(app, { intake, slack, logger, promptMaxChars, threads, questionChannels }),
  };
}
