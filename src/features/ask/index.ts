/**
 * The ask feature: questions to the docs (the discovery API's assistant), answered in Slack with
 * streamed text, sources and buttons; follow-ups in the answer's thread; "Make this a docs change"
 * and "Document this" turn a question into a docs agent job (through the agent-jobs feature, built
 * before it). Questions in mentions and DMs reach it through the conversations feature, built after.
 */
import type { App } from '@slack/bolt';
import type { Queue, Worker } from 'bullmq';
import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import type { AccessGate } from '../../platform/access.js';
import type { DiscoveryClient } from '../../platform/docs-api/discovery-client.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { BotMetrics } from '../../platform/metrics.js';
import type { QueueContext } from '../../platform/queues.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import type { Steps } from '../../platform/slack/post-once.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import type { UserNames } from '../../platform/slack/user-names.js';
import { EditBudget, type StartJobDeps } from '../agent-jobs/index.js';
import { AskBudget } from './budget.js';
import type { AskDeps } from './service.js';
import { handleQuestionMessage, registerHandlers, type AskMessage } from './handlers.js';
import { register as registerListeners } from './listeners.js';
import { AskStore } from './store.js';
import type { StreamSlack } from './stream.js';
import { createAnswerQueue, enqueueAnswer, startAnswerWorker, type AnswerJobData } from './worker.js';

export { classifyMention, type MessageKind } from './rule.js';
export { ASK_INSTEAD_TEXT } from './texts.js';
export { fingerprinter } from './fingerprint.js';
export type { AskMessage } from './handlers.js';

/** What the feature is built from. */
export interface AskOptions {
  /** The discovery client, or undefined while asking is off (DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN unset). */
  discovery: Pick<DiscoveryClient, 'sendMessage'> | undefined;
  /** DOCS_SITE_URL. */
  siteUrl: string | undefined;
  redis: Redis;
  /** QUEUE_PREFIX. */
  prefix: string;
  /** The answers' queue and worker (`ask-answer`) live here. */
  queues: QueueContext;
  intake: Intake;
  access: Pick<AccessGate, 'authorize'>;
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** ASK_CALLS_PER_USER_PER_HOUR, ASK_CALLS_PER_HOUR. */
  budget: { perUser: number; perWorkspace: number };
  /** SLACK_UPDATE_BUDGET_PER_MINUTE: the posted fallback's edits share the workspace's budget with status edits. */
  updateBudgetPerMinute: number;
  slack: WebClient;
  /**
   * The client the answers are written with (chat streaming, the posted fallback): one of their own
   * that rejects Slack's 429 (`rejectRateLimitedCalls`), so an answer's rate limit never pauses
   * `slack`. @defaultValue `slack`
   */
  streamSlack?: WebClient;
  names: Pick<UserNames, 'lookup'>;
  signer: ValueSigner;
  /** `fp` of a person (see {@link fingerprinter}). */
  fingerprint: (teamId: string, user: string) => string;
  /** Agent-jobs' start: Make this a docs change. */
  start: StartJobDeps;
  logger: Logger;
  now: () => number;
  metrics?: Pick<BotMetrics, 'askEnded' | 'askFeedback'>;
}

/** The running feature, as the composition root and the conversations feature hold it. */
export interface Ask {
  /** True when DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN are set. */
  configured: boolean;
  /**
   * Whether a reply by `user` that mentions no one, in the thread rooted at `(channel, threadTs)`,
   * continues an answer's conversation (see `AskStore.takesReplyFrom`). @throws the Redis error.
   */
  takesReplyFrom(channel: string, threadTs: string, user: string): Promise<boolean>;
  /** Answers a question in a message (see `handleQuestionMessage`). */
  handleMessage(
    msg: AskMessage,
    botUserId: string | undefined,
    steps: Steps,
    receipt: { key: string; receivedAt: number },
  ): Promise<void>;
  /** The answers' queue (for its depth in the metrics). */
  answerQueue: Queue<AnswerJobData>;
  /** Registers `/docs-ask`, the answers' buttons and the Document this modal. */
  register(app: App): void;
  /** Starts the worker that writes answers. */
  startWorkers(): Worker[];
  /**
   * Ends the answers being written (shutdown, before the workers close): the answer worker is
   * paused first (it takes no new answer), then each answer being read stops with the cut-off notice.
   */
  abort(): void;
  /** Closes the answers' queue (after the workers). */
  close(): Promise<void>;
}

/** Builds the ask feature and registers its intake handlers. */
export function createAsk(o: AskOptions): Ask {
  const logger = o.logger.child({ feature: 'ask' });
  const store = new AskStore(o.redis, o.prefix);
  const shutdown = new AbortController();
  const slack = o.slack as unknown as StreamSlack & WebClient;
  const answerQueue = createAnswerQueue(o.queues);
  const ask = askDeps(o, { store, slack, logger, signal: shutdown.signal, answerQueue });
  const actions = {
    store,
    signer: o.signer,
    access: o.access,
    conversations: o.conversations,
    start: o.start,
    logger,
    ...(o.metrics ? { metrics: o.metrics } : {}),
  };
  const handlerDeps = { ask, actions, slack, names: o.names, logger };
  let worker: Worker<AnswerJobData> | undefined;
  registerHandlers(o.intake, handlerDeps);
  return {
    configured: ask.configured,
    takesReplyFrom: (channel, threadTs, user) => store.takesReplyFrom(channel, threadTs, user),
    handleMessage: (msg, botUserId, steps, receipt) =>
      handleQuestionMessage(handlerDeps, msg, botUserId, steps, receipt),
    answerQueue,
    register: (app) =>
      registerListeners(app, {
        intake: o.intake,
        configured: ask.configured,
        signer: o.signer,
        store,
        access: o.access,
        conversations: o.conversations,
        slack,
        logger,
        ...(o.metrics ? { metrics: o.metrics } : {}),
      }),
    startWorkers: () => {
      const guard = o.intake.guard.enabled ? { guard: o.intake.guard } : {};
      worker = startAnswerWorker(o.queues, { answer: ask, tell: { slack, logger }, ...guard });
      return [worker];
    },
    abort: () => {
      // pause(true) marks the worker paused at once (no new job is taken), without waiting for the running ones.
      void worker?.pause(true).catch((err: unknown) => logger.warn({ err }, 'could not pause the answer worker'));
      shutdown.abort();
    },
    close: () => answerQueue.close(),
  };
}

/** What asking needs (`AskDeps`), from the feature's options and its parts. */
function askDeps(
  o: AskOptions,
  parts: {
    store: AskStore;
    slack: StreamSlack & WebClient;
    logger: Logger;
    signal: AbortSignal;
    answerQueue: Queue<AnswerJobData>;
  },
): AskDeps {
  const { store, slack, logger, answerQueue } = parts;
  const writer = {
    slack: (o.streamSlack ?? slack) as unknown as StreamSlack,
    budget: new EditBudget({ redis: o.redis, prefix: o.prefix, perMinute: o.updateBudgetPerMinute }),
    logger,
    now: o.now,
  };
  const discovery = o.discovery ?? {
    sendMessage: () => Promise.reject(new Error('asking the docs is not configured')),
  };
  return {
    configured: o.discovery !== undefined,
    discovery,
    store,
    writer,
    signer: o.signer,
    siteUrl: o.siteUrl,
    fingerprint: o.fingerprint,
    access: o.access,
    budget: new AskBudget(o.redis, o.prefix, o.budget),
    slack,
    logger,
    now: o.now,
    signal: parts.signal,
    answers: { enqueue: (q, to) => enqueueAnswer(answerQueue, q, to) },
    ...(o.metrics ? { metrics: o.metrics } : {}),
  };
}
