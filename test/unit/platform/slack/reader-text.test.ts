import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeReaderText, quoteReaderText } from '../../../../src/platform/slack/markup.js';
import { HOSTILE_TEXT } from '../../../../sandbox/fake-docs-api.js';

// Reader comments and questions are untrusted text from the public internet: what Slack would read
// as markup in them must not survive escapeReaderText.

const WJ = '\u2060';
/** What a person sees: entities decoded, word joiners gone. */
const shown = (s: string) => s.replaceAll(WJ, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/**
 * The checks every output must pass (Slack: "Escaping text"; a text object with `verbatim` false
 * parses mentions, URLs and channel names).
 */
function expectSafe(out: string, max: number): void {
  expect(out.length).toBeLessThanOrEqual(max);
  expect(out).not.toMatch(/[<>]/);
  expect(out).not.toMatch(/&(?!amp;|lt;|gt;)/); // every & starts one of the three entities
  expect(() => encodeURIComponent(out)).not.toThrow(); // no half of a surrogate pair (URIError)
  expect(out).not.toMatch(/[\n\r\u2028\u2029]/);
  expect(out).not.toMatch(/[*_~`]/);
  expect(out).not.toMatch(/[@#][^\u2060]/); // a word joiner follows every @ and #: no @here, @channel, #general
  expect(out).not.toMatch(/:\/\//);
  expect(out).not.toMatch(/[\p{L}\p{N}]\.[\p{L}\p{N}]/u); // no host name left whole
  expect(out.startsWith('&gt;')).toBe(false);
}

describe('escapeReaderText', () => {
  it('leaves no mention, link, Block Kit or formatting in the hostile texts, and keeps them readable', () => {
    for (const [what, text] of Object.entries(HOSTILE_TEXT)) {
      const out = escapeReaderText(text, 3000);
      expectSafe(out, 3000);
      if (what !== 'long') expect(shown(out).length, what).toBeGreaterThan(text.length * 0.9);
    }
    expect(escapeReaderText(HOSTILE_TEXT.mentions, 300)).toBe(
      `&lt;@${WJ}U0ALICE&gt; &lt;!channel&gt; this page is wrong about API keys, @${WJ}here please fix it now`,
    );
    expect(shown(escapeReaderText(HOSTILE_TEXT.links, 300))).toBe(HOSTILE_TEXT.links.replace(/`/g, 'ˋ'));
    expect(escapeReaderText('*bold* `code` _it_ ~s~', 100)).toBe('∗bold∗ ˋcodeˋ ˍitˍ ∼s∼');
  });

  it('puts everything on one line: no quote or code block can start a line of its own', () => {
    expect(escapeReaderText('fine\n> quoted\n```\ncode\n```', 100)).toBe('fine &gt; quoted ˋˋˋ code ˋˋˋ');
    expect(escapeReaderText('> at the start', 100)).toBe(`${WJ}&gt; at the start`);
    expect(escapeReaderText('bidi \u202eevil\u202c and \u0007bell\ttab', 100)).toBe('bidi evil and bell tab');
    expect(escapeReaderText('   \n\t ', 100)).toBe('');
  });

  it('cuts to max with an ellipsis, on a code point, never inside an entity', () => {
    expect(escapeReaderText(HOSTILE_TEXT.long, 300)).toHaveLength(300);
    expect(escapeReaderText(HOSTILE_TEXT.long, 300).endsWith('…')).toBe(true);
    expect(escapeReaderText('🎉🎉🎉🎉', 6)).toBe('🎉🎉…'); // 2 + 2 + 1: a third 🎉 would not fit with the …
    expect(escapeReaderText('a&b', 5)).toBe('a…'); // '&amp;' does not fit whole
    expect(escapeReaderText('a&b', 7)).toBe('a&amp;b');
    expect(escapeReaderText('abc', 0)).toBe('');
    expect(escapeReaderText('abcdef', 1)).toBe('…');
  });

  it('property: any text and any max give a safe line of at most max units', () => {
    const alphabet = fc.constantFrom(
      '<',
      '>',
      '&',
      '@',
      '#',
      '.',
      ':',
      '/',
      '*',
      '_',
      '~',
      '`',
      '|',
      '!',
      '\n',
      ' ',
      'a',
      'Z',
      '9',
      '🎉',
      '\u202e',
      'é',
    );
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.string({ unit: alphabet, maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 400 }), (t, max) => {
        const out = escapeReaderText(t, max);
        expectSafe(out, max);
        // What fits is kept whole: decoding gives back the (one-line, look-alike) text.
        if (max > 0 && !out.endsWith('…')) expect(shown(out)).toBe(shown(escapeReaderText(t, 100_000)));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('quoteReaderText (a question quoted in a post, e.g. to the docs team)', () => {
  /** Each line of a quote: `> ` and a safe reader line. */
  function expectSafeQuote(out: string, max: number): void {
    expect(out.length).toBeLessThanOrEqual(max);
    for (const line of out ? out.split('\n') : []) {
      expect(line.startsWith('> ')).toBe(true);
      expectSafe(line.slice(2), max);
    }
  }
  const hostile = [
    'https://evil.example/reset',
    'evil.example/login',
    'www.evil.example',
    '<https://evil.example|docs.example.com>',
    '<https://evil.example>',
    '*URGENT*',
    '_it_ ~s~',
    '`code`',
    '```x```',
    '```\nfenced\n```',
    '<!here>',
    '<!channel>',
    '@here',
    '<@U0ALICE>',
    '<!subteam^S0DOCS>',
    '<!subteam^S0DOCS|@docs>',
    '&lt;!channel&gt;',
    '<#C0GENERAL>',
    '#general',
    '> not a quote',
    '\n',
    '\r\n',
    ' ',
    'a',
    '🎉',
    '\u202e',
  ];

  it('leaves no link, mention, domain, formatting or code in a question, line by line', () => {
    const q =
      'How do I log in? <!here> *URGENT*\nsee evil.example/login or https://evil.example/reset\n```x```\n<https://evil.example|docs.example.com> <@U0ALICE> <!subteam^S0DOCS> &lt;!channel&gt;';
    const out = quoteReaderText(q, 2_500);
    expectSafeQuote(out, 2_500);
    expect(out.split('\n')).toHaveLength(4);
    expect(shown(out)).toContain('> How do I log in? <!here> ∗URGENT∗');
    expect(shown(out)).toContain('<@U0ALICE> <!subteam^S0DOCS> &lt;!channel&gt;');
    expect(quoteReaderText('a\n\n  \nb', 100)).toBe('> a\n> b');
    expect(quoteReaderText('  \n ', 100)).toBe('');
  });

  it('keeps the bound: whole lines while they fit, then one line cut with …', () => {
    const long = `${'word '.repeat(400)}\n${'more '.repeat(400)}\nlast`;
    const out = quoteReaderText(long, 2_500);
    expect(out.length).toBeLessThanOrEqual(2_500);
    expect(out.endsWith('…')).toBe(true);
    expect(out.split('\n')).toHaveLength(2);
    expect(quoteReaderText('abc\ndef', 5)).toBe('> abc');
    expect(quoteReaderText('abcdef', 3)).toBe('');
    expect(quoteReaderText('abcdef', 4)).toBe('> a…');
  });

  it('property: hostile shapes in any mix, any max, give safe lines of at most max units in all', () => {
    const text = fc.oneof(
      fc.array(fc.constantFrom(...hostile), { maxLength: 40 }).map((a) => a.join('')),
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.constant('x.example '.repeat(600)),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 3_000 }), (t, max) => expectSafeQuote(quoteReaderText(t, max), max)),
      { numRuns: 1000 },
    );
  });
});
