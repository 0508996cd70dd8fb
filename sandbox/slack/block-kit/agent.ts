/**
 * The fake Slack's checks of the agent blocks, as Slack's Block Kit reference documents them
 * (docs.slack.dev/reference/block-kit):
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
 * Elsewhere a `feedback_buttons` element is an unsupported type (see ./elements.ts).
 */
import { obj, type Json } from '../method.js';
import type { Problems } from './problems.js';

const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);

const isStr = (v: unknown): v is string => typeof v === 'string' && v !== '';

function checkRichText(p: Problems, path: string, v: unknown): void {
  if (v === undefined) return;
  const r = obj(v);
  if (!r || r.type !== 'rich_text' || !Array.isArray(r.elements)) p.add(path, 'must be a rich_text object');
}

function checkTaskCard(p: Problems, path: string, t: Json, nested: boolean): void {
  if (!nested && t.type !== 'task_card') p.add(`${path}/type`, 'must be task_card');
  if (nested && t.type !== undefined && t.type !== 'task_card') p.add(`${path}/type`, 'must be task_card');
  if (!isStr(t.task_id)) p.add(`${path}/task_id`, 'missing required field');
  if (!isStr(t.title)) p.add(`${path}/title`, 'missing required field');
  if (nested) p.string(`${path}/block_id`, t.block_id, 255);
  if (t.status !== undefined && !TASK_STATUSES.has(t.status as string))
    p.add(`${path}/status`, 'must be one of pending, in_progress, complete, error');
  checkRichText(p, `${path}/details`, t.details);
  checkRichText(p, `${path}/output`, t.output);
  if (t.sources === undefined) return;
  p.array(`${path}/sources`, t.sources, 0, Number.MAX_SAFE_INTEGER).forEach((s, i) => {
    const src = obj(s);
    if (!src || src.type !== 'url' || !isStr(src.url) || !isStr(src.text))
      p.add(`${path}/sources/${i}`, 'must be a url source with url and text');
  });
}

function checkPlan(p: Problems, path: string, b: Json): void {
  // The reference's example and @slack/types give `title` as a string; its field table says "Object … in plain text".
  const title = obj(b.title);
  if (!isStr(b.title) && !(title?.type === 'plain_text' && isStr(title.text))) p.add(`${path}/title`, 'missing title');
  if (b.tasks === undefined) return;
  p.array(`${path}/tasks`, b.tasks, 0, Number.MAX_SAFE_INTEGER).forEach((t, i) => {
    const task = p.object(`${path}/tasks/${i}`, t);
    if (task) checkTaskCard(p, `${path}/tasks/${i}`, task, true);
  });
}

function checkFeedbackButton(p: Problems, path: string, v: unknown): void {
  const b = p.object(path, v);
  if (!b) return;
  p.text(`${path}/text`, b.text, { max: 75, plainOnly: true });
  p.string(`${path}/value`, b.value, 2000, true);
  p.string(`${path}/accessibility_label`, b.accessibility_label, 75);
}

function checkContextActions(p: Problems, path: string, b: Json): void {
  p.array(`${path}/elements`, b.elements, 1, 5).forEach((e, i) => {
    const at = `${path}/elements/${i}`;
    const el = p.object(at, e);
    if (!el) return;
    if (el.type !== 'feedback_buttons' && el.type !== 'icon_button')
      return p.add(`${at}/type`, `unsupported type: ${String(el.type)}`);
    p.string(`${at}/action_id`, el.action_id, 255);
    if (el.type === 'feedback_buttons') {
      checkFeedbackButton(p, `${at}/positive_button`, el.positive_button);
      checkFeedbackButton(p, `${at}/negative_button`, el.negative_button);
    }
  });
}

/** The agent block types and their checks (each adds to `p`; `path` is the block's JSON pointer). */
export const AGENT_BLOCKS: Record<string, (p: Problems, path: string, b: Json) => void> = {
  plan: checkPlan,
  task_card: (p, path, b) => checkTaskCard(p, path, b, false),
  context_actions: checkContextActions,
};
