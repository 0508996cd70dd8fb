/**
 * Reading one answer of the assistant into the writer ({@link readAnswer}): its text made safe to
 * post (without the assistant's suggested follow-ups: {@link SuggestionsFilter}), its pages, and
 * whether its text was held back because the assistant found no page.
 */
import type { Nodes, Root } from 'mdast';
import type { DocsPage } from '../../../platform/docs-api/discovery-schemas.js';
import { DocsApiErrorCode, type AssistantStreamError } from '../../../platform/docs-api/errors.js';
import type { AssistantEvent } from '../../../platform/docs-api/ui-message-stream.js';
import { hasCode } from '../../../platform/errors.js';
import { parseAnswer, render, siteOf, type Site } from './safe-markdown.js';
import { ANSWER_MAX_CHARS, type AnswerWriter } from './stream.js';

/** What reading one answer gave. */
export interface Read {
  text: string;
  pages: DocsPage[];
  failure?: AssistantStreamError;
  /** The assistant's search found no page before its text: the text was not shown (it would be a guess). */
  held?: boolean;
}

/**
 * Reads the answer's events into the writer, without the suggestions block and made safe to post
 * ({@link SafeAnswerStream}: no mention, broadcast or link out of DOCS_SITE_URL, however the text is cut).
 * When the assistant searched and found no page before its first text, the text is not shown: it
 * is kept in `text` (the answer's record) and `held` is set, so the answer says plainly that no page
 * was found instead of a guess; a later search that finds pages shows it after all.
 * @throws what the event stream throws, but the assistant stream's own failure (returned as `failure`).
 */
export async function readAnswer(
  events: AsyncIterable<AssistantEvent>,
  writer: Pick<AnswerWriter, 'append' | 'truncated'>,
  siteUrl: string | undefined,
): Promise<Read> {
  const suggestions = new SuggestionsFilter();
  const safe = new SafeAnswerStream(siteUrl);
  const pages: DocsPage[] = [];
  let text = '';
  let kept = '';
  let searched = false;
  let held: boolean | undefined;
  const show = async (shown: string) => {
    text += shown;
    if (shown !== '') held ??= searched && pages.length === 0;
    if (held) kept += shown;
    else if (shown) await writer.append(shown);
  };
  let failure: AssistantStreamError | undefined;
  try {
    for await (const e of events) {
      if (e.type === 'search') {
        searched = true;
        pages.push(...e.pages);
      }
      if (e.type === 'text') await show(safe.push(suggestions.push(e.delta)));
    }
  } catch (err) {
    if (!hasCode<AssistantStreamError>(err, DocsApiErrorCode.AssistantStreamFailed)) throw err;
    failure = err;
  }
  // A cut answer shows what it had (never the suggestions block it was cut in).
  await show(failure ? safe.end() : safe.push(suggestions.end()) + safe.end());
  if (held && pages.length > 0) {
    held = false;
    if (kept) await writer.append(kept);
  }
  // The filter reads no more than the writer can show: what it dropped is the answer's too.
  if (safe.truncated) writer.truncated = true;
  const read: Read = { text, pages, ...(held ? { held: true } : {}) };
  return failure ? { ...read, failure } : read;
}

/**
 * Drops the assistant's suggested follow-up questions from the text shown in Slack. The vendor's
 * assistant may end an answer with a fenced block of them (a line "```suggestions", the questions,
 * a closing "```"): meant for its web widget, they would show in Slack as a code block. Text is fed
 * as it streams; a line that may still become the fence is held back until it is whole.
 */
export class SuggestionsFilter {
  private held = '';
  private dropping = false;

  /** The part of `delta` to show now. */
  push(delta: string): string {
    this.held += delta;
    let out = '';
    for (;;) {
      const nl = this.held.indexOf('\n');
      if (nl < 0) break;
      const line = this.held.slice(0, nl + 1);
      this.held = this.held.slice(nl + 1);
      out += this.line(line);
    }
    // A partial line is shown unless it may still be the fence (or we are inside the block).
    if (!this.dropping && !'```suggestions'.startsWith(this.held.trimStart().slice(0, 14))) {
      out += this.held;
      this.held = '';
    }
    return out;
  }

  /** What is left to show at the end of the answer. */
  end(): string {
    const rest = this.dropping || this.held.trim() === '```suggestions' ? '' : this.held;
    this.held = '';
    return rest;
  }

  private line(line: string): string {
    const bare = line.trim();
    if (this.dropping) {
      if (bare === '```') this.dropping = false;
      return '';
    }
    if (bare === '```suggestions') {
      this.dropping = true;
      return '';
    }
    return line;
  }
}

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
interface SafeAnswerStreamOptions {
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
