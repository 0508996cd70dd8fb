import fc from 'fast-check';
import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { describe, expect, it } from 'vitest';
import { fallbackText } from '../../../../src/features/ask/answer/final.js';
import { parseAnswer } from '../../../../src/features/ask/answer/safe-markdown.js';
import { SafeAnswerStream, safeAnswerText } from '../../../../src/features/ask/answer/safe-text.js';
import { ANSWER_MAX_CHARS } from '../../../../src/features/ask/answer/stream.js';

/*
 * The assistant's Markdown can echo readers' and pages' text: what reaches Slack must never be a
 * mention, a broadcast or a link out of the docs site, whatever the link text looks like, however
 * escapes are written and however the stream is cut into chunks.
 */

const SITE = 'https://docs.acme.test';
const ZWSP = '\u200B';
const WJ = '\u2060';
const safe = (text: string) => safeAnswerText(text, SITE);

/** The text streamed in chunks cut at `cuts`. */
function streamed(text: string, cuts: number[], site: string | undefined = SITE): string {
  const f = new SafeAnswerStream(site);
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let out = '';
  let from = 0;
  for (const c of [...at, text.length]) {
    out += f.push(text.slice(from, c));
    from = c;
  }
  return out + f.end();
}

/** Every node of a tree. */
function* nodes(n: Nodes): Generator<Nodes> {
  yield n;
  if ('children' in n) for (const c of n.children) yield* nodes(c);
}

/**
 * What is wrong with `out` read as Markdown by a CommonMark parser with every construct on
 * (reference definitions and raw HTML included): links, images, definitions or HTML anywhere but
 * to the docs site, and in its text a URL, an address, a domain or a broadcast Slack could act on.
 */
function problems(out: string, site: string | undefined = SITE): string[] {
  const found: string[] = [];
  const onSite = (url: string) => {
    try {
      const u = new URL(/^www\./i.test(url) ? `https://${url}` : url);
      return site !== undefined && u.origin === new URL(site).origin && !u.username && !u.password;
    } catch {
      return false;
    }
  };
  if (/<[!@#]/.test(out)) found.push('a Slack mention form');
  for (const n of nodes(fromMarkdown(out))) {
    if ((n.type === 'link' || n.type === 'image' || n.type === 'definition') && !onSite(n.url))
      found.push(`${n.type} to ${n.url}`);
    if (n.type === 'linkReference' || n.type === 'imageReference') found.push(n.type);
    if (n.type === 'html') found.push(`html ${n.value}`);
    if (n.type !== 'text') continue;
    // An autolink ends at `<` (or any character no URL has) and another may start after `*`, `_`,
    // `~` or `(`: each piece is checked on its own.
    const pieces = n.value.split(/[<>*_~()"'|`[\]\\{}^]/);
    for (const m of pieces.flatMap((p) => [...p.matchAll(/(?:[a-z][a-z0-9+.-]*:[/\\]+|www\.)[\p{L}\p{N}][^\s]*/giu)]))
      if (!onSite(m[0].replace(/[.,;:!?)\]'"*_~]+$/, ''))) found.push(`bare URL ${m[0]}`);
    for (const m of pieces.flatMap((p) => [...p.matchAll(/[^\s]*[\p{L}\p{N}][.@][\p{L}\p{N}][^\s]*/gu)]))
      if (!onSite(m[0].replace(/[.,;:!?)\]'"*_~]+$/, ''))) found.push(`domain or address ${m[0]}`);
    if (/@(channel|here|everyone)/i.test(n.value)) found.push('a broadcast');
  }
  return found;
}

describe('the answer text filter', () => {
  it.each([
    // Link text with balanced brackets (CommonMark allows it), destinations of every form.
    ['[here [SSO]](https:/evil.example/sso)', `here \\[SSO\\] (https:${WJ}/evil.${WJ}example/sso)`],
    ['[here [SSO]](//evil.example/login)', `here \\[SSO\\] (//evil.${WJ}example/login)`],
    ['[go [now]](javascript:alert(1))', 'go \\[now\\] (javascript:alert(1))'],
    ['[a [b [c]]](data:text/html,x)', 'a \\[b \\[c\\]\\] (data:text/html,x)'],
    ['[docs](page.md) [top](#top)', `docs (page.${WJ}md) top (#top)`],
    // An escaped backtick opens no code span: what follows is text, and filtered as text.
    ['\\`not code https://evil.example/login `', `\\\`not code https:${WJ}//evil.${WJ}example/login \\\``],
    ['\\`[x](https://evil.example)`', `\\\`x (https:${WJ}//evil.${WJ}example)\\\``],
    [
      '[[x](https://evil.example)](https://e2.example)',
      `\\[x (https:${WJ}//evil.${WJ}example)\\](https:${WJ}//e2.${WJ}example)`,
    ],
    ['<!channel> read this', `\\<${ZWSP}!channel> read this`],
    ['ask <@U0ALICE> in <#C0DOCS|docs>', `ask \\<${ZWSP}@${WJ}U0ALICE> in \\<${ZWSP}#C0DOCS|docs>`],
    ['<https://evil.example/login>', `https:${WJ}//evil.${WJ}example/login`],
    ['<https://docs.acme.test/api-keys>', '[https://docs.acme.test/api-keys](https://docs.acme.test/api-keys)'],
    ['See [API keys](/api-keys).', 'See [API keys](https://docs.acme.test/api-keys).'],
    ['[login](https://evil.example/x "t")', `login (https:${WJ}//evil.${WJ}example/x)`],
    ['![x](https://evil.example/p.png)', `x (https:${WJ}//evil.${WJ}example/p.${WJ}png)`],
    ['Go to https://evil.example/x.', `Go to https:${WJ}//evil.${WJ}example/x.`],
    ['Go to https://docs.acme.test/sso, then', 'Go to https://docs.acme.test/sso, then'],
    ['or https://docs.acme.test.evil.example/', `or https:${WJ}//docs.${WJ}acme.${WJ}test.${WJ}evil.${WJ}example/`],
    ['log in at evil.example/login', `log in at evil.${WJ}example/login`],
    ['[ref]: https://evil.example\n[click][ref]', `\\[ref\\]: https:${WJ}//evil.${WJ}example\n\\[click\\]\\[ref\\]`],
    ['hey @here and @Channel, @everyone!', `hey @${WJ}here and @${WJ}Channel, @${WJ}everyone!`],
    ['<a href="https://evil.example">x</a>', `\\<a href="https:${WJ}//evil.${WJ}example">x\\</a>`],
    [
      '```bash\ncurl https://api.acme.test/v1 <!here>\n```\nthen',
      `\`\`\`bash\ncurl https://api.acme.test/v1 <${ZWSP}!here>\n\`\`\`\nthen`,
    ],
    ['run `curl https://api.acme.test` now', 'run `curl https://api.acme.test` now'],
    // A docs-site URL with `<`, `~`, `*`, `_` or `(` inside (where an autolink may end or begin) is text.
    [
      'see https://docs.acme.test/a<~https://evil.example/login~',
      `see https:${WJ}//docs.${WJ}acme.${WJ}test/a\\<~https:${WJ}//evil.${WJ}example/login~`,
    ],
    [
      'https://docs.acme.test/a<*www.evil.example*',
      `https:${WJ}//docs.${WJ}acme.${WJ}test/a\\<*www.${WJ}evil.${WJ}example*`,
    ],
    [
      'https://docs.acme.test/a<_www.evil.example_',
      `https:${WJ}//docs.${WJ}acme.${WJ}test/a\\<_www.${WJ}evil.${WJ}example_`,
    ],
    [
      'https://docs.acme.test/a<(www.evil.example)',
      `https:${WJ}//docs.${WJ}acme.${WJ}test/a\\<(www.${WJ}evil.${WJ}example)`,
    ],
    // A character no URL may hold unencoded keeps an autolink to the site from being a link: its
    // text would show another site's name (found by the property below, CI seed -1722432053).
    [
      '<https://docs.acme.test/sso[www.evil.example> ',
      `https:${WJ}//docs.${WJ}acme.${WJ}test/sso\\[www.${WJ}evil.${WJ}example `,
    ],
    [
      '<https://docs.acme.test/sso*www.evil.example>',
      `[https:${WJ}//docs.${WJ}acme.${WJ}test/sso\\*www.${WJ}evil.${WJ}example](https://docs.acme.test/sso*www.evil.example)`,
    ],
    // Two parts each safe alone must not make a URL or a domain where they meet (CI fuzz, 150,000 runs).
    ['www.<https://>', `www.${WJ}https:${WJ}//`],
    ['evil`x`<https://a>.example', `evil\`x\`https:${WJ}//a.${WJ}example`],
    ['[a](<https://docs.acme.test/a|b>)', `a (https:${WJ}//docs.${WJ}acme.${WJ}test/a\\|b)`],
    // A Markdown-escaped dot is a dot once read: the domain it would make is broken like any other.
    ['SSO\\.data:text/html,x', `SSO\\.${WJ}data:text/html,x`],
    ['see www\\.evil\\.example/login', `see www\\.${WJ}evil\\.${WJ}example/login`],
  ])('%j → %j', (input, expected) => {
    expect(safe(input)).toBe(expected);
    expect(
      streamed(
        input,
        [...input].map((_, i) => i),
      ),
    ).toBe(expected);
    expect(problems(safe(input))).toEqual([]);
  });

  it.each(['&lt;``\n```//evil.example``\n', '- a `x\n  ```b` https://evil.example\n', '> p ``\n> ```q``\n'])(
    'streamed, a line begun with a fence waits for its end: %j',
    (input) => {
      const cuts = [...input].map((_, i) => i);
      for (let i = 0; i <= input.length; i++) expect(streamed(input, [i])).toBe(safe(input));
      expect(streamed(input, cuts)).toBe(safe(input));
    },
  );

  it('a dot after a combining mark, a symbol or an invisible character is broken too; invisible format characters go', () => {
    for (const input of [
      'evil\u034F.com/login',
      'evil\u00AD.com',
      'www\u034F.evil\u034F.com',
      'c\uFE0F.com',
      '☃.com/x',
      'x\u202Emoc.live\u202C',
    ]) {
      const out = safe(input);
      expect(
        streamed(
          input,
          [...input].map((_, i) => i),
        ),
      ).toBe(out);
      expect(out).not.toMatch(/\S\.[\p{L}\p{N}\p{M}]/u);
      expect(out).not.toMatch(/[\u00AD\u202A-\u202E]/u);
    }
  });

  it('code stays as typed but for Slack link and mention forms, fenced, indented or left open', () => {
    for (const input of [
      'Intro\n\n```\ncurl <https://evil.example|Reset password> <!here>',
      '~~~\n<https://evil.example|x>\n~~~',
      '    <mailto:a@evil.example|mail>',
    ]) {
      const out = safe(input);
      expect(out).not.toMatch(/<(?:[!@#]|[a-z]+:)/i);
      expect(
        streamed(
          input,
          [...input].map((_, i) => i),
        ),
      ).toBe(out);
    }
    expect(safe('```\ncurl -H "x" https://api.acme.test/v1\n```')).toBe(
      '```\ncurl -H "x" https://api.acme.test/v1\n```',
    );
  });

  it('without DOCS_SITE_URL no link survives', () => {
    const out = safeAnswerText('[API keys](/api-keys) and https://docs.acme.test/x', undefined);
    expect(out).toBe(`API keys (/api-keys) and https:${WJ}//docs.${WJ}acme.${WJ}test/x`);
    expect(problems(out, undefined)).toEqual([]);
  });

  const PIECES = [
    '[',
    ']',
    '[here [SSO]]',
    '](',
    '(',
    ')',
    '<',
    '>',
    '!',
    '!',
    '\\',
    '\\`',
    '\\[',
    '\\]',
    '`',
    '``',
    '```',
    '~~~',
    '\n',
    '\n\n',
    ' ',
    '  ',
    '    ',
    '- ',
    '> ',
    '1. ',
    '*',
    '_',
    '"',
    "'",
    ':',
    '/',
    '.',
    '@',
    '#',
    '|',
    '&\u002358;',
    '&\u002391;',
    'channel',
    'here',
    'everyone',
    '<!here>',
    '<@U0ALICE>',
    'https://',
    'https:/',
    'http',
    's://',
    '//',
    'www.',
    'mailto:',
    'javascript:alert(1)',
    'data:text/html,x',
    'evil.example',
    'evil.example/login',
    'docs.acme.test',
    '/api-keys',
    SITE,
    `${SITE}/sso`,
    `${SITE}/a<~https://evil.example/login~`,
    `${SITE}/a<*www.evil.example*`,
    '<_',
    '<(',
    '~',
    'www.evil.example',
    'a b',
    'x',
    'SSO',
  ];
  const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 50 }).map((a) => a.join(''));

  it('no mention, broadcast, definition, HTML or link out of the docs site gets through, split anywhere', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 10 }), (t, cuts) => {
        const out = streamed(t, cuts);
        expect(problems(out)).toEqual([]);
        expect(out).toBe(safe(t));
      }),
      { numRuns: 2_500 },
    );
  });

  it('streamed, prose shows at once, and a word that may yet be a link waits for its end', () => {
    const f = new SafeAnswerStream(SITE);
    expect(f.push('To rotate a key, open Settings and click Rotate. ')).toBe(
      'To rotate a key, open Settings and click Rotate. ',
    );
    expect(f.push('See [the key page](https://evil.example/x "the key page of the docs site, for you"')).toBe('See ');
    expect(f.push(') now')).toBe('');
    expect(f.end()).toBe(`the key page (https:${WJ}//evil.${WJ}example/x) now`);
  });

  /** A filter that counts the characters its parser reads. */
  function counted(maxChars?: number) {
    const read = { chars: 0 };
    const parse = (t: string) => {
      read.chars += t.length;
      return parseAnswer(t);
    };
    return { read, f: new SafeAnswerStream(SITE, { parse, ...(maxChars ? { maxChars } : {}) }) };
  }

  it('streamed line by line, one long list is read a bounded number of times, not once per line', () => {
    const text = '- item word\n'.repeat(834);
    const { read, f } = counted();
    let out = '';
    for (const line of text.match(/[^\n]*\n/g) ?? []) out += f.push(line);
    out += f.end();
    expect(out).toBe(safe(text));
    expect(read.chars).toBeGreaterThanOrEqual(text.length);
    expect(read.chars).toBeLessThanOrEqual(8 * text.length);
  });

  it('streamed, no more than ANSWER_MAX_CHARS of the answer is read or shown', () => {
    const { read, f } = counted();
    const line = '> quote https://evil.example/x\n';
    let out = '';
    for (let i = 0; i < 2_000; i++) out += f.push(line);
    out += f.end();
    const kept = line.repeat(2_000).slice(0, ANSWER_MAX_CHARS);
    expect(out).toBe(safe(kept));
    expect(f.truncated).toBe(true);
    expect(read.chars).toBeLessThanOrEqual(8 * ANSWER_MAX_CHARS);
  });

  it("the posted answer's fallback text follows the same rules: a URL shown as text or code stays no link", () => {
    const answer = safe('Run `open https://evil.example/login` or see <https://evil.example/x> @here *now*');
    const text = fallbackText(answer);
    expect(text).not.toMatch(/https:\/\/evil|evil\.example|@here|`|\*/);
    expect(text).toContain(`open https:${WJ}//evil.${WJ}example/login`);
    expect(text).toContain(`@${WJ}here`);
  });
});
