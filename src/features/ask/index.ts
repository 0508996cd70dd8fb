/**
 * The ask feature: questions to the docs (the discovery API's assistant), answered in Slack with
 * streamed text, sources and buttons; follow-ups in the answer's thread; "Make this a docs change"
 * and "Document this" turn a question into a docs agent job (through the agent-jobs feature, built
 * before it). Questions in mentions and DMs reach it through the conversations feature, built after.
 */
import type { App } from '@slack/bolt';
import type { Queue, Worker } from 'bullmq';
import type { WebClient } from '@slack/web-api';
import type { AccessGate } from '../../platform/access.js';
import type { Config } from '../../platform/config.js';
import type { AssistantFilter } from '../../platform/docs-api/discovery-schemas.js';
import type { Experts } from '../settings/index.js';
import type { IntakeContext } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { Platform } from '../../platform/runtime.js';
import type { Steps } from '../../platform/steps.js';
import { Quota } from '../../platform/quota.js';
import { EditBudget, type StartJobDeps } from '../agent-jobs/index.js';
import { AskBudget, TOLD_ONCE_S } from './admission.js';
import { EXPERTS_ASKS_PER_HOUR } from './experts.js';
import { expertCheck, type ExpertCheckDeps } from './expert-reply.js';
import { fingerprinter } from './fingerprint.js';
import { offerDocumentAnswer } from './document-answer.js';
import type { SlackQuestionGroup } from './unanswered-log.js';
import { digestAudience, publicWorkspaceOf, type DigestPeople } from './unanswered-reach.js';
import { registerHandlers, type AskDeps } from './handlers.js';
import { handleQuestionMessage, type AskMessage } from './message-question.js';
import { register as registerListeners } from './listeners.js';
import { AskStore } from './store.js';
import {
  createAnswerQueue,
  startAnswerWorker,
  type AnswerJobData,
  type AnswerJobDeps,
  type StreamSlack,
} from './answer/index.js';

export { classifyMention, readsAsChangeRequest } from './rule.js';
export { ASK_INSTEAD_TEXT, EDIT_CHANNEL_ASK_TEXT, QUESTION_CHANNEL_HINT_TEXT } from './texts.js';
export type { AskMessage } from './message-question.js';
export type { SlackQuestionGroup } from './unanswered-log.js';

/** The configuration the feature reads (docs/configuration.md). */
export type AskConfig = Pick<
  Config,
  | 'DOCS_SITE_URL'
  | 'ASK_CALLS_PER_USER_PER_HOUR'
  | 'ASK_CALLS_PER_HOUR'
  | 'SLACK_UPDATE_BUDGET_PER_MINUTE'
  | 'SLACK_SIGNING_SECRET'
  | 'SLACK_APP_TOKEN'
>;

/** What the feature is built from: the platform, its configuration, and what is built before it. */
export interface AskOptions {
  /**
   * `discovery` (undefined while asking is off: DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN unset), the
   * answers' queue and worker (`ask-answer`) on `queues`, `slack.web` and `slack.names`.
   */
  platform: Pick<
    Platform,
    | 'discovery'
    | 'redis'
    | 'prefix'
    | 'queues'
    | 'intake'
    | 'slack'
    | 'conversations'
    | 'signer'
    | 'logger'
    | 'metrics'
    | 'now'
  > &
    /** Each workspace's docs site (DOCS_WORKSPACE_PROJECTS `siteUrl`); absent: DOCS_SITE_URL everywhere. */
    Partial<Pick<Platform, 'docsWorkspaces'>>;
  /**
   * DOCS_SITE_URL; ASK_CALLS_PER_USER_PER_HOUR and ASK_CALLS_PER_HOUR; SLACK_UPDATE_BUDGET_PER_MINUTE
   * (the posted fallback's edits share the workspace's budget with status edits);
   * SLACK_SIGNING_SECRET, else SLACK_APP_TOKEN: the key of a person's `fp` ({@link fingerprinter}).
   */
  config: AskConfig;
  access: Pick<AccessGate, 'authorize'>;
  /**
   * People's Slack facts (the access feature's cached users.info and user groups): whether a digest
   * channel has guests, whether a reply is the docs team's.
   */
  people: DigestPeople & ExpertCheckDeps['groups'];
  /** Agent-jobs' start: Make this a docs change. */
  start: StartJobDeps;
  /** A channel's docs scope (the settings' `/docs-settings scope`); absent: none. @throws the Redis error. */
  scopeFor?: (channel: string) => Promise<AssistantFilter | undefined>;
  /** A channel's docs team (the settings' `/docs-settings experts`); absent: none. @throws the Redis error. */
  expertsFor?: (channel: string) => Promise<Experts | undefined>;
  /** Who last changed a channel's settings (told when its docs team breaks); absent: no one. @throws the Redis error. */
  settingsOwnerOf?: (channel: string) => Promise<string | undefined>;
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
  /**
   * Whether a reply by `user` in the thread rooted at `(channel, threadTs)` may be the docs team's
   * answer: the team was asked there and `user` is not the asker. @throws the Redis error.
   */
  answerReplyFrom(channel: string, threadTs: string, user: string): Promise<boolean>;
  /**
   * The questions the digest of workspace `teamId` posted in `channel` may show, asked from `fromMs`
   * up to `toMs` (epoch ms) and not answered by the docs: the channel's own and, when it is known to
   * have no guest and is not shared with another organization, the workspace's public channels'
   * (see `unanswered-reach`: conversations.members and at most 200 users.info calls), grouped,
   * at most `limit` (see `UnansweredLog.unansweredSeenIn`). @throws the Redis error.
   */
  unansweredIn(
    where: { teamId: string; channel: string },
    fromMs: number,
    toMs: number,
    limit: number,
  ): Promise<SlackQuestionGroup[]>;
  /**
   * Notes that `user` (of `teamId`) was told `what` (a hint, a refusal): true the first time per
   * person per `TOLD_ONCE_S` (an hour, a SET NX on Redis' clock shared by every replica), false
   * while the note lasts. @throws the Redis error.
   */
  markTold(teamId: string, user: string, what: string): Promise<boolean>;
  /** Such a reply: offers Document this answer in the thread, once per thread (see `offerDocumentAnswer`). */
  handleAnswerReply(msg: AskMessage, botUserId: string | undefined, ctx: IntakeContext): Promise<void>;
  /**
   * Answers a question in a message (see `handleQuestionMessage`); `from: 'question-channel'` for a
   * new message in a question channel (a refusal for a spent budget is told once per person per hour).
   */
  handleMessage(
    msg: AskMessage,
    botUserId: string | undefined,
    steps: Steps,
    receipt: { key: string; receivedAt: number },
    opts?: { from?: 'question-channel' },
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

/** {@link Ask.unansweredIn}: who the digest's channel is (`digestAudience`), then the log; a Redis failure logged and thrown. */
function unansweredFor(d: {
  store: AskStore;
  slack: WebClient;
  people: DigestPeople;
  logger: Logger;
}): Ask['unansweredIn'] {
  return async (where, fromMs, toMs, limit) =>
    d.store
      .unansweredSeenIn(await digestAudience(d.slack, d.people, where, d.logger), fromMs, toMs, limit)
      .catch((err: unknown) => {
        d.logger.warn({ err, channel: where.channel }, "could not read the digest's questions asked in Slack");
        throw err;
      });
}

/** Builds the ask feature and registers its intake handlers. */
export function createAsk(o: AskOptions): Ask {
  const { redis, prefix, queues, intake, signer, conversations, metrics } = o.platform;
  const logger = o.platform.logger.child({ feature: 'ask' });
  const store: AskStore = new AskStore(
    redis,
    prefix,
    publicWorkspaceOf({ answer: (id) => store.answer(id), conversations, logger }),
  );
  const shutdown = new AbortController();
  const slack = o.platform.slack.web as unknown as StreamSlack & WebClient;
  const answerQueue = createAnswerQueue(queues);
  const { ask, answer } = askDeps(o, { store, slack, logger, signal: shutdown.signal, answerQueue });
  const { access, start } = o;
  const hasExperts = async (c: string) => (await o.expertsFor?.(c)) !== undefined;
  const actions = { store, signer, access, conversations, start, logger, metrics, hasExperts };
  const expertsFor = o.expertsFor ?? (async () => undefined);
  const asks = new Quota(redis, {
    keyPrefix: `${prefix}:ask:experts-asks`,
    points: EXPERTS_ASKS_PER_HOUR,
    durationS: 3600,
  });
  const owner = o.settingsOwnerOf ? { settingsOwnerOf: o.settingsOwnerOf } : {};
  const experts = { store, signer, access, conversations, expertsFor, slack, asks, logger, ...owner };
  const handlerDeps = { ask, actions, slack, names: o.platform.slack.names, experts, logger };
  registerHandlers(intake, handlerDeps);
  const configured = ask.configured;
  let worker: Worker<AnswerJobData> | undefined;
  const isExpert = expertCheck({ expertsFor, conversations, groups: o.people, logger });
  const offerDeps = { store, signer, slack, names: o.platform.slack.names, logger, isExpert };
  const listenerDeps = { intake, configured, signer, store, access, conversations, slack, logger, metrics };
  return {
    configured,
    takesReplyFrom: (channel, threadTs, user) => store.takesReplyFrom(channel, threadTs, user),
    unansweredIn: unansweredFor({ store, slack, people: o.people, logger }),
    answerReplyFrom: async (channel, threadTs, user) =>
      (await store.answerAskedIn(channel, threadTs, user)) !== undefined,
    markTold: (teamId, user, what) => store.markTold(teamId, user, what, TOLD_ONCE_S),
    handleAnswerReply: (msg, botUserId, ctx) => offerDocumentAnswer(offerDeps, msg, botUserId, ctx),
    handleMessage: (msg, botUserId, steps, receipt, opts) =>
      handleQuestionMessage(handlerDeps, msg, botUserId, steps, receipt, opts),
    answerQueue,
    register: (app) => registerListeners(app, listenerDeps),
    startWorkers: () => {
      const guard = intake.guard.enabled ? { guard: intake.guard } : {};
      worker = startAnswerWorker(queues, { answer, tell: { slack, logger }, work: o.platform.slack, ...guard });
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

/** What asking needs (`AskDeps`) and what writing an answer needs (`AnswerJobDeps`), from the feature's options and its parts. */
function askDeps(
  o: AskOptions,
  parts: {
    store: AskStore;
    slack: StreamSlack & WebClient;
    logger: Logger;
    signal: AbortSignal;
    answerQueue: Queue<AnswerJobData>;
  },
): { ask: AskDeps; answer: AnswerJobDeps } {
  const { store, slack, logger, answerQueue } = parts;
  const { redis, prefix, now, discovery, signer, metrics, docsWorkspaces } = o.platform;
  const { config } = o;
  const writer = {
    // The answers are written on a client of their own that rejects Slack's 429, so an answer's rate
    // limit never pauses the bot's main client.
    slack: o.platform.slack.own({ rejectRateLimitedCalls: true }) as unknown as StreamSlack,
    budget: new EditBudget({ redis, prefix, perMinute: config.SLACK_UPDATE_BUDGET_PER_MINUTE }),
    logger,
    now,
    signal: parts.signal,
  };
  const budget = { perUser: config.ASK_CALLS_PER_USER_PER_HOUR, perWorkspace: config.ASK_CALLS_PER_HOUR };
  const answer = {
    discovery: discovery ?? { sendMessage: () => Promise.reject(new Error('asking the docs is not configured')) },
    store,
    writer,
    signer,
    siteUrl: docsWorkspaces?.mapped ? () => docsWorkspaces.currentSiteUrl() : config.DOCS_SITE_URL,
    fingerprint: fingerprinter(config.SLACK_SIGNING_SECRET || config.SLACK_APP_TOKEN || ''),
    logger,
    now,
    signal: parts.signal,
    metrics,
  };
  const ask = {
    configured: discovery !== undefined,
    access: o.access,
    budget: new AskBudget(redis, prefix, budget),
    store,
    slack,
    logger,
    now,
    answers: answerQueue,
    metrics,
    ...(o.scopeFor ? { scopeFor: o.scopeFor } : {}),
    ...(o.expertsFor ? { hasExperts: async (c: string) => (await o.expertsFor!(c)) !== undefined } : {}),
  };
  return { ask, answer };
}
