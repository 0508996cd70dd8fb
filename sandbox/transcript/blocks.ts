/**
 * Block Kit flattened to the lines a person reads in the Slack client: section/context/header/markdown
 * text, rich text, tables, images, dividers and interactive elements (Slack docs: "Block Kit" block
 * and element reference). Buttons can be numbered so that a reader can refer to them (`[1: Label]`).
 */
import { contextActionsLine, planLines, taskLines } from './agent-blocks.js';
import { asArr, asObj, asStr, type Json, type Namer } from './names.js';

/**
 * Numbers a drawn button: gets the button element and the block_id of its block (if any) and returns
 * the number to show. Without one, buttons are drawn unnumbered (`[ Label ]`).
 */
export type ButtonNumberer = (button: Json, blockId: string | undefined) => number;

/** The text of a text object (`plain_text` as is, `mrkdwn` made readable). */
export function textObject(v: unknown, namer: Namer): string {
  const o = asObj(v);
  if (!o) return '';
  const text = asStr(o.text);
  return o.type === 'mrkdwn' ? namer.mrkdwn(text) : text;
}

function richElements(elements: unknown[], namer: Namer): string {
  return elements
    .map((raw) => {
      const el = asObj(raw) ?? {};
      switch (el.type) {
        case 'text':
          return asStr(el.text);
        case 'link':
          return el.text ? `${asStr(el.text)} (${asStr(el.url)})` : asStr(el.url);
        case 'user':
          return `@${namer.user(asStr(el.user_id))}`;
        case 'channel':
          return namer.channel(asStr(el.channel_id));
        case 'emoji':
          return `:${asStr(el.name)}:`;
        case 'broadcast':
          return `@${asStr(el.range)}`;
        case 'usergroup':
          return `@${asStr(el.usergroup_id)}`;
        case 'date':
          return asStr(el.fallback) || String(el.timestamp ?? '');
        default:
          return asStr(el.text);
      }
    })
    .join('');
}

function richText(block: Json, namer: Namer): string[] {
  const lines: string[] = [];
  for (const raw of asArr(block.elements)) {
    const part = asObj(raw) ?? {};
    switch (part.type) {
      case 'rich_text_section':
        lines.push(...richElements(asArr(part.elements), namer).split('\n'));
        break;
      case 'rich_text_list': {
        const indent = '  '.repeat(Number(part.indent ?? 0));
        asArr(part.elements).forEach((item, i) => {
          const bullet = part.style === 'ordered' ? `${i + 1}.` : '•';
          lines.push(`${indent}${bullet} ${richElements(asArr(asObj(item)?.elements), namer)}`);
        });
        break;
      }
      case 'rich_text_preformatted':
        lines.push('```', ...richElements(asArr(part.elements), namer).split('\n'), '```');
        break;
      case 'rich_text_quote':
        lines.push(
          ...richElements(asArr(part.elements), namer)
            .split('\n')
            .map((l) => `> ${l}`),
        );
        break;
      default:
        break;
    }
  }
  return lines;
}

/** A button as a reader sees it: `[ Label ↗ url ]`, or numbered `[n: Label ↗ url]` when `n` is given. */
function button(el: Json, label: string, n: number | undefined): string {
  const link = typeof el.url === 'string' ? ` ↗ ${el.url}` : '';
  return n === undefined ? `[ ${label}${link} ]` : `[${n}: ${label}${link}]`;
}

/**
 * One interactive element as a reader sees it, e.g. `[ View pull request ↗ https://… ]`; buttons are
 * numbered by `numberButton` when given (`blockId` is the block_id of the block holding the element).
 */
function element(v: unknown, namer: Namer, numberButton?: ButtonNumberer, blockId?: string): string {
  const el = asObj(v) ?? {};
  const label = textObject(el.text, namer) || textObject(el.placeholder, namer);
  switch (el.type) {
    case 'button':
      return button(el, label, numberButton?.(el, blockId));
    case 'static_select':
    case 'external_select':
    case 'users_select':
    case 'conversations_select':
    case 'channels_select':
    case 'multi_static_select':
      return `[ ${label || 'Select'} ▾ ]`;
    case 'overflow':
      return '[ ⋯ ]';
    case 'image':
      return `[image: ${asStr(el.alt_text)}]`;
    case 'datepicker':
      return `[ ${asStr(el.initial_date) || label || 'date'} 📅 ]`;
    case 'plain_text_input':
      // What the person sees in the box: its initial value, else its placeholder.
      return `[ ${asStr(el.initial_value) || label || '…'} ]`;
    default:
      return label ? `[ ${label} ]` : `[${asStr(el.type) || 'element'}]`;
  }
}

/** Render a table block (`rows` of raw_text / rich_text cells) as aligned columns. */
function table(block: Json, namer: Namer): string[] {
  const rows = asArr(block.rows).map((row) =>
    asArr(row).map((cell) => {
      const c = asObj(cell) ?? {};
      if (c.type === 'rich_text') return richText(c, namer).join(' ');
      return asStr(c.text);
    }),
  );
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  const line = (row: string[]): string =>
    row
      .map((cell, i) => cell + ' '.repeat((widths[i] ?? 0) - [...cell].length))
      .join(' | ')
      .trimEnd();
  const out = rows.map(line);
  if (out.length > 1) out.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('-+-'));
  return out;
}

/**
 * Flatten Block Kit blocks to readable lines (section/context/header/markdown text, buttons, tables,
 * rich text, images, dividers; plans as checklists and feedback buttons: see agent-blocks.ts). Unknown blocks show as `[<type> block]`. Buttons are numbered by
 * `numberButton` when given, in the order they are drawn.
 */
export function blocksToLines(blocks: unknown[], namer: Namer, numberButton?: ButtonNumberer): string[] {
  const lines: string[] = [];
  for (const raw of blocks) {
    const block = asObj(raw) ?? {};
    const blockId = typeof block.block_id === 'string' ? block.block_id : undefined;
    const draw = (e: unknown): string => element(e, namer, numberButton, blockId);
    switch (block.type) {
      case 'header':
        lines.push(`== ${textObject(block.text, namer)} ==`);
        break;
      case 'section': {
        const text = textObject(block.text, namer);
        if (text) lines.push(...text.split('\n'));
        // Slack lays fields out in two columns; a field's own line breaks are shown as spaces here.
        const fields = asArr(block.fields).map((f) => textObject(f, namer).replace(/\n+/g, ' '));
        for (let i = 0; i < fields.length; i += 2) lines.push(fields.slice(i, i + 2).join('    '));
        if (block.accessory) lines.push(draw(block.accessory));
        break;
      }
      case 'context':
        lines.push(
          asArr(block.elements)
            .map((e) => (asObj(e)?.type === 'image' ? element(e, namer) : textObject(e, namer)))
            .join(' · '),
        );
        break;
      case 'actions':
        lines.push(asArr(block.elements).map(draw).join(' '));
        break;
      case 'divider':
        lines.push('────────');
        break;
      case 'image':
        lines.push(`[image: ${asStr(block.alt_text)}${block.title ? ` — ${textObject(block.title, namer)}` : ''}]`);
        break;
      case 'markdown':
        lines.push(...namer.mrkdwn(asStr(block.text)).split('\n'));
        break;
      case 'rich_text':
        lines.push(...richText(block, namer));
        break;
      case 'table':
        lines.push(...table(block, namer));
        break;
      case 'input':
        lines.push(`${textObject(block.label, namer)}: ${draw(block.element)}`);
        break;
      case 'plan':
        lines.push(...planLines(block));
        break;
      case 'task_card':
        lines.push(...taskLines(block));
        break;
      case 'context_actions':
        lines.push(contextActionsLine(block, namer));
        break;
      default:
        lines.push(`[${asStr(block.type) || 'unknown'} block]`);
    }
  }
  return lines;
}
