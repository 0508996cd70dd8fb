/**
 * Typed errors of the discovery API client (`./discovery-client.ts`) that the admin API's errors
 * (`./errors.ts`) do not already name. They extend {@link DocsApiError}, so `code`, `status` and
 * `retryable` read the same everywhere, and `docsApiErrorText` still gives a person one sentence.
 * Messages never contain the assistant API key, a thread key, the question or the answer.
 *
 * The discovery spec (test/fixtures/mintlify/discovery-openapi.json) declares no 401, 403 or 429;
 * the vendor's guides say a wrong key is answered 401 ("401 authentication error", guides/
 * assistant-embed.mdx), a `threadId` without its `threadKey` 404, and that the assistant allows
 * 10,000 requests per organization per hour (no `Retry-After` is documented).
 */
import { DocsApiError } from './errors.js';

/**
 * 401/403: the discovery API refused the assistant API key (missing, wrong, revoked, or an admin key
 * where an assistant key belongs). The operator fixes it: log it naming the variable that holds
 * the assistant key; tell the person only that asking is unavailable.
 */
export class AssistantKeyRefusedError extends DocsApiError {
  constructor(status: 401 | 403) {
    super(
      status === 401 ? 'unauthorized' : 'forbidden',
      `discovery API refused the assistant API key (${status})`,
      status,
      false,
    );
    this.name = 'AssistantKeyRefusedError';
  }
}

/**
 * 404 on an assistant message: the thread is unknown, or its `threadKey` is missing or wrong
 * (vendor guide: "If you send a threadId without the corresponding threadKey, the server returns a
 * 404 error"). The conversation cannot continue; start a new one (no threadId).
 */
export class AssistantThreadNotFoundError extends DocsApiError {
  constructor() {
    super(
      'not_found',
      'discovery API: assistant thread not found (unknown thread, or its thread key is missing or wrong)',
      404,
      false,
    );
    this.name = 'AssistantThreadNotFoundError';
  }
}

/**
 * Why an answer stream ended without the assistant finishing it:
 * - `malformed`: not an AI SDK UI message stream (an event that is not JSON, a known chunk of the
 *   wrong shape, an event over the size cap, or no chunk at all);
 * - `cut_off`: the connection ended or failed before the `finish` chunk (or `[DONE]`);
 * - `timed_out`: no chunk within the idle timeout, or the whole answer took longer than its limit;
 * - `too_long`: the answer's text passed the character cap (or the stream its byte cap);
 * - `assistant_error`: the stream carried an `error` chunk and then ended without `finish`;
 * - `aborted`: the caller's signal aborted it (e.g. shutdown).
 */
export type AssistantStreamFailure = 'malformed' | 'cut_off' | 'timed_out' | 'too_long' | 'assistant_error' | 'aborted';

const RETRYABLE: ReadonlySet<AssistantStreamFailure> = new Set(['cut_off', 'timed_out', 'assistant_error']);

/**
 * The answer began (HTTP 200: the request arrived and used credits) but did not end well; see
 * {@link AssistantStreamFailure}. `retryable` is true for a cut-off, a timeout or the assistant's own
 * error (asking again may work; it costs another message), false otherwise. `textChars` is how much
 * answer text had been read before the failure (what the person may already have seen).
 */
export class AssistantStreamError extends DocsApiError {
  constructor(
    readonly reason: AssistantStreamFailure,
    detail: string,
    readonly textChars: number,
    options?: { cause?: unknown },
  ) {
    super(
      'invalid_response',
      `discovery API answer stream ${reason.replace('_', ' ')}: ${detail}`,
      200,
      RETRYABLE.has(reason),
      options,
    );
    this.name = 'AssistantStreamError';
  }
}
