import type { Intake } from '../../platform/intake.js';
import { warnUnverified } from '../../platform/slack/signed-value.js';
import {
  clickerMayRead,
  editReport,
  knownProject,
  respondTo,
  STALE_BUTTON,
  tellClicker,
  UNVERIFIED_BUTTON,
  type VisitorsHandlerDeps,
} from './handler-kit.js';
import { INTAKE, type MenuIntake } from './intake.js';
import { isReportKind, MENU_PURPOSE, openMenuState, type MenuState, type ReportKind } from './menu.js';
import { rowBounds } from './query.js';
import { buildReportErrorMessage, loadReport, type LoadedReport } from './service.js';
import { buildSignalErrorMessage, loadSignalReport } from './signals/load.js';

/**
 * A report chosen in a report's menu: the message is replaced in place by that report's first page,
 * for the dates and the docs project of the report the menu sits on (read from the menu's signed
 * block_id), requested by whoever chose it. Asks the access gate first (`read_reports`), then that
 * the chooser is in the channel (clickerMayRead).
 */
export function registerMenuHandler(intake: Pick<Intake, 'on'>, deps: VisitorsHandlerDeps): void {
  intake.on(INTAKE.menu, async (p) => {
    if (await clickerMayRead(deps, p.user, p.channel, p.responseUrl)) await switchReport(deps, p);
  });
}

/** The menu's state when the bot signed it, its project is configured and the choice is a report; else the answer. */
function chosen(
  deps: VisitorsHandlerDeps,
  p: MenuIntake,
): { state: MenuState; report: ReportKind } | { refusal: string } {
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

/** Loads the chosen report's first page (its default rows per page), or says why it could not. */
async function load(
  deps: VisitorsHandlerDeps,
  c: { state: MenuState; report: ReportKind },
  who: { user: string; channel: string; ts: string },
) {
  const base = {
    dateFrom: c.state.dateFrom,
    dateTo: c.state.dateTo,
    requester: who.user,
    channel: who.channel,
    projectId: c.state.projectId ?? deps.services.defaultProjectId,
  };
  const rows = rowBounds(c.report).default;
  const signer = deps.services.signer;
  let loaded: LoadedReport;
  let failure: (text: string, retryable: boolean) => { text: string; blocks: unknown[] };
  if (c.report === 'visitors') {
    const state = { ...base, limit: rows, offset: 0, skip: 0 };
    loaded = await loadReport(deps.services, state, who.user);
    failure = (text, retryable) => buildReportErrorMessage(text, { ...state, messageTs: who.ts }, retryable, signer);
  } else {
    const state = { ...base, report: c.report, rows, cursors: [], skip: 0 };
    loaded = await loadSignalReport(deps.services, state, { user: who.user, channel: who.channel });
    failure = (text, retryable) => buildSignalErrorMessage(text, { ...state, messageTs: who.ts }, retryable, signer);
  }
  return { loaded, failure };
}

async function switchReport(deps: VisitorsHandlerDeps, p: MenuIntake): Promise<void> {
  const respond = respondTo(p.responseUrl);
  const c = chosen(deps, p);
  if ('refusal' in c || !p.channel || !p.messageTs) {
    const text = 'refusal' in c ? c.refusal : STALE_BUTTON;
    return respond({ response_type: 'ephemeral', replace_original: false, text });
  }
  const { channel, messageTs: ts } = p;
  const { loaded, failure } = await load(deps, c, { user: p.user, channel, ts });
  if (!loaded.ok) return tellClicker(deps, { channel, user: p.user }, failure(loaded.text, loaded.retryable), respond);
  await editReport(deps, { channel, ts }, loaded.message, respond);
}
