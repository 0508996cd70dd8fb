/**
 * The fake Slack's checks of each block, as Slack's Block Kit reference documents them
 * (docs.slack.dev/reference/block-kit/blocks and each block's page; the same limits are in
 * @slack/types' docstrings):
 * - every block: `block_id` ≤ 255 characters;
 * - section: `text` (a text object, 1–3,000 characters) or `fields` (≤ 10 text objects of ≤ 2,000
 *   each), one of them required; `accessory` one element;
 * - header: `text` plain_text ≤ 150;
 * - context: `elements` 1–10 image elements or text objects (≤ 3,000);
 * - actions: `elements` 1–25 interactive elements (not inputs, not images);
 * - input: `label` plain_text ≤ 2,000, `element` one input element, `hint` plain_text ≤ 2,000;
 * - image: `alt_text` ≤ 2,000, `image_url` ≤ 3,000 (or `slack_file`), `title` plain_text ≤ 2,000;
 * - markdown: `text` required (its cumulative limit is counted by ./index.ts);
 * - rich_text: `elements` an array; table: `rows` 1–100 of ≤ 20 cells;
 * - plan, task_card, context_actions: ./agent.ts; divider, file, video: `block_id` only;
 * - any other type is refused (`unsupported type`), as Slack refuses a block it does not know.
 */
import type { Json } from '../method.js';
import { AGENT_BLOCKS } from './agent.js';
import { checkElement, checkImage } from './elements.js';
import type { Problems } from './problems.js';

const PLAIN = (max: number) => ({ max, plainOnly: true });

/** Elements an input block holds (Block Kit: input block, `element`). */
const INPUT_ELEMENTS = new Set([
  'plain_text_input',
  'email_text_input',
  'url_text_input',
  'number_input',
  'rich_text_input',
  'file_input',
  'checkboxes',
  'radio_buttons',
  'static_select',
  'multi_static_select',
  'external_select',
  'multi_external_select',
  'users_select',
  'multi_users_select',
  'conversations_select',
  'multi_conversations_select',
  'channels_select',
  'multi_channels_select',
  'datepicker',
  'timepicker',
  'datetimepicker',
]);

/** Interactive elements an actions block holds: the input elements that are not text inputs, buttons and menus. */
const ACTION_ELEMENTS = new Set([
  ...[...INPUT_ELEMENTS].filter((t) => !/_input$/.test(t)),
  'button',
  'overflow',
  'workflow_button',
]);

function checkSection(p: Problems, path: string, b: Json): void {
  if (b.text === undefined && b.fields === undefined) p.add(path, 'must provide either text or fields');
  p.text(`${path}/text`, b.text, { max: 3000 }, false);
  p.array(`${path}/fields`, b.fields, 1, 10, false).forEach((f, i) => p.text(`${path}/fields/${i}`, f, { max: 2000 }));
  if (b.accessory !== undefined) checkElement(p, `${path}/accessory`, b.accessory);
}

function checkContext(p: Problems, path: string, b: Json): void {
  p.array(`${path}/elements`, b.elements, 1, 10).forEach((e, i) => {
    const at = `${path}/elements/${i}`;
    const el = p.object(at, e);
    if (el?.type === 'image') checkImage(p, at, el);
    else if (el) p.text(at, el, { max: 3000 });
  });
}

function checkInput(p: Problems, path: string, b: Json): void {
  p.text(`${path}/label`, b.label, PLAIN(2000));
  p.text(`${path}/hint`, b.hint, PLAIN(2000), false);
  if (b.element === undefined) p.add(`${path}/element`, 'missing required field');
  else checkElement(p, `${path}/element`, b.element, INPUT_ELEMENTS);
}

function checkTable(p: Problems, path: string, b: Json): void {
  p.array(`${path}/rows`, b.rows, 1, 100).forEach((r, i) => p.array(`${path}/rows/${i}`, r, 1, 20));
}

const BLOCKS: Record<string, (p: Problems, path: string, b: Json) => void> = {
  section: checkSection,
  header: (p, path, b) => p.text(`${path}/text`, b.text, PLAIN(150)),
  context: checkContext,
  actions: (p, path, b) =>
    p.array(`${path}/elements`, b.elements, 1, 25).forEach((e, i) => {
      checkElement(p, `${path}/elements/${i}`, e, ACTION_ELEMENTS);
    }),
  input: checkInput,
  image: (p, path, b) => {
    checkImage(p, path, b);
    p.text(`${path}/title`, b.title, PLAIN(2000), false);
  },
  markdown: (p, path, b) => p.string(`${path}/text`, b.text, Number.MAX_SAFE_INTEGER, true),
  rich_text: (p, path, b) => void p.array(`${path}/elements`, b.elements, 0, Number.MAX_SAFE_INTEGER),
  table: checkTable,
  divider: () => undefined,
  file: () => undefined,
  video: () => undefined,
  ...AGENT_BLOCKS,
};

/** Checks `blocks` (already known to be an array) at JSON pointer `path`, each block by its type. */
export function checkBlockList(p: Problems, path: string, blocks: unknown[]): void {
  blocks.forEach((raw, i) => {
    const at = `${path}/${i}`;
    const b = p.object(at, raw);
    if (!b) return;
    const check = typeof b.type === 'string' ? BLOCKS[b.type] : undefined;
    if (!check) return p.add(`${at}/type`, `unsupported type: ${String(b.type)}`);
    p.string(`${at}/block_id`, b.block_id, 255);
    check(p, at, b);
  });
}
