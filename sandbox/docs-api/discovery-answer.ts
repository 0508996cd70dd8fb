/**
 * The fake assistant's answers: which pages a question finds, the answer's text, and the answer
 * streamed as an AI SDK v5 UI message stream (ai-sdk.dev "Stream Protocols": SSE `data: <json>`
 * chunks `start`, `start-step`, `tool-input-start`, `tool-input-available`, `tool-output-available`,
 * `finish-step`, `text-start`, `text-delta`, `text-end`, `finish`, then `data: [DONE]`; header
 * `x-vercel-ai-ui-message-stream: v1`). The pages the answer used are the output of its `search`
 * tool call, as search results (`{path, content, metadata: {title}}`); none when nothing matched.
 */
import type { ServerResponse } from 'node:http';
import { matchPages, searchResult, type FakeDocPage, type FakeFilter } from './discovery-pages.js';

/** The answer when no page matches the question. */
export const NOT_FOUND_TEXT = "I couldn't find anything about that in the docs.";

/** What the fake assistant will say: the search query, the pages found and the Markdown text. */
export interface AnswerPlan {
  query: string;
  pages: FakeDocPage[];
  text: string;
}

/**
 * Plans the answer to `question`. A question no page matches is tried again together with the
 * thread's earlier questions (newest first), so "and how long does the old one keep working?"
 * after a question about API keys is answered from the API keys page.
 * @param limit - most pages the search returns (the request's `retrievalPageSize`, default 5).
 */
export function planAnswer(
  pages: FakeDocPage[],
  question: string,
  earlier: string[],
  limit: number,
  filter?: FakeFilter | null,
): AnswerPlan {
  let query = question;
  let found = matchPages(pages, question, limit, filter);
  for (const previous of [...earlier].reverse()) {
    if (found.length > 0) break;
    query = `${previous} ${question}`;
    found = matchPages(pages, query, limit, filter);
  }
  if (found.length === 0) return { query: question, pages: [], text: NOT_FOUND_TEXT };
  const [first, second] = found;
  // Cited inline (a relative link to the page); the pages themselves go out as search results,
  // which the bot lists under Sources: the text carries no list of its own to show twice.
  const lines = [`From [${first!.title}](${first!.path}): ${first!.content}`];
  if (second) lines.push(`See also [${second.title}](${second.path}): ${second.content}`);
  return { query, pages: found, text: lines.join('\n\n') };
}

/** `text` in pieces of about `size` characters, cut after a space (their concatenation is `text`). */
export function textPieces(text: string, size = 24): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const cut = rest.indexOf(' ', size);
    if (cut < 0) break;
    pieces.push(rest.slice(0, cut + 1));
    rest = rest.slice(cut + 1);
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/** How one answer streams: delays in ms (real timers), and an optional cut after that many text-delta chunks. */
export interface StreamTiming {
  firstTokenDelayMs: number;
  chunkDelayMs: number;
  cutAfterTextChunks?: number;
}

/** The chunks of one answer, in order, each with whether it is a text delta (the delays and the cut count those). */
export function answerChunks(plan: AnswerPlan, n: number): Array<{ chunk: unknown; text: boolean }> {
  const call = `call_${n}`;
  const id = `txt_${n}`;
  const meta = (chunk: unknown) => ({ chunk, text: false });
  return [
    meta({ type: 'start', messageId: `msg_${n}` }),
    meta({ type: 'start-step' }),
    meta({ type: 'tool-input-start', toolCallId: call, toolName: 'search' }),
    meta({ type: 'tool-input-available', toolCallId: call, toolName: 'search', input: { query: plan.query } }),
    meta({ type: 'tool-output-available', toolCallId: call, output: plan.pages.map((p) => searchResult(p)) }),
    meta({ type: 'finish-step' }),
    meta({ type: 'start-step' }),
    meta({ type: 'text-start', id }),
    ...textPieces(plan.text).map((delta) => ({ chunk: { type: 'text-delta', id, delta }, text: true })),
    meta({ type: 'text-end', id }),
    meta({ type: 'finish-step' }),
    meta({ type: 'finish' }),
  ];
}

const sleep = (ms: number): Promise<void> =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

/**
 * Streams `chunks` to `res` (whose headers are written already) as server-sent events, then
 * `data: [DONE]`, waiting `firstTokenDelayMs` before the first text delta and `chunkDelayMs` before
 * each later one. With `cutAfterTextChunks`, the connection is destroyed after that many text
 * deltas (no `finish`, no `[DONE]`). Stops quietly when the client goes away.
 * @returns the SSE text written and whether the stream was cut.
 */
export async function writeAnswer(
  res: ServerResponse,
  chunks: Array<{ chunk: unknown; text: boolean }>,
  timing: StreamTiming,
): Promise<{ sse: string; cut: boolean }> {
  let sse = '';
  let deltas = 0;
  // Each write is awaited (flushed to the socket), so a cut after it destroys nothing written before.
  const write = (data: string): Promise<void> => {
    const event = `data: ${data}\n\n`;
    sse += event;
    return new Promise((resolve) => res.write(event, () => resolve()));
  };
  for (const { chunk, text } of chunks) {
    if (res.destroyed) return { sse, cut: true };
    if (text) {
      if (deltas === timing.cutAfterTextChunks) {
        res.destroy();
        return { sse, cut: true };
      }
      await sleep(deltas === 0 ? timing.firstTokenDelayMs : timing.chunkDelayMs);
      deltas += 1;
    }
    if (res.destroyed) return { sse, cut: true };
    await write(JSON.stringify(chunk));
  }
  await write('[DONE]');
  res.end();
  return { sse, cut: false };
}
