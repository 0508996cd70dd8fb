/**
 * The visitors feature: `/docs-visitors` reports (human vs AI per page, paged in place) over a
 * Redis cache and an hourly analytics budget. Other features (digests) use it only through this
 * module; it knows no feature above it (digests owns the `/docs-visitors` command and routes
 * reports here).
 */
import type { App } from '@slack/bolt';
import { docsProjects, type Config } from '../../platform/config.js';
import type { Platform } from '../../platform/runtime.js';
import { registerHandlers, type VisitorsHandlerDeps } from './handlers.js';
import { Quota } from '../../platform/quota.js';
import { REPORT_CLICKS_PER_MINUTE } from './handler-kit.js';
import { createVisitorsServices, visitorsKeyPrefix, type VisitorsServices } from './service.js';
import { register as registerListeners } from './listeners.js';

export { authorizeOrTell } from './handlers.js';
export {
  INTAKE as VISITORS_INTAKE,
  type Caller,
  type ReportIntake,
  type SignalReportIntake,
  type SubcommandIntake,
  type VisitorsSubcommands,
} from './intake.js';
export { helpText, parseVisitorsCommand } from './query.js';
export { visitorsKeyPrefix, type VisitorsServices, type VisitorsServicesOptions } from './service.js';
export type { AnalyticsCache } from './store.js';
export { digestRanges, formatRange, type DateRange } from './date-range.js';
export { LIMIT_MAX } from './query.js';
export { visitorsErrorText } from './error-text.js';
export { AnalyticsBudgetError, VisitorsErrorCode } from './budget.js';
export {
  codeSafe,
  countOf,
  inlineReaderPath,
  readerPath,
  formatChange,
  formatCount,
  formatShare,
  middleTruncate,
  pad,
  percentChange,
} from './format.js';
export { docsPathOf, isSafeDocsPath, SAFE_DOCS_PATH } from './safe-path.js';
export {
  ACTION_SIGNAL_IMPROVE_PREFIX,
  cutQuoted,
  decodeSignalImprove,
  encodeSignalImprove,
  SIGNAL_IMPROVE_PURPOSE,
  signalInstruction,
  type QuotedSignal,
  type Signal,
  type SignalImprove,
  type SignalImproveInput,
} from './signals/improve.js';
export { readFeedbackByPage, readSearches, type QueryCaller } from './queries.js';
export { readComments, readUnanswered, type Comment, type UnansweredTurn } from './signals/data.js';
export {
  groupQuestions,
  isUnclicked,
  pagesByThumbsDown,
  questionKey,
  type PageFeedback,
  type QuestionGroup,
  type ShownComment,
} from './signals/group.js';
export { FEEDBACK_PAGES_LIMIT, inlinePath, SEARCHES_LIMIT, shortDay } from './signals/views.js';

/** What the visitors feature is built from: the platform, its configuration, and what is built before it. */
export interface VisitorsOptions extends Pick<VisitorsHandlerDeps, 'access' | 'projectFor'> {
  /** The docs API's analytics calls, Redis (the cache and the analytics budget), `slack.web`, the signer. */
  platform: Pick<
    Platform,
    'redis' | 'prefix' | 'docsApi' | 'intake' | 'slack' | 'conversations' | 'signer' | 'logger' | 'now'
  > &
    /** Each workspace's docs projects (DOCS_WORKSPACE_PROJECTS); absent: the configured ones. */
    Partial<Pick<Platform, 'docsWorkspaces'>>;
  /** The docs projects (DOCS_PROJECT_ID: a report's default) and ANALYTICS_CALLS_PER_USER_PER_HOUR. */
  config: Pick<Config, 'DOCS_PROJECT_ID' | 'DOCS_PROJECT_IDS' | 'ANALYTICS_CALLS_PER_USER_PER_HOUR'>;
}

/** The running feature, as the composition root holds it. */
export interface Visitors {
  /** The cache, the analytics budget and the report loader (the digests feature reads through them). */
  services: VisitorsServices;
  /** Registers the report's paging and Retry buttons (`/docs-visitors` itself is the digests feature's). */
  register(app: App): void;
}

/** Builds the visitors feature and registers its intake handlers (reports, paging, Retry). */
export function createVisitors(o: VisitorsOptions): Visitors {
  const { redis, prefix, docsApi, intake, conversations, signer, logger, now } = o.platform;
  const { config, access, projectFor } = o;
  const analyticsPerUser = config.ANALYTICS_CALLS_PER_USER_PER_HOUR;
  const options = { redis, prefix, docsApi, projectId: config.DOCS_PROJECT_ID, analyticsPerUser, logger, now, signer };
  const services = createVisitorsServices(options);
  const slack = o.platform.slack.web;
  const { docsWorkspaces } = o.platform;
  const projects = docsWorkspaces?.mapped ? () => docsWorkspaces.current() : docsProjects(config);
  const clicks = new Quota(redis, {
    keyPrefix: `${visitorsKeyPrefix(prefix)}:clicks`,
    points: REPORT_CLICKS_PER_MINUTE,
    durationS: 60,
  });
  const common = { services, slack, redis, prefix, now, projectFor, projects, defaultProject: config.DOCS_PROJECT_ID };
  registerHandlers(intake, { ...common, access, conversations, clicks });
  return { services, register: (app) => registerListeners(app, { intake, logger: services.logger }) };
}
