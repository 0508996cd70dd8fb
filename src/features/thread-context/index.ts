/**
 * The thread-context feature: what a Slack discussion says goes to the docs agent with the
 * request. An @mention in a thread carries the thread; message permalinks in an instruction are
 * expanded (when the requester may read them); the "Document this thread" message shortcut starts
 * a job on a message's whole thread. Jobs start through the agent-jobs feature.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Redis } from 'ioredis';
import type { Logger } from '../../platform/logger.js';
import { Quota } from '../../platform/quota.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import type { UserNames } from '../../platform/slack/user-names.js';
import type { PromptContext, ThreadOwner } from '../agent-jobs/index.js';
import { PREVIEWS_PER_MINUTE, registerHandlers } from './handlers.js';
import { register as registerListeners } from './listeners.js';
import { ThreadReader } from './read.js';
import { buildPrompt, type ThreadContextSlack } from './service.js';

export { CANNOT_READ_TEXT } from './service.js';
export { MODAL_CALLBACK_ID as DOCUMENT_THREAD_MODAL, SHORTCUT_CALLBACK_ID as DOCUMENT_THREAD_SHORTCUT } from './blocks.js';

/** What the feature is built from. */
export interface ThreadContextOptions {
  /** The bot's Web API client (conversations.replies / .members, auth.test, views.open / .update). */
  slack: ThreadContextSlack & { views: Pick<WebClient['views'], 'open' | 'update'> };
  /** People's names for mentions and authors (users.info on a client of their own, cached). */
  names: Pick<UserNames, 'lookup'>;
  /** Where the shortcut records its requests; the feature registers its handlers on it. */
  intake: Intake;
  /** Who may start a job from the shortcut: asked before the thread is read and at submission. */
  access: AccessGate;
  logger: Logger;
  /** AGENT_PROMPT_MAX_CHARS. */
  maxChars: number;
  /** Who is in a conversation and how public it is (shared with agent-jobs' follow-up check). */
  conversations: Pick<ConversationDirectory, 'isMember' | 'visibilityOf'>;
  /** ACCESS_ALLOWED_CHANNELS: links into other conversations are not expanded. */
  allowedChannels: readonly string[];
  /** The state connection and QUEUE_PREFIX, for the per-person preview cooldown (none without them). */
  redis?: Redis;
  prefix?: string;
  /** Who a thread belongs to (agent-jobs' threadOwner): the shortcut on a job's thread offers a follow-up. */
  owner?: (channel: string, threadTs: string) => Promise<ThreadOwner>;
}

/** The running feature, as the composition root holds it. */
export interface ThreadContext {
  /** For the agent-jobs feature: builds each new job's prompt with its Slack context. */
  context: PromptContext;
  /** Registers the "Document this thread" message shortcut and its modal. */
  register(app: App): void;
}

/** Builds the thread-context feature and registers its intake handlers. */
export function createThreadContext(o: ThreadContextOptions): ThreadContext {
  const logger = o.logger.child({ feature: 'thread-context' });
  const reader = new ThreadReader({ slack: o.slack });
  const deps = { slack: o.slack, names: o.names, logger, maxChars: o.maxChars, conversations: o.conversations, allowedChannels: o.allowedChannels, reader };
  const previews = o.redis ? new Quota(o.redis, { keyPrefix: `${o.prefix ?? ''}:thread-context:previews`, points: PREVIEWS_PER_MINUTE, durationS: 60 }) : undefined;
  registerHandlers(o.intake, { ...deps, access: o.access, ...(o.owner ? { owner: o.owner } : {}), ...(previews ? { previews } : {}) });
  return {
    context: (req) => buildPrompt(deps, req),
    register: (app) => registerListeners(app, { intake: o.intake, slack: o.slack, access: o.access, logger }),
  };
}
