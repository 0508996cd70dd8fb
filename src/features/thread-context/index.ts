/**
 * The thread-context feature: what a Slack discussion says goes to the docs agent with the
 * request. An @mention in a thread carries the thread; message permalinks in an instruction are
 * expanded (when the requester may read them). It knows no other feature: the composition root
 * hands its `context` to agent-jobs and its `reader` to the "Document this thread" shortcut
 * (features/document-thread), both built after it.
 */
import type { Config } from '../../platform/config.js';
import type { Platform } from '../../platform/runtime.js';
import { ThreadReader } from './read.js';
import { buildPrompt, type ContextRequest, type ContextResult, type ThreadContextDeps } from './service.js';

export {
  previewThread,
  type ContextRequest,
  type ContextResult,
  type ThreadContextDeps,
  type ThreadPreview,
} from './service.js';
export type { ThreadReader } from './read.js';

/** What the feature is built from: the platform and its configuration. */
export interface ThreadContextOptions {
  /**
   * `slack.reads` (conversations.replies, auth.test; it rejects a 429, so a person's preview or link
   * never pauses the client that posts), `slack.names` (people's names for mentions and authors),
   * and `conversations`: who is in a conversation and how public it is.
   */
  platform: Pick<Platform, 'slack' | 'conversations' | 'logger'>;
  /** AGENT_PROMPT_MAX_CHARS; ACCESS_ALLOWED_CHANNELS (links into other conversations are not expanded). */
  config: Pick<Config, 'AGENT_PROMPT_MAX_CHARS' | 'ACCESS_ALLOWED_CHANNELS'>;
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
  const { slack, conversations } = o.platform;
  const logger = o.platform.logger.child({ feature: 'thread-context' });
  const reader = new ThreadReader({ slack: slack.reads });
  const deps: ThreadContextDeps = {
    slack: slack.reads,
    names: slack.names,
    logger,
    maxChars: o.config.AGENT_PROMPT_MAX_CHARS,
    conversations,
    allowedChannels: o.config.ACCESS_ALLOWED_CHANNELS,
    reader,
  };
  return { context: (req) => buildPrompt(deps, req), reader, deps };
}
