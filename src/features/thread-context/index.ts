/**
 * The thread-context feature: what a Slack discussion says goes to the docs agent with the
 * request. An @mention in a thread carries the thread; message permalinks in an instruction are
 * expanded (when the requester may read them). It knows no other feature: the composition root
 * hands its `context` to agent-jobs and its `reader` to the "Document this thread" shortcut
 * (features/document-thread), both built after it.
 */
import type { Logger } from '../../platform/logger.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import type { UserNames } from '../../platform/slack/user-names.js';
import { ThreadReader } from './read.js';
import {
  buildPrompt,
  type ContextRequest,
  type ContextResult,
  type ThreadContextDeps,
  type ThreadContextSlack,
} from './service.js';

export {
  CANNOT_READ_TEXT,
  previewThread,
  type ContextRequest,
  type ContextResult,
  type ThreadContextDeps,
  type ThreadContextSlack,
  type ThreadPreview,
} from './service.js';
export type { ThreadReader } from './read.js';

/** What the feature is built from. */
export interface ThreadContextOptions {
  /**
   * A Web API client for reads (conversations.replies, auth.test) that rejects a 429
   * (`rejectRateLimitedCalls`): a person's preview or link never pauses the client that posts.
   */
  slack: ThreadContextSlack;
  /** People's names for mentions and authors (users.info on a client of their own, cached). */
  names: Pick<UserNames, 'lookup'>;
  logger: Logger;
  /** AGENT_PROMPT_MAX_CHARS. */
  maxChars: number;
  /** Who is in a conversation and how public it is (shared with agent-jobs' follow-up check). */
  conversations: Pick<ConversationDirectory, 'isMember' | 'visibilityOf'>;
  /** ACCESS_ALLOWED_CHANNELS: links into other conversations are not expanded. */
  allowedChannels: readonly string[];
}

/** The running feature, as the composition root holds it. */
export interface ThreadContext {
  /** For the agent-jobs feature: builds each new job's prompt with its Slack context. @throws transient Slack errors. */
  context: (req: ContextRequest) => Promise<ContextResult>;
  /** Reads threads, bounded and briefly cached: one reader for the context and the shortcut's preview. */
  reader: ThreadReader;
  /** What reading needs, for the shortcut's preview (`previewThread`). */
  deps: ThreadContextDeps;
}

/** Builds the thread-context feature (no listeners of its own). */
export function createThreadContext(o: ThreadContextOptions): ThreadContext {
  const logger = o.logger.child({ feature: 'thread-context' });
  const reader = new ThreadReader({ slack: o.slack });
  const deps: ThreadContextDeps = {
    slack: o.slack,
    names: o.names,
    logger,
    maxChars: o.maxChars,
    conversations: o.conversations,
    allowedChannels: o.allowedChannels,
    reader,
  };
  return { context: (req) => buildPrompt(deps, req), reader, deps };
}
