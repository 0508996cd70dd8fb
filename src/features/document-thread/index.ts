/**
 * The "Document this thread" message shortcut: a modal that previews the thread (read through the
 * thread-context feature) and starts a job on it, or, on a job's thread, sends the instruction to
 * that job as a follow-up (through the agent-jobs feature). Built after both.
 */
import type { App } from '@slack/bolt';
import type { AccessGate } from '../../platform/access.js';
import { Quota } from '../../platform/quota.js';
import type { Platform } from '../../platform/runtime.js';
import type { ThreadOwner } from '../agent-jobs/index.js';
import type { ThreadContext } from '../thread-context/index.js';
import { PREVIEWS_PER_MINUTE, registerHandlers } from './handlers.js';
import { register as registerListeners } from './listeners.js';

export {
  MODAL_CALLBACK_ID as DOCUMENT_THREAD_MODAL,
  SHORTCUT_CALLBACK_ID as DOCUMENT_THREAD_SHORTCUT,
} from './blocks.js';

/** What the feature is built from: the platform, and the features built before it. */
export interface DocumentThreadOptions {
  /**
   * `slack.web` (views.open / views.update for the modal), the intake it records on, `conversations`
   * (the person must be in the thread's conversation: preview and submission), the signer (the
   * modal's `private_metadata`), and Redis for the per-person preview cooldown.
   */
  platform: Pick<Platform, 'slack' | 'intake' | 'conversations' | 'signer' | 'logger' | 'redis' | 'prefix'>;
  /** The thread-context feature: its reader and what a preview needs. */
  threadContext: Pick<ThreadContext, 'deps'>;
  /** Who may start a job from the shortcut: asked before the thread is read and at submission. */
  access: AccessGate;
  /** Who a thread belongs to (agent-jobs' `owner`): the shortcut on a job's thread offers a follow-up. */
  owner?: (channel: string, threadTs: string) => Promise<ThreadOwner>;
}

/** The running feature, as the composition root holds it. */
export interface DocumentThread {
  /** Registers the "Document this thread" message shortcut and its modal. */
  register(app: App): void;
}

/** Builds the shortcut and registers its intake handlers. */
export function createDocumentThread(o: DocumentThreadOptions): DocumentThread {
  const { intake, conversations, signer, redis, prefix } = o.platform;
  const slack = o.platform.slack.web;
  const logger = o.platform.logger.child({ feature: 'document-thread' });
  const { reader, names } = o.threadContext.deps;
  const previews = new Quota(redis, {
    keyPrefix: `${prefix}:thread-context:previews`,
    points: PREVIEWS_PER_MINUTE,
    durationS: 60,
  });
  const { access } = o;
  const optional = o.owner ? { owner: o.owner } : {};
  registerHandlers(intake, { slack, names, logger, reader, access, conversations, signer, previews, ...optional });
  const listenerDeps = { intake, slack, access, conversations, signer, logger };
  return { register: (app) => registerListeners(app, listenerDeps) };
}
