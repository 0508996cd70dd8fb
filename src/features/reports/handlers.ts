import type { Intake, IntakeKind } from '../../platform/intake.js';
import { respondVia } from '../../platform/slack/respond.js';
import { tellPrivately } from '../../platform/slack/tell.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { warnUnverified, type ValueSigner } from '../../platform/slack/signed-value.js';
import {
  authorizeOrTell,
  cannotPostText,
  clickAllowed,
  clickedState,
  clickerMayRead,
  editReport,
  knownProject,
  postOrEdit,
  postReport,
  reportScope,
  STALE_BUTTON,
  tellDeps,
  REPORT_TELL_FAILURE,
  UNVERIFIED_BUTTON,
  type ReportHandlerDeps,
} from './handler-kit.js';
import { INTAKE, type ButtonIntake, type Caller, type MenuIntake, type SignalReportIntake } from './intake.js';
import { isReportKind, MENU_PURPOSE, openMenuState, type ReportKind } from './menu.js';
import { rowBounds, type RangeSpec } from './query.js';
import { openPageState, PAGE_ACTIONS, type PageState } from './paging-value.js';
import { buildReportErrorMessage, loadReport, type LoadedReport, type ReportServices } from './service.js';
import type { CommonState, OpenedState } from './signed-state.js';
import { buildSignalErrorMessage, loadSignalReport } from './signals/load.js';
import { openSignalState, SIGNAL_ACTIONS, type SignalState } from './signals/state.js';

/**
 * The one handler flow of every paged report: the command (access gate, click quota, the dates in
 * the person's time zone, the first page posted), Previous / Next (the clicked page edited in place;
 * a failure told to the clicker with a Retry), Retry (the report edited or posted again) and the
 * menu (another report for the same dates, in place). A report is a {@link PagedReport}: its state,
 * its buttons and intake kinds, how it loads a page and how it says it could not.
 */

/** A message to post or edit. */
type Message = { text: string; blocks: unknown[] };

/** A report's command, recorded (`report`: which one, for a command that names it). */
type CommandIntake = { caller: Caller; range: RangeSpec; limit: number; responseUrl: string; report?: ReportKind };

/** What the one flow needs to know of a report (the visitor report, the signal reports). */
interface PagedReport<S extends CommonState, I extends CommandIntake = CommandIntake> {
  /** Its intake kinds: the command, Previous / Next, Retry. */
  kinds: {
    report: IntakeKind<I>;
    page: IntakeKind<ButtonIntake>;
    retry: IntakeKind<ButtonIntake>;
  };
  /** Its buttons (`action_id`s), each also the purpose its value is signed for. */
  actions: { previous: string; next: string; retry: string };
  /** The first page's state of `kind` for the dates, requester, channel and project of `base`, `rows` a page. */
  first(base: CommonState, rows: number, kind: ReportKind): S;
  /** The state a clicked value carries (signed-state.ts). */
  open(value: string | undefined, action: string, signer: Pick<ValueSigner, 'open'>): OpenedState<S>;
  /** A page, ready to post. Never throws for API, budget or Redis failures (`{ok:false}`). */
  load(
    svc: ReportServices,
    state: S,
    who: { user: string; channel: string; tz?: string | undefined },
  ): Promise<LoadedReport>;
  /** The ephemeral answer to a page that could not be loaded, with a signed Retry when `retryable`. */
  failed(text: string, state: S, retryable: boolean, signer: Pick<ValueSigner, 'sign'>): Message;
}

/** The visitor report (human vs AI per page): API pages by offset, shown in windows. */
const VISITOR_REPORT: PagedReport<PageState> = {
  kinds: { report: INTAKE.report, page: INTAKE.page, retry: INTAKE.retry },
  actions: PAGE_ACTIONS,
  first: (base, rows) => ({ ...base, limit: rows, offset: 0, skip: 0 }),
  open: openPageState,
  load: (svc, state, who) => loadReport(svc, state, who.user, who.tz),
  failed: buildReportErrorMessage,
};

/** The searches, feedback and questions reports: API pages by cursor, shown in windows. */
const SIGNAL_REPORT: PagedReport<SignalState, SignalReportIntake> = {
  kinds: { report: INTAKE.signalReport, page: INTAKE.signalPage, retry: INTAKE.signalRetry },
  actions: SIGNAL_ACTIONS,
  first: (base, rows, kind) => {
    // Only a signal report's command or a menu choice of one comes here.
    if (kind === 'visitors') throw new Error('the visitor report is no signal report');
    return { ...base, report: kind, rows, cursors: [], skip: 0 };
  },
  open: openSignalState,
  load: loadSignalReport,
  failed: buildSignalErrorMessage,
};

/**
 * Every report and its descriptor (one may serve several): the command records the row's intake
 * kind, the menu opens its first page; each descriptor is registered once (here and in listeners.ts).
 * A row's command intake has its own type (`any`): the flow reads only what every command has.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const PAGED_REPORTS: Readonly<Record<ReportKind, PagedReport<CommonState, any>>> = {
  visitors: VISITOR_REPORT,
  searches: SIGNAL_REPORT,
  feedback: SIGNAL_REPORT,
  questions: SIGNAL_REPORT,
};

/** Registers the reports' intake handlers: each paged report's, and the menu's. */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: ReportHandlerDeps): void {
  for (const r of new Set(Object.values(PAGED_REPORTS))) registerPagedReport(intake, deps, r);
  intake.on(INTAKE.menu, async (p) => {
    if (await clickerMayRead(deps, p.user, p.channel, p.responseUrl)) await switchReport(deps, p);
  });
}

/** Registers one report's command, paging and Retry (each asks the access gate first: a refusal costs no API call). */
function registerPagedReport<S extends CommonState, I extends CommandIntake>(
  intake: Pick<Intake, 'on'>,
  deps: ReportHandlerDeps,
  r: PagedReport<S, I>,
): void {
  intake.on(r.kinds.report, async (p) => {
    const { user, channel } = p.caller;
    if (!(await authorizeOrTell(tellDeps(deps), user, 'read_reports', channel, p.responseUrl))) return;
    if (await clickAllowed(deps, user, p.responseUrl)) await runReport(deps, r, p);
  });
  intake.on(r.kinds.page, async (p) => {
    if (await clickerMayRead(deps, p.user, p.channel, p.responseUrl)) await page(deps, r, p);
  });
  intake.on(r.kinds.retry, async (p) => {
    if (await clickerMayRead(deps, p.user, p.channel, p.responseUrl)) await retry(deps, r, p);
  });
}

/** A report: resolves the range in the person's time zone, loads its first page through the cache, posts it. */
async function runReport<S extends CommonState, I extends CommandIntake>(
  deps: ReportHandlerDeps,
  r: PagedReport<S, I>,
  p: I,
): Promise<void> {
  const respond = respondVia(p.responseUrl);
  const scope = await reportScope(deps, p.caller, p.range);
  if (!scope.ok) return respond({ response_type: 'ephemeral', text: scope.message });
  const { user, channel } = p.caller;
  const base = { ...scope.range, requester: user, channel, projectId: scope.projectId };
  const state = r.first(base, p.limit, p.report ?? 'visitors');
  const loaded = await r.load(deps.services, state, { user, channel, tz: scope.tz });
  if (!loaded.ok) {
    return respond({
      response_type: 'ephemeral',
      ...r.failed(loaded.text, state, loaded.retryable, deps.services.signer),
    });
  }
  await postReport(deps, channel, loaded.message, p.responseUrl);
}

/**
 * Previous / Next: reads the whole query from the button's value (no session: any replica, any
 * clicker), fetches the neighbouring page through the cache and edits the message in place. On
 * failure the clicker gets an ephemeral note with a Retry button; the report stays.
 */
async function page<S extends CommonState, I extends CommandIntake>(
  deps: ReportHandlerDeps,
  r: PagedReport<S, I>,
  p: ButtonIntake,
) {
  const respond = respondVia(p.responseUrl);
  const clicked = clickedState(deps, p, [r.actions.previous, r.actions.next], r.open);
  if ('refusal' in clicked || !p.channel || !p.messageTs) {
    const text = 'refusal' in clicked ? clicked.refusal : STALE_BUTTON;
    return respond({ response_type: 'ephemeral', replace_original: false, text });
  }
  const { channel, messageTs: ts } = p;
  const loaded = await r.load(deps.services, clicked.state, { user: p.user, channel });
  if (!loaded.ok) {
    const state = { ...clicked.state, messageTs: ts };
    const msg = r.failed(loaded.text, state, loaded.retryable, deps.services.signer);
    const to = { channel, user: p.user, responseUrl: p.responseUrl };
    return tellPrivately(tellDeps(deps), to, msg, { ...REPORT_TELL_FAILURE, prefer: 'ephemeral' });
  }
  await editReport(deps, { channel, ts }, loaded.message, p.responseUrl);
}

/**
 * Retry on a failed report (on an ephemeral message): loads the report again; on success edits the
 * report it belongs to (`messageTs` in the value) or posts a new one, and removes the ephemeral
 * note; on failure replaces the note with the new reason.
 */
async function retry<S extends CommonState, I extends CommandIntake>(
  deps: ReportHandlerDeps,
  r: PagedReport<S, I>,
  p: ButtonIntake,
) {
  const respond = respondVia(p.responseUrl);
  const clicked = clickedState(deps, p, [r.actions.retry], r.open);
  if ('refusal' in clicked || !p.channel) {
    const text = 'refusal' in clicked ? clicked.refusal : STALE_BUTTON;
    return respond({ response_type: 'ephemeral', replace_original: true, text });
  }
  const { messageTs, ...query } = clicked.state;
  // A new report is the clicker's; one edited in place keeps whoever asked for it.
  const state = { ...query, requester: messageTs ? (query.requester ?? p.user) : p.user } as S;
  const loaded = await r.load(deps.services, state, { user: p.user, channel: p.channel });
  if (!loaded.ok) {
    const msg = r.failed(loaded.text, clicked.state, loaded.retryable, deps.services.signer);
    return respond({ response_type: 'ephemeral', replace_original: true, ...msg });
  }
  try {
    await postOrEdit(deps, p.channel, messageTs, loaded.message);
  } catch (err) {
    const where = { slackError: slackErrorCode(err), channel: p.channel };
    deps.services.logger.warn({ err, ...where }, messageTs ? 'could not edit a report' : 'could not post a report');
    return respond({ response_type: 'ephemeral', replace_original: true, text: cannotPostText(err) });
  }
  await respond({ delete_original: true });
}

/**
 * A report chosen in a report's menu: the message is replaced in place by that report's first page
 * (its default rows per page), for the dates and the docs project of the report the menu sits on
 * (read from the menu's signed block_id), requested by whoever chose it.
 */
async function switchReport(deps: ReportHandlerDeps, p: MenuIntake): Promise<void> {
  const respond = respondVia(p.responseUrl);
  const c = chosen(deps, p);
  if ('refusal' in c || !p.channel || !p.messageTs) {
    const text = 'refusal' in c ? c.refusal : STALE_BUTTON;
    return respond({ response_type: 'ephemeral', replace_original: false, text });
  }
  const { channel, messageTs: ts } = p;
  const projectId = c.state.projectId ?? deps.services.defaultProjectId;
  const base = { dateFrom: c.state.dateFrom, dateTo: c.state.dateTo, requester: p.user, channel, projectId };
  const at = { user: p.user, channel, ts, responseUrl: p.responseUrl };
  return showFirst(deps, PAGED_REPORTS[c.report], base, c.report, at);
}

/** Replaces the message `at` with the first page of `kind` (its default rows a page), or tells the chooser why not. */
async function showFirst<S extends CommonState, I extends CommandIntake>(
  deps: ReportHandlerDeps,
  r: PagedReport<S, I>,
  base: CommonState,
  kind: ReportKind,
  at: { user: string; channel: string; ts: string; responseUrl: string | undefined },
): Promise<void> {
  const state = r.first(base, rowBounds(kind).default, kind);
  const loaded = await r.load(deps.services, state, { user: at.user, channel: at.channel });
  if (!loaded.ok) {
    const msg = r.failed(loaded.text, { ...state, messageTs: at.ts }, loaded.retryable, deps.services.signer);
    return tellPrivately(tellDeps(deps), at, msg, { ...REPORT_TELL_FAILURE, prefer: 'ephemeral' });
  }
  await editReport(deps, at, loaded.message, at.responseUrl);
}

/** The menu's state when the bot signed it, its project is configured and the choice is a report; else the answer. */
function chosen(deps: ReportHandlerDeps, p: MenuIntake) {
  if (!p.channel) return { refusal: STALE_BUTTON };
  const opened = openMenuState(p.blockId, p.channel, deps.services.signer);
  if (!opened.ok && opened.reason !== 'malformed') {
    warnUnverified(deps.services.logger, MENU_PURPOSE, opened.reason, { user: p.user });
    return { refusal: UNVERIFIED_BUTTON };
  }
  if (!opened.ok || !isReportKind(p.report) || !knownProject(deps, opened.state.projectId))
    return { refusal: STALE_BUTTON };
  return { state: opened.state, report: p.report };
}
