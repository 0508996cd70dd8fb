/**
 * The fake Slack's checks of the agent blocks in a message, as Slack's Block Kit reference documents
 * them (docs.slack.dev/reference/block-kit):
 * - `plan` (Plan block): `title` required (plain text string); `tasks` optional, an array of task
 *   cards; `block_id` ≤ 255 chars.
 * - `task_card` (Task card block; also each entry of a plan's `tasks`): `task_id` and `title`
 *   required strings; `status` optional, one of `pending`, `in_progress`, `complete`, `error`;
 *   `details`/`output` optional, each a single `rich_text` object; `sources` optional, an array of URL
 *   source elements (`type: "url"`, `url` and `text` required; used only within a task card).
 * - `context_actions` (Context actions block): `elements` required, 1–5 items, each a
 *   `feedback_buttons` or `icon_button` element.
 * - `feedback_buttons` (Feedback buttons element, only inside context_actions): `positive_button` and
 *   `negative_button` required, each with `text` (plain_text, ≤ 75 chars) and `value` (≤ 2000 chars),
 *   `accessibility_label` optional (≤ 75); `action_id` optional (≤ 255).
 * What breaks a rule is refused as Slack refuses a bad block: `invalid_blocks`. Other block types
 * pass unchecked (the fake does not model the rest of Block Kit).
 */
import { fail, obj, type Json } from './method.js';

const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);

const isStr = (v: unknown): v is string => typeof v === 'string' && v !== '';
const within = (v: unknown, max: number): boolean => v === undefined || (typeof v === 'string' && v.length <= max);

function invalid(): never {
  return fail('invalid_blocks');
}

function checkRichText(v: unknown): void {
  if (v === undefined) return;
  const r = obj(v);
  if (!r || r.type !== 'rich_text' || !Array.isArray(r.elements)) invalid();
}

function checkTaskCard(t: Json, nested: boolean): void {
  if (!nested && t.type !== 'task_card') invalid();
  if (nested && t.type !== undefined && t.type !== 'task_card') invalid();
  if (!isStr(t.task_id) || !isStr(t.title) || !within(t.block_id, 255)) invalid();
  if (t.status !== undefined && !TASK_STATUSES.has(t.status as string)) invalid();
  checkRichText(t.details);
  checkRichText(t.output);
  if (t.sources === undefined) return;
  if (!Array.isArray(t.sources)) invalid();
  for (const s of t.sources as unknown[]) {
    const src = obj(s);
    if (!src || src.type !== 'url' || !isStr(src.url) || !isStr(src.text)) invalid();
  }
}

function checkPlan(b: Json): void {
  // The reference's example and @slack/types give `title` as a string; its field table says "Object … in plain text".
  const title = obj(b.title);
  if (!isStr(b.title) && !(title?.type === 'plain_text' && isStr(title.text))) invalid();
  if (b.tasks === undefined) return;
  if (!Array.isArray(b.tasks)) invalid();
  for (const t of b.tasks as unknown[]) checkTaskCard(obj(t) ?? invalid(), true);
}

function checkFeedbackButton(v: unknown): void {
  const b = obj(v) ?? invalid();
  const text = obj(b.text) ?? invalid();
  if (text.type !== 'plain_text' || !isStr(text.text) || !within(text.text, 75)) invalid();
  if (!isStr(b.value) || !within(b.value, 2000) || !within(b.accessibility_label, 75)) invalid();
}

function checkContextActions(b: Json): void {
  if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 5) invalid();
  for (const e of b.elements as unknown[]) {
    const el = obj(e) ?? invalid();
    if (el.type !== 'feedback_buttons' && el.type !== 'icon_button') invalid();
    if (!within(el.action_id, 255)) invalid();
    if (el.type === 'feedback_buttons') {
      checkFeedbackButton(el.positive_button);
      checkFeedbackButton(el.negative_button);
    }
  }
}

/**
 * Checks the agent blocks of a message's `blocks` argument (absent: nothing to check).
 * @throws `invalid_blocks` (a {@link fail}) when a plan, task card, context actions block or
 *   feedback buttons element breaks one of Slack's documented rules, or `feedback_buttons` stands
 *   outside a context actions block.
 */
export function checkAgentBlocks(blocks: unknown): void {
  if (!Array.isArray(blocks)) return;
  for (const raw of blocks) {
    const b = obj(raw);
    if (!b) continue;
    if (b.type === 'plan') checkPlan(b);
    else if (b.type === 'task_card') checkTaskCard(b, false);
    else if (b.type === 'context_actions') checkContextActions(b);
    else if (Array.isArray(b.elements) && (b.elements as unknown[]).some((e) => obj(e)?.type === 'feedback_buttons'))
      invalid();
    if (!within(b.block_id, 255)) invalid();
  }
}
