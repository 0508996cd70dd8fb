/**
 * Block Kit as the fake Slack accepts it: a message's `blocks` (chat.postMessage, chat.postEphemeral,
 * chat.update, chat.stopStream, response_url posts) and a view (views.open, views.push,
 * views.update, views.publish), each block and element checked by ./blocks.ts and ./elements.ts.
 *
 * What Slack answers (docs.slack.dev method reference pages, their error tables; the answer shapes
 * as Slack sends them, e.g. slackapi/bolt-python#1016 and views.* answers quoted in
 * slackapi/python-slack-sdk issues):
 * - a message whose `blocks` is not a JSON array: `invalid_blocks_format`;
 * - more than 50 blocks in a message (Block Kit reference: "up to 50 blocks in each message, and
 *   100 blocks in modals or Home tabs"), or any block breaking its rules: `invalid_blocks`, with
 *   `errors` and `response_metadata.messages` naming each rule and its JSON pointer;
 * - a message whose blocks are too long all together: `msg_blocks_too_long` ("Blocks submitted
 *   with this message are too long"). Slack documents one cumulative limit, 12,000 characters for
 *   all markdown blocks of a payload (Markdown block reference), and applies an undocumented one to
 *   the text of all blocks together, observed at about 13,200 characters (slackapi/bolt-js#2509).
 *   The fake refuses more than {@link BLOCKS_TEXT_MAX} characters of text in all blocks together,
 *   below what Slack was seen to accept, so that what the fake accepts Slack accepts too;
 * - a view that breaks a rule (more than 100 blocks; a modal's `title` over 24 characters or
 *   missing, `close`/`submit` over 24, an input block without `submit`; `private_metadata` over
 *   3,000; `callback_id`/`external_id` over 255; Modal views / Home tab views reference):
 *   `invalid_arguments` with `response_metadata.messages`; over 250 kB: `view_too_large`.
 */
import { fail, obj } from '../method.js';
import { checkBlockList } from './blocks.js';
import { Problems } from './problems.js';

/** Blocks in one message (Block Kit reference). */
export const MESSAGE_BLOCKS_MAX = 50;
/** Blocks in a modal or Home tab view (Block Kit reference). */
export const VIEW_BLOCKS_MAX = 100;
/** Characters of text in all of a message's blocks together, beyond which the fake answers `msg_blocks_too_long`. */
export const BLOCKS_TEXT_MAX = 12_000;
/** Bytes of a view's JSON beyond which Slack answers `view_too_large` (views.* error tables: "greater than 250kb"). */
export const VIEW_BYTES_MAX = 250_000;

/** Characters of every `text` string in `v` (text objects, markdown blocks, rich text elements), all together. */
export function blocksTextLength(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + blocksTextLength(x), 0);
  const o = obj(v);
  if (!o) return 0;
  let n = 0;
  for (const [key, value] of Object.entries(o))
    n += key === 'text' && typeof value === 'string' ? value.length : blocksTextLength(value);
  return n;
}

function refuse(code: 'invalid_blocks' | 'invalid_arguments', p: Problems): never {
  const errors = p.messages.map((m) => m.replace(/^\[ERROR\] /, ''));
  return fail(code, { ...(code === 'invalid_blocks' ? { errors } : {}), response_metadata: { messages: p.messages } });
}

/**
 * Checks a message's `blocks` argument (absent: nothing to check).
 * @throws a SlackApiError `invalid_blocks_format`, `invalid_blocks` or `msg_blocks_too_long` (see the module doc).
 */
export function checkMessageBlocks(blocks: unknown): void {
  if (blocks === undefined) return;
  if (!Array.isArray(blocks)) fail('invalid_blocks_format');
  const p = new Problems();
  checkBlockList(p, '/blocks', p.array('/blocks', blocks, 0, MESSAGE_BLOCKS_MAX));
  if (p.messages.length > 0) refuse('invalid_blocks', p);
  if (blocksTextLength(blocks) > BLOCKS_TEXT_MAX) fail('msg_blocks_too_long');
}

/**
 * Checks the `view` argument of views.open / views.push / views.update / views.publish.
 * @param kind - `home` for views.publish, `modal` for the others (the view's own `type` must match).
 * @throws a SlackApiError `invalid_arguments` or `view_too_large` (see the module doc).
 */
export function checkView(view: unknown, kind: 'home' | 'modal'): void {
  const p = new Problems();
  const v = p.object('/view', view);
  if (!v) return refuse('invalid_arguments', p);
  if (v.type !== kind) p.add('/view/type', `must be ${kind}`);
  const blocks = p.array('/view/blocks', v.blocks, 0, VIEW_BLOCKS_MAX);
  checkBlockList(p, '/view/blocks', blocks);
  p.string('/view/private_metadata', v.private_metadata, 3000);
  p.string('/view/callback_id', v.callback_id, 255);
  p.string('/view/external_id', v.external_id, 255);
  if (kind === 'modal') {
    p.text('/view/title', v.title, { max: 24, plainOnly: true });
    p.text('/view/close', v.close, { max: 24, plainOnly: true }, false);
    p.text('/view/submit', v.submit, { max: 24, plainOnly: true }, false);
    const input = blocks.findIndex((b) => obj(b)?.type === 'input');
    if (input >= 0 && v.submit === undefined)
      p.add(`/view/blocks/${input}/input`, 'must define `submit` to use an `input` block in modals');
  }
  if (p.messages.length > 0) refuse('invalid_arguments', p);
  if (Buffer.byteLength(JSON.stringify(v)) > VIEW_BYTES_MAX) fail('view_too_large');
}
