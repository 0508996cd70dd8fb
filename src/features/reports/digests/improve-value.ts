import { z } from 'zod';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { isSafeDocsPath } from '../safe-path.js';
import { stateCodec } from '../signed-state.js';

/**
 * What a digest's "Improve with agent" button on a falling page carries (signed: the page and its
 * numbers; the full path travels here, ≤ 2000 chars, while the digest's text shows it cut), and how
 * the pages a digest offers are read back from the message Slack sends with a click.
 */

/** Prefix of the "Improve with agent" buttons' action_ids (`visitors.digest.improve.0`, `.1`, …). */
export const ACTION_IMPROVE_PREFIX = 'visitors.digest.improve.';

/**
 * The pages a digest message offers "Improve with agent" for (its own buttons' paths, signed by the
 * bot), read from the message as Slack sends it back with a click (block_actions `message.blocks`).
 */
export function improvablePaths(blocks: unknown, signer: Pick<ValueSigner, 'open'>): Set<string> {
  const paths = new Set<string>();
  if (!Array.isArray(blocks)) return paths;
  for (const b of blocks as { accessory?: { action_id?: unknown; value?: unknown } }[]) {
    const a = b?.accessory;
    if (
      typeof a?.action_id !== 'string' ||
      !a.action_id.startsWith(ACTION_IMPROVE_PREFIX) ||
      typeof a.value !== 'string'
    )
      continue;
    const v = decodeImproveValue(a.value, signer);
    if (v.ok) paths.add(v.page.path);
  }
  return paths;
}

/** What an "Improve with agent" button carries: the page and its numbers. */
export interface ImproveValue {
  path: string;
  /** Percent fewer human readers than the week before (positive number). */
  fellPct: number;
  current: number;
  previous: number;
  /** The digest's week in words ("Nov 15 – Nov 21, 2026"). */
  rangeLabel: string;
}

/** An Improve value on the wire ({@link stateCodec}); a path that is not plain is refused. */
const codec = stateCodec<ImproveValue, { p: string; n: number; c: number; v: number; r: string }>({
  schema: z
    .object({
      p: z.string().min(1).max(1500),
      n: z.number().int().min(0).max(100),
      c: z.number().min(0),
      v: z.number().min(0),
      r: z.string().max(120),
    })
    .refine((w) => isSafeDocsPath(w.p)),
  toWire: (v) => ({ p: v.path, n: v.fellPct, c: v.current, v: v.previous, r: v.rangeLabel.slice(0, 120) }),
  fromWire: (w) => ({ path: w.p, fellPct: w.n, current: w.c, previous: w.v, rangeLabel: w.r }),
});

/** What "Improve with agent" values are signed for (src/platform/slack/signed-value.ts). */
export const IMPROVE_PURPOSE = 'digests.improve';

/**
 * Encodes an {@link ImproveValue} as a signed button value, within Slack's 2000 chars (Block Kit:
 * button `value` ≤ 2000): the path is cut (from 1500 chars, by a fifth each time) until the
 * *encoded* JSON fits with the signature (quotes and backslashes in a path grow when JSON-escaped).
 */
export function encodeImproveValue(v: ImproveValue, signer: Pick<ValueSigner, 'sign'>): string {
  for (let cut = Math.min(v.path.length, 1500); ; cut = Math.floor(cut * 0.8)) {
    const value = codec.sign({ ...v, path: v.path.slice(0, cut) }, IMPROVE_PURPOSE, signer);
    if (value !== undefined) return value;
    if (cut === 0) throw new Error('improve value too long for a button value'); // never: ≤ 120 chars + numbers
  }
}

/**
 * Decodes a button value: the page when the bot signed the value and its path is safe; else why
 * not (`unsigned`/`tampered`: not the bot's; `malformed`: unreadable or an unsafe path).
 */
export function decodeImproveValue(
  value: string | undefined,
  signer: Pick<ValueSigner, 'open'>,
): { ok: true; page: ImproveValue } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' } {
  const opened = codec.open(value, IMPROVE_PURPOSE, signer);
  return opened.ok ? { ok: true, page: opened.state } : opened;
}
