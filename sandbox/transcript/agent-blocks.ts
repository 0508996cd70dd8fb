/**
 * The agent blocks as a reader sees them (Slack Block Kit reference: plan, task_card,
 * context_actions with feedback_buttons): a plan is a checklist under its title, each task with its
 * status mark, its details/output and its sources; feedback buttons are two buttons.
 */
import { asArr, asObj, asStr, type Json, type Namer } from './names.js';

/** The mark of a task's status: ☑ complete, ◐ in progress, ☐ pending (or none), ☒ error. */
const MARKS: Record<string, string> = { complete: '☑', in_progress: '◐', pending: '☐', error: '☒' };

function richTextLine(v: unknown): string {
  const parts: string[] = [];
  for (const section of asArr(asObj(v)?.elements)) {
    for (const el of asArr(asObj(section)?.elements)) {
      const e = asObj(el) ?? {};
      parts.push(e.type === 'link' ? `${asStr(e.text) || asStr(e.url)} (${asStr(e.url)})` : asStr(e.text));
    }
  }
  return parts.join('').replace(/\s*\n\s*/g, ' ');
}

/** One task card as checklist lines: `☑ Title`, then its details, output and sources indented. */
export function taskLines(task: Json, indent = ''): string[] {
  const mark = MARKS[asStr(task.status)] ?? '☐';
  const lines = [`${indent}${mark} ${asStr(task.title)}`];
  for (const part of [task.details, task.output]) {
    const text = richTextLine(part);
    if (text) lines.push(`${indent}    ${text}`);
  }
  for (const s of asArr(task.sources)) {
    const src = asObj(s) ?? {};
    lines.push(`${indent}    ↗ ${asStr(src.text)} ${asStr(src.url)}`);
  }
  return lines;
}

/** A plan block: `Plan: <title>` and its tasks as a checklist. */
export function planLines(block: Json): string[] {
  const title = asObj(block.title) ? asStr(asObj(block.title)?.text) : asStr(block.title);
  return [`Plan: ${title}`, ...asArr(block.tasks).flatMap((t) => taskLines(asObj(t) ?? {}, '  '))];
}

/** A context_actions block: feedback buttons as `[ 👍 ] [ 👎 ]`, icon buttons by their text. */
export function contextActionsLine(block: Json, namer: Namer): string {
  return asArr(block.elements)
    .map((raw) => {
      const el = asObj(raw) ?? {};
      if (el.type === 'feedback_buttons') {
        const label = (b: unknown) => asStr(asObj(asObj(b)?.text)?.text);
        return `[ ${label(el.positive_button)} ] [ ${label(el.negative_button)} ]`;
      }
      return `[ ${namer.mrkdwn(asStr(asObj(el.text)?.text)) || asStr(el.icon)} ]`;
    })
    .join(' ');
}
