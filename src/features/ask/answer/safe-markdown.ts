import type { Nodes, Parent, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { breakAutolinks, breakAutolinksAcross } from '../../../platform/slack/markup.js';

/**
 * The rules the answer filter (`./safe-text.ts`) applies to one Markdown document parsed by a
 * CommonMark parser (`mdast-util-from-markdown`, i.e. micromark): each node's source is kept,
 * escaped or replaced by what it is, so what Slack shows is what CommonMark reads, escapes included.
 */

const ZWSP = '\u200B';

/**
 * Parses `text` as CommonMark, without link reference definitions (so no `[text][ref]` is ever a
 * link, whatever comes later) and without raw HTML (so `<…>` is text or an autolink). Offsets in
 * the tree's positions are offsets into `text`.
 */
export function parseAnswer(text: string): Root {
  return fromMarkdown(text, { extensions: [{ disable: { null: ['definition', 'htmlFlow', 'htmlText'] } }] });
}

/** The docs site links may go to: its URL and its base without trailing slashes. */
export interface Site {
  url: URL;
  base: string;
}

/** DOCS_SITE_URL as a {@link Site}; undefined when unset or not a URL. */
export function siteOf(siteUrl: string | undefined): Site | undefined {
  if (!siteUrl) return undefined;
  try {
    const url = new URL(siteUrl);
    return { url, base: siteUrl.replace(/\/+$/, '') };
  } catch {
    return undefined;
  }
}

/**
 * `raw` as an absolute link to the docs site, or undefined when it points anywhere else: a
 * `/`-rooted path is made one; any other relative form (`//host`, `page`, `#x`), another origin,
 * another scheme (`javascript:`, `data:`), a path outside the site's base, an `@`, or a character
 * RFC 3986 never allows unencoded in a URL (`[ ] < > { } | ^ "` and the backtick: shown as the
 * link's text, `…/sso[www.evil.example` would carry another site's name) is refused.
 */
function docsLink(raw: string, site: Site | undefined): string | undefined {
  if (!site || raw.includes('@') || /[\s\\[\]<>{}|^"`]/.test(raw)) return undefined;
  let u: URL;
  try {
    if (/^\/(?![/\\])/.test(raw)) u = new URL(site.base + raw);
    else if (/^https?:\/\/[^/\\]/i.test(raw)) u = new URL(raw);
    else if (/^www\./i.test(raw)) u = new URL(`https://${raw}`);
    else return undefined;
  } catch {
    return undefined;
  }
  if (u.username || u.password || u.origin !== site.url.origin) return undefined;
  const base = site.url.pathname.replace(/\/+$/, '');
  if (base && u.pathname !== base && !u.pathname.startsWith(`${base}/`)) return undefined;
  return u.href;
}

/**
 * Text that must stay plain text (a destination that may not be a link): the characters that could
 * open a link, a code span, a table cell or emphasis (`[ ] \\ ` * _ ~ |`) backslash-escaped
 * (CommonMark shows them as typed), word joiners by the reader-text rules (`breakAutolinks`: neither
 * Markdown's nor Slack's automatic linking finds a mention, URL, address or domain in it), a
 * zero-width space after `<`, and line breaks as spaces.
 */
export function inert(text: string): string {
  return breakAutolinks(text.replace(/[\r\n]+/g, ' '))
    .replace(/[[\]\\`*_~|]/g, (c) => `\\${c}`)
    .replace(/</g, `\\<${ZWSP}`);
}

/** What {@link render} needs: the whole source and the docs site. */
interface RenderCtx {
  source: string;
  site: Site | undefined;
}

const start = (n: Nodes): number => n.position?.start.offset ?? 0;
const end = (n: Nodes): number => n.position?.end.offset ?? 0;

/**
 * Code as typed (commands stay copyable); only a `<` before `!`, `@`, `#` or a URL scheme gets a
 * zero-width space, so neither a Slack mention form nor a `<https://…|label>` link is made should
 * Slack not read the block as code (an unclosed fence, `~~~`, indented code).
 */
const codeText = (s: string): string => s.replace(/<(?=[!@#]|[a-z][a-z0-9+.-]*:)/gi, `<${ZWSP}`);

/**
 * Plain text (a text node's source, container markers of its lines included): what could start or
 * end a link or a code span (`[`, `]`, `<`, a backtick) and the `&` of a character reference (one
 * could hide a `:` or a `.` from the rules below) are backslash-escaped (CommonMark shows them as
 * typed; an escape already there is kept); a `<` before `!`, `@` or `#` is followed by a zero-width
 * space; every word but a URL of the docs site gets the word joiners of {@link inert} (so `@here`,
 * `evil.example/login`, `ftp://x` or `a@evil.example` is neither a mention nor a link).
 */
function plainText(ctx: RenderCtx, from: number, to: number): string {
  return ctx.source.slice(from, to).replace(/[^\s]+/g, (w, at: number) => word(w, docsWord(ctx, from + at)));
}

/**
 * Whether the word of the source around `at` (whitespace to whitespace, whatever Markdown splits it
 * into) is a URL of the docs site, so decided by the source alone: only characters that neither end
 * an autolink nor let another begin (letters, digits, `-./?#=%+:`), then at most trailing
 * punctuation. Markdown's and Slack's automatic linking end a URL at `<` and start another after
 * `*`, `_`, `~` or `(`, all of which WHATWG URLs accept: a word with any of them inside is text.
 */
function docsWord(ctx: RenderCtx, at: number): boolean {
  const src = ctx.source;
  let a = at;
  while (a > 0 && !/\s/.test(src[a - 1]!)) a--;
  let b = at;
  while (b < src.length && !/\s/.test(src[b]!)) b++;
  const m = /^([A-Za-z0-9\-./?#=%+:]*?)[.,;:!?)\]'"*_~]*$/.exec(src.slice(a, b));
  const url = m?.[1] ?? '';
  return /^(https?:\/\/|www\.)/i.test(url) && docsLink(url, ctx.site) !== undefined;
}

function word(raw: string, docs: boolean): string {
  // Invisible format characters (bidi overrides, soft hyphens, joiners but the emoji's ZWJ) go, as
  // in reader text: they could hide a dot from the rules below or make `moc.live` show as `evil.com`.
  const w = raw.replace(/(?!\u200d)\p{Cf}/gu, '');
  const escaped = w.replace(/\\[!-/:-@[-`{-~]|[[\]<`]|&(?=#?[A-Za-z0-9]+;)/g, (c, at: number) => {
    const mention = c.endsWith('<') && /[!@#]/.test(w[at + c.length] ?? '');
    if (c.length === 2 || c === '&') return `${c.length === 2 ? c : '\\&'}${mention ? ZWSP : ''}`;
    return `\\${c}${mention ? ZWSP : ''}`;
  });
  return docs ? escaped : breakAutolinks(escaped);
}

/** The children of `node` and the source between them, rendered; `from`..`to` bound the source. */
function renderChildren(node: Parent, ctx: RenderCtx, from: number, to: number): string {
  let out = '';
  let at = from;
  for (const child of node.children) {
    if (end(child) <= at) continue;
    if (start(child) >= to) break;
    out = breakAutolinksAcross(out, ctx.source.slice(at, start(child)));
    out = breakAutolinksAcross(out, renderNode(child, ctx, Math.max(at, start(child)), Math.min(to, end(child))));
    at = Math.min(to, end(child));
  }
  return breakAutolinksAcross(out, ctx.source.slice(at, to));
}

/**
 * A docs-site URL shown as a link's own text: as typed when it is made only of the characters
 * {@link docsWord} allows in a plain-text URL, else with the word joiners of {@link inert} (a `*`,
 * `_`, `~` or `(` inside could end one URL and start another in the shown text).
 */
function shownUrl(href: string): string {
  return /^[A-Za-z0-9\-./?#=%+:]*$/.test(href) ? href : inert(href);
}

/** A link or an image: a link when its destination is the docs site's, else its text and destination as text. */
function renderLink(node: Nodes & { url: string }, ctx: RenderCtx): string {
  const label =
    'children' in node
      ? renderChildren(
          node,
          ctx,
          node.children[0] ? start(node.children[0]) : end(node),
          end(node.children.at(-1) ?? node),
        )
      : inert((node as { alt?: string | null }).alt ?? '');
  const href = docsLink(node.url, ctx.site);
  const sameAsUrl = !label.trim() || label.replace(/\\(.)|\u2060/g, '$1') === node.url;
  if (href) {
    const shown = sameAsUrl ? shownUrl(href) : label;
    return `[${shown}](${href.replace(/\(/g, '%28').replace(/\)/g, '%29')})`;
  }
  return sameAsUrl ? inert(node.url) : `${label} (${inert(node.url)})`;
}

/** One node, within the source range `from`..`to` (the whole node but where a range cuts it). */
function renderNode(node: Nodes, ctx: RenderCtx, from: number, to: number): string {
  switch (node.type) {
    case 'link':
    case 'image':
      return renderLink(node, ctx);
    case 'text':
      return plainText(ctx, from, to);
    case 'code':
    case 'inlineCode':
      return codeText(ctx.source.slice(from, to));
    default:
      return 'children' in node ? renderChildren(node, ctx, from, to) : ctx.source.slice(from, to);
  }
}

/**
 * `ctx.source[from..to]` made safe, as the tree `root` (its parse) reads it. `from` and `to` must
 * not cut a link, an image or a word of text (callers cut at a block's start or after whitespace).
 */
export function render(root: Root, ctx: RenderCtx, from: number, to: number): string {
  return renderChildren(root, ctx, from, to);
}
