import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import type { AccessAction, AccessGate } from '../../platform/access.js';
import type { ConversationDirectory } from '../../platform/slack/conversations.js';
import { CANNOT_POST, cannotPostHereText, slackErrorCode } from '../../platform/slack/errors.js';
import type { Quota } from '../../platform/quota.js';
import { nextSlotText } from '../../platform/slack/dates.js';
import { checkMembership } from '../../platform/slack/member-check.js';
import { tellPrivately, type TellDeps } from '../../platform/slack/tell.js';
import { unverifiedValueText, warnUnverified } from '../../platform/slack/signed-value.js';
import type { DateRange } from './date-range.js';
import type { ButtonIntake, Caller } from './intake.js';
import { resolveRange, type RangeSpec } from './query.js';
import type { OpenedState } from './signed-state.js';
import { visitorsKeyPrefix, type ReportServices } from './service.js';
import { userTimeZone } from './user-time-zone.js';

/**
 * What every report handler shares: the access gate, the person's time zone and the report's dates,
 * posting a new report and editing one in place, and the answers to buttons that can't be read.
 */

/** What the reports' handlers need. */
export interface ReportHandlerDeps {
  services: ReportServices;
  /** Posts and edits reports; users.info for the person's time zone. */
  slack: {
    chat: Pick<WebClient['chat'], 'postMessage' | 'update' | 'postEphemeral'>;
    users: Pick<WebClient['users'], 'info'>;
  };
  /** The state Redis (the time-zone cache) and QUEUE_PREFIX. */
  redis: Redis;
  prefix: string;
  now: () => number;
  /** Reports are open to full members (guests and external users refused); subcommands ask for their own action. */
  access: Pick<AccessGate, 'authorize'>;
  /** The clicks on reports re-check that the clicker is in the channel. */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  /** Report clicks per person ({@link REPORT_CLICKS_PER_MINUTE}), shared by the replicas in Redis. */
  clicks: Pick<Quota, 'take'>;
  /** The docs project of a channel (the settings feature). @throws the Redis error. */
  projectFor: (channel: string) => Promise<string>;
  /**
   * The configured docs projects: a button naming another one (forged, or from a removed project)
   * is not followed. A function: the current workspace's (DOCS_WORKSPACE_PROJECTS), where a button
   * naming none stands for DOCS_PROJECT_ID (`defaultProject`) and must be the workspace's too.
   */
  projects: readonly string[] | (() => readonly string[]);
  /** DOCS_PROJECT_ID, with `projects` a function. */
  defaultProject?: string;
}

/** Answer to a button whose value can't be read (an old message, or a project no longer configured). */
export const STALE_BUTTON = 'This button belongs to an older report I can no longer read; run `/docs-visitors` again.';

/**
 * Reports and clicks on reports (paging, Retry, the menu) one person may ask for a minute: each
 * posts or edits a message (chat.postMessage, about one a second a channel; chat.update, Slack Tier
 * 3: about 50 a minute for the whole workspace, shared with the jobs' status messages), so one
 * person asking as fast as they can must not use them all.
 */
export const REPORT_CLICKS_PER_MINUTE = 20;

/** Answer to a report or click past {@link REPORT_CLICKS_PER_MINUTE} (the next free slot follows). */
export const CLICKS_USED =
  `You're asking for reports faster than I post them (${REPORT_CLICKS_PER_MINUTE} reports and clicks a minute), ` +
  'so I did nothing.';

/** Answer to a button clicked in another conversation than the report it was made for. */
export const OTHER_CONVERSATION_BUTTON =
  'This button belongs to a report in another conversation, so I did nothing. Run `/docs-visitors` here instead.';

/** Answer to a button whose value the bot did not sign (a report from before signing, or tampered). */
export const UNVERIFIED_BUTTON = unverifiedValueText('run `/docs-visitors` again');

/** Answer when Slack would not edit a report in place. */
export const CANNOT_EDIT = 'Slack would not let me edit the report; run `/docs-visitors` again.';

/**
 * Asks the access gate; a refusal is told to the person only (through the response_url, with the
 * platform's `tellPrivately`: a failure is the warn line {@link REPORT_TELL_FAILURE}) and nothing
 * else happens. `deps` carries the logger (and Slack client) of the telling too (the handlers'
 * {@link tellDeps}).
 */
export async function authorizeOrTell(
  deps: Pick<ReportHandlerDeps, 'access'> & TellDeps,
  user: string,
  action: AccessAction,
  channel: string,
  responseUrl: string | undefined,
): Promise<boolean> {
  const decision = await deps.access.authorize({ user }, action, channel);
  if (decision.allowed) return true;
  // The response_url is the only way to tell them; a refusal logs its own audit line.
  await tellPrivately(deps, { responseUrl }, decision.text, REPORT_TELL_FAILURE);
  return false;
}

/**
 * How the reports tell a person privately (the platform's `tellPrivately`'s options): the warn
 * line when that failed (an expired or used response_url).
 */
export const REPORT_TELL_FAILURE = { failure: 'could not tell the person about a report' };

/**
 * The platform's {@link TellDeps} of the reports' handlers: their Slack client (ephemerals) and
 * logger; with their access gate, what {@link authorizeOrTell} needs.
 */
export function tellDeps(deps: ReportHandlerDeps): TellDeps & Pick<ReportHandlerDeps, 'access'> {
  return { slack: deps.slack, logger: deps.services.logger, access: deps.access };
}

/**
 * A click on a report (paging, Retry, the menu): the access gate (`read_reports`), then the
 * clicker's membership of the report's channel, as every button that shows a channel's report
 * re-checks it (platform/slack/member-check.ts: fail closed, one
 * audit line per refusal). A refusal is told to the clicker only, and nothing is read.
 */
export async function clickerMayRead(
  deps: ReportHandlerDeps,
  user: string,
  channel: string | undefined,
  responseUrl: string | undefined,
): Promise<boolean> {
  if (!(await authorizeOrTell(tellDeps(deps), user, 'read_reports', channel ?? '', responseUrl))) return false;
  if (!(await clickAllowed(deps, user, responseUrl))) return false;
  if (!channel) return true; // no channel: the handler answers that the button is stale
  const asked = { channel, user, action: 'read_reports' as const };
  const member = await checkMembership(deps.conversations, deps.services.logger, asked);
  if (member.ok) return true;
  await tellPrivately(tellDeps(deps), { responseUrl }, member.text, REPORT_TELL_FAILURE);
  return false;
}

/**
 * Takes one of the person's reports and clicks a minute ({@link REPORT_CLICKS_PER_MINUTE}); past
 * them (or when Redis fails: fail closed) tells them why, privately, and returns false.
 */
export async function clickAllowed(
  deps: ReportHandlerDeps,
  user: string,
  responseUrl: string | undefined,
): Promise<boolean> {
  let text: string;
  try {
    const taken = await deps.clicks.take(user);
    if (taken.ok) return true;
    text = `${CLICKS_USED} ${nextSlotText(deps.now(), taken.msBeforeNext, undefined)}`;
  } catch (err) {
    deps.services.logger.warn({ err }, 'could not count a report click; refused');
    text = "I couldn't reach my database, so I did nothing; try again in a moment.";
  }
  await tellPrivately(tellDeps(deps), { responseUrl }, text, REPORT_TELL_FAILURE);
  return false;
}

/** True when `projectId` (a clicked value's) is absent or one the bot may use. */
export function knownProject(
  deps: Pick<ReportHandlerDeps, 'projects' | 'defaultProject'>,
  projectId: string | undefined,
): boolean {
  if (typeof deps.projects !== 'function') return projectId === undefined || deps.projects.includes(projectId);
  return deps.projects().includes(projectId ?? deps.defaultProject ?? '');
}

/**
 * The state a clicked report button carries, when the bot signed it for that button (one of
 * `actions`), for the channel it was clicked in, and its project is one it may use; else the
 * person's answer (a value the bot did not sign also logs a warning). A report keeps the project it
 * was made for (the channel may have moved since); an unknown project (forged, or no longer
 * configured) makes the button stale. Shared by the visitor report's buttons and the signal reports'.
 * @param open the report's opener of a signed value (e.g. `openPageState`, `openSignalState`).
 */
export function clickedState<A extends string, S extends { channel: string; projectId?: string | undefined }>(
  deps: Pick<ReportHandlerDeps, 'services' | 'projects' | 'defaultProject'>,
  p: ButtonIntake,
  actions: readonly A[],
  open: (value: string | undefined, action: A, signer: ReportServices['signer']) => OpenedState<S>,
): { state: S } | { refusal: string } {
  const action = actions.find((a) => a === p.actionId);
  if (!action) return { refusal: STALE_BUTTON };
  const opened = open(p.value, action, deps.services.signer);
  if (!opened.ok && opened.reason !== 'malformed') {
    warnUnverified(deps.services.logger, action, opened.reason, { user: p.user });
    return { refusal: UNVERIFIED_BUTTON };
  }
  if (!opened.ok || !knownProject(deps, opened.state.projectId)) return { refusal: STALE_BUTTON };
  if (opened.state.channel !== p.channel) return { refusal: OTHER_CONVERSATION_BUTTON };
  return { state: opened.state };
}

/**
 * The dates and docs project of a new report: the range resolved in the person's time zone (asked
 * of Slack only when the range depends on it), the channel's project.
 * @returns them, or the ephemeral answer for a FROM after today.
 * @throws the Redis error of the project lookup.
 */
export async function reportScope(
  deps: ReportHandlerDeps,
  caller: Caller,
  range: RangeSpec,
): Promise<{ ok: true; range: DateRange; projectId: string; tz?: string } | { ok: false; message: string }> {
  const needsZone = !(range.type === 'dates' && range.to);
  const prefix = visitorsKeyPrefix(deps.prefix);
  const zone = needsZone
    ? await userTimeZone(deps.slack, deps.redis, prefix, caller.user, deps.services.logger)
    : 'UTC';
  const resolved = resolveRange(range, deps.now(), zone);
  if (!resolved.ok) return resolved;
  const projectId = await deps.projectFor(caller.channel);
  return { ok: true, range: resolved.range, projectId, ...(needsZone ? { tz: zone } : {}) };
}

/** What to tell the person when Slack would not post a report: invite the bot first (or use another channel), or try again. */
export function cannotPostText(err: unknown): string {
  const code = slackErrorCode(err);
  return code && CANNOT_POST.has(code)
    ? cannotPostHereText(code)
    : 'Slack would not take the report; try again in a moment.';
}

/** Posts a new report in `channel` (no unfurls); a refusal is told privately through `responseUrl`. Never throws. */
export async function postReport(
  deps: ReportHandlerDeps,
  channel: string,
  message: { text: string; blocks: unknown[] },
  responseUrl: string | undefined,
): Promise<boolean> {
  try {
    await deps.slack.chat.postMessage({
      channel,
      text: message.text,
      blocks: message.blocks as never,
      unfurl_links: false,
      unfurl_media: false,
    });
    return true;
  } catch (err) {
    deps.services.logger.warn({ err, slackError: slackErrorCode(err), channel }, 'could not post a report');
    await tellPrivately(tellDeps(deps), { responseUrl }, cannotPostText(err), REPORT_TELL_FAILURE);
    return false;
  }
}

/** Edits a report in place (chat.update); a refusal is told privately through `responseUrl`. Never throws. */
export async function editReport(
  deps: ReportHandlerDeps,
  at: { channel: string; ts: string },
  message: { text: string; blocks: unknown[] },
  responseUrl: string | undefined,
): Promise<boolean> {
  try {
    await deps.slack.chat.update({
      channel: at.channel,
      ts: at.ts,
      text: message.text,
      blocks: message.blocks as never,
    });
    return true;
  } catch (err) {
    deps.services.logger.warn({ err, slackError: slackErrorCode(err), channel: at.channel }, 'could not edit a report');
    await tellPrivately(tellDeps(deps), { responseUrl }, CANNOT_EDIT, REPORT_TELL_FAILURE);
    return false;
  }
}

/** Edits the report `messageTs` in place, or posts a new one (no unfurls). @throws Slack's error. */
export async function postOrEdit(
  deps: ReportHandlerDeps,
  channel: string,
  messageTs: string | undefined,
  message: { text: string; blocks: unknown[] },
): Promise<void> {
  const content = { text: message.text, blocks: message.blocks as never };
  if (messageTs) await deps.slack.chat.update({ channel, ts: messageTs, ...content });
  else await deps.slack.chat.postMessage({ channel, ...content, unfurl_links: false, unfurl_media: false });
}
