/**
 * Block Kit and Web API limits we build against. Source: Slack's Block Kit reference
 * (https://docs.slack.dev/reference/block-kit/blocks) and chat.postMessage docs.
 */
export const SLACK_LIMITS = {
  /** Blocks per message. */
  blocksPerMessage: 50,
  /** `text` of a section block, and of a mrkdwn text object in general. */
  sectionText: 3000,
  /** Each section field. */
  fieldText: 2000,
  fieldsPerSection: 10,
  /** Plain text of a header block. */
  headerText: 150,
  /** Button text. */
  buttonText: 75,
  /** Button `value`. */
  buttonValue: 2000,
  /** Button `url`. */
  buttonUrl: 3000,
  /** `action_id` of an interactive element. */
  actionId: 255,
  /** `block_id` of a block. */
  blockId: 255,
  /** `value` of an option of a select or overflow menu (Block Kit: option object). */
  optionValue: 150,
  /** Rows of a table block (columns: 20). */
  tableRows: 100,
  tableColumns: 20,
  /** Elements of a context block. */
  contextElements: 10,
  /** Top-level `text` of chat.postMessage (truncated by Slack past 40,000). */
  messageText: 40_000,
} as const;

/**
 * Escapes `&`, `<` and `>` for mrkdwn/plain text, as Slack requires for user text
 * (Slack docs: "Formatting text for app surfaces — Escaping text").
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Truncates to at most `max` characters (UTF-16 units, as Slack counts), ending with `…` when cut.
 * Never splits a surrogate pair.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * Text from outside (a person's word, an id or a branch from the docs API), safe inside inline
 * code: backticks replaced, so nothing closes the span early and what follows stays code (git allows
 * a backtick in a branch name); runs of whitespace (newlines included) made one space, so the span
 * stays on one line; `&<>` escaped; at most `max` characters (default 60), `…` when cut.
 */
export function quoteToken(token: string, max = 60): string {
  return escapeMrkdwn(truncate(token.replace(/`/g, "'").replace(/\s+/g, ' '), max));
}

/**
 * A link Slack can show safely: an `http(s)://` URL without whitespace or the characters that end
 * a mrkdwn link (`<`, `>`, `|`), at most `SLACK_LIMITS.buttonUrl` long. Text from elsewhere (a PR
 * link from the docs API) goes through this before it becomes a link or a button.
 * @returns the URL, or undefined when it is not one.
 */
export function safeUrl(text: string | null | undefined): string | undefined {
  if (!text || text.length > SLACK_LIMITS.buttonUrl) return undefined;
  return /^https?:\/\/[^\s<>|]+$/.test(text) ? text : undefined;
}
