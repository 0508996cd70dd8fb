/**
 * Reads the assistant's answer, an AI SDK v5 UI message stream (see `./discovery-schemas.ts` for the
 * protocol and its sources), into typed {@link AssistantEvent}s. Server-sent events are parsed by
 * `eventsource-parser` (the parser the AI SDK itself uses); each event's `data` is one JSON chunk,
 * or `[DONE]` at the end. Unknown chunk types are skipped; everything else that goes wrong ends
 * the iteration with an {@link AssistantStreamError}, never anything else.
 */
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { hasCode } from '../errors.js';
import {
  KNOWN_CHUNK_TYPES,
  pagesFromToolOutput,
  uiMessageChunkSchema,
  type DocsPage,
  type UIMessageChunk,
} from './discovery-schemas.js';
import { AssistantStreamError, DocsApiErrorCode, type AssistantStreamFailure } from './errors.js';

/**
 * What the answer stream says, in order:
 * - `text`: the next piece of the answer (Markdown), from a `text-delta` chunk;
 * - `search`: the assistant's `search` tool call finished: its `query` (when the input had a string
 *   `query`) and the `pages` it returned (empty when it found nothing);
 * - `error`: an `error` chunk ("appended to the message as they are received"); the stream may go on;
 * - `finish`: the answer is complete; `threadId` when the chunk carried one (spec: "returned in the
 *   response as event.threadId when event.type === 'finish'"; the headers carry it too).
 */
export type AssistantEvent =
  | { type: 'text'; delta: string }
  | { type: 'search'; toolCallId: string; query: string | undefined; pages: DocsPage[] }
  | { type: 'error'; errorText: string }
  | { type: 'finish'; threadId: string | undefined };

/** Limits and hooks of {@link readAssistantStream}. */
interface ReadAssistantStreamOptions {
  /** Most answer text (sum of `text-delta` lengths, in UTF-16 code units) before `too_long`. */
  maxAnswerChars: number;
  /** Most characters the whole stream may carry (chunks, tool outputs) before `too_long`. */
  maxStreamChars: number;
  /** Most characters of one server-sent event before `malformed`. */
  maxEventChars: number;
  /**
   * Why reading failed when the body iterator threw: 'aborted' or 'timed_out' when the caller
   * knows, else undefined (→ `cut_off`).
   */
  failureOf?: (err: unknown) => AssistantStreamFailure | undefined;
}

/** Collects the events of one feed and the first failure; see {@link readAssistantStream}. */
class StreamState {
  readonly pending: AssistantEvent[] = [];
  failure: AssistantStreamError | undefined;
  done = false;
  chunks = 0;
  textChars = 0;
  streamChars = 0;
  private lastError: string | undefined;
  private readonly toolNames = new Map<string, { name: string; query: string | undefined }>();

  constructor(private readonly opts: ReadAssistantStreamOptions) {}

  fail(reason: AssistantStreamFailure, detail: string, cause?: unknown): void {
    this.failure ??= new AssistantStreamError(reason, detail, this.textChars, { cause });
  }

  /** Counts fed characters against the stream cap. */
  fed(chars: number): void {
    this.streamChars += chars;
    if (this.streamChars > this.opts.maxStreamChars)
      this.fail('too_long', `stream over ${this.opts.maxStreamChars} characters`);
  }

  onParseError(err: ParseError): void {
    if (err.type === 'max-buffer-size-exceeded')
      this.fail('malformed', `an event over ${this.opts.maxEventChars} characters`);
    // 'unknown-field' and 'invalid-retry' lines are ignored, as browsers' EventSource does.
  }

  onEvent(message: EventSourceMessage): void {
    if (this.done || this.failure) return;
    if (message.data === '[DONE]') {
      this.end('[DONE]');
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(message.data);
    } catch {
      this.fail('malformed', 'an event whose data is not JSON');
      return;
    }
    const type = (json as { type?: unknown } | null)?.type;
    if (typeof type !== 'string') return this.fail('malformed', 'a chunk without a string type');
    this.chunks += 1;
    if (!KNOWN_CHUNK_TYPES.has(type)) return; // start, text-start, start-step, reasoning-*, data-*, …: not used
    const parsed = uiMessageChunkSchema.safeParse(json);
    if (!parsed.success) return this.fail('malformed', `a ${type} chunk of the wrong shape`);
    this.onChunk(parsed.data);
  }

  /** The stream ended (`[DONE]` or the end of the body). */
  end(how: '[DONE]' | 'eof'): void {
    if (this.done || this.failure) return;
    if (this.lastError !== undefined) this.fail('assistant_error', 'an error chunk and no finish');
    else if (how === '[DONE]') this.done = true;
    else if (this.chunks === 0) this.fail('malformed', 'no UI message chunk in the response');
    else this.fail('cut_off', 'the stream ended before the finish chunk');
  }

  private onChunk(chunk: UIMessageChunk): void {
    switch (chunk.type) {
      case 'text-delta':
        this.textChars += chunk.delta.length;
        if (this.textChars > this.opts.maxAnswerChars)
          return this.fail('too_long', `answer over ${this.opts.maxAnswerChars} characters`);
        if (chunk.delta !== '') this.pending.push({ type: 'text', delta: chunk.delta });
        return;
      case 'tool-input-start':
        if (!this.toolNames.has(chunk.toolCallId))
          this.toolNames.set(chunk.toolCallId, { name: chunk.toolName, query: undefined });
        return;
      case 'tool-input-available': {
        const query = (chunk.input as { query?: unknown } | null | undefined)?.query;
        this.toolNames.set(chunk.toolCallId, {
          name: chunk.toolName,
          query: typeof query === 'string' ? query : undefined,
        });
        return;
      }
      case 'tool-output-available': {
        const tool = this.toolNames.get(chunk.toolCallId);
        if (tool?.name !== 'search') return;
        this.pending.push({
          type: 'search',
          toolCallId: chunk.toolCallId,
          query: tool.query,
          pages: pagesFromToolOutput(chunk.output),
        });
        return;
      }
      case 'error':
        this.lastError = chunk.errorText;
        this.pending.push({ type: 'error', errorText: chunk.errorText });
        return;
      case 'finish': {
        const metadata = chunk.messageMetadata as { threadId?: unknown } | undefined;
        const threadId = chunk.threadId ?? (typeof metadata?.threadId === 'string' ? metadata.threadId : undefined);
        this.lastError = undefined;
        this.pending.push({ type: 'finish', threadId });
        this.done = true;
      }
    }
  }
}

/**
 * The events of one answer, read from `body` (the HTTP response body as bytes or strings).
 *
 * Ends normally after the `finish` chunk or `data: [DONE]`, whichever comes first (what follows is
 * not read). Every other ending throws an {@link AssistantStreamError} from the iterator: `malformed`,
 * `cut_off` (the body ended, or failed, first), `timed_out`/`aborted` (as `opts.failureOf` says),
 * `too_long` (answer text over `maxAnswerChars`, or the stream over `maxStreamChars`),
 * `assistant_error` (an `error` chunk and no `finish`). Events read before a failure are yielded
 * first. Breaking out of the loop stops reading (the body is released).
 */
export async function* readAssistantStream(
  body: AsyncIterable<Uint8Array | string>,
  opts: ReadAssistantStreamOptions,
): AsyncGenerator<AssistantEvent, void, undefined> {
  const state = new StreamState(opts);
  const parser = createParser({
    onEvent: (m) => state.onEvent(m),
    onError: (e) => state.onParseError(e),
    maxBufferSize: opts.maxEventChars,
  });
  const decoder = new TextDecoder();
  const feed = (text: string): void => {
    state.fed(text.length);
    if (!state.failure) parser.feed(text);
  };
  try {
    for await (const bytes of body) {
      feed(typeof bytes === 'string' ? bytes : decoder.decode(bytes, { stream: true }));
      yield* drain(state);
      if (state.done) return;
    }
  } catch (err) {
    if (hasCode(err, DocsApiErrorCode.AssistantStreamFailed)) throw err;
    state.fail(opts.failureOf?.(err) ?? 'cut_off', describe(err), err);
    yield* drain(state);
  }
  feed(decoder.decode());
  parser.reset({ consume: true });
  state.end('eof');
  yield* drain(state);
}

/** Yields what the state collected, then throws its failure, if any. */
function* drain(state: StreamState): Generator<AssistantEvent, void, undefined> {
  while (state.pending.length > 0) yield state.pending.shift() as AssistantEvent;
  if (state.failure) throw state.failure;
}

/** A short, content-free description of a body error: its code or name. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return 'the body failed';
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : err.name;
}
