/**
 * Typed errors of the docs API client. Every one is a real `Error` with a stable `code`,
 * the HTTP `status` where there was one, and `retryable` telling whether the same request may
 * succeed later. Messages never contain the API key or the Authorization header.
 */
export type DocsApiErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'rate_limited'
  | 'server_error'
  | 'network_error'
  | 'invalid_response';

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
  ) {
    super('bad_request', `docs API rejected the request: ${apiMessage}`, 400, false);
    this.name = 'DocsApiBadRequestError';
  }
}

/**
 * 400 to an analytics request that carried a `cursor`: the API no longer accepts that cursor (it
 * expired, or the data under it changed), so the page cannot be read again; the report has to be run
 * again from its first page. The spec documents no other answer for a bad cursor: GET …/searches
 * answers 400 "Invalid query parameters or cursor", …/feedback and …/assistant 400 "Invalid query
 * parameters" (analytics.openapi.json); the rest of such a request is the query its first page was
 * accepted with. Still a {@link DocsApiBadRequestError} (code `bad_request`), with the API's words.
 */
export class DocsApiCursorRejectedError extends DocsApiBadRequestError {
  constructor(apiMessage: string, details: readonly string[] = []) {
    super(apiMessage, details);
    this.message = `docs API no longer accepts this page's cursor: ${apiMessage}`;
    this.name = 'DocsApiCursorRejectedError';
  }
}

/** 401: the admin key is missing, wrong or expired (vendor docs). */
export class DocsApiUnauthorizedError extends DocsApiError {
  constructor() {
    super('unauthorized', 'docs API rejected the API key (401)', 401, false);
    this.name = 'DocsApiUnauthorizedError';
  }
}

/** 403: the key lacks a scope or the caller's IP is not on the allowlist (vendor docs). */
export class DocsApiForbiddenError extends DocsApiError {
  constructor() {
    super('forbidden', 'docs API refused access (403): scope or IP allowlist', 403, false);
    this.name = 'DocsApiForbiddenError';
  }
}

/** 404: unknown job or project. */
export class DocsApiNotFoundError extends DocsApiError {
  constructor(readonly apiMessage: string) {
    super('not_found', `docs API: not found (${apiMessage})`, 404, false);
    this.name = 'DocsApiNotFoundError';
  }
}

/**
 * 429: rate limited. The vendor documents no `Retry-After`; `retryAfterMs` is the header's value
 * when present, else undefined (callers pick their own backoff).
 */
export class DocsApiRateLimitedError extends DocsApiError {
  constructor(readonly retryAfterMs: number | undefined) {
    super('rate_limited', 'docs API rate limit reached (429)', 429, true);
    this.name = 'DocsApiRateLimitedError';
  }
}

/** 5xx: the docs service failed. */
export class DocsApiServerError extends DocsApiError {
  constructor(status: number) {
    super('server_error', `docs API failed (${status})`, status, true);
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
    super('network_error', `docs API unreachable: ${detail}`, undefined, true, { cause: options.cause });
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
    super('invalid_response', `docs API sent an unexpected response: ${detail}`, undefined, false);
    this.name = 'DocsApiInvalidResponseError';
  }
}
