import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import type { AccessAction, AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import { CANNOT_POST, INVITE_FIRST, slackErrorCode } from '../../platform/slack/errors.js';
import { respondVia, type Respond } from '../../platform/slack/respond.js';
import { unverifiedValueText, warnUnverified } from '../../platform/slack/signed-value.js';
import type { ReportMessage } from './blocks.js';
import { openPageState, PAGE_PURPOSE, type PageState } from './paging-value.js';
import { resolveRange } from './query.js';
import { buildReportErrorMessage, loadReport, visitorsKeyPrefix, type VisitorsServices } from './service.js';
import { userTimeZone } from './user-time-zone.js';
import { INTAKE, type ReportIntake, type ButtonIntake } from './intake.js';

/** What the visitors handlers need. */
export interface VisitorsHandlerDeps {
  services: VisitorsServices;
  /** Posts and edits reports; users.info for the person's time zone. */
  slack: { chat: Pick<WebClient['chat'], 'postMessage' | 'update' | 'postEphemeral'>; users: Pick<WebClient['users'], 'info'> };
  /** The state Redis (the time-zone cache) and QUEUE_PREFIX. */
  redis: Redis;
  prefix: string;
  now: () => number;
  /** Reports are open to full members (guests and external users refused); subcommands ask for their own action. */
  access: Pick<AccessGate, 'authorize'>;
  /** The docs project of a channel (the settings feature). @throws the Redis error. */
  projectFor: (channel: string) => Promise<string>;
  /** The configured docs projects: a button naming another one (forged, or from a removed project) is not followed. */
  projects: readonly string[];
}

/** Answer to a button whose value can't be read (an old message, or a project no longer configured). */
export const STALE_BUTTON = 'This button belongs to an older report I can no longer read; run `/docs-visitors` again.';

/** Answer to a button whose value the bot did not sign (a report from before signing, or tampered). */
export const UNVERIFIED_BUTTON = unverifiedValueText('run `/docs-visitors` again');

/**
 * The query a clicked report button carries, when the bot signed it and its project is one it may
 * use; else the person's answer (a value the bot did not sign also logs a warning).
 */
function clickedState(deps: VisitorsHandlerDeps, p: ButtonIntake): { state: PageState } | { refusal: string } {
  const opened = openPageState(p.value, deps.services.signer);
  if (!opened.ok && opened.reason !== 'malformed') {
    warnUnverified(deps.services.logger, PAGE_PURPOSE, opened.reason, { user: p.user });
    return { refusal: UNVERIFIED_BUTTON };
  }
  const state = knownProject(deps, opened.ok ? opened.state : undefined);
  return state ? { state } : { refusal: STALE_BUTTON };
}

/** Registers the visitors intake handlers. */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: VisitorsHandlerDeps): void {
  intake.on<ReportIntake>(INTAKE.report, async (p) => {
    if (await authorizeOrTell(deps, p.caller.user, 'read_reports', p.caller.channel, p.responseUrl)) await runReport(deps, p);
  });
  intake.on<ButtonIntake>(INTAKE.page, async (p) => {
    if (await authorizeOrTell(deps, p.user, 'read_reports', p.channel ?? '', p.responseUrl)) await page(deps, p);
  });
  intake.on<ButtonIntake>(INTAKE.retry, async (p) => {
    if (await authorizeOrTell(deps, p.user, 'read_reports', p.channel ?? '', p.responseUrl)) await retry(deps, p);
  });
}

/** Asks the access gate; a refusal is told to the person only (through the response_url) and nothing else happens. */
export async function authorizeOrTell(deps: Pick<VisitorsHandlerDeps, 'access'>, user: string, action: AccessAction, channel: string, responseUrl: string | undefined): Promise<boolean> {
  const decision = await deps.access.authorize({ user }, action, channel);
  if (decision.allowed) return true;
  if (responseUrl) await respondVia(responseUrl)({ response_type: 'ephemeral', replace_original: false, text: decision.text }).catch(() => undefined); // the response_url is the only way to tell them; a refusal logs its own audit line
  return false;
}

/** A report: resolves the range in the person's time zone, loads it through the cache, posts it. */
async function runReport(deps: VisitorsHandlerDeps, p: ReportIntake): Promise<void> {
  const svc = deps.services;
  const respond = respondVia(p.responseUrl);
  const needsZone = !(p.range.type === 'dates' && p.range.to);
  const zone = needsZone ? await userTimeZone(deps.slack, deps.redis, visitorsKeyPrefix(deps.prefix), p.caller.user, svc.logger) : 'UTC';
  const resolved = resolveRange(p.range, deps.now(), zone);
  if (!resolved.ok) return respond({ response_type: 'ephemeral', text: resolved.message });
  const projectId = await deps.projectFor(p.caller.channel);
  const state = { ...resolved.range, limit: p.limit, offset: 0, skip: 0, requester: p.caller.user, projectId };
  const loaded = await loadReport(svc, state, p.caller.user, needsZone ? zone : undefined);
  const failed = (text: string, retryable: boolean) => buildReportErrorMessage(text, state, retryable, svc.signer);
  if (!loaded.ok) return respond({ response_type: 'ephemeral', ...failed(loaded.text, loaded.retryable) });
  try {
    await deps.slack.chat.postMessage({ channel: p.caller.channel, text: loaded.message.text, blocks: loaded.message.blocks, unfurl_links: false, unfurl_media: false });
  } catch (err) {
    const code = slackErrorCode(err);
    svc.logger.warn({ err, slackError: code, channel: p.caller.channel }, 'could not post a visitors report');
    await respond({ response_type: 'ephemeral', text: code && CANNOT_POST.has(code) ? INVITE_FIRST : 'Slack would not take the report; try again in a moment.' });
  }
}

/**
 * Previous / Next: reads the whole query from the button's value (no session: any replica, any
 * clicker), fetches the neighbouring page through the cache and edits the message in place. On
 * failure the clicker gets an ephemeral note with a Retry button; the report stays.
 */
async function page(deps: VisitorsHandlerDeps, p: ButtonIntake): Promise<void> {
  const respond: Respond = p.responseUrl ? respondVia(p.responseUrl) : async () => undefined;
  const clicked = clickedState(deps, p);
  const refusal = 'refusal' in clicked ? clicked.refusal : STALE_BUTTON;
  const stale = { response_type: 'ephemeral' as const, replace_original: false, text: refusal };
  if ('refusal' in clicked || !p.channel || !p.messageTs) return respond(stale);
  const { state } = clicked;
  const { channel, messageTs: ts } = p;
  const signer = deps.services.signer;
  const loaded = await loadReport(deps.services, state, p.user);
  if (!loaded.ok) {
    const msg = buildReportErrorMessage(loaded.text, { ...state, messageTs: ts }, loaded.retryable, signer);
    await deps.slack.chat.postEphemeral({ channel, user: p.user, ...msg }).catch(() => respond({ response_type: 'ephemeral', replace_original: false, ...msg }));
    return;
  }
  try {
    await deps.slack.chat.update({ channel, ts, text: loaded.message.text, blocks: loaded.message.blocks });
  } catch (err) {
    deps.services.logger.warn({ err, slackError: slackErrorCode(err), channel }, 'could not edit a visitors report');
    await respond({ response_type: 'ephemeral', replace_original: false, text: 'Slack would not let me edit the report; run `/docs-visitors` again.' });
  }
}

/**
 * Retry on a failed report (on an ephemeral message): loads the report again; on success edits the
 * report it belongs to (`messageTs` in the value) or posts a new one, and removes the ephemeral
 * note; on failure replaces the note with the new reason.
 */
async function retry(deps: VisitorsHandlerDeps, p: ButtonIntake): Promise<void> {
  const respond: Respond = p.responseUrl ? respondVia(p.responseUrl) : async () => undefined;
  const clicked = clickedState(deps, p);
  const refusal = 'refusal' in clicked ? clicked.refusal : STALE_BUTTON;
  const stale = { response_type: 'ephemeral' as const, replace_original: true, text: refusal };
  if ('refusal' in clicked || !p.channel) return respond(stale);
  const { state } = clicked;
  const { messageTs, ...query } = state;
  const loaded = await loadReport(deps.services, { ...query, requester: query.requester ?? p.user }, p.user);
  if (!loaded.ok) {
    const msg = buildReportErrorMessage(loaded.text, state, loaded.retryable, deps.services.signer);
    return respond({ response_type: 'ephemeral', replace_original: true, ...msg });
  }
  try {
    await postOrEdit(deps, p.channel, messageTs, loaded.message);
  } catch (err) {
    const code = slackErrorCode(err);
    const text = code && CANNOT_POST.has(code) ? INVITE_FIRST : 'Slack would not take the report; try again in a moment.';
    return respond({ response_type: 'ephemeral', replace_original: true, text });
  }
  await respond({ delete_original: true });
}

/**
 * A button's state when its project is one the bot may use: a report keeps the project it was made
 * for (the channel may have moved since); an unknown project (forged, or no longer configured)
 * makes the button stale.
 */
function knownProject(deps: Pick<VisitorsHandlerDeps, 'projects'>, state: PageState | undefined): PageState | undefined {
  if (state?.projectId !== undefined && !deps.projects.includes(state.projectId)) return undefined;
  return state;
}

async function postOrEdit(deps: VisitorsHandlerDeps, channel: string, messageTs: PageState['messageTs'], message: ReportMessage): Promise<void> {
  const content = { text: message.text, blocks: message.blocks };
  if (messageTs) await deps.slack.chat.update({ channel, ts: messageTs, ...content });
  else await deps.slack.chat.postMessage({ channel, ...content, unfurl_links: false, unfurl_media: false });
}
