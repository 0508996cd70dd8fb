import type { KnownBlock } from '@slack/types';
import type { Redis } from 'ioredis';
import type { DocsApiProjects } from '../../platform/docs-api/client.js';
import type { Logger } from '../../platform/logger.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import { buildReportMessage, type ReportMessage, type ReportViews } from './blocks.js';
import { AnalyticsBudget } from './budget.js';
import { formatRange } from './date-range.js';
import { isRetryable, reportFailure, analyticsErrorText } from './error-text.js';
import { PAGE_ACTIONS, signPageState, type PageState } from './paging-value.js';
import { readViews } from './queries.js';
import { LIMIT_MAX } from './query.js';
import { AnalyticsCache, type AnalyticsApiCall } from './store.js';

/** The reports' services of one process: cache (with single flight) and budget, over the state Redis. */
export interface ReportServices {
  cache: AnalyticsCache;
  /** DOCS_PROJECT_ID: reports of other projects name theirs. */
  defaultProjectId: string;
  budget: AnalyticsBudget;
  logger: Logger;
  /** Clock in epoch ms. */
  now: () => number;
  /** Signs the report buttons' values and checks them when clicked. */
  signer: Pick<ValueSigner, 'sign' | 'open'>;
}

/** What {@link createReportServices} needs. */
interface ReportServicesOptions {
  redis: Redis;
  /** QUEUE_PREFIX; the feature's keys live under `${prefix}:visitors:`. */
  prefix: string;
  /** The analytics calls (visitors, views, searches, feedback, assistant). */
  docsApi: DocsApiProjects<AnalyticsApiCall>;
  /** DOCS_PROJECT_ID: the project of a report that names none. */
  projectId: string;
  /** ANALYTICS_CALLS_PER_USER_PER_HOUR (default 20). */
  analyticsPerUser?: number;
  logger: Logger;
  /** Clock in epoch ms. */
  now: () => number;
  /** Signs the report buttons' values and checks them when clicked. */
  signer: Pick<ValueSigner, 'sign' | 'open'>;
}

/** Builds the reports' services (once, in the composition root). */
export function createReportServices(o: ReportServicesOptions): ReportServices {
  const keyPrefix = visitorsKeyPrefix(o.prefix);
  const budget = new AnalyticsBudget(o.redis, keyPrefix, o.now, o.analyticsPerUser);
  const logger = o.logger.child({ feature: 'visitors' });
  const { docsApi, redis, projectId } = o;
  const cache = new AnalyticsCache({ docsApi, redis, keyPrefix, projectId, budget, logger });
  return { cache, budget, logger, defaultProjectId: o.projectId, now: o.now, signer: o.signer };
}

/** Prefix of the reports feature's Redis keys: `${QUEUE_PREFIX}:visitors` (the name they were made with). */
export function visitorsKeyPrefix(prefix: string): string {
  return `${prefix}:visitors`;
}

/** A report ready to post, or why it could not be made (`text`: one sentence for people). */
export type LoadedReport =
  | { ok: true; message: ReportMessage; fromCache: boolean }
  | { ok: false; text: string; retryable: boolean; error: unknown };

/** Views are read for the report's whole range at once (the API's largest page), shared by every page of the report. */
const VIEWS_LIMIT = LIMIT_MAX;

/**
 * Fetches the API page of `state` (of its project; through the cache, interactive budget), and the
 * views of its range beside it, and builds its report. The views are one more call for a range
 * (limit 250, offset 0: every page of the report and every report of the same dates share it) and
 * never fail the report: when they can't be read, the report says why instead.
 * @param user - who asked or clicked: an API call (not a cache hit) counts against their hourly share.
 * @param tz - their IANA zone when known (the fallback text of a "next free slot"); default UTC.
 * @returns never throws for API, budget or Redis failures; they come back as `{ok:false}`.
 */
export async function loadReport(
  svc: ReportServices,
  state: PageState,
  user: string,
  tz?: string,
): Promise<LoadedReport> {
  try {
    const q = { dateFrom: state.dateFrom, dateTo: state.dateTo, limit: state.limit, offset: state.offset };
    const got = await svc.cache.get(q, 'interactive', state.projectId, user);
    const views = await loadViews(svc, state, user, tz);
    const showProject = state.projectId !== undefined && state.projectId !== svc.defaultProjectId;
    const budgetUsed = Math.max(got.budgetUsed, views.budgetUsed ?? 0);
    const input = { state, page: got.page, views: views.views, budgetUsed, showProject, signer: svc.signer };
    const message = buildReportMessage(input);
    return { ok: true, message, fromCache: got.fromCache };
  } catch (error) {
    svc.logger.warn({ err: error }, 'could not load a visitors report');
    return { ok: false, text: analyticsErrorText(error, svc.now, tz), retryable: isRetryable(error), error };
  }
}

/** The views of the report's range by path, or why they are missing (never throws). */
async function loadViews(
  svc: ReportServices,
  state: PageState,
  user: string,
  tz: string | undefined,
): Promise<{ views: ReportViews; budgetUsed?: number }> {
  const q = { dateFrom: state.dateFrom, dateTo: state.dateTo, limit: VIEWS_LIMIT, offset: 0 };
  try {
    const got = await readViews(svc.cache, q, { purpose: 'interactive', projectId: state.projectId, user });
    const byPath = new Map(got.page.views.map((v) => [v.path, v.total]));
    return { views: { ok: true, byPath, totals: got.page.totals }, budgetUsed: got.budgetUsed };
  } catch (err) {
    svc.logger.warn({ err }, 'could not load the views of a visitors report; shown without them');
    return { views: { ok: false, reason: analyticsErrorText(err, svc.now, tz) } };
  }
}

/**
 * The ephemeral answer to a failed report: what happened and, when it may work later, a Retry
 * button carrying the whole query (plus `messageTs` when a report message should be edited), signed.
 */
export function buildReportErrorMessage(
  text: string,
  state: PageState,
  retryable: boolean,
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  const what = `visitors for ${formatRange({ dateFrom: state.dateFrom, dateTo: state.dateTo })}`;
  const retry = retryable
    ? { actionId: PAGE_ACTIONS.retry, value: signPageState(state, PAGE_ACTIONS.retry, signer) }
    : undefined;
  return reportFailure(what, text, retry);
}
