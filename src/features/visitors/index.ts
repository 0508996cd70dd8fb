/**
 * The visitors feature: `/docs-visitors` reports (human vs AI per page, paged in place) over a
 * Redis cache and an hourly analytics budget. Other features (digests) use it only through this
 * module; it knows no feature above it (digests owns the `/docs-visitors` command and routes
 * reports here).
 */
import type { App } from '@slack/bolt';
import type { Intake } from '../../platform/intake.js';
import { registerHandlers, type VisitorsHandlerDeps } from './handlers.js';
import { Quota } from '../../platform/quota.js';
import { REPORT_CLICKS_PER_MINUTE } from './handler-kit.js';
import {
  createVisitorsServices,
  visitorsKeyPrefix,
  type VisitorsServices,
  type VisitorsServicesOptions,
} from './service.js';
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
export { codeSafe, formatChange, formatCount, formatShare, middleTruncate, pad, percentChange } from './format.js';
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

/** What the visitors feature is built from. */
export interface VisitorsOptions
  extends
    VisitorsServicesOptions,
    Pick<VisitorsHandlerDeps, 'slack' | 'access' | 'conversations' | 'projectFor' | 'projects'> {
  /** Where reports and their buttons are recorded; the feature registers its handlers on it. */
  intake: Intake;
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
  const services = createVisitorsServices(o);
  const { slack, redis, prefix, now, projectFor, projects, access, conversations } = o;
  const clicks = new Quota(redis, {
    keyPrefix: `${visitorsKeyPrefix(prefix)}:clicks`,
    points: REPORT_CLICKS_PER_MINUTE,
    durationS: 60,
  });
  const common = { services, slack, redis, prefix, now, projectFor, projects };
  registerHandlers(o.intake, { ...common, access, conversations, clicks });
  return { services, register: (app) => registerListeners(app, { intake: o.intake, logger: services.logger }) };
}
