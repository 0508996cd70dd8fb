import { z } from 'zod';
import { SLACK_LIMITS } from '../../platform/slack/limits.js';
import { SIGNATURE_OVERHEAD, type ValueSigner } from '../../platform/slack/signed-value.js';
import { parseDateArg } from './date-range.js';
import { LIMIT_MAX, LIMIT_MIN } from './query.js';

/**
 * What a report's Previous/Next/Retry button carries in its `value`: the whole query, so any
 * replica can serve a click with no server-side session, whoever clicks.
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
  /** The docs project of the report (the channel's when it was made); absent: DOCS_PROJECT_ID. */
  projectId?: string;
  /** Retry only: ts of the report message to edit in place (absent: post a new report). */
  messageTs?: string;
}

/** `skip` value meaning "the last window of this API page" (Previous from a page's first window). */
export const LAST_WINDOW = -1;
/** Highest offset a value may carry (far beyond any real docs site; refuses forged giants). */
export const MAX_OFFSET = 1_000_000;

const VERSION = 1;

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
    p: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,100}$/)
      .optional(),
  })
  .refine(
    (w) => (parseDateArg(w.f) as { ms: number }).ms < (parseDateArg(w.t) as { ms: number }).ms,
    'dateFrom not before dateTo',
  );

/**
 * Encodes a page state as compact JSON (≤ 300 chars): the payload of a button's signed value
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
    ...(s.projectId ? { p: s.projectId } : {}),
  };
  const value = JSON.stringify(wire);
  const max = SLACK_LIMITS.buttonValue - SIGNATURE_OVERHEAD;
  if (value.length > max) throw new Error('page state too long for a button value');
  return value;
}

/**
 * Decodes and validates a page state's JSON (an opened button value: trust nothing). Dates must
 * parse, FROM before TO, limit 1–250, offset 0–1,000,000.
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
    ...(w.p ? { projectId: w.p } : {}),
  };
}

/** What Previous/Next/Retry values are signed for (src/platform/slack/signed-value.ts). */
export const PAGE_PURPOSE = 'visitors.page';

/** A page state as a signed button `value` (≤ 326 chars; Slack: ≤ 2000). @throws as {@link encodePageState}. */
export function signPageState(s: PageState, signer: Pick<ValueSigner, 'sign'>): string {
  return signer.sign(PAGE_PURPOSE, encodePageState(s));
}

/**
 * The page state of a clicked button's `value`, when the bot signed it and it validates; else why
 * not (`unsigned`/`tampered`: not the bot's; `malformed`: unreadable).
 */
export function openPageState(
  value: string | undefined,
  signer: Pick<ValueSigner, 'open'>,
): { ok: true; state: PageState } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' } {
  const opened = signer.open(PAGE_PURPOSE, value);
  if (!opened.ok) return opened;
  const state = decodePageState(opened.payload);
  return state ? { ok: true, state } : { ok: false, reason: 'malformed' };
}
