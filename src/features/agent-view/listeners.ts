import type { AllMiddlewareArgs, App, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { INTAKE, type PromptsIntake } from './intake.js';
import { recordEvent } from '../../platform/slack/record-and-ack.js';

/** What the listeners need: they check the event's shape, record it and let Bolt ack. */
export interface AgentViewListenerDeps {
  intake: Pick<Intake, 'record'>;
  logger: Logger;
}

const USER_ID = /^[UW][A-Z0-9]{2,20}$/;
const DM_ID = /^D[A-Z0-9]{2,20}$/;
const CHANNEL_ID = /^[CG][A-Z0-9]{2,20}$/;

/**
 * The channel a person is viewing, from an event's `context.entities` (Slack: app_context_changed,
 * "entities are ordered by relevance"; @slack/types `AppContextChangedEvent`): the first
 * `slack#/types/channel_id`, or the channel of a `slack#/types/message_context`. Anything else
 * (canvases, lists, another workspace's channel, malformed entries) is not a channel to offer.
 */
export function viewedChannel(context: unknown, teamId: string): string | undefined {
  const entities = (context as { entities?: unknown } | null | undefined)?.entities;
  if (!Array.isArray(entities)) return undefined;
  for (const e of entities.slice(0, 20) as Array<Record<string, unknown> | null>) {
    if (!e || typeof e !== 'object') continue;
    if (typeof e.team_id === 'string' && e.team_id !== teamId) continue;
    const value = e.type === 'slack#/types/channel_id' ? e.value : e.type === 'slack#/types/message_context' ? (e.value as { channel_id?: unknown } | null)?.channel_id : undefined;
    if (typeof value === 'string' && CHANNEL_ID.test(value)) return value;
  }
  return undefined;
}

/**
 * Records a request for the Messages tab's suggestions (`agent-view.prompts`, id from the
 * `event_id`). A malformed event is dropped with a warning (and acked: Slack would only send it
 * again). When Redis would not record it, the shared {@link recordEvent} logs one warning and
 * throws: the event is then not acked (HTTP 503, counted as `busy`; in Socket Mode the envelope
 * stays unacked), so Slack delivers it again. Nobody is told on Slack's last retry: opening a tab
 * is no request a person waits on.
 * @throws {EventNotRecordedError} when Redis would not record it.
 */
async function recordPrompts(deps: AgentViewListenerDeps, body: unknown, e: { user?: unknown; channel?: unknown; context?: unknown }, what: string, retryNum: number | undefined): Promise<void> {
  const b = (body ?? {}) as { team_id?: unknown; event_id?: unknown };
  if (typeof b.team_id !== 'string' || typeof b.event_id !== 'string' || typeof e.user !== 'string' || !USER_ID.test(e.user) || typeof e.channel !== 'string' || !DM_ID.test(e.channel)) {
    deps.logger.warn({ event: what }, 'dropped a malformed agent view event');
    return;
  }
  const viewing = viewedChannel(e.context, b.team_id);
  const payload: PromptsIntake = { teamId: b.team_id, user: e.user, channel: e.channel, ...(viewing ? { viewing } : {}) };
  await recordEvent(deps.intake, deps.logger, { kind: INTAKE.prompts, id: `prompts-${b.event_id}`, requestId: b.event_id, payload, retryNum });
}

/** `app_home_opened` with `tab: "messages"`: the person opened the app's Messages tab (the agent's conversation). */
export function messagesTabOpened(deps: AgentViewListenerDeps) {
  return async ({ event, body, context }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs): Promise<void> => {
    if (event.tab !== 'messages') return;
    await recordPrompts(deps, body, event, 'app_home_opened', context?.retryNum);
  };
}

/** `app_context_changed` (agent view only): what the person looks at beside the app changed. */
export function appContextChanged(deps: AgentViewListenerDeps) {
  return async ({ event, body, context }: SlackEventMiddlewareArgs<'app_context_changed'> & AllMiddlewareArgs): Promise<void> => {
    await recordPrompts(deps, body, event, 'app_context_changed', context?.retryNum);
  };
}

/** Registers the agent view's events (declared in manifest.yml). */
export function register(app: App, deps: AgentViewListenerDeps): void {
  app.event('app_home_opened', messagesTabOpened(deps));
  app.event('app_context_changed', appContextChanged(deps));
}
