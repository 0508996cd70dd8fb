/**
 * Every error of the docs API clients (admin, analytics and discovery), in one place. Each is a real
 * `Error` with one stable `code` of {@link DocsApiErrorCode} per kind (the `@slack/web-api`
 * `ErrorCode` style: a subclass has a code of its own, so a decision reads the code alone, with
 * `hasCode` or `errorCode` of platform/errors.ts, never `instanceof`), the HTTP `status` where there
 * was one, and `retryable` telling whether the same request may succeed later. Messages never
 * contain an API key, a thread key or the Authorization header.
 *
 * The discovery spec (test/fixtures/mintlify/discovery-openapi.json) declares no 401, 403 or 429;
 * the vendor's guides say a wrong key is answered 401 ("401 authentication error", guides/
 * assistant-embed.mdx), a `threadId` without its `threadKey` 404, and that the assistant allows
 * 10,000 requests per organization per hour (no `Retry-After` is documented).
 */
import { errorCode } from '../errors.js';

/** The codes of the docs API's errors: one per kind, each naming its class. */
export const DocsApiErrorCode = {
  /** 400 ({@link DocsApiBadRequestError}). */
  BadRequest: 'bad_request',
  /** 400 to an analytics request that carried a cursor ({@link DocsApiCursorRejectedError}). */
  CursorRejected: 'cursor_rejected',
  /** 401 to the admin key ({@link DocsApiUnauthorizedError}). */
  Unauthorized: 'unauthorized',
  /** 403 to the admin key ({@link DocsApiForbiddenError}). */
  Forbidden: 'forbidden',
  /** 404: unknown job, project, page or docs site ({@link DocsApiNotFoundError}). */
  NotFound: 'not_found',
  /** 429 ({@link DocsApiRateLimitedError}). */
  RateLimited: 'rate_limited',
  /** 5xx ({@link DocsApiServerError}). */
  ServerError: 'server_error',
  /** No full HTTP answer ({@link DocsApiNetworkError}). */
  NetworkError: 'network_error',
  /** An answer not of the documented shape or status ({@link DocsApiInvalidResponseError}). */
  InvalidResponse: 'invalid_response',
  /** 401/403 to the assistant key ({@link AssistantKeyRefusedError}). */
  AssistantKeyRefused: 'assistant_key_refused',
  /** 404 to a message continuing a thread ({@link AssistantThreadNotFoundError}). */
  AssistantThreadNotFound: 'assistant_thread_not_found',
  /** An answer stream that began but did not end well ({@link AssistantStreamError}). */
  AssistantStreamFailed: 'assistant_stream_failed',
} as const;

/** One of {@link DocsApiErrorCode}. */
export type DocsApiErrorCode = (typeof DocsApiErrorCode)[keyof typeof DocsApiErrorCode];

const CODES: ReadonlySet<string> = new Set(Object.values(DocsApiErrorCode));

/** Whether `err` is a docs API error (its `code` is one of {@link DocsApiErrorCode}). */
export function isDocsApiError(err: unknown): err is DocsApiError {
  const code = errorCode(err);
  return code !== undefined && CODES.has(code);
}

/** Base class of every docs API failure. */
export class DocsApiError extends Error {
  constructor(
    readonly code: DocsApiErrorCode,
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DocsApiError';
  }
}

/**
 * 400: the API rejected the request. `apiMessage` is the API's own words on one line (`error: detail;
 * detail`, or "no details"); `details` are the `details[].message` of the body (spec:
 * AnalyticsErrorResponse), each on one line, in the API's order (empty when it sent none).
 */
export class DocsApiBadRequestError extends DocsApiError {
  constructor(
    readonly apiMessage: string,
    readonly details: readonly string[] = [],
    code: typeof DocsApiErrorCode.BadRequest | typeof DocsApiErrorCode.CursorRejected = DocsApiErrorCode.BadRequest,
  ) {
    super(code, `docs API rejected the request: ${apiMessage}`, 400, false);
    this.name = 'DocsApiBadRequestError';
  }
}

/**
 * 400 to an analytics request that carried a `cursor`: the API no longer accepts that cursor (it
 * expired, or the data under it changed), so the page cannot be read again; the report has to be run
 * again from its first page. The spec documents no other answer for a bad cursor: GET …/searches
 * answers 400 "Invalid query parameters or cursor", …/feedback and …/assistant 400 "Invalid query
 * parameters" (analytics.openapi.json); the rest of such a request is the query its first page was
 * accepted with. A {@link DocsApiBadRequestError} with the API's words, and a code of its own
 * (`cursor_rejected`).
 */
export class DocsApiCursorRejectedError extends DocsApiBadRequestError {
  constructor(apiMessage: string, details: readonly string[] = []) {
    super(apiMessage, details, DocsApiErrorCode.CursorRejected);
    this.message = `docs API no longer accepts this page's cursor: ${apiMessage}`;
    this.name = 'DocsApiCursorRejectedError';
  }
}

/** 401: the admin key is missing, wrong or expired (vendor docs). */
export class DocsApiUnauthorizedError extends DocsApiError {
  constructor() {
    super(DocsApiErrorCode.Unauthorized, 'docs API rejected the API key (401)', 401, false);
    this.name = 'DocsApiUnauthorizedError';
  }
}

/** 403: the key lacks a scope or the caller's IP is not on the allowlist (vendor docs). */
export class DocsApiForbiddenError extends DocsApiError {
  constructor() {
    super(DocsApiErrorCode.Forbidden, 'docs API refused access (403): scope or IP allowlist', 403, false);
    this.name = 'DocsApiForbiddenError';
  }
}

/** 404: unknown job or project. */
export class DocsApiNotFoundError extends DocsApiError {
  constructor(readonly apiMessage: string) {
    super(DocsApiErrorCode.NotFound, `docs API: not found (${apiMessage})`, 404, false);
    this.name = 'DocsApiNotFoundError';
  }
}

/**
 * 429: rate limited. The vendor documents no `Retry-After`; `retryAfterMs` is the header's value
 * when present, else undefined (callers pick their own backoff).
 */
export class DocsApiRateLimitedError extends DocsApiError {
  constructor(readonly retryAfterMs: number | undefined) {
    super(DocsApiErrorCode.RateLimited, 'docs API rate limit reached (429)', 429, true);
    this.name = 'DocsApiRateLimitedError';
  }
}

/** 5xx: the docs service failed. */
export class DocsApiServerError extends DocsApiError {
  constructor(status: number) {
    super(DocsApiErrorCode.ServerError, `docs API failed (${status})`, status, true);
    this.name = 'DocsApiServerError';
  }
}

/**
 * The request never got an HTTP answer: connection refused/reset, DNS, or timeout.
 *
 * `sent` tells whether the request may have reached the docs service: false only when it
 * certainly did not (the connection was never made: refused, DNS failure, connect timeout, TLS
 * handshake refused; see {@link NOT_SENT_CODES}), so a POST that failed that way started nothing.
 * true when it may have (a timeout or reset after the request was written): a POST's effect is
 * unknown. @defaultValue true (the cautious reading)
 */
export class DocsApiNetworkError extends DocsApiError {
  readonly sent: boolean;

  constructor(detail: string, options: { sent?: boolean; cause?: unknown } = {}) {
    super(DocsApiErrorCode.NetworkError, `docs API unreachable: ${detail}`, undefined, true, { cause: options.cause });
    this.name = 'DocsApiNetworkError';
    this.sent = options.sent ?? true;
  }
}

/**
 * Error codes (Node's `net`/`dns`/`tls` and undici's) that mean no connection to the docs
 * service was made, so no request can have left: the connection was refused, the name did not
 * resolve, the connect phase timed out (undici `UND_ERR_CONNECT_TIMEOUT`), the host or network
 * was unreachable, or the TLS handshake failed on the certificate. Sources: Node "Common system
 * errors" and dns error codes; undici `lib/core/errors.js` (ConnectTimeoutError).
 */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The API answered 2xx but the body was not JSON or not the documented shape. */
export class DocsApiInvalidResponseError extends DocsApiError {
  constructor(detail: string) {
    super(DocsApiErrorCode.InvalidResponse, `docs API sent an unexpected response: ${detail}`, undefined, false);
    this.name = 'DocsApiInvalidResponseError';
  }
}

/**
 * 401/403: the discovery API refused the assistant API key (missing, wrong, revoked, or an admin key
 * where an assistant key belongs). The operator fixes it: log it naming the variable that holds
 * the assistant key; tell the person only that asking is unavailable.
 */
export class AssistantKeyRefusedError extends DocsApiError {
  constructor(status: 401 | 403) {
    super(
      DocsApiErrorCode.AssistantKeyRefused,
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
      DocsApiErrorCode.AssistantThreadNotFound,
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
      DocsApiErrorCode.AssistantStreamFailed,
      `discovery API answer stream ${reason.replace('_', ' ')}: ${detail}`,
      200,
      RETRYABLE.has(reason),
      options,
    );
    this.name = 'AssistantStreamError';
  }
}
