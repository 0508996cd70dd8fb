import type { Intake } from '../../platform/intake.js';
import { CANNOT_POST, INVITE_FIRST, slackErrorCode } from '../../platform/slack/errors.js';
import { respondVia } from '../../platform/slack/respond.js';
import {
  authorizeOrTell,
  clickAllowed,
  clickedState,
  clickerMayRead,
  editReport,
  postReport,
  reportScope,
  postOrEdit,
  respondTo,
  STALE_BUTTON,
  tellClicker,
  type VisitorsHandlerDeps,
} from './handler-kit.js';
import { INTAKE, type ButtonIntake, type ReportIntake } from './intake.js';
import { registerMenuHandler } from './menu-handler.js';
import { openPageState, PAGE_ACTIONS, type PageState } from './paging-value.js';
import { buildReportErrorMessage, loadReport } from './service.js';
import { registerSignalHandlers } from './signals/handlers.js';

export { authorizeOrTell, STALE_BUTTON, UNVERIFIED_BUTTON, type VisitorsHandlerDeps } from './handler-kit.js';

/** Registers the visitors intake handlers: the visitor report, its buttons, the other reports and the menu. */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: VisitorsHandlerDeps): void {
  intake.on(INTAKE.report, async (p) => {
    const { user, channel } = p.caller;
    if (!(await authorizeOrTell(deps, user, 'read_reports', channel, p.responseUrl))) return;
    if (await clickAllowed(deps, user, p.responseUrl)) await runReport(deps, p);
  });
  intake.on(INTAKE.page, async (p) => {
    if (await clickerMayRead(deps, p.user, p.channel, p.responseUrl)) await page(deps, p);
  });
  intake.on(INTAKE.retry, async (p) => {
    if (await clickerMayRead(deps, p.user, p.channel, p.responseUrl)) await retry(deps, p);
  });
  registerSignalHandlers(intake, deps);
  registerMenuHandler(intake, deps);
}

/** A report: resolves the range in the person's time zone, loads it through the cache, posts it. */
async function runReport(deps: VisitorsHandlerDeps, p: ReportIntake): Promise<void> {
  const svc = deps.services;
  const respond = respondVia(p.responseUrl);
  const scope = await reportScope(deps, p.caller, p.range);
  if (!scope.ok) return respond({ response_type: 'ephemeral', text: scope.message });
  const state: PageState = {
    ...scope.range,
    limit: p.limit,
    offset: 0,
    skip: 0,
    requester: p.caller.user,
    channel: p.caller.channel,
    projectId: scope.projectId,
  };
  const loaded = await loadReport(svc, state, p.caller.user, scope.tz);
  const failed = (text: string, retryable: boolean) => buildReportErrorMessage(text, state, retryable, svc.signer);
  if (!loaded.ok) return respond({ response_type: 'ephemeral', ...failed(loaded.text, loaded.retryable) });
  await postReport(deps, p.caller.channel, loaded.message, respond);
}

/**
 * Previous / Next: reads the whole query from the button's value (no session: any replica, any
 * clicker), fetches the neighbouring page through the cache and edits the message in place. On
 * failure the clicker gets an ephemeral note with a Retry button; the report stays.
 */
async function page(deps: VisitorsHandlerDeps, p: ButtonIntake): Promise<void> {
  const respond = respondTo(p.responseUrl);
  const clicked = clickedState(deps, p, [PAGE_ACTIONS.previous, PAGE_ACTIONS.next], openPageState);
  const refusal = 'refusal' in clicked ? clicked.refusal : STALE_BUTTON;
  if ('refusal' in clicked || !p.channel || !p.messageTs) {
    return respond({ response_type: 'ephemeral', replace_original: false, text: refusal });
  }
  const { state } = clicked;
  const { channel, messageTs: ts } = p;
  const loaded = await loadReport(deps.services, state, p.user);
  if (!loaded.ok) {
    const msg = buildReportErrorMessage(
      loaded.text,
      { ...state, messageTs: ts },
      loaded.retryable,
      deps.services.signer,
    );
    return tellClicker(deps, { channel, user: p.user }, msg, respond);
  }
  await editReport(deps, { channel, ts }, loaded.message, respond);
}

/**
 * Retry on a failed report (on an ephemeral message): loads the report again; on success edits the
 * report it belongs to (`messageTs` in the value) or posts a new one, and removes the ephemeral
 * note; on failure replaces the note with the new reason.
 */
async function retry(deps: VisitorsHandlerDeps, p: ButtonIntake): Promise<void> {
  const respond = respondTo(p.responseUrl);
  const clicked = clickedState(deps, p, [PAGE_ACTIONS.retry], openPageState);
  const refusal = 'refusal' in clicked ? clicked.refusal : STALE_BUTTON;
  if ('refusal' in clicked || !p.channel)
    return respond({ response_type: 'ephemeral', replace_original: true, text: refusal });
  const { state } = clicked;
  const { messageTs, ...query } = state;
  // A new report is the clicker's; one edited in place keeps whoever asked for it.
  const requester = messageTs ? (query.requester ?? p.user) : p.user;
  const loaded = await loadReport(deps.services, { ...query, requester }, p.user);
  if (!loaded.ok) {
    const msg = buildReportErrorMessage(loaded.text, state, loaded.retryable, deps.services.signer);
    return respond({ response_type: 'ephemeral', replace_original: true, ...msg });
  }
  try {
    await postOrEdit(deps, p.channel, messageTs, loaded.message);
  } catch (err) {
    const code = slackErrorCode(err);
    const text =
      code && CANNOT_POST.has(code) ? INVITE_FIRST : 'Slack would not take the report; try again in a moment.';
    return respond({ response_type: 'ephemeral', replace_original: true, text });
  }
  await respond({ delete_original: true });
}
