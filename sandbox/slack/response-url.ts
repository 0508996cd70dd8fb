/**
 * `response_url`s of the fake Slack, served at `POST /response/<id>` with the JSON body Bolt's
 * `respond()` sends: `text`, `blocks`, `response_type` "ephemeral" (default) | "in_channel",
 * `replace_original`, `delete_original`, `thread_ts` (Slack docs: "Handling user interaction",
 * "Slash commands": responding with response_url). Every post is recorded as the pseudo method
 * "response_url".
 */
import { checkMessageBlocks } from './block-kit/index.js';
import { editMessage } from './chat.js';
import { obj, SlackApiError, str, type ApiResult, type Json } from './method.js';
import type { CallRecorder } from './recorder.js';
import type { SlackState } from './state.js';

const ok = (): ApiResult => ({ status: 200, body: { ok: true } });

/**
 * The refusal of blocks Slack would not take (./block-kit/index.ts): a response_url answers it with
 * HTTP 400 and the error code (as Slack's incoming webhooks do: "400 Bad Request … invalid_blocks",
 * slackapi/java-slack-sdk#1017), or undefined when the blocks pass.
 */
function blocksRefusal(blocks: unknown): ApiResult | undefined {
  try {
    checkMessageBlocks(blocks);
    return undefined;
  } catch (err) {
    if (err instanceof SlackApiError) return { status: 400, body: { ok: false, error: err.code, ...err.extra } };
    throw err;
  }
}

/** Apply a post to a known response_url; 404 `channel_not_found` when a new message has nowhere to go. */
function apply(state: SlackState, id: string, body: Json): ApiResult {
  const refused = body.delete_original === true ? undefined : blocksRefusal(body.blocks);
  if (refused) return refused;
  const context = state.responseUrlContext(id) ?? {};
  const source =
    context.channel && context.messageTs ? state.findMessage(context.channel, context.messageTs) : undefined;
  if (body.delete_original === true && source) {
    source.deleted = true;
    return ok();
  }
  if (body.replace_original === true && source) {
    editMessage(source, { text: body.text, blocks: body.blocks });
    return ok();
  }
  const ch = context.channel ? state.channel(context.channel) : undefined;
  if (!ch) return { status: 404, body: { ok: false, error: 'channel_not_found' } };
  const threadTs = str(body.thread_ts) ?? context.threadTs;
  const msg = state.botMessage(ch, { text: body.text, blocks: body.blocks, thread_ts: threadTs }, 'response_url');
  // Slack docs (slash commands / handling interactions): response_url replies are ephemeral unless response_type is "in_channel".
  if (body.response_type !== 'in_channel' && context.user) msg.ephemeralTo = context.user;
  state.messages.push(msg);
  return ok();
}

/**
 * Handle a POST of `raw` (JSON) to the response_url with id `id`, acting on the context it was minted
 * with ({@link ResponseUrlContext}): `delete_original` / `replace_original` change the message the
 * interaction came from; otherwise a new bot message is posted in the context's channel (thread), only
 * visible to `context.user` unless `response_type` is "in_channel".
 * @returns 200 `{ok:true}`; 400 `invalid_payload` for malformed JSON, or `invalid_blocks` / `msg_blocks_too_long`
 *   for blocks Slack refuses; 404 `no_such_response_url` or `channel_not_found`.
 */
export function responseUrlPost(state: SlackState, recorder: CallRecorder, id: string, raw: Buffer): ApiResult {
  let body: Json = {};
  try {
    body = obj(JSON.parse(raw.toString('utf8') || '{}')) ?? {};
  } catch {
    return recorder.record('response_url', { id }, { status: 400, body: { ok: false, error: 'invalid_payload' } });
  }
  const args: Json = { id, ...body };
  if (!state.responseUrlContext(id))
    return recorder.record('response_url', args, { status: 404, body: { ok: false, error: 'no_such_response_url' } });
  return recorder.record('response_url', args, apply(state, id, body));
}
