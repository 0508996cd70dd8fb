import type { Nodes, Root } from 'mdast';
import { parseAnswer, render, siteOf, type Site } from './safe-markdown.js';
import { ANSWER_MAX_CHARS } from './stream.js';

/**
 * The assistant's Markdown made safe to post: it can echo what readers and docs pages say, so it
 * must never notify or link anyone out of the docs. Slack turns `<!channel>`, `<!here>`,
 * `<!everyone>`, `<!subteam^…>`, `<@U…>`, `<#C…>` and `<url|text>` into mentions and links
 * (Slack: "Formatting text for app surfaces"), and links bare URLs and domains; Markdown adds
 * `[text](url)`, `![alt](src)`, `<url>` autolinks, reference definitions and raw HTML.
 *
 * The answer is read by a CommonMark parser (`./safe-markdown.ts`: escapes, code spans, nested
 * brackets and destinations as CommonMark reads them), and:
 * - a link, an image or an autolink stays a link only when its destination is on the docs site
 *   (`DOCS_SITE_URL`, or the workspace's `siteUrl` in DOCS_WORKSPACE_PROJECTS) (a path like `/api-keys` is made one); any other destination (another site, `//host`,
 *   `https:/host`, a relative path, `javascript:`, `data:`, any scheme) is shown after the link's
 *   text as plain text: escaped, with word joiners, so it is neither a link nor hidden behind words;
 * - in text, `[`, `]`, `<` and backticks are backslash-escaped (shown as typed), so no link, code
 *   span, reference definition (`[ref]: url`) or HTML can form from what was text; a `<` before
 *   `!`, `@` or `#` also gets a zero-width space; every word but a docs-site URL gets a word joiner
 *   after `@`, after a `:` before `//` and after a `.` between letters or digits (the rules of
 *   reader text: no `@here`, `@channel`, `@everyone`, bare URL, address or domain Slack could link);
 * - code (fenced, indented, inline) is kept as typed: only the `<` rule applies.
 *
 * Streamed, the filter shows only what later text cannot change: the blocks before the last one,
 * and in a last paragraph or heading the words up to the last whitespace while it holds no `[`,
 * `]`, `<` or backtick (which could yet open or close a link or a code span). So the text it
 * lets through for any split of the answer into chunks is the text of the whole answer filtered
 * at once.
 */

/** Start offset of `n` in the parsed text. */
const start = (n: Nodes): number => n.position?.start.offset ?? 0;

/** The deepest last block of `root`: the one block later lines may still extend or change. */
function lastBlock(root: Root): Nodes | undefined {
  let node: Nodes | undefined = root.children.at(-1);
  while (node && (node.type === 'list' || node.type === 'listItem' || node.type === 'blockquote')) {
    const child: Nodes | undefined = node.children.at(-1);
    if (!child) break;
    node = child;
  }
  return node;
}

/** The whole of `text` filtered (see the module doc). `siteUrl`: DOCS_SITE_URL, the only site links may go to. */
export function safeAnswerText(text: string, siteUrl: string | undefined): string {
  return render(parseAnswer(text), { source: text, site: siteOf(siteUrl) }, 0, text.length);
}

/**
 * New characters after which a streamed answer is parsed again (a line break, and any text before
 * the first shown, always is): the writer sends at most one batch of 160 characters a second, so
 * finer steps would show nothing sooner, and each parse reads the last top-level block again.
 */
const REPARSE_CHARS = 64;

/**
 * A streamed answer is parsed again only once the text since the last parse is at least this
 * fraction of the text parsed (the block not yet decided, from its start): each parse then reads at
 * most 4 times the characters that arrived since the one before, so a stream of n characters costs
 * parses of at most about 5n characters in all, however long its last block (a list, a quote).
 */
const REPARSE_FRACTION = 4;

/** Options of {@link SafeAnswerStream}. */
export interface SafeAnswerStreamOptions {
  /** Most characters of answer read; later text is dropped ({@link SafeAnswerStream.truncated}). Default {@link ANSWER_MAX_CHARS}. */
  maxChars?: number;
  /** The CommonMark parse (tests count the characters it reads). Default {@link parseAnswer}. */
  parse?: (text: string) => Root;
}

/**
 * The same filter over a stream of chunks: {@link push} returns what may be shown now, {@link end}
 * the rest. The concatenation equals {@link safeAnswerText} of the concatenated chunks, cut at
 * `maxChars` (no more is ever shown, so no more is read).
 */
export class SafeAnswerStream {
  /** The answer from {@link base} on (what came before is shown and can no longer change). */
  private text = '';
  /** Offset in {@link text} up to which the filtered text was returned. */
  private shown = 0;
  /** Length of {@link text} at the last parse. */
  private parsedAt = 0;
  /** True once some text was shown (before, every chunk is parsed: the first words go out at once). */
  private started = false;
  /** Characters of answer still to be read before {@link maxChars}. */
  private room: number;
  /** True once text beyond `maxChars` was dropped. */
  truncated = false;
  private readonly site: Site | undefined;
  private readonly parse: (text: string) => Root;

  constructor(siteUrl: string | undefined, options: SafeAnswerStreamOptions = {}) {
    this.site = siteOf(siteUrl);
    this.room = options.maxChars ?? ANSWER_MAX_CHARS;
    this.parse = options.parse ?? parseAnswer;
  }

  /** Adds a chunk (what exceeds `maxChars` is dropped); @returns the filtered text that can be decided now (possibly ''). */
  push(chunk: string): string {
    if (chunk.length > this.room) this.truncated = true;
    const taken = chunk.slice(0, this.room);
    this.room -= taken.length;
    this.text += taken;
    const fresh = this.text.length - this.parsedAt;
    if (fresh * REPARSE_FRACTION < this.text.length) return '';
    if (this.started && fresh < REPARSE_CHARS && !taken.includes('\n')) return '';
    const root = this.parse(this.text);
    const to = this.decided(root);
    const out = to > this.shown ? render(root, { source: this.text, site: this.site }, this.shown, to) : '';
    this.shown = Math.max(this.shown, to);
    this.started ||= this.shown > 0;
    // A top-level block starts as a document does: parse from the last one that began before `shown`.
    const from = root.children.findLast((c) => start(c) <= this.shown);
    const cut = from ? start(from) : 0;
    this.text = this.text.slice(cut);
    this.shown -= cut;
    this.parsedAt = this.text.length;
    return out;
  }

  /** The end of the answer: @returns the rest, filtered. */
  end(): string {
    const out = render(this.parse(this.text), { source: this.text, site: this.site }, this.shown, this.text.length);
    this.text = '';
    this.shown = 0;
    this.parsedAt = 0;
    return out;
  }

  /** Offset up to which later text cannot change what the filter makes of {@link text}. */
  private decided(root: Root): number {
    const last = lastBlock(root);
    if (!last) return this.shown;
    const lineStart = this.text.lastIndexOf('\n') + 1;
    const blockStart = Math.min(start(last), lineStart);
    // A line begun with a backtick fence is a fence only if no backtick follows on it: until its
    // line break, the paragraph before may yet run on into it (and a code span through it).
    if (lineStart < this.text.length && /^[ \t>*+\-\d.)]*`{3}/.test(this.text.slice(lineStart))) {
      const before = root.children.findLast((c) => start(c) < lineStart);
      return Math.min(blockStart, before ? start(before) : lineStart);
    }
    if (last.type !== 'paragraph' && last.type !== 'heading') return blockStart;
    // Within the last paragraph: words up to the last whitespace, while nothing could still open
    // or close a link or a code span, on a line whose kind its first characters already decide.
    const inline = this.text.slice(start(last));
    const open = inline.search(/[[\]<`]/);
    const upTo = start(last) + (open < 0 ? inline.length : open);
    const ws = this.text.slice(start(last), upTo).search(/\s(?=\S*$)/);
    const lineDecided = lineStart <= start(last) || /^ {0,3}[\p{L}\p{N}]/u.test(this.text.slice(lineStart));
    if (ws < 0 || !lineDecided) return blockStart;
    return Math.max(blockStart, start(last) + ws + 1);
  }
}
