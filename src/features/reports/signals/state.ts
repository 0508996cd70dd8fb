import { z } from 'zod';
import { SLACK_LIMITS } from '../../../platform/slack/limits.js';
import { channelId } from '../../../platform/slack/payloads.js';
import { SIGNATURE_OVERHEAD, type ValueSigner } from '../../../platform/slack/signed-value.js';
import { parseDateArg } from '../date-range.js';
import { SIGNAL_ROWS, type SignalKind } from '../query.js';

/**
 * What the Previous / Next / Retry buttons of the searches, feedback and questions reports carry in
 * their `value`, signed: the whole query, so any replica serves any click with no session. These
 * endpoints page by cursor (spec: `nextCursor`), and a cursor only leads forward, so the value holds
 * the cursor of every API page after the first up to the one shown (`cursors`, oldest first):
 * Previous from an API page's first window drops the last one. An API page (up to the API's own
 * maximum of rows) is shown in windows of `rows` rows, from row `skip`. The value names the report's
 * channel (a click from any other is refused), and each button is signed for a purpose of its own
 * (its `action_id`: {@link SIGNAL_ACTIONS}), so a Next value is no Retry value.
 */
export interface SignalState {
  report: SignalKind;
  dateFrom: string;
  dateTo: string;
  /** Rows per window (Slack page), {@link SIGNAL_ROWS}. */
  rows: number;
  /** The `nextCursor`s that led to the API page shown (empty: the first page). */
  cursors: string[];
  /** First row of the API page's rows to show (0-based), or {@link LAST_SIGNAL_WINDOW}. */
  skip: number;
  /** Who asked for the report (shown on it), a Slack user id. */
  requester?: string;
  /** The channel the report is in (or is to be posted in). */
  channel: string;
  /** The docs project of the report (the channel's when it was made). */
  projectId: string;
  /** Retry only: ts of the report message to edit in place (absent: post a new report). */
  messageTs?: string;
}

/** `skip` meaning "the last window of this API page" (Previous from the next API page's first window). */
export const LAST_SIGNAL_WINDOW = -1;
/** Highest row index a value may carry (far beyond any API page: assistant pages hold ≤ 1000). */
const MAX_SKIP = 10_000;

/** The buttons of these reports (`action_id`s), each also what its value is signed for (src/platform/slack/signed-value.ts). */
export const SIGNAL_ACTIONS = {
  previous: 'visitors.signals.previous',
  next: 'visitors.signals.next',
  retry: 'visitors.signals.retry',
} as const;
/** One of {@link SIGNAL_ACTIONS}. */
export type SignalAction = (typeof SIGNAL_ACTIONS)[keyof typeof SIGNAL_ACTIONS];

/** 2: bound to the channel and the project (version 1 values are refused as an older report's). */
const VERSION = 2;
const apiDate = z
  .string()
  .max(40)
  .refine((s) => parseDateArg(s).ok, 'not an API date');
const ms = (d: string) => (parseDateArg(d) as { ms: number }).ms;

/** Wire form: short keys keep the value well within Slack's 2000 chars. */
const wireSchema = z
  .object({
    v: z.literal(VERSION),
    r: z.enum(['searches', 'feedback', 'questions']),
    f: apiDate,
    t: apiDate,
    n: z.number().int().min(SIGNAL_ROWS.min).max(SIGNAL_ROWS.max),
    c: z.array(z.string().min(1).max(1000)).max(100),
    s: z.number().int().min(LAST_SIGNAL_WINDOW).max(MAX_SKIP),
    u: z
      .string()
      .regex(/^[UW][A-Z0-9]{1,30}$/)
      .optional(),
    m: z
      .string()
      .regex(/^\d{1,12}\.\d{1,8}$/)
      .optional(),
    ch: channelId,
    p: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/),
  })
  .refine((w) => ms(w.f) < ms(w.t), 'dateFrom not before dateTo');

/** The JSON payload of a state; undefined when it would not fit a button value with its signature. */
function encode(s: SignalState): string | undefined {
  const wire = {
    v: VERSION,
    r: s.report,
    f: s.dateFrom,
    t: s.dateTo,
    n: s.rows,
    c: s.cursors,
    s: s.skip,
    ...(s.requester ? { u: s.requester } : {}),
    ...(s.messageTs ? { m: s.messageTs } : {}),
    ch: s.channel,
    p: s.projectId,
  };
  const json = JSON.stringify(wire);
  return json.length <= SLACK_LIMITS.buttonValue - SIGNATURE_OVERHEAD ? json : undefined;
}

/**
 * A state as the signed `value` of the button `action` (Slack: ≤ 2000 chars, the signature
 * included); undefined when its cursors no longer fit one (a report paged through dozens of API
 * pages: the button is left out).
 */
export function signSignalState(
  s: SignalState,
  action: SignalAction,
  signer: Pick<ValueSigner, 'sign'>,
): string | undefined {
  const json = encode(s);
  return json === undefined ? undefined : signer.sign(action, json);
}

/**
 * The state of the `value` of a clicked button `action`, when the bot signed it for that button and
 * it validates; else why not (`unsigned`/`tampered`: not the bot's, or another button's;
 * `malformed`: unreadable, or of an older version).
 */
export function openSignalState(
  value: string | undefined,
  action: SignalAction,
  signer: Pick<ValueSigner, 'open'>,
): { ok: true; state: SignalState } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' } {
  if (!value || value.length > SLACK_LIMITS.buttonValue) return { ok: false, reason: 'malformed' };
  const opened = signer.open(action, value);
  if (!opened.ok) return opened;
  let json: unknown;
  try {
    json = JSON.parse(opened.payload);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const parsed = wireSchema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: 'malformed' };
  const w = parsed.data;
  const state: SignalState = {
    report: w.r,
    dateFrom: w.f,
    dateTo: w.t,
    rows: w.n,
    cursors: w.c,
    skip: w.s,
    channel: w.ch,
    projectId: w.p,
  };
  return {
    ok: true,
    state: { ...state, ...(w.u ? { requester: w.u } : {}), ...(w.m ? { messageTs: w.m } : {}) },
  };
}

/** The first window's start of the last window of `count` rows shown `rows` at a time (0 for none). */
export function lastWindowStart(count: number, rows: number): number {
  return count <= 0 ? 0 : Math.floor((count - 1) / rows) * rows;
}
