/**
 * The digests feature: weekly visitor digests per channel on BullMQ job schedulers, with a chart
 * and "Improve with agent" buttons; its `/docs-visitors` subcommands plug into the visitors
 * command. Built on the visitors feature (its cache) and the agent-jobs feature (starting a job).
 */
import type { SlackQuestions } from './reader-content.js';
import type { App } from '@slack/bolt';
import type { Queue, Worker } from 'bullmq';
import type { AccessGate } from '../../platform/access.js';
import { docsProjects, type Config } from '../../platform/config.js';
import type { Platform } from '../../platform/runtime.js';
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

/** What the feature is built from: the platform, its configuration, and what is built before it. */
export interface DigestsOptions {
  /** The digests' queue and job schedulers on `queues`, `slack.web`, `conversations` ("Improve with agent" needs the person in the digest's channel), the signer (its buttons and modal). */
  platform: Pick<
    Platform,
    'queues' | 'intake' | 'redis' | 'prefix' | 'slack' | 'conversations' | 'signer' | 'logger' | 'now' | 'workspaces'
  > &
    /** Each workspace's docs projects (DOCS_WORKSPACE_PROJECTS); absent: the configured ones. */
    Partial<Pick<Platform, 'docsWorkspaces'>>;
  /** DIGEST_CRON and DIGEST_TZ (the default schedule); the docs projects. */
  config: Pick<Config, 'DIGEST_CRON' | 'DIGEST_TZ' | 'DOCS_PROJECT_ID' | 'DOCS_PROJECT_IDS'>;
  /** The visitors feature's services (its cache). */
  visitors: Pick<VisitorsServices, 'cache'>;
  /** Who may manage digests and start jobs from "Improve with agent". */
  access: AccessGate;
  /** The docs project of a channel (the settings feature). */
  projectFor: (channel: string) => Promise<string>;
  /** The ask feature's unanswered questions of a channel, for "Asked in Slack, not answered by the docs" (absent: none). */
  slackQuestions?: SlackQuestions;
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
  const { queues, intake, redis, prefix, conversations, signer, now, workspaces } = o.platform;
  const slack = o.platform.slack.web;
  const { access, projectFor } = o;
  const logger = o.platform.logger.child({ feature: 'digests' });
  const defaultSchedule: DigestSchedule = { pattern: o.config.DIGEST_CRON, tz: o.config.DIGEST_TZ };
  const digestQueue = createDigestQueue(queues);
  const common = { digestQueue, defaultSchedule, logger, now };
  const quotas = createDigestQuotas(redis, prefix);
  registerHandlers(intake, { ...common, slack, access, conversations, signer, quotas });
  const subcommands = digestSubcommands({ ...common, slack, conversations, quotas });
  registerSubcommandHandler(intake, { subcommands, access });
  const { docsWorkspaces } = o.platform;
  const projects = docsWorkspaces?.mapped ? () => docsWorkspaces.current() : docsProjects(o.config);
  const workerDeps = {
    visitors: o.visitors,
    redis,
    prefix,
    digestQueue,
    slack,
    projectFor,
    signer,
    workspaces,
    logger,
    ...(o.slackQuestions ? { slackQuestions: o.slackQuestions } : {}),
  };
  return {
    digestQueue,
    describeSubscription: async (teamId, channel) => {
      const sub = await getSubscription(digestQueue, teamId, channel);
      if (!sub) return 'none (`/docs-visitors subscribe` starts one)';
      const next = sub.nextRunMs !== undefined ? `, next ${slackDateText(sub.nextRunMs, sub.schedule.tz)}` : '';
      const what = `${describeSchedule(sub.schedule)}${next}, ${describeSections(sub.sections)}`;
      return `${what}, subscribed by <@${sub.requestedBy}>`;
    },
    register: (app) =>
      registerListeners(app, { intake, slack, access, conversations, signer, logger, subcommands, projects }),
    startWorkers: () => [
      startDigestWorker(queues, { ...workerDeps, defaultTz: defaultSchedule.tz }, now, o.platform.slack),
    ],
    close: () => digestQueue.close(),
  };
}
