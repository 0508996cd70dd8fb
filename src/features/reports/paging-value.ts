import { z } from 'zod';
import { SLACK_LIMITS } from '../../platform/slack/limits.js';
import { channelId } from '../../platform/slack/payloads.js';
import { SIGNATURE_OVERHEAD, type ValueSigner } from '../../platform/slack/signed-value.js';
import { parseDateArg } from './date-range.js';
import { LIMIT_MAX, LIMIT_MIN } from './query.js';

/**
 * What a report's Previous/Next/Retry button carries in its `value`: the whole query, so any
 * replica can serve a click with no server-side session, whoever clicks; and the channel the report
 * is in, so a click from any other is refused. Each button is signed for a purpose of its own (its
 * `action_id`: {@link PAGE_ACTIONS}), so a Previous value is no Retry value.
 *
 * A page of the report is one API page (`dateFrom`, `dateTo`, `limit`, `offset`) shown from row
 * `skip` of that page: a page too big for one Slack message (e.g. 250 long rows) is shown in
 * windows, and Next first walks the windows of the cached API page before asking for the next one.
 */
export interface PageState {
  dateFrom: string;
  dateTo: string;
  /** API `limit`, 1–250. */
  limit: number;
  /** API `offset`, ≥ 0. */
  offset: number;
  /** First row of the API page to show (0-based), or {@link LAST_WINDOW} for the page's last window. */
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

/**
 * The report's buttons (`action_id`s), each also the purpose its value is signed for
 * (src/platform/slack/signed-value.ts).
 */
export const PAGE_ACTIONS = {
  previous: 'visitors.page.previous',
  next: 'visitors.page.next',
  retry: 'visitors.report.retry',
} as const;
/** One of {@link PAGE_ACTIONS}. */
export type PageAction = (typeof PAGE_ACTIONS)[keyof typeof PAGE_ACTIONS];

/** `skip` value meaning "the last window of this API page" (Previous from a page's first window). */
export const LAST_WINDOW = -1;
/** Highest offset a value may carry (far beyond any real docs site; refuses forged giants). */
export const MAX_OFFSET = 1_000_000;

/** 2: bound to the channel and the project (version 1 values are refused as an older report's). */
const VERSION = 2;

const apiDate = z
  .string()
  .max(40)
  .refine((s) => parseDateArg(s).ok, 'not an API date');

/** Wire form: short keys keep the value far below Slack's 2000 chars. */
const wireSchema = z
  .object({
    v: z.literal(VERSION),
    f: apiDate,
    t: apiDate,
    l: z.number().int().min(LIMIT_MIN).max(LIMIT_MAX),
    o: z.number().int().min(0).max(MAX_OFFSET),
    s: z
      .number()
      .int()
      .min(LAST_WINDOW)
      .max(LIMIT_MAX - 1),
    u: z
      .string()
      .regex(/^[UW][A-Z0-9]{1,30}$/)
      .optional(),
    m: z
      .string()
      .regex(/^\d{1,12}\.\d{1,8}$/)
      .optional(),
    c: channelId,
    p: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/),
  })
  .refine(
    (w) => (parseDateArg(w.f) as { ms: number }).ms < (parseDateArg(w.t) as { ms: number }).ms,
    'dateFrom not before dateTo',
  );

/**
 * Encodes a page state as compact JSON (≤ 400 chars): the payload of a button's signed value
 * ({@link signPageState}; Slack: button value ≤ 2000, the signature included).
 * @throws Error if the signed value would exceed Slack's limit (cannot happen for valid states).
 */
export function encodePageState(s: PageState): string {
  const wire = {
    v: VERSION,
    f: s.dateFrom,
    t: s.dateTo,
    l: s.limit,
    o: s.offset,
    s: s.skip,
    ...(s.requester ? { u: s.requester } : {}),
    ...(s.messageTs ? { m: s.messageTs } : {}),
    c: s.channel,
    p: s.projectId,
  };
  const value = JSON.stringify(wire);
  const max = SLACK_LIMITS.buttonValue - SIGNATURE_OVERHEAD;
  if (value.length > max) throw new Error('page state too long for a button value');
  return value;
}

/**
 * Decodes and validates a page state's JSON (an opened button value: trust nothing). Dates must
 * parse, FROM before TO, limit 1–250, offset 0–1,000,000, a channel id and a project id.
 *
 * @returns the state, or undefined for anything malformed (an old or forged button).
 */
export function decodePageState(value: string | undefined): PageState | undefined {
  if (!value || value.length > SLACK_LIMITS.buttonValue) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return undefined;
  }
  const parsed = wireSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const w = parsed.data;
  return {
    dateFrom: w.f,
    dateTo: w.t,
    limit: w.l,
    offset: w.o,
    skip: w.s,
    ...(w.u ? { requester: w.u } : {}),
    ...(w.m ? { messageTs: w.m } : {}),
    channel: w.c,
    projectId: w.p,
  };
}

/**
 * A page state as the signed `value` of the button `action` (≤ 400 chars; Slack: ≤ 2000).
 * @throws as {@link encodePageState}.
 */
export function signPageState(s: PageState, action: PageAction, signer: Pick<ValueSigner, 'sign'>): string {
  return signer.sign(action, encodePageState(s));
}

/**
 * The page state of the `value` of a clicked button `action`, when the bot signed it for that button
 * and it validates; else why not (`unsigned`/`tampered`: not the bot's, or another button's;
 * `malformed`: unreadable, or of an older version).
 */
export function openPageState(
  value: string | undefined,
  action: PageAction,
  signer: Pick<ValueSigner, 'open'>,
): { ok: true; state: PageState } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' } {
  const opened = signer.open(action, value);
  if (!opened.ok) return opened;
  const state = decodePageState(opened.payload);
  return state ? { ok: true, state } : { ok: false, reason: 'malformed' };
}
