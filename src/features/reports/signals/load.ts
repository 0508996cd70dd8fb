import type { KnownBlock } from '@slack/types';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { formatRange } from '../date-range.js';
import { isRetryable, reportFailure, analyticsErrorText } from '../error-text.js';
import { readFeedbackByPage, readSearches, type QueryCaller } from '../queries.js';
import type { LoadedReport, ReportServices } from '../service.js';
import { buildSignalMessage, type SignalPageView } from './blocks.js';
import { readComments, readUnanswered } from './data.js';
import { SIGNAL_ACTIONS, signSignalState, type SignalState } from './state.js';
import { FEEDBACK_PAGES_LIMIT, feedbackView, questionsView, SEARCHES_LIMIT, searchesView } from './views.js';

/** What each report is called in sentences ("I couldn't load the searches for …"). */
const REPORT_NOUN = { searches: 'searches', feedback: 'feedback', questions: 'unanswered questions' } as const;

/**
 * The API page `state` shows, through the cache (interactive budget, the person's share):
 * - searches: GET …/searches, {@link SEARCHES_LIMIT} terms from the last cursor: 1 call;
 * - feedback: GET …/feedback/by-page ({@link FEEDBACK_PAGES_LIMIT} pages: no paging or order in the
 *   spec, so they are ranked here) and GET …/feedback (the comments): 2 calls for the whole report;
 * - questions: GET …/assistant, 1000 turns from the last cursor: 1 call.
 * Every further window of the same API page is a cache hit.
 * @throws as AnalyticsCache.read.
 */
async function loadView(svc: ReportServices, state: SignalState, caller: QueryCaller) {
  const range = { dateFrom: state.dateFrom, dateTo: state.dateTo };
  const cursor = state.cursors.at(-1);
  let view: SignalPageView;
  let budgetUsed: number;
  let fromCache: boolean;
  switch (state.report) {
    case 'searches': {
      const got = await readSearches(svc.cache, { ...range, limit: SEARCHES_LIMIT, cursor }, caller);
      ({ budgetUsed, fromCache } = got);
      view = searchesView(got.page, state.cursors.length);
      break;
    }
    case 'feedback': {
      const byPage = await readFeedbackByPage(svc.cache, { ...range, limit: FEEDBACK_PAGES_LIMIT }, caller);
      const comments = await readComments(svc.cache, range, caller);
      budgetUsed = Math.max(byPage.budgetUsed, comments.budgetUsed);
      fromCache = byPage.fromCache && comments.fromCache;
      view = feedbackView(byPage.page, comments.page);
      break;
    }
    case 'questions': {
      const got = await readUnanswered(svc.cache, { ...range, cursor }, caller);
      ({ budgetUsed, fromCache } = got);
      view = questionsView(got.page, state.cursors.length);
      break;
    }
  }
  return { view, budgetUsed, fromCache };
}

/**
 * One window of a searches, feedback or questions report, ready to post or edit.
 * @param who.user - who asked or clicked (their hourly share pays for a call that is not cached).
 * @param who.channel - where the report is (or will be): every Improve button is bound to it.
 * @param who.tz - their IANA zone when known (the fallback text of a "next free slot").
 * @returns never throws for API, budget or Redis failures; they come back as `{ok:false}` (a refused
 *   cursor says the page expired and the report must be run again, with no Retry).
 */
export async function loadSignalReport(
  svc: ReportServices,
  state: SignalState,
  who: { user: string; channel: string; tz?: string | undefined },
): Promise<LoadedReport> {
  try {
    const caller: QueryCaller = { purpose: 'interactive', projectId: state.projectId, user: who.user };
    const { view, budgetUsed, fromCache } = await loadView(svc, state, caller);
    const showProject = state.projectId !== undefined && state.projectId !== svc.defaultProjectId;
    const message = buildSignalMessage(view, state, {
      channel: who.channel,
      signer: svc.signer,
      budgetUsed,
      showProject,
    });
    return { ok: true, message, fromCache };
  } catch (error) {
    svc.logger.warn({ err: error, report: state.report }, 'could not load a report');
    return { ok: false, text: analyticsErrorText(error, svc.now, who.tz), retryable: isRetryable(error), error };
  }
}

/**
 * The ephemeral answer to a report that could not be loaded: what happened and, when it may work
 * later, a Retry button carrying the whole query (plus `messageTs` when a report message should be
 * edited), signed.
 */
export function buildSignalErrorMessage(
  text: string,
  state: SignalState,
  retryable: boolean,
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  const value = retryable ? signSignalState(state, SIGNAL_ACTIONS.retry, signer) : undefined;
  const retry = value ? { actionId: SIGNAL_ACTIONS.retry, value } : undefined;
  return reportFailure(`${REPORT_NOUN[state.report]} for ${formatRange(state)}`, text, retry);
}
