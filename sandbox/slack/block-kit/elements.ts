/**
 * The fake Slack's checks of Block Kit elements and composition objects, as Slack's reference
 * documents them (docs.slack.dev/reference/block-kit/block-elements/*, …/composition-objects/*;
 * the same limits are in @slack/types' docstrings):
 * - every interactive element: `action_id` ≤ 255 characters;
 * - button: `text` plain_text ≤ 75, `value` ≤ 2,000, `url` ≤ 3,000, `style` primary or danger,
 *   `accessibility_label` ≤ 75;
 * - option object: `text` ≤ 75, `value` ≤ 150, `description` plain_text ≤ 75, `url` ≤ 3,000;
 *   option group: `label` plain_text ≤ 75, ≤ 100 options;
 * - static select: `options` ≤ 100 or `option_groups` ≤ 100 (one of them), `placeholder` ≤ 150;
 *   radio buttons and checkboxes: 1–10 options; overflow menu: 2–5 options;
 * - plain-text input: `placeholder` ≤ 150, `min_length` 0–3,000, `max_length` 1–3,000;
 * - image element: `alt_text` required ≤ 2,000, `image_url` ≤ 3,000 (or a `slack_file`);
 * - confirmation dialog: `title` ≤ 100, `text` ≤ 300, `confirm` and `deny` ≤ 30 (plain_text);
 * - the other element types Slack documents pass with the `action_id` check only; a type Slack does
 *   not document is refused (`unsupported type`).
 */
import type { Json } from '../method.js';
import type { Problems } from './problems.js';

const PLAIN = (max: number) => ({ max, plainOnly: true });

/** Element types documented in the Block Kit reference that the fake checks no further than `action_id`. */
const OTHER_ELEMENTS = new Set([
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
  'email_text_input',
  'url_text_input',
  'number_input',
  'rich_text_input',
  'file_input',
  'workflow_button',
  'icon_button',
]);

function checkConfirm(p: Problems, path: string, v: unknown): void {
  if (v === undefined) return;
  const c = p.object(path, v);
  if (!c) return;
  p.text(`${path}/title`, c.title, PLAIN(100));
  p.text(`${path}/text`, c.text, PLAIN(300));
  p.text(`${path}/confirm`, c.confirm, PLAIN(30));
  p.text(`${path}/deny`, c.deny, PLAIN(30));
}

/** One option object; `plainOnly` for menus (selects, overflow), mrkdwn allowed for radio buttons and checkboxes. */
function checkOption(p: Problems, path: string, v: unknown, plainOnly: boolean): void {
  const o = p.object(path, v);
  if (!o) return;
  p.text(`${path}/text`, o.text, { max: 75, plainOnly });
  p.string(`${path}/value`, o.value, 150, true);
  p.text(`${path}/description`, o.description, PLAIN(75), false);
  p.string(`${path}/url`, o.url, 3000);
}

function checkOptions(p: Problems, path: string, v: unknown, min: number, max: number, plainOnly: boolean): void {
  p.array(path, v, min, max).forEach((o, i) => checkOption(p, `${path}/${i}`, o, plainOnly));
}

function checkButton(p: Problems, path: string, e: Json): void {
  p.text(`${path}/text`, e.text, PLAIN(75));
  p.string(`${path}/value`, e.value, 2000);
  p.string(`${path}/url`, e.url, 3000);
  p.string(`${path}/accessibility_label`, e.accessibility_label, 75);
  if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger')
    p.add(`${path}/style`, 'must be one of primary, danger');
  checkConfirm(p, `${path}/confirm`, e.confirm);
}

function checkStaticSelect(p: Problems, path: string, e: Json): void {
  p.text(`${path}/placeholder`, e.placeholder, PLAIN(150), false);
  if ((e.options === undefined) === (e.option_groups === undefined))
    return p.add(path, 'must provide exactly one of options, option_groups');
  if (e.options !== undefined) return checkOptions(p, `${path}/options`, e.options, 1, 100, true);
  p.array(`${path}/option_groups`, e.option_groups, 1, 100).forEach((g, i) => {
    const group = p.object(`${path}/option_groups/${i}`, g);
    if (!group) return;
    p.text(`${path}/option_groups/${i}/label`, group.label, PLAIN(75));
    checkOptions(p, `${path}/option_groups/${i}/options`, group.options, 1, 100, true);
  });
  checkConfirm(p, `${path}/confirm`, e.confirm);
}

function checkTextInput(p: Problems, path: string, e: Json): void {
  p.text(`${path}/placeholder`, e.placeholder, PLAIN(150), false);
  p.string(`${path}/initial_value`, e.initial_value, 3000);
  for (const [field, least] of [
    ['min_length', 0],
    ['max_length', 1],
  ] as const) {
    const n = e[field];
    if (n !== undefined && (!Number.isInteger(n) || (n as number) < least || (n as number) > 3000))
      p.add(`${path}/${field}`, `must be an integer from ${least} to 3000`);
  }
}

/** An image element (`context` elements, a section's accessory) or the same fields of an image block. */
export function checkImage(p: Problems, path: string, e: Json): void {
  p.string(`${path}/alt_text`, e.alt_text, 2000, true);
  if (e.slack_file === undefined) p.string(`${path}/image_url`, e.image_url, 3000, true);
}

/**
 * One block element at `path` (an `actions` element, a section's accessory, an input's element).
 * `allowed`: the types this place accepts (undefined: any interactive element).
 */
export function checkElement(p: Problems, path: string, v: unknown, allowed?: ReadonlySet<string>): void {
  const e = p.object(path, v);
  if (!e) return;
  const type = typeof e.type === 'string' ? e.type : '';
  if (allowed && !allowed.has(type)) return p.add(`${path}/type`, `unsupported type: ${type}`);
  p.string(`${path}/action_id`, e.action_id, 255);
  if (type === 'button') checkButton(p, path, e);
  else if (type === 'static_select') checkStaticSelect(p, path, e);
  else if (type === 'radio_buttons' || type === 'checkboxes')
    checkOptions(p, `${path}/options`, e.options, 1, 10, false);
  else if (type === 'overflow') checkOptions(p, `${path}/options`, e.options, 2, 5, true);
  else if (type === 'plain_text_input') checkTextInput(p, path, e);
  else if (type === 'image') checkImage(p, path, e);
  else if (!OTHER_ELEMENTS.has(type)) p.add(`${path}/type`, `unsupported type: ${type}`);
}
