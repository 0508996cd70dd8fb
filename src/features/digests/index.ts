/**
 * The digests feature: weekly visitor digests per channel on BullMQ job schedulers, with a chart
 * and "Improve with agent" buttons; its `/docs-visitors` subcommands plug into the visitors
 * command. Built on the visitors feature (its cache) and the agent-jobs feature (starting a job).
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { QueueContext } from '../../platform/queues.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import type { VisitorsServices } from '../visitors/index.js';
import { slackDateText } from '../../platform/slack/dates.js';
import { registerSubcommandHandler } from './command.js';
import { registerHandlers } from './handlers.js';
import { register as registerListeners } from './listeners.js';
import { describeSchedule, type DigestSchedule } from './schedule.js';
import { describeSections } from './sections.js';
import { getSubscription, type DigestJobData } from './store.js';
import { createDigestQuotas } from './quotas.js';
import { digestSubcommands } from './subcommands.js';
import { createDigestQueue, startDigestWorker } from './worker.js';

/** What the feature is built from. */
export interface DigestsOptions {
  queues: QueueContext;
  intake: Intake;
  redis: Redis;
  /** QUEUE_PREFIX. */
  prefix: string;
  visitors: Pick<VisitorsServices, 'cache'>;
  slack: WebClient;
  /** Who may manage digests and start jobs from "Improve with agent". */
  access: AccessGate;
  /**
   * "Improve with agent" and Retry need the person in the digest's channel; `subscriptions` lists
   * the channels they are in (their own conversation list, on the client that rejects 429s).
   */
  conversations: Pick<ConversationDirectory, 'isMember' | 'membershipsOf'>;
  /** Signs the "Improve with agent" buttons' values and the modal's metadata, and checks them. */
  signer: ValueSigner;
  /** DIGEST_CRON and DIGEST_TZ. */
  defaultSchedule: DigestSchedule;
  /** The docs project of a channel (the settings feature). */
  projectFor: (channel: string) => Promise<string>;
  /** The configured docs projects (DOCS_PROJECT_ID, then DOCS_PROJECT_IDS). */
  projects: readonly string[];
  logger: Logger;
  /** Clock in epoch ms. */
  now: () => number;
}

/** The running feature, as the composition root holds it. */
export interface Digests {
  digestQueue: Queue<DigestJobData>;
  /**
   * A channel's digest subscription in words ("Mondays at 09:00 UTC, next …, subscribed by …", or
   * "none"), for `/docs-settings`. @throws the Redis error.
   */
  describeSubscription(teamId: string, channel: string): Promise<string>;
  /** Registers `/docs-visitors` (reports go to the visitors feature), the digest buttons and the "Improve with agent" modal. */
  register(app: App): void;
  /** Starts the digest worker. */
  startWorkers(): Worker[];
  close(): Promise<void>;
}

/** Builds the digests feature and registers its intake handlers. */
export function createDigests(o: DigestsOptions): Digests {
  const logger = o.logger.child({ feature: 'digests' });
  const digestQueue = createDigestQueue(o.queues);
  const common = { digestQueue, defaultSchedule: o.defaultSchedule, logger, now: o.now };
  const quotas = createDigestQuotas(o.redis, o.prefix);
  const { slack, access, conversations, signer } = o;
  registerHandlers(o.intake, { ...common, slack, access, conversations, signer, quotas });
  const subcommands = digestSubcommands({ ...common, slack, conversations, quotas });
  registerSubcommandHandler(o.intake, { subcommands, access: o.access });
  return {
    digestQueue,
    describeSubscription: async (teamId, channel) => {
      const sub = await getSubscription(digestQueue, teamId, channel);
      if (!sub) return 'none (`/docs-visitors subscribe` starts one)';
      const next = sub.nextRunMs !== undefined ? `, next ${slackDateText(sub.nextRunMs, sub.schedule.tz)}` : '';
      const what = `${describeSchedule(sub.schedule)}${next}, ${describeSections(sub.sections)}`;
      return `${what}, subscribed by <@${sub.requestedBy}>`;
    },
    register: (app) => {
      const { intake, slack, access, conversations, signer } = o;
      const projects = o.projects;
      registerListeners(app, { intake, slack, access, conversations, signer, logger, subcommands, projects });
    },
    startWorkers: () => [
      startDigestWorker(
        o.queues,
        {
          visitors: o.visitors,
          redis: o.redis,
          prefix: o.prefix,
          digestQueue,
          slack: o.slack,
          defaultTz: o.defaultSchedule.tz,
          projectFor: o.projectFor,
          signer: o.signer,
          logger,
        },
        o.now,
      ),
    ],
    close: () => digestQueue.close(),
  };
}
