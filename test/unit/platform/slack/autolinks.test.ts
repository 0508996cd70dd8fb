import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { breakAutolinks, breakAutolinksAcross } from '../../../../src/platform/slack/markup.js';

const WJ = '\u2060';

/** `text` cut at code point `i`, each part made safe alone, then joined by the seam helper. */
const joinedAt = (text: string, i: number): string => {
  const cps = [...text];
  return breakAutolinksAcross(breakAutolinks(cps.slice(0, i).join('')), breakAutolinks(cps.slice(i).join('')));
};

describe('breakAutolinksAcross (the seam between two parts made safe alone)', () => {
  it.each([
    ['www.example.com', 'www.'.length],
    ['evil.example', 'evil'.length],
    ['evil.example', 'evil.'.length],
    ['https://evil.example/login', 'https:'.length],
    ['https:\\\\evil.example', 'https:'.length],
    ['docs.☃.com', 'docs.'.length],
    ['x.\u034Fcom', 'x.'.length],
    ['a@evil.example', 'a@'.length],
    ['@here', 1],
  ])('%j cut at %i gets the word joiners breakAutolinks puts in it whole', (text, at) => {
    const whole = breakAutolinks(text);
    expect(whole).toContain(WJ);
    expect(joinedAt(text, at)).toBe(whole);
  });

  it('adds nothing where no rule spans the seam (a space, an @ its part already broke, an empty part)', () => {
    expect(breakAutolinksAcross('see ', '.example')).toBe('see .example');
    expect(breakAutolinksAcross('a.', ' b')).toBe('a. b');
    expect(breakAutolinksAcross(`@${WJ}`, 'here')).toBe(`@${WJ}here`);
    expect(breakAutolinksAcross('', '.example')).toBe('.example');
    expect(breakAutolinksAcross('www.', '')).toBe('www.');
  });

  it('shares every rule of breakAutolinks: any text cut anywhere comes out as breakAutolinks makes it whole', () => {
    const unit = fc.constantFrom('@', ':', '/', '\\', '.', ' ', 'a', 'Z', '7', '\u034F', '☃', '𝐀', '#', WJ);
    const text = fc.oneof(
      fc.string({ unit, maxLength: 30 }),
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
    );
    fc.assert(
      fc.property(text, fc.nat(), (t, n) => {
        const at = n % ([...t].length + 1);
        expect(joinedAt(t, at)).toBe(breakAutolinks(t));
      }),
      { numRuns: 2_000 },
    );
  });
});
