/**
 * The `files.*` Web API family of the fake Slack: `files.uploadV2`'s three steps (Slack docs:
 * "Uploading files"): `files.getUploadURLExternal` hands out an `upload_url` served by the fake
 * (`POST /upload/<file_id>`; WebClient sends the bytes as multipart field `body`), then
 * `files.completeUploadExternal` shares the uploaded files into a channel as a bot message.
 */
import type { IncomingMessage } from 'node:http';
import { isMultipart, parseForm } from './body.js';
import { fail, obj, str, type Json, type MethodTable } from './method.js';
import type { CallRecorder } from './recorder.js';
import type { SlackState } from './state.js';
import type { SlackFileRef } from './types.js';

function getUploadUrl(state: SlackState, args: Json): Json {
  const filename = str(args.filename) ?? fail('invalid_arguments');
  const length = Number(args.length);
  if (!Number.isInteger(length) || length < 0) fail('invalid_arguments');
  const fileId = `F${String(state.nextId()).padStart(10, '0')}`;
  state.uploads.set(fileId, { filename, length });
  return { ok: true, upload_url: `${state.origin}/upload/${fileId}`, file_id: fileId };
}

/** One `files` entry (`{id, title?}`) of completeUploadExternal → the uploaded file; `file_not_found` before its bytes arrived. */
function uploadedFile(state: SlackState, entry: unknown): SlackFileRef {
  const e = obj(entry) ?? {};
  const id = str(e.id) ?? fail('invalid_arguments');
  const upload = state.uploads.get(id);
  if (!upload?.bytes) fail('file_not_found');
  const bytes = upload?.bytes ?? Buffer.alloc(0);
  const name = upload?.filename ?? id;
  return { id, name, title: str(e.title) ?? name, size: bytes.length, bytes };
}

function completeUpload(state: SlackState, args: Json): Json {
  const list = Array.isArray(args.files) ? (args.files as unknown[]) : fail('invalid_arguments');
  const refs = list.map((entry) => uploadedFile(state, entry));
  const channelId = str(args.channel_id) ?? str(args.channels);
  if (channelId) {
    const ch = state.requireChannel(channelId);
    const initial = str(args.initial_comment);
    const msg = state.botMessage(
      ch,
      { text: initial ?? '', ...(initial ? {} : { blocks: args.blocks }), thread_ts: args.thread_ts },
      'file_share',
    );
    msg.files = refs;
    state.messages.push(msg);
  }
  return { ok: true, files: refs.map((f) => state.fileJson(f)) };
}

/** The `files.*` methods over `state`. Errors: `invalid_arguments`, `file_not_found`, `channel_not_found`, `not_in_channel`. */
export function filesMethods(state: SlackState): MethodTable {
  return {
    'files.getUploadURLExternal': (args) => getUploadUrl(state, args),
    'files.completeUploadExternal': (args) => completeUpload(state, args),
  };
}

/**
 * Receive the bytes POSTed to an `upload_url` (raw, or the multipart field `body` / `file` / the
 * first part) and record the pseudo call "file_upload".
 * @returns Slack's plain-text answer: 200 "OK - <bytes>", or 404 for an unknown file id.
 */
export async function receiveUpload(
  state: SlackState,
  recorder: CallRecorder,
  fileId: string,
  req: IncomingMessage,
  raw: Buffer,
): Promise<{ status: number; text: string }> {
  const pending = state.uploads.get(fileId);
  if (!pending) {
    recorder.record('file_upload', { file_id: fileId }, { status: 404, body: 'unknown upload url' });
    return { status: 404, text: 'unknown upload url' };
  }
  let bytes = raw;
  if (isMultipart(req)) {
    const form = await parseForm(req.headers['content-type'] ?? '', raw);
    const part = form.get('body') ?? form.get('file') ?? [...form.values()][0];
    bytes =
      part === undefined || part === null
        ? Buffer.alloc(0)
        : typeof part === 'string'
          ? Buffer.from(part)
          : Buffer.from(await part.arrayBuffer());
  }
  pending.bytes = bytes;
  const text = `OK - ${bytes.length}`;
  recorder.record(
    'file_upload',
    { file_id: fileId, filename: pending.filename, length: bytes.length },
    { status: 200, body: text },
  );
  return { status: 200, text };
}

/**
 * Serve a file's bytes at its `url_private` / `url_private_download` (`GET /files-pri/<team>-<file id>/…`).
 * Slack docs ("File object", "Authentication: downloading files"): these URLs need the token in an
 * `Authorization: Bearer` header. The fake answers 403 without the bot token (Slack sends a sign-in
 * page instead) and 404 for an unknown file, and records the pseudo call "file_download".
 */
export function serveFile(
  state: SlackState,
  recorder: CallRecorder,
  fileId: string,
  authorized: boolean,
): { status: number; bytes: Buffer; contentType: string } {
  const file = state.findFile(fileId);
  const status = !file ? 404 : authorized ? 200 : 403;
  recorder.record(
    'file_download',
    { file_id: fileId },
    { status, body: status === 200 ? `${file?.size ?? 0} bytes` : 'refused' },
  );
  if (status !== 200 || !file)
    return {
      status,
      bytes: Buffer.from(status === 404 ? 'not found' : 'forbidden'),
      contentType: 'text/plain; charset=utf-8',
    };
  return { status, bytes: file.bytes, contentType: file.mimetype ?? 'application/octet-stream' };
}
