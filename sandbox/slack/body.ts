/**
 * Request bodies and answers of the fake Slack, as `@slack/web-api`'s WebClient sends and reads them:
 * `application/x-www-form-urlencoded` (WebClient's default: objects and arrays such as `blocks`, `view`,
 * `files` arrive JSON-encoded inside form fields), `application/json` or `multipart/form-data`;
 * query-string arguments are honoured too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SlackApiError, type Json } from './method.js';

/** Form fields WebClient JSON-encodes (it JSON-encodes every non-primitive argument). */
const JSON_FIELDS = new Set([
  'blocks',
  'attachments',
  'view',
  'files',
  'metadata',
  'unfurls',
  'user_auth_blocks',
  'prompts',
  'loading_messages',
  'chunks',
]);

/** The whole request body as bytes. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

function decodeField(key: string, value: string): unknown {
  if (!JSON_FIELDS.has(key)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Parse a `multipart/form-data` body (`contentType` carries the boundary). */
export async function parseForm(contentType: string, raw: Buffer): Promise<FormData> {
  // undici's Request parses multipart bodies exactly like a server would.
  return new Request('http://fake.invalid/', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: raw,
  }).formData();
}

/** Whether the request's content type is `multipart/form-data`. */
export function isMultipart(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

function parseJsonArgs(raw: Buffer): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new SlackApiError('invalid_json');
  }
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : {};
}

/**
 * Web API arguments from the query string and the body (JSON, multipart or form-encoded), with
 * {@link JSON_FIELDS} decoded and file parts as Buffers.
 * @throws {@link SlackApiError} `invalid_json` for a malformed JSON body (multipart parse errors propagate).
 */
export async function parseArgs(req: IncomingMessage, raw: Buffer, url: URL): Promise<Json> {
  const args: Json = {};
  for (const [k, v] of url.searchParams) args[k] = decodeField(k, v);
  const contentType = req.headers['content-type'] ?? '';
  if (raw.length === 0) return args;
  if (contentType.toLowerCase().startsWith('application/json')) {
    Object.assign(args, parseJsonArgs(raw));
  } else if (isMultipart(req)) {
    const form = await parseForm(contentType, raw);
    for (const [k, v] of form) args[k] = typeof v === 'string' ? decodeField(k, v) : Buffer.from(await v.arrayBuffer());
  } else {
    for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) args[k] = decodeField(k, v);
  }
  return args;
}

/** Answer `status` with `body` as JSON (plus `headers`, e.g. `retry-after`). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Answer `status` with a plain-text body. */
export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
