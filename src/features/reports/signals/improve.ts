import { z } from 'zod';
import { escapeReaderText } from '../../../platform/slack/markup.js';
import { channelId } from '../../../platform/slack/payloads.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { isSafeDocsPath } from '../safe-path.js';
import { stateCodec, wireFields } from '../signed-state.js';

/**
 * "Improve with agent" on a reader signal (a search nobody clicked through, a page with 👎 and its
 * comments, an unanswered question): what its button carries (signed: the signal, the channel of
 * the message it sits on and the report's docs project), the instruction it pre-fills (plain
 * guidance, no reader text) and what goes with it as Document this's question does (the quoted text
 * for the agent, the form's read-only view of it, the job's About line: improve-text.ts). Reader text (search terms,
 * comments, questions, the assistant's answer, the page it was asked from) never travels raw: it is
 * made harmless ({@link quotedReaderText}) before it goes into the button's value
 * ({@link QuotedSignal}), so no payload the bot sends to Slack holds a reader's markup, and reaches
 * the agent only between the markers of a fence (platform/prompt-fence.ts: a random id the text
 * can't close), under a line that says it is quoted data.
 */

/** `action_id` prefix of the Improve buttons on signals (`visitors.signal.improve.0`, `.1`, …). */
export const ACTION_SIGNAL_IMPROVE_PREFIX = 'visitors.signal.improve.';
/** What these buttons' values are signed for (src/platform/slack/signed-value.ts). */
export const SIGNAL_IMPROVE_PURPOSE = 'visitors.signal';
/** Version of the value's payload: 2 carries reader text quoted ({@link QuotedSignal}); 1 carried it raw. */
const WIRE_VERSION = 2;

/** Most characters of a search term, a comment, a question or an answer a button carries. */
const KEEP = { term: 200, comment: 300, question: 500, response: 300, url: 300 } as const;

/** A reader signal that points at a gap in the docs, with the readers' words as the API gave them. */
export type Signal = SignalOf<string>;

declare const quoted: unique symbol;
/** Reader text made harmless by {@link quotedReaderText} (and only by it: the brand says so). */
export type QuotedText = string & { readonly [quoted]: true };
/** A signal whose reader text is {@link QuotedText}: what a button and the form's metadata carry, quoted to the agent and shown read-only. */
export type QuotedSignal = SignalOf<QuotedText>;

/** The shape of a signal, over the type of its reader text. */
type SignalOf<T extends string> =
  | { kind: 'search'; term: T; hits: number }
  | { kind: 'feedback'; path: string; thumbsDown: number; thumbsUp: number; comments: T[] }
  | { kind: 'question'; question: T; count: number; response: T; pageUrl?: T | undefined };

/** What an Improve button on a signal carries (reader text quoted). */
export interface SignalImprove {
  signal: QuotedSignal;
  /** The dates the signal covers, in words ("Nov 15 – Nov 21, 2026"). */
  rangeLabel: string;
  /** The channel of the message the button sits on: a click from any other is refused. */
  channel: string;
  /** The docs project the signal came from (the job goes there); absent: the channel's. */
  projectId?: string | undefined;
}

/** What a button is built from: the signal as read from the API (its text is quoted on the way in). */
export type SignalImproveInput = Omit<SignalImprove, 'signal'> & { signal: Signal };

/**
 * True for text {@link quotedReaderText} could have returned: one line with no `<`, `>`, no `&` but
 * Slack's three escapes, no mrkdwn formatting character, and a word joiner after every `@` and `#`.
 */
function isQuotedText(s: string): s is QuotedText {
  return !/[<>*_~`\p{Cc}\u2028\u2029]/u.test(s) && !/&(?!amp;|lt;|gt;)/.test(s) && !/[@#](?!\u2060)/.test(s);
}

const text = (max: number, min = 0) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine(isQuotedText)
    .transform((t) => t as QuotedText);
/** A {@link QuotedSignal} on the wire (a button's value, an Improve form's metadata): reader text must be quoted already. */
export const quotedSignalSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('search'), term: text(KEEP.term, 1), hits: z.number().min(0) }),
  z.object({
    kind: z.literal('feedback'),
    path: z.string().max(1500).refine(isSafeDocsPath),
    thumbsDown: z.number().min(0),
    thumbsUp: z.number().min(0),
    comments: z.array(text(KEEP.comment)).max(3),
  }),
  z.object({
    kind: z.literal('question'),
    question: text(KEEP.question, 1),
    count: z.number().min(0),
    response: text(KEEP.response),
    pageUrl: text(KEEP.url).optional(),
  }),
]);
/** An Improve on the wire ({@link stateCodec}). */
const codec = stateCodec({
  schema: z.object({
    v: z.literal(WIRE_VERSION),
    s: quotedSignalSchema,
    r: z.string().max(120),
    c: channelId,
    p: wireFields.p.optional(),
  }),
  toWire: (v: SignalImprove) => ({
    v: WIRE_VERSION,
    s: v.signal,
    r: v.rangeLabel.slice(0, 120),
    c: v.channel,
    ...(v.projectId ? { p: v.projectId } : {}),
  }),
  fromWire: (w): SignalImprove => ({
    signal: w.s as QuotedSignal,
    rangeLabel: w.r,
    channel: w.c,
    ...(w.p ? { projectId: w.p } : {}),
  }),
});

/**
 * The signal with its reader text quoted ({@link quotedReaderText}) and cut to what a button keeps,
 * `scale` (0–1] of it (a page URL that does not fit whole is left out). Empty texts are left out.
 */
export function quoteSignal(s: Signal, scale = 1): QuotedSignal {
  const n = (max: number) => Math.max(20, Math.floor(max * scale));
  switch (s.kind) {
    case 'search':
      return { ...s, term: quotedReaderText(s.term, n(KEEP.term)) };
    case 'feedback': {
      const comments = s.comments.slice(0, 3).map((c) => quotedReaderText(c, n(KEEP.comment)));
      return { ...s, comments: comments.filter((c) => c.length > 0) };
    }
    case 'question': {
      const url = s.pageUrl ? quotedReaderText(s.pageUrl, KEEP.url + 1) : '';
      return {
        kind: 'question',
        count: s.count,
        question: quotedReaderText(s.question, n(KEEP.question)),
        response: quotedReaderText(s.response, n(KEEP.response)),
        ...(url && url.length <= KEEP.url ? { pageUrl: url } : {}),
      };
    }
  }
}

/**
 * The signed button value of an Improve on `v` (Slack: button value ≤ 2000 chars, the signature
 * included): reader text quoted ({@link quoteSignal}), cut until the JSON fits. Undefined for a
 * feedback signal whose path is not a plain docs path ({@link isSafeDocsPath}: such a page is listed,
 * never offered to the agent), and for a search or question whose text quotes to nothing.
 */
export function encodeSignalImprove(v: SignalImproveInput, signer: Pick<ValueSigner, 'sign'>): string | undefined {
  if (v.signal.kind === 'feedback' && !isSafeDocsPath(v.signal.path)) return undefined;
  for (const scale of [1, 0.6, 0.3, 0.1]) {
    const s = quoteSignal(v.signal, scale);
    if ((s.kind === 'search' && !s.term) || (s.kind === 'question' && !s.question)) return undefined;
    const value = codec.sign({ ...v, signal: s }, SIGNAL_IMPROVE_PURPOSE, signer);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * The Improve a clicked button carries, when the bot signed it and it validates; else why not
 * (`unsigned`/`tampered`: not the bot's; `malformed`: unreadable, a feedback path that is not plain,
 * reader text that is not quoted, or a value of version 1, which carried it raw).
 */
export function decodeSignalImprove(
  value: string | undefined,
  signer: Pick<ValueSigner, 'open'>,
): { ok: true; improve: SignalImprove } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' } {
  const opened = codec.open(value, SIGNAL_IMPROVE_PURPOSE, signer);
  return opened.ok ? { ok: true, improve: opened.state } : opened;
}

/**
 * Reader text made harmless wherever it travels (a button's value, the form's metadata, the form and
 * the About line that show it, the prompt that fences it): one line, escaped and defused as
 * {@link escapeReaderText} does (no mention, link, formatting or `<`/`>` survives), and no
 * `project=` (belt and braces: only the typed instruction is read for options).
 */
export function quotedReaderText(raw: string, max: number): QuotedText {
  return escapeReaderText(raw, max).replace(/(project)=/gi, '$1 =') as QuotedText;
}

/**
 * Quoted reader text cut to at most `max` UTF-16 code units, ending with `…` when cut, never inside
 * an entity (`&amp;`), a surrogate pair, or between an `@`/`#` and its word joiner.
 */
export function cutQuoted(text: QuotedText, max: number): QuotedText {
  if (text.length <= max) return text;
  const cut = text
    .slice(0, Math.max(0, max - 1))
    .replace(/&[a-z]{0,3}$/, '')
    .replace(/[\uD800-\uDBFF]$/, '')
    .replace(/[@#]$/, '')
    .trimEnd();
  return `${cut}…` as QuotedText;
}
