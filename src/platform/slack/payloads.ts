import { z } from 'zod';

/**
 * Zod schemas of the request bodies the bot handles, checked at the edge before Bolt or any
 * listener reads them (Slack docs: "Slash commands", "Events API", "Interactivity payloads"). They
 * check only what the bot reads; unknown fields pass through. Ids are checked against Slack's id
 * shapes, so a forged id can never smuggle markup (`<!channel>`) into a message. Also the
 * workspaces a body names (`bodyTeamIds`, `requestTeamId`), read at the edge.
 */

/** A user id (`U…`, `W…` on Enterprise Grid, `B…` for some bot users). */
export const userId = z.string().regex(/^[UWB][A-Z0-9]{2,30}$/);
/** A conversation id: public `C…`, private `G…`, DM `D…`. */
export const channelId = z.string().regex(/^[CGD][A-Z0-9]{2,30}$/);
/** A workspace (`T…`) or enterprise (`E…`) id. */
export const teamId = z.string().regex(/^[TE][A-Z0-9]{2,30}$/);
/** A message timestamp: seconds, a dot, microseconds. */
export const messageTs = z.string().regex(/^\d{1,12}\.\d{1,9}$/);
const opaque = z.string().min(1).max(255);
const url = z
  .string()
  .max(3000)
  .regex(/^https:\/\/|^http:\/\/(127\.0\.0\.1|localhost)[:/]/);

/** A slash command (form fields, all strings). */
const commandPayload = z.looseObject({
  command: z.string().regex(/^\/[a-z0-9_-]{1,32}$/i),
  text: z.string().max(40_000),
  user_id: userId,
  channel_id: channelId,
  team_id: teamId,
  trigger_id: opaque,
  response_url: url,
});

const messageEvent = z.looseObject({
  type: z.literal('message'),
  channel: channelId,
  ts: messageTs,
  user: userId.optional(),
  text: z.string().max(100_000).optional(),
  thread_ts: messageTs.optional(),
  subtype: z.string().max(64).optional(),
  bot_id: z.string().max(64).optional(),
  channel_type: z.string().max(16).optional(),
});
const appMentionEvent = z.looseObject({
  type: z.literal('app_mention'),
  channel: channelId,
  ts: messageTs,
  user: userId.optional(),
  text: z.string().max(100_000),
  thread_ts: messageTs.optional(),
  bot_id: z.string().max(64).optional(),
});
const appHomeOpenedEvent = z.looseObject({
  type: z.literal('app_home_opened'),
  user: userId,
  tab: z.string().max(16).optional(),
});
/** Inner events the bot subscribes to; other types pass (and find no listener). */
const knownEvent = z.discriminatedUnion('type', [messageEvent, appMentionEvent, appHomeOpenedEvent]);
const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(['message', 'app_mention', 'app_home_opened']);

/**
 * What Bolt itself reads from any event before a listener runs (its getTypeAndConversation and
 * buildSource): `channel`, `user`, `item`, `subteam`… must be a string or an object where present,
 * never null (`'id' in null` throws inside Bolt, for event types the bot does not even handle).
 */
const record = z.looseObject({});
const anyEvent = z.looseObject({
  type: z.string().min(1).max(64),
  channel: z.union([z.string(), record]).optional(),
  channel_id: z.string().optional(),
  user: z.union([z.string(), record]).optional(),
  item: record.optional(),
  subteam: record.optional(),
  assistant_thread: record.optional(),
  message: record.optional(),
  previous_message: record.optional(),
});

/**
 * An Events API envelope. `team_id` is null only in an org-level event, which names its
 * `enterprise_id` (Slack's `team_access_granted` / `team_access_revoked`).
 */
const eventCallbackPayload = z
  .looseObject({
    type: z.literal('event_callback'),
    team_id: teamId.nullable(),
    enterprise_id: z
      .string()
      .regex(/^E[A-Z0-9]{2,30}$/)
      .nullable()
      .optional(),
    event_id: opaque,
    authorizations: z.array(record).optional(),
    event: anyEvent.refine((e) => !KNOWN_EVENT_TYPES.has(e.type) || knownEvent.safeParse(e).success, 'malformed event'),
  })
  .refine((b) => b.team_id !== null || typeof b.enterprise_id === 'string', 'an event of no workspace and no org');

const actor = z.looseObject({ id: userId });
const team = z.looseObject({ id: teamId }).nullable().optional();

/** A click in a message, a modal or App Home (`block_actions`). */
export const blockActionsPayload = z.looseObject({
  type: z.literal('block_actions'),
  user: actor,
  team,
  trigger_id: opaque,
  actions: z
    .array(
      z.looseObject({
        action_id: opaque,
        type: z.string().max(64),
        action_ts: z.string().max(64),
        value: z.string().max(2000).optional(),
        block_id: z.string().max(255).optional(),
      }),
    )
    .min(1)
    .max(25),
  channel: z.looseObject({ id: channelId }).optional(),
  container: z
    .looseObject({ type: z.string().max(64), message_ts: messageTs.optional(), channel_id: channelId.optional() })
    .optional(),
  message: z.looseObject({ ts: messageTs }).optional(),
  response_url: url.optional(),
});

const inputValue = z.looseObject({ type: z.string().max(64), value: z.string().max(10_000).nullable().optional() });

/** A modal's submit (`view_submission`). */
export const viewSubmissionPayload = z.looseObject({
  type: z.literal('view_submission'),
  user: actor,
  team,
  trigger_id: opaque.optional(),
  view: z.looseObject({
    id: opaque,
    callback_id: z.string().max(255),
    private_metadata: z.string().max(3000).optional(),
    state: z.looseObject({ values: z.record(z.string().max(255), z.record(z.string().max(255), inputValue)) }),
  }),
});

/** A modal closed with "Cancel" (`view_closed`, only when notify_on_close). */
const viewClosedPayload = z.looseObject({
  type: z.literal('view_closed'),
  user: actor,
  team,
  view: z.looseObject({ id: opaque, callback_id: z.string().max(255) }),
});

/** A message shortcut (`message_action`). */
export const messageActionPayload = z.looseObject({
  type: z.literal('message_action'),
  callback_id: opaque,
  trigger_id: opaque,
  user: actor,
  team,
  channel: z.looseObject({ id: channelId }),
  message: z.looseObject({ ts: messageTs, thread_ts: messageTs.optional() }),
  response_url: url,
});

/** A global shortcut (`shortcut`). */
const shortcutPayload = z.looseObject({
  type: z.literal('shortcut'),
  callback_id: opaque,
  trigger_id: opaque,
  user: actor,
  team,
});

/** Kinds of request the edge knows, with the id that every log line of the request carries. */
export type SlackRequestKind = 'command' | 'event' | 'action' | 'view' | 'shortcut';

/** Outcome of {@link classifyPayload}. */
type ClassifiedPayload = { ok: true; kind: SlackRequestKind; requestId: string } | { ok: false; reason: string };

/**
 * Says what a parsed body is and whether it has the shape the bot reads.
 * @returns the kind and the request id (`event_id`, `trigger_id`, or the action's `action_ts`), or why it was refused.
 */
export function classifyPayload(body: Record<string, unknown>): ClassifiedPayload {
  const check = (
    kind: SlackRequestKind,
    schema: z.ZodType,
    id: (b: Record<string, unknown>) => string,
  ): ClassifiedPayload => {
    const parsed = schema.safeParse(body);
    if (!parsed.success)
      return {
        ok: false,
        reason:
          `malformed ${kind}: ${parsed.error.issues[0]?.path.join('.') || 'body'} ${parsed.error.issues[0]?.message ?? ''}`.trim(),
      };
    return { ok: true, kind, requestId: id(parsed.data as Record<string, unknown>) };
  };
  const s = (v: unknown) => String(v);
  if (typeof body.command === 'string' || 'command' in body)
    return check('command', commandPayload, (b) => s(b.trigger_id));
  switch (body.type) {
    case 'event_callback':
      return check('event', eventCallbackPayload, (b) => s(b.event_id));
    case 'block_actions':
      return check('action', blockActionsPayload, (b) =>
        s((b.actions as { action_ts: string }[])[0]?.action_ts ?? b.trigger_id),
      );
    case 'view_submission':
      return check('view', viewSubmissionPayload, (b) => s(b.trigger_id ?? (b.view as { id: string }).id));
    case 'view_closed':
      return check('view', viewClosedPayload, (b) => s((b.view as { id: string }).id));
    case 'message_action':
      return check('shortcut', messageActionPayload, (b) => s(b.trigger_id));
    case 'shortcut':
      return check('shortcut', shortcutPayload, (b) => s(b.trigger_id));
    default:
      // Never String() an unchecked value: `{"toString":"x","valueOf":1}` makes String() throw.
      return {
        ok: false,
        reason: `unknown request type ${typeof body.type === 'string' ? JSON.stringify(body.type).slice(0, 40) : `(${body.type === null ? 'null' : typeof body.type})`}`,
      };
  }
}

/** A workspace id (`T…`); enterprise ids (`E…`) are not workspaces. */
const WORKSPACE_ID = /^T[A-Z0-9]{2,30}$/;

/** `v` when it is a workspace id (`T…`), else undefined (e.g. an enterprise id `E…`, null). */
export function workspaceId(v: unknown): string | undefined {
  return typeof v === 'string' && WORKSPACE_ID.test(v) ? v : undefined;
}

/**
 * Every workspace id (`T…`) a Slack request's body names, without repeats, in this order: the
 * Events API's `context_team_id`, then `team_id` (the Events API's, a command's), an interaction's
 * `team.id`, then its `user.team_id`. The first is {@link requestTeamId}'s; the workspace guard
 * (org-workspace-guard.ts) checks them all. Empty when the body names none (e.g.
 * `team_access_granted`, whose `team_id` is null).
 */
export function bodyTeamIds(body: Record<string, unknown>): string[] {
  const team = body.team as { id?: unknown } | null | undefined;
  const user = body.user as { team_id?: unknown } | null | undefined;
  const ids = [body.context_team_id, body.team_id, team?.id, user?.team_id].map(workspaceId);
  return [...new Set(ids.filter((id): id is string => id !== undefined))];
}

/**
 * The workspace a Slack request happened in: the first of {@link bodyTeamIds} (the Events API's
 * `context_team_id` or `team_id`, a command's `team_id`, an interaction's `team.id` or its
 * `user.team_id`). Undefined when the body names none (e.g. `team_access_granted`, whose `team_id`
 * is null).
 */
export function requestTeamId(body: Record<string, unknown>): string | undefined {
  return bodyTeamIds(body)[0];
}
