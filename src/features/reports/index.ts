/**
 * The reports feature: `/docs-visitors` and every report it answers — the visitor report (human vs
 * AI per page), the reader-signal reports (searches, feedback, questions) and the weekly digest per
 * channel (BullMQ job schedulers, a chart, "Improve with agent"). The reports page in place on one
 * Redis cache and one hourly analytics budget; digests and Improve start jobs through agent-jobs.
 */
import type { App } from '@slack/bolt';
import type { Queue, Worker } from 'bullmq';
import type { AccessGate } from '../../platform/access.js';
import { docsProjects, type Config } from '../../platform/config.js';
import { Quota } from '../../platform/quota.js';
import type { Platform } from '../../platform/runtime.js';
import { slackDateText } from '../../platform/slack/dates.js';
import { registerSubcommandHandler } from './command.js';
import { registerHandlers as registerDigestHandlers } from './digests/handlers.js';
import { register as registerDigestListeners } from './digests/listeners.js';
import { createDigestQuotas } from './digests/quotas.js';
import type { SlackQuestions } from './digests/reader-content.js';
import { describeSchedule } from '../../platform/calendar.js';
import type { DigestSchedule } from './digests/schedule.js';
import { describeSections } from './digests/sections.js';
import { getSubscription, removeInstallationSubscriptions, type DigestJobData } from './digests/store.js';
import { digestSubcommands } from './digests/subcommands.js';
import { createDigestQueue, startDigestWorker } from './digests/worker.js';
import { REPORT_CLICKS_PER_MINUTE } from './handler-kit.js';
import { registerHandlers } from './handlers.js';
import { register as registerListeners } from './listeners.js';
import { createReportServices, visitorsKeyPrefix } from './service.js';

/** What the reports feature is built from: the platform, its configuration, and what is built before it. */
export interface ReportsOptions {
  /**
   * The docs API's analytics calls, Redis (the cache, the analytics budget, the click quota), the
   * digests' queue and job schedulers on `queues`, `slack.web`, `conversations` (a report's channel,
   * "Improve with agent" needs the person in it), the signer (paging values, buttons, modals).
   */
  platform: Pick<
    Platform,
    | 'redis'
    | 'prefix'
    | 'docsApi'
    | 'queues'
    | 'intake'
    | 'slack'
    | 'conversations'
    | 'signer'
    | 'logger'
    | 'now'
    | 'workspaces'
  > &
    /** Each workspace's docs projects (DOCS_WORKSPACE_PROJECTS); absent: the configured ones. */
    Partial<Pick<Platform, 'docsWorkspaces'>>;
  /** The docs projects (DOCS_PROJECT_ID: a report's default), ANALYTICS_CALLS_PER_USER_PER_HOUR, DIGEST_CRON and DIGEST_TZ (the default schedule). */
  config: Pick<
    Config,
    'DOCS_PROJECT_ID' | 'DOCS_PROJECT_IDS' | 'ANALYTICS_CALLS_PER_USER_PER_HOUR' | 'DIGEST_CRON' | 'DIGEST_TZ'
  >;
  /** Who may read reports, manage digests and start jobs from "Improve with agent". */
  access: AccessGate;
  /** The docs project of a channel (the settings feature). */
  projectFor: (channel: string) => Promise<string>;
  /** The ask feature's unanswered questions of a channel, for "Asked in Slack, not answered by the docs" (absent: none). */
  slackQuestions?: SlackQuestions;
}

/** The running feature, as the composition root holds it. */
export interface Reports {
  digestQueue: Queue<DigestJobData>;
  /**
   * A channel's digest subscription in words ("Mondays at 09:00 UTC, next …, subscribed by …", or
   * "none"), for `/docs-settings`. @throws the Redis error.
   */
  describeSubscription(teamId: string, channel: string): Promise<string>;
  /**
   * OAuth mode, on `app_uninstalled`: removes the digest subscriptions of installation `slot`
   * (`team:T…` / `enterprise:E…`; digests/store.ts removeInstallationSubscriptions).
   * @throws the BullMQ/Redis error.
   */
  forgetInstallation(slot: string): Promise<{ removed: number; capped: boolean }>;
  /** Registers `/docs-visitors`, the reports' paging, menu and Retry buttons, the digest buttons and the Improve modals. */
  register(app: App): void;
  /** Starts the digest worker. */
  startWorkers(): Worker[];
  close(): Promise<void>;
}

/** Builds the reports feature and registers its intake handlers (reports, paging, Retry, digests). */
export function createReports(o: ReportsOptions): Reports {
  const { redis, prefix, docsApi, queues, intake, conversations, signer, now, workspaces } = o.platform;
  const { config, access, projectFor } = o;
  const slack = o.platform.slack.web;
  const { docsWorkspaces } = o.platform;
  const projects = docsWorkspaces?.mapped ? () => docsWorkspaces.current() : docsProjects(config);
  const analyticsPerUser = config.ANALYTICS_CALLS_PER_USER_PER_HOUR;
  const services = createReportServices({
    ...{ redis, prefix, docsApi, projectId: config.DOCS_PROJECT_ID, analyticsPerUser },
    ...{ logger: o.platform.logger, now, signer },
  });
  const clicks = new Quota(redis, {
    keyPrefix: `${visitorsKeyPrefix(prefix)}:clicks`,
    points: REPORT_CLICKS_PER_MINUTE,
    durationS: 60,
  });
  const reportDeps = {
    services,
    slack,
    redis,
    prefix,
    now,
    projectFor,
    projects,
    defaultProject: config.DOCS_PROJECT_ID,
  };
  registerHandlers(intake, { ...reportDeps, access, conversations, clicks });

  const logger = o.platform.logger.child({ feature: 'digests' });
  const defaultSchedule: DigestSchedule = { pattern: config.DIGEST_CRON, tz: config.DIGEST_TZ };
  const digestQueue = createDigestQueue(queues);
  const common = { digestQueue, defaultSchedule, logger, now };
  const quotas = createDigestQuotas(redis, prefix);
  registerDigestHandlers(intake, { ...common, slack, access, conversations, signer, quotas });
  const subcommands = digestSubcommands({ ...common, slack, conversations, quotas });
  registerSubcommandHandler(intake, { subcommands, access, logger });
  const workerDeps = {
    ...{ visitors: services, redis, prefix, digestQueue, slack, projectFor, signer, workspaces, logger },
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
    forgetInstallation: (slot) => removeInstallationSubscriptions(digestQueue, slot),
    register: (app) => {
      registerListeners(app, { intake, logger: services.logger, subcommands });
      registerDigestListeners(app, { intake, slack, access, conversations, signer, logger, projects });
    },
    startWorkers: () => [
      startDigestWorker(queues, { ...workerDeps, defaultTz: defaultSchedule.tz }, now, o.platform.slack),
    ],
    close: () => digestQueue.close(),
  };
}
