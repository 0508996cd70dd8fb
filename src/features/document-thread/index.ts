/**
 * The "Document this thread" message shortcut: a modal that previews the thread (read through the
 * thread-context feature) and starts a job on it, or, on a job's thread, sends the instruction to
 * that job as a follow-up (through the agent-jobs feature). Built after both.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import type { AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { Quota } from '../../platform/quota.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import type { ThreadOwner } from '../agent-jobs/index.js';
import type { ThreadContext } from '../thread-context/index.js';
import { PREVIEWS_PER_MINUTE, registerHandlers } from './handlers.js';
import { register as registerListeners } from './listeners.js';

export {
  MODAL_CALLBACK_ID as DOCUMENT_THREAD_MODAL,
  SHORTCUT_CALLBACK_ID as DOCUMENT_THREAD_SHORTCUT,
} from './blocks.js';

/** What the feature is built from. */
export interface DocumentThreadOptions {
  /** The thread-context feature: its reader and what a preview needs. */
  threadContext: Pick<ThreadContext, 'deps'>;
  /** The bot's Web API client: views.open / views.update for the modal. */
  slack: ThreadContext['deps']['slack'] & { views: Pick<WebClient['views'], 'open' | 'update'> };
  /** Where the shortcut records its requests; the feature registers its handlers on it. */
  intake: Intake;
  /** Who may start a job from the shortcut: asked before the thread is read and at submission. */
  access: AccessGate;
  logger: Logger;
  /** The state connection and QUEUE_PREFIX, for the per-person preview cooldown (none without them). */
  redis?: Redis;
  prefix?: string;
  /** Who a thread belongs to (agent-jobs' threadOwner): the shortcut on a job's thread offers a follow-up. */
  owner?: (channel: string, threadTs: string) => Promise<ThreadOwner>;
  /** Membership of conversations: the person must be in the thread's conversation (preview and submission). */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Signs the modal's `private_metadata` and checks it at submission. */
  signer: ValueSigner;
}

/** The running feature, as the composition root holds it. */
export interface DocumentThread {
  /** Registers the "Document this thread" message shortcut and its modal. */
  register(app: App): void;
}

/** Builds the shortcut and registers its intake handlers. */
export function createDocumentThread(o: DocumentThreadOptions): DocumentThread {
  const logger = o.logger.child({ feature: 'document-thread' });
  const { reader, names } = o.threadContext.deps;
  const previews = o.redis
    ? new Quota(o.redis, {
        keyPrefix: `${o.prefix ?? ''}:thread-context:previews`,
        points: PREVIEWS_PER_MINUTE,
        durationS: 60,
      })
    : undefined;
  const { conversations, signer } = o;
  const optional = { ...(o.owner ? { owner: o.owner } : {}), ...(previews ? { previews } : {}) };
  const access = o.access;
  registerHandlers(o.intake, { slack: o.slack, names, logger, reader, access, conversations, signer, ...optional });
  const listenerDeps = { intake: o.intake, slack: o.slack, access: o.access, conversations, signer, logger };
  return { register: (app) => registerListeners(app, listenerDeps) };
}
