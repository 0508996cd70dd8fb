/**
 * The thread-context feature: what a Slack discussion says goes to the docs agent with the
 * request. An @mention in a thread carries the thread; message permalinks in an instruction are
 * expanded (when the requester may read them); the "Document this thread" message shortcut starts
 * a job on a message's whole thread. Jobs start through the agent-jobs feature.
 */
import type { Logger } from '../../platform/logger.js';
import type { PromptContext } from '../agent-jobs/index.js';
import { buildPrompt, type ThreadContextSlack } from './service.js';

export { CANNOT_READ_TEXT } from './service.js';

/** What the feature is built from. */
export interface ThreadContextOptions {
  /** The bot's Web API client (conversations.replies / .members, users.info, auth.test). */
  slack: ThreadContextSlack;
  logger: Logger;
  /** AGENT_PROMPT_MAX_CHARS. */
  maxChars: number;
}

/** The running feature, as the composition root holds it. */
export interface ThreadContext {
  /** For the agent-jobs feature: builds each new job's prompt with its Slack context. */
  context: PromptContext;
}

/** Builds the thread-context feature. */
export function createThreadContext(o: ThreadContextOptions): ThreadContext {
  const deps = { slack: o.slack, logger: o.logger.child({ feature: 'thread-context' }), maxChars: o.maxChars };
  return { context: (req) => buildPrompt(deps, req) };
}
