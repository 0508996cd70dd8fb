import { DocsApiNetworkError, NOT_SENT_CODES } from './errors.js';

/**
 * The {@link DocsApiNetworkError} for what undici threw when a request got no full answer.
 *
 * @param err - undici's (or Node's) error.
 * @param phase - 'maybe' while sending (sent unless the error shows no connection was ever made),
 *   'arrived' once a response had begun (sent for certain).
 */
export function networkError(err: unknown, phase: 'maybe' | 'arrived'): DocsApiNetworkError {
  return new DocsApiNetworkError(describeNetworkError(err), {
    sent: phase === 'arrived' || !neverConnected(err),
    cause: err,
  });
}

/**
 * True when `err` (or an error in its `cause` chain, or every one of an AggregateError's, as
 * Node's happy-eyeballs connect throws) carries a code of {@link NOT_SENT_CODES}: no connection
 * was made, so no request left.
 */
export function neverConnected(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 4) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return true;
  if (err instanceof AggregateError && err.errors.length > 0 && err.errors.every((e) => neverConnected(e, depth + 1)))
    return true;
  return neverConnected(err.cause, depth + 1);
}

/** A short, secret-free description: "timed out (CODE)", the error code, or the error's name. */
function describeNetworkError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    // A DOMException's `name` is its code (WebIDL, "DOMException names"): AbortSignal.timeout() aborts with
    // TimeoutError; undici's own timeouts carry UND_ERR_*_TIMEOUT codes.
    if (err.name === 'TimeoutError' || err.name === 'AbortError' || /TIMEOUT/.test(String(code))) {
      return typeof code === 'string' ? `timed out (${code})` : 'timed out';
    }
    return typeof code === 'string' ? code : err.name;
  }
  return 'unknown error';
}
