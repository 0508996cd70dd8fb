import type { App } from '@slack/bolt';
import type { EventArgs } from '../../platform/slack/listener-args.js';
import type { Intake } from '../../platform/intake.js';
import { installationTeamId } from '../../platform/request-context.js';
import type { Logger } from '../../platform/logger.js';
import type { Quota } from '../../platform/quota.js';
import { INTAKE, type PromptsIntake } from './intake.js';
import { recordEvent } from '../../platform/slack/record-and-ack.js';

/** What the listeners need: they check the event's shape, record it and let Bolt ack. */
interface AgentViewListenerDeps {
  intake: Pick<Intake, 'record'>;
  logger: Logger;
  /** Each person's agent-view events ({@link AGENT_VIEW_EVENTS_PER_MINUTE} a minute, key `team:user`, shared in Redis); none: no limit. */
  perPerson?: Pick<Quota, 'take'>;
}

/** Agent-view events (Messages tab opened, context changed) handled per person per minute; the rest are ignored quietly. */
export const AGENT_VIEW_EVENTS_PER_MINUTE = 10;

/**
 * How long an agent-view event is kept to recognise Slack's redeliveries, in ms (Slack retries an
 * event nearly at once, after 1 minute and after 5 minutes): the record itself, with the channel the
 * person was looking at, goes as soon as it is handled.
 */
export const AGENT_VIEW_DEDUPE_WINDOW_MS = 10 * 60_000;

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
    const value =
      e.type === 'slack#/types/channel_id'
        ? e.value
        : e.type === 'slack#/types/message_context'
          ? (e.value as { channel_id?: unknown } | null)?.channel_id
          : undefined;
    if (typeof value === 'string' && CHANNEL_ID.test(value)) return value;
  }
  return undefined;
}

/**
 * Records a request for the Messages tab's suggestions (`agent-view.prompts`, id from the
 * `event_id`, kept {@link AGENT_VIEW_DEDUPE_WINDOW_MS} for deduplication only). A malformed event is
 * dropped with a warning (and acked: Slack would only send it again); so, quietly, is one over the
 * person's {@link AGENT_VIEW_EVENTS_PER_MINUTE}. When Redis would not record it, the shared {@link recordEvent} logs one warning and
 * throws: the event is then not acked (HTTP 503, counted as `busy`; in Socket Mode the envelope
 * stays unacked), so Slack delivers it again. Nobody is told on Slack's last retry: opening a tab
 * is no request a person waits on.
 * @throws {EventNotRecordedError} when Redis would not record it.
 */
async function recordPrompts(
  deps: AgentViewListenerDeps,
  body: unknown,
  e: { user?: unknown; channel?: unknown; context?: unknown },
  what: string,
  retryNum: number | undefined,
): Promise<void> {
  const b = (body ?? {}) as { team_id?: unknown; event_id?: unknown };
  if (
    typeof b.team_id !== 'string' ||
    typeof b.event_id !== 'string' ||
    typeof e.user !== 'string' ||
    !USER_ID.test(e.user) ||
    typeof e.channel !== 'string' ||
    !DM_ID.test(e.channel)
  ) {
    deps.logger.warn({ event: what }, 'dropped a malformed agent view event');
    return;
  }
  if (!(await withinPersonLimit(deps, b.team_id, e.user, what))) return;
  const viewing = viewedChannel(e.context, b.team_id);
  const payload: PromptsIntake = {
    teamId: installationTeamId(b.team_id),
    user: e.user,
    channel: e.channel,
    ...(viewing ? { viewing } : {}),
  };
  const entry = {
    kind: INTAKE.prompts,
    id: `prompts-${b.event_id}`,
    requestId: b.event_id,
    payload,
    retryNum,
    dedupeWindowMs: AGENT_VIEW_DEDUPE_WINDOW_MS,
  };
  await recordEvent(deps.intake, deps.logger, entry);
}

/**
 * Whether this person's event is within {@link AGENT_VIEW_EVENTS_PER_MINUTE}; over it, or when Redis
 * can't say, the event is ignored (a debug line, or a warning with the error): suggestions are a
 * nicety, and an event nobody waits on is not worth Slack reads beyond that.
 */
async function withinPersonLimit(
  deps: AgentViewListenerDeps,
  teamId: string,
  user: string,
  what: string,
): Promise<boolean> {
  if (!deps.perPerson) return true;
  try {
    if ((await deps.perPerson.take(`${teamId}:${user}`)).ok) return true;
    deps.logger.debug({ event: what, user }, 'agent view events over the per-person limit; ignored');
  } catch (err) {
    deps.logger.warn({ err, event: what }, 'could not count agent view events; ignored this one');
  }
  return false;
}

/** `app_home_opened` with `tab: "messages"`: the person opened the app's Messages tab (the agent's conversation). */
export function messagesTabOpened(deps: AgentViewListenerDeps) {
  return async ({ event, body, context }: EventArgs<'app_home_opened'>): Promise<void> => {
    if (event.tab !== 'messages') return;
    await recordPrompts(deps, body, event, 'app_home_opened', context?.retryNum);
  };
}

/** `app_context_changed` (agent view only): what the person looks at beside the app changed. */
export function appContextChanged(deps: AgentViewListenerDeps) {
  return async ({ event, body, context }: EventArgs<'app_context_changed'>): Promise<void> => {
    await recordPrompts(deps, body, event, 'app_context_changed', context?.retryNum);
  };
}

/** Registers the agent view's events (declared in manifest.yml). */
export function register(app: App, deps: AgentViewListenerDeps): void {
  app.event('app_home_opened', messagesTabOpened(deps));
  app.event('app_context_changed', appContextChanged(deps));
}
