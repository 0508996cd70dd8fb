/**
 * One-line renderings of recorded Web API calls, for the sandbox's live log of what the bot asked
 * the fake Slack to do.
 */
import type { SlackCall } from '../fake-slack.js';
import { blocksToLines } from './blocks.js';
import { asArr, asObj, asStr, Namer } from './names.js';

/**
 * The call's text (a stream's markdown text or text chunks; else its blocks' text joined with " / "),
 * whitespace collapsed, cut to `max` characters with an ellipsis.
 */
function summarize(call: SlackCall, max = 60): string {
  const a = call.args;
  const chunkText = asArr(a.chunks)
    .map((c) => (asObj(c)?.type === 'markdown_text' ? asStr(asObj(c)?.text) : ''))
    .join('');
  let text = asStr(a.text) || asStr(a.initial_comment) || asStr(a.markdown_text) || chunkText;
  if (!text && Array.isArray(a.blocks)) {
    text = blocksToLines(a.blocks, Namer.empty()).filter(Boolean).join(' / ');
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * One line for the sandbox's live log of a recorded call, e.g.
 * `chat.update C0DOCS 1700000000.000100 "Opened PR #12"`, `reactions.add C0DOCS 1700000000.000200 :eyes:`,
 * `views.publish U0ALICE home`; failures end with ` → error_code` or ` → HTTP 429 retry-after 1s`.
 *
 * @param call - a {@link SlackCall} from `FakeSlack.calls` / `onCall`.
 * @returns a single line without trailing newline.
 */
export function renderCall(call: SlackCall): string {
  const a = call.args;
  const response = asObj(call.response) ?? {};
  const parts: string[] = [call.method];
  const channel = asStr(a.channel) || asStr(a.channel_id);
  if (channel) parts.push(channel);
  if (call.method.startsWith('views.')) {
    const who = asStr(a.user_id) || asStr(a.view_id) || asStr(a.trigger_id);
    if (who) parts.push(who);
    const type = asStr(asObj(a.view)?.type);
    if (type) parts.push(type);
  } else if (call.method === 'users.info') {
    parts.push(asStr(a.user));
  } else if (call.method.startsWith('files.') || call.method === 'file_upload') {
    const name =
      asStr(a.filename) ||
      asArr(a.files)
        .map((f) => asStr(asObj(f)?.title) || asStr(asObj(f)?.id))
        .join(',');
    if (name) parts.push(name);
    if (asStr(response.file_id)) parts.push(asStr(response.file_id));
  } else if (call.method === 'response_url') {
    const mode =
      a.delete_original === true
        ? 'delete_original'
        : a.replace_original === true
          ? 'replace_original'
          : asStr(a.response_type) || 'ephemeral';
    parts.push(mode);
  }
  const ts =
    asStr(a.ts) || asStr(a.timestamp) || asStr(a.message_ts) || asStr(response.ts) || asStr(response.message_ts);
  if (ts) parts.push(ts);
  if (asStr(a.thread_ts)) parts.push(`(thread ${asStr(a.thread_ts)})`);
  if (asStr(a.name)) parts.push(`:${asStr(a.name)}:`);
  const text = summarize(call);
  if (text) parts.push(`"${text}"`);
  let line = parts.filter(Boolean).join(' ');
  if (call.status === 429) line += ` → HTTP 429 retry-after ${call.retryAfterS ?? '?'}s`;
  else if (response.ok === false) line += ` → ${asStr(response.error) || 'error'}`;
  else if (call.status >= 400) line += ` → HTTP ${call.status}`;
  return line;
}
