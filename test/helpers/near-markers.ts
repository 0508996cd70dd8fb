import fc from 'fast-check';

/**
 * Adversarial text for prompt fences (quoted text must never close its fence): near-copies of a closing marker written with
 * invisible characters, compatibility forms, other case and look-alikes from other scripts, hidden in
 * arbitrary Unicode; and the skeleton a reader (or a model) might see through them.
 */

/** Characters that render as nothing: soft hyphen, combining grapheme joiner, Mongolian vowel separator, invisible operators, zero-width ones, BOM, tags. */
export const INVISIBLES = [
  '\u00ad',
  '\u034f',
  '\u180e',
  '\u2061',
  '\u2062',
  '\u2063',
  '\u2064',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u{e0001}',
  '\u{e0020}',
  '\u{e0073}',
  '\u{e007f}',
];

/** Latin letters and their look-alikes in other scripts (Cyrillic, Greek) and compatibility forms (full-width). */
const LOOK_ALIKES: Record<string, string[]> = {
  '<': ['\uff1c', '\ufe64'],
  '>': ['\uff1e', '\ufe65'],
  '/': ['\uff0f'],
  _: ['\uff3f'],
  a: ['\u0430', '\u03b1', '\uff41'],
  c: ['\u0441', '\u03f2', '\uff43'],
  e: ['\u0435', '\uff45'],
  k: ['\u03ba', '\u043a', '\uff4b'],
  l: ['\u04cf', '\uff4c'],
  m: ['\uff4d'],
  s: ['\u0455', '\uff53'],
  g: ['\u0261', '\uff47'],
  o: ['\u043e', '\u03bf'],
};

/** Fold of the look-alikes above (other scripts only: NFKC takes care of compatibility forms). */
const FOLD = new Map(Object.entries(LOOK_ALIKES).flatMap(([plain, alikes]) => alikes.map((a) => [a, plain] as const)));

/**
 * What a reader sees through disguises: NFKC, invisible characters (Default_Ignorable_Code_Point)
 * removed, look-alikes from other scripts folded, lower case.
 */
export function seenAs(text: string): string {
  const visible = text.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '');
  return [...visible]
    .map((c) => FOLD.get(c) ?? c)
    .join('')
    .toLowerCase();
}

/** How many times `needle` occurs in `hay` (non-overlapping). */
export function occurrences(hay: string, needle: string): number {
  return needle ? hay.split(needle).length - 1 : 0;
}

/**
 * A disguised copy of `marker`: some characters swapped for look-alikes (`alikeAt` says which may
 * be: an id written in another script is not claimed to be caught), invisibles inserted, case changed.
 */
export function disguised(marker: string, alikeAt: (i: number) => boolean = () => true): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.array(fc.tuple(fc.nat(marker.length), fc.constantFrom(...INVISIBLES)), { maxLength: 4 }),
      fc.array(fc.nat(marker.length - 1), { maxLength: 4 }),
      fc.nat(2 ** 16),
      fc.boolean(),
    )
    .map(([invisibles, swaps, pick, upper]) => {
      const chars = [...marker];
      for (const i of swaps) {
        const alikes = LOOK_ALIKES[chars[i] ?? ''];
        if (alikes && alikeAt(i)) chars[i] = alikes[pick % alikes.length] ?? chars[i]!;
      }
      let out = chars.map((c) => (upper ? c.toUpperCase() : c));
      for (const [at, inv] of invisibles.sort((x, y) => y[0] - x[0]))
        out = [...out.slice(0, at), inv, ...out.slice(at)];
      return out.join('');
    });
}

/** Arbitrary Unicode (any code point of 0000–10FFFF, and lone surrogates) around zero or more of `near`. */
export function hostileText(near: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const anything = fc.string({ unit: 'binary', maxLength: 40 });
  const odd = fc.constantFrom(...INVISIBLES, '\n', '\ud800', '\udfff', '&lt;', '&gt;');
  return fc.array(fc.oneof(anything, near, odd), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));
}
