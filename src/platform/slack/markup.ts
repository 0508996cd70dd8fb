import { escapeMrkdwn } from './limits.js';

/**
 * Resolves a user id to a display name (`alice`), or undefined when unknown.
 * Usually backed by users.info with a cache (`UserNames` in user-names.ts).
 */
export type UserNameLookup = (userId: string) => Promise<string | undefined>;

/**
 * Most distinct people {@link markupToText} asks its lookup about per text: one pasted message must
 * not spend a request's whole name budget. It joins the lookup's own budget per
 * request (`NAME_LOOKUPS_PER_REQUEST` in user-names.ts), which bounds a whole thread.
 */
export const MAX_NAME_LOOKUPS = 25;

/**
 * Turns Slack message markup into plain readable text for the docs agent's prompt
 * (Slack docs: "Formatting text for app surfaces" — mentions, channel links, URLs, special mentions,
 * and the `&amp; &lt; &gt;` escapes):
 * - the bot's own mention is removed;
 * - `<@U123>` / `<@U123|alice>` → `@alice` (via `lookup`, else the label, else the id); the first
 *   {@link MAX_NAME_LOOKUPS} distinct people, in order of first mention, are asked of `lookup`, each
 *   once; the others keep their label or id (`@U123`). Both bounds hold: at most
 *   {@link MAX_NAME_LOOKUPS} per text, and the lookup's own budget across a request's texts
 *   (`UserNames.lookup`: one per request);
 * - `<#C1|docs>` → `#docs` (`<#C1>` → `#C1`);
 * - `<https://x|label>` → `label (https://x)`, `<https://x>` and `<mailto:a@b|a@b>` → the URL or label;
 * - `<!here>`, `<!channel>`, `<!everyone>` → `@here`…; `<!subteam^S1|@docs-team>` → `@docs-team`;
 * - whitespace left by removals is tidied, and the result trimmed.
 * A failed lookup counts as unknown (never throws).
 */
export async function markupToText(
  text: string,
  botUserId: string | undefined,
  lookup: UserNameLookup,
): Promise<string> {
  const tokens = [...text.matchAll(/<([^<>]+)>/g)];
  const names = await lookUpNames(
    tokens.map((m) => m[1] ?? ''),
    botUserId,
    lookup,
  );
  let out = '';
  let last = 0;
  for (const m of tokens) {
    out += text.slice(last, m.index) + replaceToken(m[1] ?? '', botUserId, names);
    last = (m.index ?? 0) + m[0].length;
  }
  out += text.slice(last);
  return unescapeSlackText(out)
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/^[ \t]+|[ \t]+$/gm, '')
    .trim();
}

/** The names of the first {@link MAX_NAME_LOOKUPS} distinct people mentioned in `inners` (one lookup each, in parallel). */
async function lookUpNames(
  inners: string[],
  botUserId: string | undefined,
  lookup: UserNameLookup,
): Promise<Map<string, string | undefined>> {
  const ids = new Set<string>();
  for (const inner of inners) {
    const [target = ''] = splitLabel(inner);
    if (!target.startsWith('@') || target.slice(1) === botUserId) continue;
    ids.add(target.slice(1));
    if (ids.size >= MAX_NAME_LOOKUPS) break;
  }
  // A failed lookup leaves the label or the id: a name is a nicety (the lookup logs its own failures).
  const entries = await Promise.all([...ids].map(async (id) => [id, await lookup(id).catch(() => undefined)] as const));
  return new Map(entries);
}

function replaceToken(
  inner: string,
  botUserId: string | undefined,
  names: ReadonlyMap<string, string | undefined>,
): string {
  const [target = '', label] = splitLabel(inner);
  if (target.startsWith('@')) {
    const id = target.slice(1);
    if (id === botUserId) return '';
    return `@${names.get(id) ?? label ?? id}`;
  }
  if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
  if (target.startsWith('!')) {
    const special = target.slice(1);
    if (special.startsWith('subteam^')) return label ?? '@group';
    if (special.startsWith('date^')) return label ?? '';
    return `@${special}`;
  }
  if (target.startsWith('mailto:')) return label ?? target.slice('mailto:'.length);
  if (label && label !== target) return `${label} (${target})`;
  return target;
}

function splitLabel(inner: string): [string, string | undefined] {
  const bar = inner.indexOf('|');
  return bar === -1 ? [inner, undefined] : [inner.slice(0, bar), inner.slice(bar + 1)];
}

/**
 * Undoes the three escapes Slack applies to message and slash command text (`&amp;` `&lt;`
 * `&gt;`; Slack docs: "Formatting text for app surfaces — Escaping text").
 */
export function unescapeSlackText(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** @returns whether the text mentions `botUserId` (`<@UBOT>` or `<@UBOT|name>`). */
export function mentionsUser(text: string, userId: string | undefined): boolean {
  return userId !== undefined && new RegExp(`<@${userId}(\\|[^>]*)?>`).test(text);
}

/**
 * For places Slack shows plain text only (a modal's input errors): the access policy's mrkdwn
 * tokens become readable words — `<@U…>` "the admin", `<#C…|name>` "#name", `<!subteam^S…>` "the
 * allowed user group", `<!date^…|fallback>` its fallback.
 */
export function plainTextOf(mrkdwn: string): string {
  return mrkdwn
    .replace(/<@([A-Z0-9]+)>/g, 'the admin')
    .replace(/<#([A-Z0-9]+)(\|([^>]*))?>/g, (_m, id: string, _p, name?: string) => `#${name ?? id}`)
    .replace(/<!subteam\^[A-Z0-9]+(\|([^>]*))?>/g, (_m, _p, h?: string) => h ?? 'the allowed user group')
    .replace(/<!date\^[^|]*\|([^>]*)>/g, '$1');
}

/** U+2060 WORD JOINER: invisible, and no letter, digit or URL character, so it breaks what Slack would parse. */
const WORD_JOINER = '\u2060';

/** mrkdwn's formatting characters and the look-alikes shown instead (∗ ˍ ∼ ˋ), which Slack gives no meaning. */
const FORMATTING_LOOKALIKES: Readonly<Record<string, string>> = {
  '*': '\u2217',
  _: '\u02cd',
  '~': '\u223c',
  '`': '\u02cb',
};

/**
 * The first rule of reader text ({@link escapeReaderText}), alone for callers that show reader
 * text in their own way (a page path in inline code): one line. Half a surrogate pair becomes
 * U+FFFD; bidi marks, overrides, isolates and other invisible format characters (Unicode Cf, but
 * the zero-width joiner of emoji) are removed; control characters, line breaks (U+2028 and U+2029
 * too), tabs and runs of whitespace become one space; the ends are trimmed. No escaping, no cut.
 */
export function readerLine(text: string): string {
  return text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/(?!\u200d)\p{Cf}/gu, '')
    .replace(/[\s\p{Cc}]+/gu, ' ')
    .trim();
}

/**
 * The rules of {@link breakAutolinks} and {@link breakAutolinksAcross}: a WORD JOINER after `char`
 * (one code point, not `]` `\\` `^`) between code points matching `before` and `after` (absent: any).
 */
const AUTOLINK_RULES: readonly { char: string; before?: RegExp; after?: RegExp }[] = [
  { char: '@' },
  { char: ':', after: /[/\\]/u },
  { char: '.', before: /\S/u, after: /[\p{L}\p{N}\p{M}]/u },
];

const AUTOLINK_PATTERNS = AUTOLINK_RULES.map(({ char, before: b, after: a }) => {
  return new RegExp(`${b ? `(?<=${b.source})` : ''}[${char}]${a ? `(?=${a.source})` : ''}`, 'gu');
});

/**
 * `text` with a WORD JOINER (U+2060, invisible) after every `@`, after a `:` before `/` or
 * `\\`, and after a `.` (or a Markdown-escaped `\\.`) between any visible character and a letter, digit or
 * combining mark (`evil\u034F.com`, `☃.com` are domains to Slack and to URL parsers too): neither Slack's
 * automatic parsing nor Markdown's autolinks find a mention, a URL (`https://…`, `https:\\…`), an address or a domain
 * (`www.…`, `evil.example`) in it. The one set of these rules ({@link AUTOLINK_RULES}), for reader text
 * ({@link escapeReaderText}, which also breaks `#`) and for the answer filter's plain text.
 */
export function breakAutolinks(text: string): string {
  return AUTOLINK_PATTERNS.reduce((out, pattern) => out.replace(pattern, `$&${WORD_JOINER}`), text);
}

/**
 * `a` then `b`, each made safe alone, with the word joiners {@link breakAutolinks} puts where a rule
 * spans their seam (`www.` then `example`, `https:` then `//…`, `evil` then `.example`): so
 * `breakAutolinksAcross(breakAutolinks(x), breakAutolinks(y))` is `breakAutolinks(x + y)`.
 */
export function breakAutolinksAcross(a: string, b: string): string {
  const [last = '', beforeLast = ''] = [...a.slice(-4)].reverse();
  const [first = '', second = ''] = [...b.slice(0, 4)];
  const fits = (cls: RegExp | undefined, cp: string): boolean => cls === undefined || cls.test(cp);
  const atEnd = AUTOLINK_RULES.some((r) => r.after?.test(first) && last === r.char && fits(r.before, beforeLast));
  const atStart = AUTOLINK_RULES.some((r) => r.before?.test(last) && first === r.char && fits(r.after, second));
  const head = atEnd ? a + WORD_JOINER : a;
  return atStart ? `${head}${first}${WORD_JOINER}${b.slice(first.length)}` : head + b;
}

/**
 * Untrusted text from the public internet (a reader's comment on a docs page, a question to the docs
 * assistant, a search term) made safe to show inside Slack mrkdwn, as one plain line:
 * - one line ({@link readerLine}): half a surrogate pair becomes U+FFFD; bidi marks, overrides,
 *   isolates and other invisible format characters are removed; control characters, line breaks,
 *   tabs and runs of whitespace become one space (so nothing can start a quote or a code block on a
 *   line of its own);
 * - `&`, `<` and `>` become `&amp;`, `&lt;`, `&gt;` (Slack: "Formatting text for app surfaces —
 *   Escaping text"), so no manual parsing string can form: no `<@U…>`, `<!channel>`, `<!subteam…>`,
 *   `<!date…>` or `<https://…|label>`;
 * - Slack's automatic parsing (a mrkdwn text object with `verbatim` false, the default, "URLs will be
 *   auto-converted into links, conversation names will be link-ified, and certain mentions will be
 *   automatically parsed": Block Kit text object reference) finds nothing: a WORD JOINER (U+2060,
 *   invisible) follows every `@` and `#`, a `:` before `/` or `\\`, and a `.` between letters or
 *   digits ({@link breakAutolinks}), so
 *   no `@here`, `@channel`, `#general`, `https://…`, `www.…` or `evil.example` stays whole, and nothing
 *   is a link Slack could unfurl;
 * - mrkdwn's formatting characters `*`, `_`, `~` and `` ` `` are replaced by look-alikes (∗ ˍ ∼ ˋ), so
 *   reader text cannot bold, italicise, strike, open code or close the caller's own formatting;
 * - the result never starts with `&gt;` (a quote when the caller puts it at a line's start);
 * - cut to at most `max` UTF-16 code units (as Slack counts text), ending with `…` when cut, never
 *   inside a surrogate pair or an entity.
 * Callers may still set `verbatim: true` on the text object; this function does not rely on it.
 *
 * @param max - the most UTF-16 code units returned (≥ 0); 0 gives ''.
 * @returns the escaped line; '' for blank input.
 */
export function escapeReaderText(text: string, max: number): string {
  return inertLine(text, max, escapeMrkdwn);
}

/** Look-alikes of `<` and `>` (‹ ›) for {@link readerTitle}: no manual parsing string can form with them. */
const ANGLE_LOOKALIKES: Readonly<Record<string, string>> = { '<': '\u2039', '>': '\u203a' };

/**
 * Untrusted text for a Slack field documented only as a string, whose rendering Slack does not
 * say (an agent session's `title`: Slack, agents.sessions.setStatus, "Title for the agent session
 * (max 200 characters)"): the rules of reader text ({@link escapeReaderText}: one line, autolinks
 * and `#` broken, formatting look-alikes, cut to `max` with `…`), but `<` and `>` become ‹ and ›
 * instead of entities, so no `<!channel>`, `<@U…>` or `<https://…|label>` can form whether Slack
 * shows it plain or as mrkdwn (text that itself holds `&lt;` or `&amp;` would read as `<` or `&`
 * under mrkdwn: a difference of display, never anything live).
 * @param max - the most UTF-16 code units returned (≥ 0); 0 gives ''.
 */
export function readerTitle(text: string, max: number): string {
  return inertLine(text, max, (cp) => ANGLE_LOOKALIKES[cp] ?? cp);
}

/** {@link escapeReaderText}'s rules, with `escape` for each code point (a word joiner stays with what it guards). */
function inertLine(text: string, max: number, escape: (cp: string) => string): string {
  const line = breakAutolinks(readerLine(text).replace(/[*_~`]/g, (c) => FORMATTING_LOOKALIKES[c] ?? c))
    .replace(/#/g, `#${WORD_JOINER}`)
    .replace(/^>/, `${WORD_JOINER}>`);
  // Escape code point by code point (a word joiner stays with what it guards), so the cut below can
  // never split an entity, a surrogate pair or an `@` from its joiner.
  const units: string[] = [];
  for (const cp of line) {
    if (cp === WORD_JOINER && units.length > 0) units[units.length - 1] += cp;
    else units.push(escape(cp));
  }
  const whole = units.join('');
  if (whole.length <= max) return whole;
  if (max < 1) return '';
  let out = '';
  for (const unit of units) {
    if (out.length + unit.length > max - 1) break;
    out += unit;
  }
  return `${out.trimEnd()}…`;
}

/**
 * Untrusted text of several lines (a question asked in Slack) shown as a mrkdwn block quote, inert:
 * each line by the rules of reader text ({@link escapeReaderText}: no mention, link, domain,
 * formatting or code survives; `&`, `<`, `>` escaped), prefixed `> `; blank lines dropped. The whole
 * is at most `max` UTF-16 code units: whole lines while they fit, then the next line cut (ending `…`)
 * into what room is left, never inside an entity or a surrogate pair.
 * @param max - the most UTF-16 code units returned (≥ 0).
 * @returns the quote; '' for blank input or a `max` too small for one line.
 */
export function quoteReaderText(text: string, max: number): string {
  const out: string[] = [];
  let used = 0;
  for (const raw of text.split(/\r\n|[\n\r\u2028\u2029]/)) {
    const sep = out.length > 0 ? 1 : 0;
    const room = max - used - sep - 2;
    if (room < 2) break;
    const whole = escapeReaderText(raw, Number.MAX_SAFE_INTEGER);
    if (!whole) continue;
    const line = whole.length <= room ? whole : escapeReaderText(raw, room);
    out.push(`> ${line}`);
    used += sep + 2 + line.length;
    if (line !== whole) break;
  }
  return out.join('\n');
}
