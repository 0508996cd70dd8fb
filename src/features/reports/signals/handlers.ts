import type { Intake } from '../../../platform/intake.js';
import { CANNOT_POST, INVITE_FIRST, slackErrorCode } from '../../../platform/slack/errors.js';
import { respondVia } from '../../../platform/slack/respond.js';
import {
  authorizeOrTell,
  clickAllowed,
  clickedState,
  clickerMayRead,
  editReport,
  postOrEdit,
  postReport,
  reportScope,
  respondTo,
  STALE_BUTTON,
  tellClicker,
  type VisitorsHandlerDeps,
} from '../handler-kit.js';
import { INTAKE, type ButtonIntake, type SignalReportIntake } from '../intake.js';
import { buildSignalErrorMessage, loadSignalReport } from './load.js';
import { openSignalState, SIGNAL_ACTIONS, type SignalState } from './state.js';

/**
 * The intake handlers of the searches, feedback and questions reports: the command, Previous / Next
 * (edited in place) and Retry. Every one asks the access gate first (`read_reports`, like the
 * visitor report: a refusal costs no API call); a click also re-checks that the clicker is in the
 * report's channel.
 */

/** Registers the handlers of the three reports. */
export function registerSignalHandlers(intake: Pick<Intake, 'on'>, deps: VisitorsHandlerDeps): void {
  intake.on(INTAKE.signalReport, async (p) => {
    const { user, channel } = p.caller;
    if (!(await authorizeOrTell(deps, user, 'read_reports', channel, p.responseUrl))) return;
    if (await clickAllowed(deps, user, p.responseUrl)) await runSignalReport(deps, p);
  });
  intake.on(INTAKE.signalPage, async (p) => {
    if (await clickerMayRead(deps, p.user, p.channel, p.responseUrl)) await signalPage(deps, p);
  });
  intake.on(INTAKE.signalRetry, async (p) => {
    if (await clickerMayRead(deps, p.user, p.channel, p.responseUrl)) await signalRetry(deps, p);
  });
}

/** `/docs-visitors searches|feedback|questions …`: the first window of the first API page, posted. */
async function runSignalReport(deps: VisitorsHandlerDeps, p: SignalReportIntake): Promise<void> {
  const respond = respondVia(p.responseUrl);
  const scope = await reportScope(deps, p.caller, p.range);
  if (!scope.ok) return respond({ response_type: 'ephemeral', text: scope.message });
  const { user, channel } = p.caller;
  const state: SignalState = {
    report: p.report,
    ...scope.range,
    rows: p.limit,
    cursors: [],
    skip: 0,
    requester: user,
    channel,
    projectId: scope.projectId,
  };
  const loaded = await loadSignalReport(deps.services, state, { user, channel, tz: scope.tz });
  if (!loaded.ok) {
    return respond({
      response_type: 'ephemeral',
      ...buildSignalErrorMessage(loaded.text, state, loaded.retryable, deps.services.signer),
    });
  }
  await postReport(deps, channel, loaded.message, respond);
}

/** Previous / Next: the neighbouring window or API page, edited in place; a failure is told to the clicker. */
async function signalPage(deps: VisitorsHandlerDeps, p: ButtonIntake): Promise<void> {
  const respond = respondTo(p.responseUrl);
  const clicked = clickedState(deps, p, [SIGNAL_ACTIONS.previous, SIGNAL_ACTIONS.next], openSignalState);
  if ('refusal' in clicked || !p.channel || !p.messageTs) {
    const text = 'refusal' in clicked ? clicked.refusal : STALE_BUTTON;
    return respond({ response_type: 'ephemeral', replace_original: false, text });
  }
  const { channel, messageTs: ts } = p;
  const loaded = await loadSignalReport(deps.services, clicked.state, { user: p.user, channel });
  if (!loaded.ok) {
    const msg = buildSignalErrorMessage(
      loaded.text,
      { ...clicked.state, messageTs: ts },
      loaded.retryable,
      deps.services.signer,
    );
    return tellClicker(deps, { channel, user: p.user }, msg, respond);
  }
  await editReport(deps, { channel, ts }, loaded.message, respond);
}

/** Retry: loads again; edits the report it belongs to (or posts one) and removes the note, or replaces the note. */
async function signalRetry(deps: VisitorsHandlerDeps, p: ButtonIntake): Promise<void> {
  const respond = respondTo(p.responseUrl);
  const clicked = clickedState(deps, p, [SIGNAL_ACTIONS.retry], openSignalState);
  if ('refusal' in clicked || !p.channel) {
    const text = 'refusal' in clicked ? clicked.refusal : STALE_BUTTON;
    return respond({ response_type: 'ephemeral', replace_original: true, text });
  }
  const { messageTs, ...query } = clicked.state;
  // A new report is the clicker's; one edited in place keeps whoever asked for it.
  const state = { ...query, requester: messageTs ? (query.requester ?? p.user) : p.user };
  const loaded = await loadSignalReport(deps.services, state, { user: p.user, channel: p.channel });
  if (!loaded.ok) {
    const msg = buildSignalErrorMessage(loaded.text, clicked.state, loaded.retryable, deps.services.signer);
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
