/**
 * Small text formatters shared by the report and the digest: counts, percentages, week-over-week
 * changes and page paths shown inside Slack mrkdwn.
 */
import { escapeMrkdwn } from '../../platform/slack/limits.js';
import { readerLine } from '../../platform/slack/markup.js';

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `12345` → `12,345` (en-US grouping, rounded to a whole number). */
export function formatCount(n: number): string {
  return COUNT.format(n);
}

/**
 * A count and its noun, singular for exactly 1: `countOf(1, 'time')` → `1 time`, `countOf(1234, 'search',
 * 'searches')` → `1,234 searches`. `plural` defaults to `singular` + `s`.
 */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`;
}

/** `part / whole` as `24.7%` (one decimal); `–` when `whole` is 0. */
export function formatShare(part: number, whole: number): string {
  if (!(whole > 0)) return '–';
  return `${Math.min(100, (part / whole) * 100).toFixed(1)}%`;
}

/**
 * Relative change from `previous` to `current` in percent; null when `previous` is 0 (no base).
 */
export function percentChange(current: number, previous: number): number | null {
  if (!(previous > 0)) return null;
  return ((current - previous) / previous) * 100;
}

/**
 * A change for people: `▲ 4.2%`, `▼ 12%` (one decimal under 10%), `±0%`, or `new` when there was
 * no base. `null` means no previous value.
 */
export function formatChange(pct: number | null): string {
  if (pct === null) return 'new';
  const abs = Math.abs(pct);
  if (abs < 0.05) return '±0%';
  return `${pct > 0 ? '▲' : '▼'} ${abs.toFixed(abs < 10 ? 1 : 0)}%`;
}

/**
 * Shortens to at most `max` code points by cutting the middle (`/guides/migrating…single-page-apps`),
 * so both the section and the page name stay visible. Never splits a surrogate pair.
 */
export function middleTruncate(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const keep = Math.max(1, max - 1);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return `${chars.slice(0, head).join('')}…${tail > 0 ? chars.slice(chars.length - tail).join('') : ''}`;
}

/**
 * Makes text safe inside a mrkdwn code span or code block, on one line: control characters and
 * line breaks become a space each (so nothing can end the code at a line break and go on as live
 * mrkdwn; spaces that align columns are kept), invisible format characters go, `&`, `<`, `>` are
 * escaped (Slack requires it everywhere) and backticks replaced by `ˋ` (U+02CB), which would
 * otherwise end the code. A reader-supplied page path goes through {@link readerPath} first.
 */
export function codeSafe(text: string): string {
  const line = text.replace(/[\p{Cc}\u2028\u2029]/gu, ' ').replace(/(?!\u200d)\p{Cf}/gu, '');
  return escapeMrkdwn(line.replace(/`/g, 'ˋ'));
}

/**
 * A page path as the analytics API reports it (readers can make one up: a feedback widget's path,
 * an assistant conversation's `currentPath`), as one line by the rule of reader text
 * (`readerLine`: line breaks, tabs, controls and runs of whitespace become one space, invisible
 * format characters go) and cut in the middle to at most `max` code points. Not escaped: show it
 * with {@link codeSafe}, or {@link inlineReaderPath}.
 */
export function readerPath(path: string, max: number): string {
  return middleTruncate(readerLine(path), max);
}

/** A reader-supplied page path as inline code: one line, at most `max` code points, escaped. */
export function inlineReaderPath(path: string, max: number): string {
  return `\`${codeSafe(readerPath(path, max)) || '–'}\``;
}

/** Code-point length (what a monospace column shows), not UTF-16 length. */
export function displayWidth(text: string): number {
  return [...text].length;
}

/** Pads to `width` code points on the right (`left`) or left (`right`). */
export function pad(text: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'left' ? text + fill : fill + text;
}
