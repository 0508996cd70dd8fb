import type { KnownBlock } from '@slack/types';
import type { Deps } from '../deps.js';
import type { Logger } from '../logger.js';
import { SLACK_LIMITS, truncate } from '../slack/limits.js';
import { AnalyticsBudget } from './analytics-budget.js';
import { formatRange } from './date-range.js';
import { isRetryable, visitorsErrorText } from './error-text.js';
import { encodePageState, type PageState } from './paging-value.js';
import { buildReportMessage, type ReportMessage } from './report-blocks.js';
import { VisitorsCache } from './visitors-cache.js';

/** `action_id` of the Retry button on a failed report. */
export const ACTION_RETRY = 'visitors.report.retry';

/** The visitors services of one process: cache (with single flight) and budget, over `deps.redis`. */
export interface VisitorsServices {
  cache: VisitorsCache;
  budget: AnalyticsBudget;
  logger: Logger;
}

/** The parts of {@link Deps} the visitors feature reads. */
export type VisitorsDeps = Pick<Deps, 'config' | 'logger' | 'redis' | 'docsApi' | 'now'>;

const services = new WeakMap<VisitorsDeps, VisitorsServices>();

/**
 * The {@link VisitorsServices} for `deps` (built once per deps object). Redis keys live under
 * `${QUEUE_PREFIX}:visitors:`.
 */
export function visitorsServices(deps: VisitorsDeps): VisitorsServices {
  let s = services.get(deps);
  if (!s) {
    const keyPrefix = `${deps.config.QUEUE_PREFIX}:visitors`;
    const budget = new AnalyticsBudget(deps.redis, keyPrefix, deps.now);
    const logger = deps.logger.child({ feature: 'visitors' });
    const cache = new VisitorsCache({ docsApi: deps.docsApi, redis: deps.redis, keyPrefix, projectId: deps.config.DOCS_PROJECT_ID, budget, logger });
    s = { cache, budget, logger };
    services.set(deps, s);
  }
  return s;
}

/** A report ready to post, or why it could not be made (`text`: one sentence for people). */
export type LoadedReport =
  | { ok: true; message: ReportMessage; fromCache: boolean }
  | { ok: false; text: string; retryable: boolean; error: unknown };

/**
 * Fetches the API page of `state` (through the cache, interactive budget) and builds its report.
 * @returns never throws for API, budget or Redis failures; they come back as `{ok:false}`.
 */
export async function loadReport(svc: VisitorsServices, state: PageState): Promise<LoadedReport> {
  try {
    const got = await svc.cache.get({ dateFrom: state.dateFrom, dateTo: state.dateTo, limit: state.limit, offset: state.offset }, 'interactive');
    return { ok: true, message: buildReportMessage({ state, page: got.page, budgetUsed: got.budgetUsed }), fromCache: got.fromCache };
  } catch (error) {
    svc.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message } }, 'could not load a visitors report');
    return { ok: false, text: visitorsErrorText(error), retryable: isRetryable(error), error };
  }
}

/**
 * The ephemeral answer to a failed report: what happened and, when it may work later, a Retry
 * button carrying the whole query (plus `messageTs` when a report message should be edited).
 */
export function buildReportErrorMessage(text: string, state: PageState, retryable: boolean): { text: string; blocks: KnownBlock[] } {
  const what = `visitors for ${formatRange({ dateFrom: state.dateFrom, dateTo: state.dateTo })}`;
  const body = truncate(`:warning: I couldn't load the ${what}. ${text}`, SLACK_LIMITS.sectionText);
  const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: body } }];
  if (retryable) {
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Retry' }, action_id: ACTION_RETRY, value: encodePageState(state) }],
    });
  }
  return { text: `I couldn't load the ${what}. ${text}`, blocks };
}
