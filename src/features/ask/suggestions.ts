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
