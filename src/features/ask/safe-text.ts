/**
 * The assistant's Markdown made safe to post: it can echo what readers and docs pages say, so it
 * must never notify or link anyone out of the docs. Slack turns `<!channel>`, `<!here>`,
 * `<!everyone>`, `<!subteam^…>`, `<@U…>`, `<#C…>` and `<url|text>` into mentions and links
 * (Slack: "Formatting text for app surfaces"); Markdown adds `[text](url)`, reference definitions and
 * bare URLs. So, outside code (a fenced block, or an inline code span closed on its line):
 * - a `<` before `!`, `@` or `#` gets a zero-width space after it (shown as typed, parsed as nothing);
 * - `<url>` / `<url|text>`, `[text](url)` and bare URLs (`scheme://…`, `www.…`, `mailto:…`) stay
 *   links only to `DOCS_SITE_URL` (a path like `/api-keys` is made one); any other is shown as
 *   plain text in code (`` `https://elsewhere` ``), so it is neither a link nor hidden behind words;
 * - `[ref]: url` definitions are broken (a zero-width space before the `:`), so `[text][ref]` stays text;
 * - `@channel`, `@here` and `@everyone` get a word joiner after the `@`.
 * In code, only the first rule applies (Markdown shows code as typed; it links nothing).
 *
 * The filter is a scanner that decides at each position with at most {@link LOOKAHEAD} characters
 * ahead: streamed, it holds back only a token it cannot decide yet, so the text it lets through for
 * any split of the answer into chunks is the text of the whole answer filtered at once.
 */

/** Most characters a token (a link, a code span, a URL) is looked ahead for before it is taken as text. */
export const LOOKAHEAD = 500;
const ZWSP = '\u200B';
const WORD_JOINER = '\u2060';

interface ScanState {
  /** The previous character consumed ('' at the start). */
  prev: string;
  atLineStart: boolean;
  /** The open fenced code block's marker character and length. */
  fence: { ch: string; len: number } | undefined;
}

/** A decision at one position: what to emit and how many characters it consumed; `more`: not decidable yet. */
type Step = { out: string; used: number } | 'more';

interface Ctx {
  final: boolean;
  site: Site | undefined;
}

interface Site {
  url: URL;
  base: string;
}

function siteOf(siteUrl: string | undefined): Site | undefined {
  if (!siteUrl) return undefined;
  try {
    const url = new URL(siteUrl);
    return { url, base: siteUrl.replace(/\/+$/, '') };
  } catch {
    return undefined;
  }
}

/** `raw` as a link to the docs site (absolute), or undefined when it points anywhere else. */
function docsLink(raw: string, site: Site | undefined): string | undefined {
  // An `@` in a docs link is never needed, and could read as a mention.
  if (!site || raw.includes('@')) return undefined;
  let u: URL;
  try {
    if (raw.startsWith('/') && !raw.startsWith('//')) u = new URL(site.base + raw);
    else u = new URL(/^www\./i.test(raw) ? `https://${raw}` : raw);
  } catch {
    return undefined;
  }
  if (u.username || u.password || u.origin !== site.url.origin) return undefined;
  const base = site.url.pathname.replace(/\/+$/, '');
  if (base && u.pathname !== base && !u.pathname.startsWith(`${base}/`)) return undefined;
  return u.href;
}

/** A URL that may not be a link, as plain text: in code, without backticks of its own. */
const asCode = (url: string): string => `\`${url.replace(/`/g, '')}\``;

/** A link's text and target: a link when it is the docs site's, else the text and the target in code. */
function link(label: string, target: string, ctx: Ctx): string {
  const text = safeAnswerText(label, ctx.site?.base);
  if (!target) return text;
  const href = docsLink(target, ctx.site)?.replace(/\(/g, '%28').replace(/\)/g, '%29');
  if (href) return `[${text.replace(/[[\]]/g, '') || href}](${href})`;
  return text.trim() ? `${text} (${asCode(target)})` : asCode(target);
}

/** `<` before `!`, `@`, `#`: the zero-width space after it. A `<` at the end waits for its next character. */
function lessThan(rest: string, ctx: Ctx): Step {
  if (rest.length === 1 && !ctx.final) return 'more';
  return { out: /^<[!@#]/.test(rest) ? `<${ZWSP}` : '<', used: 1 };
}

/** `<…>`: Slack's mentions and links, and Markdown autolinks. */
function angle(rest: string, ctx: Ctx): Step {
  let j = 1;
  while (j < rest.length && j <= LOOKAHEAD && !'<>\n'.includes(rest[j]!)) j++;
  if (j > LOOKAHEAD) return lessThan(rest, ctx);
  if (j === rest.length && !ctx.final) return 'more';
  if (rest[j] !== '>' || j < 2 || /\s/.test(rest[1]!)) return lessThan(rest, ctx);
  const inner = rest.slice(1, j);
  const used = j + 1;
  if (/^[!@#]/.test(inner)) return lessThan(rest, ctx);
  // Anything else in brackets (`<T>`, `<div>`) is text, scanned like the rest.
  if (!/^([a-z][a-z0-9+.-]*:|www\.)/i.test(inner) && !inner.includes('@')) return lessThan(rest, ctx);
  const bar = inner.indexOf('|');
  const [target, label] = bar < 0 ? [inner, ''] : [inner.slice(0, bar), inner.slice(bar + 1)];
  return { out: link(label, target, ctx), used };
}

/** `[text](target "title")`, `![alt](target)` and `[ref]: url` definitions; anything else is a plain `[`. */
function bracket(rest: string, ctx: Ctx): Step {
  const m = /^!?\[([^[\]\n]{0,500})(\]?)/.exec(rest)!;
  const plain: Step = { out: rest[0]!, used: 1 };
  if (!m[2]) return m[0].length === rest.length && !ctx.final && m[1]!.length < LOOKAHEAD ? 'more' : plain;
  const after = rest.slice(m[0].length);
  if (after === '' && !ctx.final) return 'more';
  // `[ref]: url` defines a link whatever the label: a zero-width space before the `:` breaks it.
  if (after.startsWith(':'))
    return { out: `${rest[0] === '!' ? '!' : ''}[${safeAnswerText(m[1]!, ctx.site?.base)}]${ZWSP}`, used: m[0].length };
  if (!after.startsWith('(')) return plain;
  const t = /^\( {0,20}(?:<([^<>\n]{0,500})>|([^\s()<>]{0,500}))( {1,20}"[^"\n]{0,500}")? {0,20}(\)?)/.exec(after);
  if (!t) return /^\( {0,20}$/.test(after) && !ctx.final ? 'more' : plain;
  if (!t[4]) {
    const tail = after.slice(t[0].length);
    return !ctx.final && (tail === '' || /^("[^"\n]{0,500}|<[^<>\n]{0,500})$/.test(tail)) ? 'more' : plain;
  }
  return { out: link(m[1]!, t[1] ?? t[2] ?? '', ctx), used: m[0].length + t[0].length };
}

/** Characters a bare URL runs over (RFC 3986's, but `'`): any other ends it, as it ends a link in Slack. */
const URL_CHAR = /[A-Za-z0-9\-._~:/?#@!$&()*+,;=%]/;

/** At a word's start: a bare URL (`scheme://`, `www.`, `mailto:`) stays only when it is the docs site's. */
function word(rest: string, ctx: Ctx): Step {
  const run = /^[a-z0-9]{0,500}/i.exec(rest)![0];
  if (run.length === rest.length && !ctx.final) return 'more';
  const literal = { out: run, used: run.length };
  if (run.length > 21) return literal;
  const next = rest.slice(run.length, run.length + 3);
  const lower = run.toLowerCase();
  const lead = lower === 'www' ? '.' : lower === 'mailto' ? ':' : '://';
  if (next.length < lead.length && run.length + next.length === rest.length && !ctx.final && lead.startsWith(next))
    return 'more';
  if (!next.startsWith(lead)) return literal;
  let end = 0;
  while (end < rest.length && end <= LOOKAHEAD && URL_CHAR.test(rest[end]!)) end++;
  if (end === rest.length && !ctx.final && end <= LOOKAHEAD) return 'more';
  const url = rest.slice(0, end).replace(/[.,;:!?)\]]+$/, '');
  return { out: docsLink(url, ctx.site) ? url : asCode(url), used: url.length };
}

/** `@channel`, `@here`, `@everyone` (any case): a word joiner after the `@`. */
function at(rest: string, ctx: Ctx): Step {
  const name = /^@([a-z]{0,9})/i.exec(rest)![1]!;
  if (name.length + 1 === rest.length && !ctx.final && name.length < 9) return 'more';
  const broadcast = ['channel', 'here', 'everyone'].includes(name.toLowerCase());
  return broadcast ? { out: `@${WORD_JOINER}${name}`, used: name.length + 1 } : { out: '@', used: 1 };
}

/** A run of backticks: an inline code span when the same run closes it on the line (shown as typed), else text. */
function backticks(rest: string, ctx: Ctx): Step {
  const run = /^`+/.exec(rest)![0];
  if (run.length === rest.length && !ctx.final) return 'more';
  const line = rest.slice(run.length, run.length + LOOKAHEAD + 1).split('\n')[0]!;
  const close = new RegExp(`(?<!\`)${run}(?!\`)`).exec(line);
  const lineOpen = !rest.slice(run.length).includes('\n') && line.length <= LOOKAHEAD;
  if (!close) return lineOpen && !ctx.final ? 'more' : { out: run, used: run.length };
  const span = rest.slice(0, run.length + close.index + run.length);
  // A closer at the very end of what arrived may yet grow into a longer run.
  if (span.length === rest.length && !ctx.final) return 'more';
  return { out: span.replace(/<(?=[!@#])/g, `<${ZWSP}`), used: span.length };
}

/** A fence line (```` ``` ```` or `~~~`, up to 3 spaces in) at a line's start: it opens or closes code. */
function fenceAt(rest: string, state: ScanState, ctx: Ctx): Step | undefined {
  const m = /^ {0,3}(`{3,50}|~{3,50})/.exec(rest);
  if (!m) return !ctx.final && /^ {0,3}(`{0,2}|~{0,2})$/.test(rest) ? 'more' : undefined;
  if (m[0].length === rest.length && !ctx.final) return 'more';
  const ch = m[1]![0]!;
  const len = m[1]!.length;
  if (state.fence && (state.fence.ch !== ch || len < state.fence.len)) return undefined;
  if (ch === '`' && !state.fence) {
    // An opening backtick fence's info string holds no backtick: its whole line is needed.
    const line = rest.slice(m[0].length, m[0].length + LOOKAHEAD + 1);
    if (!line.includes('\n') && line.length <= LOOKAHEAD && !ctx.final) return 'more';
    if (line.split('\n')[0]!.includes('`')) return undefined;
  }
  return { out: m[0], used: m[0].length };
}

/** One decision at the start of `rest` (see the module doc). */
function step(rest: string, state: ScanState, ctx: Ctx): Step {
  const c = rest[0]!;
  if (state.fence) return c === '<' ? lessThan(rest, ctx) : { out: c, used: 1 };
  if (c === '<') return angle(rest, ctx);
  if (c === '[' || (c === '!' && rest.length > 1 && rest[1] === '[')) return bracket(rest, ctx);
  if (c === '!' && rest.length === 1 && !ctx.final) return 'more';
  if (c === '`') return backticks(rest, ctx);
  if (c === '@') return at(rest, ctx);
  if (/[a-z]/i.test(c) && !/[a-z0-9]/i.test(state.prev)) return word(rest, ctx);
  return { out: c, used: 1 };
}

/** Filters `text` from its start; stops before a position it cannot decide yet unless `final`. */
function scan(text: string, state: ScanState, ctx: Ctx): { out: string; used: number } {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i, i + 4 * LOOKAHEAD);
    const fence = state.atLineStart ? fenceAt(rest, state, ctx) : undefined;
    const s = fence ?? step(rest, state, ctx);
    if (s === 'more') break;
    if (fence) state.fence = state.fence ? undefined : { ch: s.out.trim()[0]!, len: s.out.trim().length };
    out += s.out;
    i += s.used;
    const consumed = text.slice(i - s.used, i);
    state.prev = consumed.at(-1) ?? state.prev;
    state.atLineStart = state.prev === '\n';
  }
  return { out, used: i };
}

/** The whole of `text` filtered (see the module doc). `siteUrl`: DOCS_SITE_URL, the only site links may go to. */
export function safeAnswerText(text: string, siteUrl: string | undefined): string {
  const state: ScanState = { prev: '', atLineStart: true, fence: undefined };
  return scan(text, state, { final: true, site: siteOf(siteUrl) }).out;
}

/**
 * The same filter over a stream of chunks: {@link push} returns what may be shown now, {@link end}
 * the rest. The concatenation equals {@link safeAnswerText} of the concatenated chunks.
 */
export class SafeAnswerStream {
  private buffer = '';
  private readonly state: ScanState = { prev: '', atLineStart: true, fence: undefined };
  private readonly site: Site | undefined;

  constructor(siteUrl: string | undefined) {
    this.site = siteOf(siteUrl);
  }

  /** Adds a chunk; @returns the filtered text that can be decided now (possibly ''). */
  push(chunk: string): string {
    this.buffer += chunk;
    const r = scan(this.buffer, this.state, { final: false, site: this.site });
    this.buffer = this.buffer.slice(r.used);
    return r.out;
  }

  /** The end of the answer: @returns the rest, filtered. */
  end(): string {
    const r = scan(this.buffer, this.state, { final: true, site: this.site });
    this.buffer = '';
    return r.out;
  }
}
