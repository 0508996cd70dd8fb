import { expect } from 'vitest';
import { checkMessageBlocks, checkView } from '../../sandbox/slack/block-kit/index.js';
import { SlackApiError } from '../../sandbox/slack/method.js';

/**
 * What the fake Slack (and so Slack, as its reference documents the limits) answers for a message's
 * blocks or a view: undefined when it would take them, else the error and Slack's messages (each
 * rule broken and its JSON pointer).
 */
export function slackRefusal(check: () => void): { error: string; messages: string[] } | undefined {
  try {
    check();
    return undefined;
  } catch (err) {
    if (!(err instanceof SlackApiError)) throw err;
    const meta = err.extra.response_metadata as { messages?: string[] } | undefined;
    return { error: err.code, messages: meta?.messages ?? [] };
  }
}

/** Asserts that Slack would take these blocks in a message (chat.postMessage / chat.update). */
export function expectSlackTakesMessage(m: { blocks: readonly unknown[] }): void {
  expect(slackRefusal(() => checkMessageBlocks(m.blocks))).toBeUndefined();
}

/** Asserts that Slack would take this view (`home`: views.publish; `modal`: views.open / push / update). */
export function expectSlackTakesView(view: unknown, kind: 'home' | 'modal'): void {
  expect(slackRefusal(() => checkView(view, kind))).toBeUndefined();
}

/**
 * What Slack shows of a message's blocks: every `text` string in them, depth first, one a line.
 * Button values are left out (Slack never shows them); a message without blocks shows "".
 */
export function shownText(m: { blocks?: unknown }): string {
  const walk = (v: unknown): string[] =>
    Array.isArray(v)
      ? v.flatMap(walk)
      : v && typeof v === 'object'
        ? Object.entries(v).flatMap(([k, x]) =>
            k === 'text' && typeof x === 'string' ? [x] : k === 'value' ? [] : walk(x),
          )
        : [];
  return walk(m.blocks ?? []).join('\n');
}
