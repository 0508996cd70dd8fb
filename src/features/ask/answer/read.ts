/**
 * Reading one answer of the assistant into the writer: its text made safe to post (without the
 * assistant's suggested follow-ups), its pages, and whether its text was held back because the
 * assistant found no page.
 */
import type { DocsPage } from '../../../platform/docs-api/discovery-schemas.js';
import { DocsApiErrorCode, type AssistantStreamError } from '../../../platform/docs-api/errors.js';
import type { AssistantEvent } from '../../../platform/docs-api/ui-message-stream.js';
import { hasCode } from '../../../platform/errors.js';
import { SafeAnswerStream } from './safe-text.js';
import type { AnswerWriter } from './stream.js';

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
 * (`./safe-text.ts`: no mention, broadcast or link out of DOCS_SITE_URL, however the text is cut).
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
