import { z } from 'zod';
import { SLACK_LIMITS } from '../../platform/slack/limits.js';
import { SIGNATURE_OVERHEAD, type ValueSigner } from '../../platform/slack/signed-value.js';
import { dateMs, parseDateArg } from './date-range.js';

/**
 * The one codec of a report's state as a signed button value (or block_id): the whole query in
 * compact JSON (short keys), signed for a purpose of its own (the button's `action_id`, or the
 * menu's channel-bound purpose), so any replica serves any click with no server-side session and a
 * Next value is no Retry value. Each report describes its state's wire form; the codec does the
 * JSON, Slack's length limit, the signature and "trust nothing" on the way back.
 */

/** What a report button's value opens to: its state, or why not (a value the bot did not sign, or one it cannot read). */
export type OpenedState<S> = { ok: true; state: S } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' };

/** The wire version of the report states: 2 binds them to a channel and a project (version 1 values are refused). */
const STATE_VERSION = 2 as const;

/** An API date (`YYYY-MM-DD` or an ISO datetime) on the wire. */
export const apiDate = z
  .string()
  .max(40)
  .refine((s) => parseDateArg(s).ok, 'not an API date');

/** The wire fields every paged report's state has: version, dates, requester, message, project. */
export const wireFields = {
  v: z.literal(STATE_VERSION),
  f: apiDate,
  t: apiDate,
  u: z
    .string()
    .regex(/^[UW][A-Z0-9]{1,30}$/)
    .optional(),
  m: z
    .string()
    .regex(/^\d{1,12}\.\d{1,8}$/)
    .optional(),
  p: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/),
};

/** `skip` meaning "the last window of this API page" (Previous from the next API page's first window). */
export const LAST_WINDOW = -1;

/** The state fields of {@link wireFields}. */
export interface CommonState {
  dateFrom: string;
  dateTo: string;
  /** Who asked for the report (shown on it), a Slack user id. */
  requester?: string;
  /** The channel the report is in (or is to be posted in); a click from any other is refused. */
  channel: string;
  /** The docs project of the report (the channel's when it was made). */
  projectId: string;
  /** Retry only: ts of the report message to edit in place (absent: post a new report). */
  messageTs?: string;
}

/** {@link CommonState} on the wire but its channel (each report names its key), absent optional fields left out. */
function commonWire(s: CommonState) {
  return {
    v: STATE_VERSION,
    f: s.dateFrom,
    t: s.dateTo,
    ...(s.requester ? { u: s.requester } : {}),
    ...(s.messageTs ? { m: s.messageTs } : {}),
    p: s.projectId,
  };
}

/** {@link CommonState} but its channel, from a validated wire form. */
function commonState(w: { f: string; t: string; u?: string | undefined; m?: string | undefined; p: string }) {
  return {
    dateFrom: w.f,
    dateTo: w.t,
    ...(w.u ? { requester: w.u } : {}),
    ...(w.m ? { messageTs: w.m } : {}),
    projectId: w.p,
  };
}

/** A refinement of a wire schema: FROM before TO. */
export function datesInOrder(w: { f: string; t: string }): boolean {
  return dateMs(w.f) < dateMs(w.t);
}

/** A report state's codec (see the module comment). */
export interface StateCodec<S> {
  /** The JSON payload of `s`; undefined when it would not fit a button value with its signature (Slack: ≤ 2000). */
  encode(s: S): string | undefined;
  /** The state of a payload, validated (trust nothing); undefined for anything malformed (an old or forged button). */
  decode(json: string | undefined): S | undefined;
  /** `s` signed for `purpose`; undefined when it would not fit a button value. */
  sign(s: S, purpose: string, signer: Pick<ValueSigner, 'sign'>): string | undefined;
  /**
   * The state of a clicked `value`, when the bot signed it for `purpose` and it validates; else why
   * not (`unsigned`/`tampered`: not the bot's, or another button's; `malformed`: empty, too long,
   * unreadable, or of an older version).
   */
  open(value: string | undefined, purpose: string, signer: Pick<ValueSigner, 'open'>): OpenedState<S>;
}

/** The codec of a state `S` whose wire form `W` is checked by `schema`. */
export function stateCodec<S, W>(o: {
  schema: z.ZodType<W>;
  toWire: (s: S) => W;
  fromWire: (w: W) => S;
}): StateCodec<S> {
  const max = SLACK_LIMITS.buttonValue - SIGNATURE_OVERHEAD;
  const codec: StateCodec<S> = {
    encode: (s) => {
      const json = JSON.stringify(o.toWire(s));
      return json.length <= max ? json : undefined;
    },
    decode: (json) => {
      if (!json || json.length > SLACK_LIMITS.buttonValue) return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(json);
      } catch {
        return undefined;
      }
      const wire = o.schema.safeParse(parsed);
      return wire.success ? o.fromWire(wire.data) : undefined;
    },
    sign: (s, purpose, signer) => {
      const json = codec.encode(s);
      return json === undefined ? undefined : signer.sign(purpose, json);
    },
    open: (value, purpose, signer) => {
      if (!value || value.length > SLACK_LIMITS.buttonValue) return { ok: false, reason: 'malformed' };
      const opened = signer.open(purpose, value);
      if (!opened.ok) return opened;
      const state = codec.decode(opened.payload);
      return state === undefined ? { ok: false, reason: 'malformed' } : { ok: true, state };
    },
  };
  return codec;
}

/**
 * The codec of a paged report's state `S`: the fields every report has ({@link wireFields}, FROM
 * before TO) then the report's own `keys` (its paging fields, and its channel under a key of its
 * choosing), in that order on the wire; `toWire` and `fromWire` map only the report's own keys.
 */
export function pagedStateCodec<S extends CommonState, K extends z.ZodRawShape>(o: {
  keys: K;
  toWire: (s: S) => z.infer<z.ZodObject<K>>;
  fromWire: (w: z.infer<z.ZodObject<K>>) => Omit<S, Exclude<keyof CommonState, 'channel'>>;
}): StateCodec<S> {
  type Wire = z.infer<z.ZodObject<typeof wireFields>> & z.infer<z.ZodObject<K>>;
  // The shape of the merged object, which TypeScript cannot work out for a generic K.
  const object = z.object({ ...wireFields, ...o.keys }) as unknown as z.ZodType<Wire>;
  return stateCodec<S, Wire>({
    schema: object.refine(datesInOrder, 'dateFrom not before dateTo'),
    toWire: (s) => ({ ...commonWire(s), ...o.toWire(s) }),
    fromWire: (w) => ({ ...commonState(w), ...o.fromWire(w) }) as S,
  });
}
