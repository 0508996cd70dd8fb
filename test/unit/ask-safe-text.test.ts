import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SafeAnswerStream, safeAnswerText } from '../../src/features/ask/safe-text.js';

/*
 * The assistant's Markdown can echo readers' and pages' text: what reaches Slack must never be a
 * mention, a broadcast or a link out of the docs site, however the stream is cut into chunks.
 */

const SITE = 'https://docs.acme.test';
const ZWSP = '\u200B';
const safe = (text: string) => safeAnswerText(text, SITE);

/** The text streamed in chunks cut at `cuts`. */
function streamed(text: string, cuts: number[]): string {
  const f = new SafeAnswerStream(SITE);
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let out = '';
  let from = 0;
  for (const c of [...at, text.length]) {
    out += f.push(text.slice(from, c));
    from = c;
  }
  return out + f.end();
}

const PIECES = [
  '<',
  '>',
  '!',
  '@',
  '#',
  '[',
  ']',
  '(',
  ')',
  '|',
  ':',
  '/',
  ' ',
  '\n',
  '.',
  '"',
  '*',
  '_',
  '^',
  'channel',
  'here',
  'everyone',
  'https://',
  'http',
  's://',
  'www.',
  'mailto:',
  'evil.example',
  'docs.acme.test',
  '/api-keys',
  SITE,
  'subteam^S1',
  'U0ALICE',
  'C0DOCS',
  'a b',
  'x',
];
const CODE = ['`', '```', '~~~', '``'];
const text = (pieces: string[]) => fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((a) => a.join(''));

/**
 * Bare URLs in `out` outside code spans (the filter's code spans hold no backtick), over the
 * characters a URL may hold (RFC 3986).
 */
function linksOutsideCode(out: string): string[] {
  const plain = out.replace(/`[^`]*`/g, ' ');
  return [...plain.matchAll(/(?<![a-z0-9])(?:[a-z][a-z0-9]{1,20}:\/\/|www\.)[A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]*/gi)].map(
    (m) =>
      // Trailing punctuation ends a sentence, not the link (as Markdown's autolinks take it).
      m[0].replace(/[.,;:!?)\]]+$/, ''),
  );
}

describe('the answer text filter', () => {
  it.each([
    ['<!channel> read this', `<${ZWSP}!channel> read this`],
    ['<!here|here> and <!everyone>', `<${ZWSP}!here|here> and <${ZWSP}!everyone>`],
    ['ping <!subteam^S1|@team>', `ping <${ZWSP}!subteam^S1|@team>`],
    ['ask <@U0ALICE> in <#C0DOCS|docs>', `ask <${ZWSP}@U0ALICE> in <${ZWSP}#C0DOCS|docs>`],
    ['<https://evil.example/login|the docs>', 'the docs (`https://evil.example/login`)'],
    ['<https://docs.acme.test/api-keys|API keys>', '[API keys](https://docs.acme.test/api-keys)'],
    ['See [API keys](/api-keys).', 'See [API keys](https://docs.acme.test/api-keys).'],
    ['[login](https://evil.example/x "t")', 'login (`https://evil.example/x`)'],
    ['![x](https://evil.example/p.png)', 'x (`https://evil.example/p.png`)'],
    ['[x](<https://evil.example/a b>)', 'x (`https://evil.example/a b`)'],
    ['Go to https://evil.example/x.', 'Go to `https://evil.example/x`.'],
    ['Go to https://docs.acme.test/sso, then', 'Go to https://docs.acme.test/sso, then'],
    ['or https://docs.acme.test.evil.example/', 'or `https://docs.acme.test.evil.example/`'],
    ['www.evil.example and mailto:a@evil.example', '`www.evil.example` and `mailto:a@evil.example`'],
    ['[ref]: https://evil.example\n[click][ref]', `[ref]${ZWSP}: \`https://evil.example\`\n[click][ref]`],
    ['hey @here and @Channel, @everyone!', `hey @\u2060here and @\u2060Channel, @\u2060everyone!`],
    ['mail me at dev@acme.test', 'mail me at dev@acme.test'],
    ['a < b and c > d, [1] and (2)', 'a < b and c > d, [1] and (2)'],
    [
      '```bash\ncurl https://api.acme.test/v1 <!here>\n```\nthen',
      `\`\`\`bash\ncurl https://api.acme.test/v1 <${ZWSP}!here>\n\`\`\`\nthen`,
    ],
    ['run `curl https://api.acme.test` now', 'run `curl https://api.acme.test` now'],
  ])('%j → %j', (input, expected) => {
    expect(safe(input)).toBe(expected);
    expect(
      streamed(
        input,
        [...input].map((_, i) => i),
      ),
    ).toBe(expected);
  });

  it('without DOCS_SITE_URL no link survives', () => {
    expect(safeAnswerText('[API keys](/api-keys) and https://docs.acme.test/x', undefined)).toBe(
      'API keys (`/api-keys`) and `https://docs.acme.test/x`',
    );
  });

  it('streamed in chunks cut anywhere, the text is the whole text filtered at once', () => {
    fc.assert(
      fc.property(text([...PIECES, ...CODE]), fc.array(fc.nat(), { maxLength: 12 }), (t, cuts) => {
        expect(streamed(t, cuts)).toBe(safe(t));
      }),
      { numRuns: 3_000 },
    );
  });

  it('no mention, broadcast, reference definition or link out of the docs site gets through', () => {
    fc.assert(
      fc.property(text(PIECES), fc.array(fc.nat(), { maxLength: 8 }), (t, cuts) => {
        const out = streamed(t, cuts);
        expect(out).not.toMatch(/<[!@#]/);
        expect(out).not.toMatch(/<[a-z][a-z0-9+.-]*:[^<>\n]*>/i);
        expect(out.replace(/`[^`]*`/g, ' ')).not.toMatch(/@(channel|here|everyone)(?![a-z])/i);
        expect(out).not.toMatch(/^ {0,3}\[[^\]\n]*\]:/m);
        for (const m of out.matchAll(/\[[^\]\n]*\]\((?:<([^<>\n]*)>|([^\s()<>]*))\)/g))
          expect((m[1] ?? m[2])!.startsWith(`${SITE}/`)).toBe(true);
        for (const url of linksOutsideCode(out))
          expect(new URL(/^www\./i.test(url) ? `https://${url}` : url).origin).toBe(SITE);
      }),
      { numRuns: 3_000 },
    );
  });

  it('streaming holds back only an undecided token: plain prose passes at once', () => {
    const f = new SafeAnswerStream(SITE);
    expect(f.push('To rotate a key, open Settings and click Rotate. ')).toBe(
      'To rotate a key, open Settings and click Rotate. ',
    );
    expect(f.push('See <!chan')).toBe('See ');
    expect(f.push('nel> now')).toBe(`<${ZWSP}!channel> `);
    expect(f.end()).toBe('now');
  });
});
