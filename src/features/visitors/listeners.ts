import type { AllMiddlewareArgs, App, BlockAction, ButtonAction, RespondFn, SlackActionMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Redis } from 'ioredis';
import { CANNOT_POST, INVITE_FIRST, slackErrorCode } from '../../platform/slack/errors.js';
import { ACTION_NEXT, ACTION_PREVIOUS, type ReportMessage } from './blocks.js';
import { decodePageState, type PageState } from './paging-value.js';
import { helpText, parseVisitorsCommand, resolveRange, type RangeSpec } from './query.js';
import { ACTION_RETRY, buildReportErrorMessage, loadReport, visitorsKeyPrefix, type VisitorsServices } from './service.js';
import { userTimeZone } from './user-time-zone.js';

/** Who ran a command, where. */
export interface Caller {
  teamId: string;
  channel: string;
  user: string;
}

/**
 * `/docs-visitors <name> …` subcommands that another feature provides (digests: `subscribe`, …),
 * plugged in by the composition root so this feature needs not know them.
 */
export interface VisitorsSubcommands {
  /** Names handled, lower case. */
  names: readonly string[];
  /** Lines of `/docs-visitors help` (mrkdwn bullets) and examples (inline code). */
  helpLines: readonly string[];
  examples: readonly string[];
  /**
   * Checks the words after the name before the ack (pure: no network), so mistakes are answered in
   * the ack. @returns what to run after the ack, or the ephemeral answer for a mistake.
   */
  prepare(name: string, args: string[]): { ok: true; run(caller: Caller, respond: RespondFn): Promise<void> } | { ok: false; message: string };
}

/** What the visitors listeners need (built once in main.ts). */
export interface VisitorsListenerDeps {
  services: VisitorsServices;
  /** Posts and edits reports; users.info for the person's time zone. */
  slack: { chat: Pick<WebClient['chat'], 'postMessage' | 'update' | 'postEphemeral'>; users: Pick<WebClient['users'], 'info'> };
  /** The state Redis (the time-zone cache) and QUEUE_PREFIX. */
  redis: Redis;
  prefix: string;
  now: () => number;
  subcommands?: VisitorsSubcommands;
}

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;
type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/** Answer to a button whose value can't be read (an old or tampered message). */
export const STALE_BUTTON = 'This button belongs to an older report I can no longer read; run `/docs-visitors` again.';

/**
 * `/docs-visitors …`: acks at once (Slack: within 3 s). Help and every input mistake are answered
 * in the ack itself (ephemeral, no API call); reports and subcommands run after it.
 */
export function docsVisitorsCommand(deps: VisitorsListenerDeps) {
  const sub = deps.subcommands;
  return async ({ command, ack, respond }: CommandArgs): Promise<void> => {
    const cmd = parseVisitorsCommand(command.text ?? '', { subcommands: sub?.names ?? [] });
    if (cmd.kind === 'invalid' || cmd.kind === 'help') {
      await ack({ response_type: 'ephemeral', text: cmd.kind === 'help' ? helpText(sub?.helpLines, sub?.examples) : cmd.message });
      return;
    }
    const caller: Caller = { teamId: command.team_id, channel: command.channel_id, user: command.user_id };
    if (cmd.kind === 'subcommand' && sub) {
      const prepared = sub.prepare(cmd.name, cmd.args);
      if (!prepared.ok) {
        await ack({ response_type: 'ephemeral', text: prepared.message });
        return;
      }
      await ack();
      await prepared.run(caller, respond);
      return;
    }
    await ack();
    if (cmd.kind === 'report') await runReport(deps, respond, caller, cmd.range, cmd.limit);
  };
}

async function runReport(deps: VisitorsListenerDeps, respond: RespondFn, caller: Caller, spec: RangeSpec, limit: number): Promise<void> {
  const svc = deps.services;
  const needsZone = !(spec.type === 'dates' && spec.to);
  const zone = needsZone ? await userTimeZone(deps.slack, deps.redis, visitorsKeyPrefix(deps.prefix), caller.user, svc.logger) : 'UTC';
  const resolved = resolveRange(spec, deps.now(), zone);
  if (!resolved.ok) {
    await respond({ response_type: 'ephemeral', text: resolved.message });
    return;
  }
  const state = { ...resolved.range, limit, offset: 0, skip: 0, requester: caller.user };
  const loaded = await loadReport(svc, state);
  if (!loaded.ok) {
    await respond({ response_type: 'ephemeral', ...buildReportErrorMessage(loaded.text, state, loaded.retryable) });
    return;
  }
  try {
    await deps.slack.chat.postMessage({ channel: caller.channel, text: loaded.message.text, blocks: loaded.message.blocks, unfurl_links: false, unfurl_media: false });
  } catch (err) {
    const code = slackErrorCode(err);
    svc.logger.warn({ err, slackError: code, channel: caller.channel }, 'could not post a visitors report');
    await respond({ response_type: 'ephemeral', text: code && CANNOT_POST.has(code) ? INVITE_FIRST : 'Slack would not take the report; try again in a moment.' });
  }
}

function where(body: BlockAction): { channel?: string; ts?: string } {
  return { channel: body.channel?.id ?? body.container?.channel_id, ts: body.container?.message_ts ?? body.message?.ts };
}

/**
 * Previous / Next on a report (block_actions `visitors.page.previous` / `visitors.page.next`):
 * acks at once, reads the whole query from the button's value (no session: any replica, any
 * clicker), fetches the neighbouring page through the cache and edits the message in place with
 * chat.update. On failure the clicker gets an ephemeral note with a Retry button; the report stays.
 */
export function pageAction(deps: VisitorsListenerDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const state = decodePageState(action.value);
    const { channel, ts } = where(body);
    if (!state || !channel || !ts) {
      await respond({ response_type: 'ephemeral', replace_original: false, text: STALE_BUTTON });
      return;
    }
    const loaded = await loadReport(deps.services, state);
    if (!loaded.ok) {
      const msg = buildReportErrorMessage(loaded.text, { ...state, messageTs: ts }, loaded.retryable);
      await deps.slack.chat.postEphemeral({ channel, user: body.user.id, ...msg }).catch(() => respond({ response_type: 'ephemeral', replace_original: false, ...msg }));
      return;
    }
    try {
      await deps.slack.chat.update({ channel, ts, text: loaded.message.text, blocks: loaded.message.blocks });
    } catch (err) {
      deps.services.logger.warn({ err, slackError: slackErrorCode(err), channel }, 'could not edit a visitors report');
      await respond({ response_type: 'ephemeral', replace_original: false, text: 'Slack would not let me edit the report; run `/docs-visitors` again.' });
    }
  };
}

/**
 * Retry on a failed report (block_actions `visitors.report.retry`, on an ephemeral message): loads
 * the report again; on success edits the report it belongs to (`messageTs` in the value) or posts a
 * new one, and removes the ephemeral note; on failure replaces the note with the new reason.
 */
export function retryAction(deps: VisitorsListenerDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const state = decodePageState(action.value);
    const { channel } = where(body);
    if (!state || !channel) {
      await respond({ response_type: 'ephemeral', replace_original: true, text: STALE_BUTTON });
      return;
    }
    const { messageTs, ...query } = state;
    const loaded = await loadReport(deps.services, { ...query, requester: query.requester ?? body.user.id });
    if (!loaded.ok) {
      await respond({ response_type: 'ephemeral', replace_original: true, ...buildReportErrorMessage(loaded.text, state, loaded.retryable) });
      return;
    }
    try {
      await postOrEdit(deps, channel, messageTs, loaded.message);
    } catch (err) {
      const code = slackErrorCode(err);
      const text = code && CANNOT_POST.has(code) ? INVITE_FIRST : 'Slack would not take the report; try again in a moment.';
      await respond({ response_type: 'ephemeral', replace_original: true, text });
      return;
    }
    await respond({ delete_original: true });
  };
}

async function postOrEdit(deps: VisitorsListenerDeps, channel: string, messageTs: PageState['messageTs'], message: ReportMessage): Promise<void> {
  const content = { text: message.text, blocks: message.blocks };
  if (messageTs) await deps.slack.chat.update({ channel, ts: messageTs, ...content });
  else await deps.slack.chat.postMessage({ channel, ...content, unfurl_links: false, unfurl_media: false });
}

/** Registers `/docs-visitors` (with the subcommands plugged in) and its paging and Retry buttons. */
export function register(app: App, deps: VisitorsListenerDeps): void {
  app.command('/docs-visitors', docsVisitorsCommand(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_PREVIOUS, pageAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_NEXT, pageAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_RETRY, retryAction(deps));
}
