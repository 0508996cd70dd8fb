import { z } from 'zod';
import { channelId } from '../../platform/slack/payloads.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import { LIMIT_MAX, LIMIT_MIN } from './query.js';
import { LAST_WINDOW, pagedStateCodec, type CommonState, type StateCodec } from './signed-state.js';

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
export interface PageState extends CommonState {
  /** API `limit`, 1–250. */
  limit: number;
  /** API `offset`, ≥ 0. */
  offset: number;
  /** First row of the API page to show (0-based), or {@link LAST_WINDOW} for the page's last window. */
  skip: number;
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

export { LAST_WINDOW };
/** Highest offset a value may carry (far beyond any real docs site; refuses forged giants). */
const MAX_OFFSET = 1_000_000;

/** The visitor report's state on the wire ({@link pagedStateCodec}): short keys keep it far below Slack's 2000 chars. */
const codec = pagedStateCodec({
  keys: {
    l: z.number().int().min(LIMIT_MIN).max(LIMIT_MAX),
    o: z.number().int().min(0).max(MAX_OFFSET),
    s: z
      .number()
      .int()
      .min(LAST_WINDOW)
      .max(LIMIT_MAX - 1),
    c: channelId,
  },
  toWire: (s: PageState) => ({ l: s.limit, o: s.offset, s: s.skip, c: s.channel }),
  fromWire: (w) => ({ limit: w.l, offset: w.o, skip: w.s, channel: w.c }),
});

/**
 * Encodes a page state as compact JSON (≤ 400 chars): the payload of a button's signed value
 * ({@link signPageState}; Slack: button value ≤ 2000, the signature included).
 * @throws Error if the signed value would exceed Slack's limit (cannot happen for valid states).
 */
export function encodePageState(s: PageState): string {
  const value = codec.encode(s);
  if (value === undefined) throw new Error('page state too long for a button value');
  return value;
}

/**
 * Decodes and validates a page state's JSON (an opened button value: trust nothing). Dates must
 * parse, FROM before TO, limit 1–250, offset 0–1,000,000, a channel id and a project id.
 *
 * @returns the state, or undefined for anything malformed (an old or forged button).
 */
export const decodePageState: (value: string | undefined) => PageState | undefined = codec.decode;

/**
 * A page state as the signed `value` of the button `action` (≤ 400 chars; Slack: ≤ 2000).
 * @throws as {@link encodePageState}.
 */
export function signPageState(s: PageState, action: PageAction, signer: Pick<ValueSigner, 'sign'>): string {
  return signer.sign(action, encodePageState(s));
}

/** The page state of the `value` of a clicked button, signed for its `action_id` (signed-state.ts: `StateCodec.open`). */
export const openPageState: StateCodec<PageState>['open'] = codec.open;
