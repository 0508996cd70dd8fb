import { z } from 'zod';
import { channelId } from '../../../platform/slack/payloads.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { SIGNAL_ROWS, type SignalKind } from '../query.js';
import { LAST_WINDOW, pagedStateCodec, type CommonState, type StateCodec } from '../signed-state.js';

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
export interface SignalState extends CommonState {
  report: SignalKind;
  /** Rows per window (Slack page), {@link SIGNAL_ROWS}. */
  rows: number;
  /** The `nextCursor`s that led to the API page shown (empty: the first page). */
  cursors: string[];
  /** First row of the API page's rows to show (0-based), or {@link LAST_WINDOW}. */
  skip: number;
}

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

/** The signal reports' state on the wire ({@link pagedStateCodec}): short keys keep it well within Slack's 2000 chars. */
const codec = pagedStateCodec({
  keys: {
    r: z.enum(['searches', 'feedback', 'questions']),
    n: z.number().int().min(SIGNAL_ROWS.min).max(SIGNAL_ROWS.max),
    c: z.array(z.string().min(1).max(1000)).max(100),
    s: z.number().int().min(LAST_WINDOW).max(MAX_SKIP),
    ch: channelId,
  },
  toWire: (s: SignalState) => ({ r: s.report, n: s.rows, c: s.cursors, s: s.skip, ch: s.channel }),
  fromWire: (w) => ({ report: w.r, rows: w.n, cursors: w.c, skip: w.s, channel: w.ch }),
});

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
  return codec.sign(s, action, signer);
}

/** The state of the `value` of a clicked button, signed for its `action_id` (signed-state.ts: `StateCodec.open`). */
export const openSignalState: StateCodec<SignalState>['open'] = codec.open;

/** The first window's start of the last window of `count` rows shown `rows` at a time (0 for none). */
export function lastWindowStart(count: number, rows: number): number {
  return count <= 0 ? 0 : Math.floor((count - 1) / rows) * rows;
}
