/**
 * Server-sent event text of AI SDK v5 UI message streams, for tests of the discovery client
 * (ai-sdk.dev "Stream Protocols": each chunk is `data: <json>` and a blank line; the stream ends
 * with `data: [DONE]`).
 */

/** One SSE event carrying `chunk` as JSON (or a raw string as is). */
export function sseEvent(chunk: unknown): string {
  return `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`;
}

/** The SSE text of `chunks`, then `data: [DONE]` unless `done` is false. */
export function sse(chunks: unknown[], done = true): string {
  return chunks.map(sseEvent).join('') + (done ? sseEvent('[DONE]') : '');
}

/** A whole answer as the vendor's assistant streams it: start, the search tool call, the text in `deltas`, finish. */
export function answerChunks(deltas: string[], pages: unknown[], query = 'question'): unknown[] {
  return [
    { type: 'start', messageId: 'msg_1' },
    { type: 'start-step' },
    { type: 'tool-input-start', toolCallId: 'call_1', toolName: 'search' },
    { type: 'tool-input-available', toolCallId: 'call_1', toolName: 'search', input: { query } },
    { type: 'tool-output-available', toolCallId: 'call_1', output: pages },
    { type: 'finish-step' },
    { type: 'start-step' },
    { type: 'text-start', id: 'txt_1' },
    ...deltas.map((delta) => ({ type: 'text-delta', id: 'txt_1', delta })),
    { type: 'text-end', id: 'txt_1' },
    { type: 'finish-step' },
    { type: 'finish' },
  ];
}
