/**
 * Checks server-sent event text against the AI SDK v5 UI message stream protocol (ai-sdk.dev
 * "Stream Protocols", v5/docs/ai-sdk-ui/stream-protocol: the chunk types and their fields below,
 * `data: [DONE]` last), plus the order rules the AI SDK's reader (`processUIMessageStream`) relies
 * on: a text or reasoning delta belongs to a part that was started and not yet ended, and a tool
 * output to a tool call whose input was announced. The discovery spec's v2 answer is this stream.
 */
import { createParser } from 'eventsource-parser';

/** Required fields of each documented chunk type (`data-*` parts: `data`). */
const REQUIRED: Record<string, string[]> = {
  start: [],
  'text-start': ['id'],
  'text-delta': ['id', 'delta'],
  'text-end': ['id'],
  'reasoning-start': ['id'],
  'reasoning-delta': ['id', 'delta'],
  'reasoning-end': ['id'],
  'source-url': ['sourceId', 'url'],
  'source-document': ['sourceId', 'mediaType', 'title'],
  file: ['url', 'mediaType'],
  error: ['errorText'],
  'tool-input-start': ['toolCallId', 'toolName'],
  'tool-input-delta': ['toolCallId', 'inputTextDelta'],
  'tool-input-available': ['toolCallId', 'toolName', 'input'],
  'tool-output-available': ['toolCallId', 'output'],
  'start-step': [],
  'finish-step': [],
  'message-metadata': ['messageMetadata'],
  finish: [],
  abort: [],
};

/** Problems of `sse` as a UI message stream; [] when it conforms. Also returns the parsed chunks. */
export function checkUiMessageStream(sse: string): { problems: string[]; chunks: Array<Record<string, unknown>> } {
  const problems: string[] = [];
  const datas: string[] = [];
  const parser = createParser({
    onEvent: (e) => datas.push(e.data),
    onError: (e) => problems.push(`SSE: ${e.message}`),
  });
  parser.feed(sse);
  if (datas.at(-1) !== '[DONE]') problems.push('the stream does not end with data: [DONE]');
  const chunks: Array<Record<string, unknown>> = [];
  const open = new Set<string>();
  const tools = new Set<string>();
  datas.slice(0, -1).forEach((data, i) => {
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      problems.push(`event ${i}: data is not JSON`);
      return;
    }
    chunks.push(chunk);
    const type = String(chunk.type);
    const required = type.startsWith('data-') ? ['data'] : REQUIRED[type];
    if (!required) return void problems.push(`event ${i}: ${type} is not a documented chunk type`);
    for (const field of required) if (chunk[field] === undefined) problems.push(`event ${i}: ${type} has no ${field}`);
    const part = `${type.split('-')[0]}:${String(chunk.id)}`;
    if (type.endsWith('-start') && (type === 'text-start' || type === 'reasoning-start')) open.add(part);
    if ((type === 'text-delta' || type === 'reasoning-delta') && !open.has(part))
      problems.push(`event ${i}: ${type} of a part not started`);
    if (type === 'text-end' || type === 'reasoning-end') open.delete(part);
    if (type === 'tool-input-start' || type === 'tool-input-available') tools.add(String(chunk.toolCallId));
    if (type === 'tool-output-available' && !tools.has(String(chunk.toolCallId)))
      problems.push(`event ${i}: output of an unannounced tool call`);
  });
  if (chunks.at(-1)?.type !== 'finish') problems.push('the last chunk is not finish');
  return { problems, chunks };
}
