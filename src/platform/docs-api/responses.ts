import type { z } from 'zod';
import {
  DocsApiBadRequestError,
  DocsApiForbiddenError,
  DocsApiInvalidResponseError,
  DocsApiNotFoundError,
  DocsApiRateLimitedError,
  DocsApiServerError,
  DocsApiUnauthorizedError,
  type DocsApiError,
} from './errors.js';
import { apiErrorSchema } from './schemas.js';

/**
 * How the transport (transport.ts) reads an answer of the docs API, for every client: a 2xx JSON body
 * parsed with the caller's zod schema, a non-2xx status turned into its typed error with the API's
 * own words (spec: Error / AnalyticsErrorResponse `{error, details?}`; the discovery API's
 * `{message}`), and `Retry-After`.
 */

/** What the transport read of one HTTP answer. */
interface RawResponse {
  status: number;
  text: string;
  /** The `Retry-After` header as undici gives it. */
  retryAfter: string | string[] | undefined;
}

/**
 * The parsed body of a 2xx answer.
 * @throws {DocsApiInvalidResponseError} for a 2xx body that is not JSON or not of `schema`'s shape.
 */
export function parseResponse<S extends z.ZodType>(status: number, text: string, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DocsApiInvalidResponseError(`HTTP ${status} body is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new DocsApiInvalidResponseError(
      `HTTP ${status} body: ${first ? `${first.path.join('.') || 'body'} ${first.message}` : 'invalid'}`,
    );
  }
  return parsed.data;
}

/** One line: runs of whitespace (newlines included) become one space, ends trimmed. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The API's own words from an error body (spec: Error / AnalyticsErrorResponse, `{error, details?:
 * [{message}]}`; the discovery API's `{message}`), each on one line; empty when the body is not of
 * that shape.
 */
function apiErrorWords(text: string): { error: string | undefined; details: string[] } {
  try {
    const parsed = apiErrorSchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const said = parsed.data.error ?? parsed.data.message;
      const error = said === undefined ? undefined : oneLine(said) || undefined;
      const details = (parsed.data.details ?? []).map((d) => oneLine(d.message)).filter(Boolean);
      return { error, details };
    }
  } catch {
    // not JSON: no words
  }
  return { error: undefined, details: [] };
}

/** `error: detail; detail`, or "no details". */
function apiMessage(words: { error: string | undefined; details: string[] }): string {
  const details = words.details.join('; ');
  return [words.error, details].filter(Boolean).join(': ') || 'no details';
}

/**
 * The typed error of a non-2xx answer: 400 bad request (with the API's `error` and `details`), 401,
 * 403, 404, 429 (with `Retry-After` in ms when sent; the vendor documents none), 5xx server error;
 * any other status is an invalid response. A client makes some its own (the discovery client: the
 * assistant key refused, an unknown thread).
 * @param nowMs - the clock, epoch ms (for an HTTP-date `Retry-After`).
 */
export function errorFor(res: RawResponse, nowMs: number): DocsApiError {
  const { status, text, retryAfter } = res;
  switch (status) {
    case 400: {
      const words = apiErrorWords(text);
      return new DocsApiBadRequestError(apiMessage(words), words.details);
    }
    case 401:
      return new DocsApiUnauthorizedError();
    case 403:
      return new DocsApiForbiddenError();
    case 404:
      return new DocsApiNotFoundError(apiMessage(apiErrorWords(text)));
    case 429:
      return new DocsApiRateLimitedError(retryAfterMs(retryAfter, nowMs));
    default:
      if (status >= 500) return new DocsApiServerError(status);
      return new DocsApiInvalidResponseError(`unexpected HTTP ${status}`);
  }
}

/**
 * `Retry-After` in ms: delay-seconds or an HTTP-date (RFC 9110 §10.2.3), never negative; undefined
 * when absent or unreadable. The vendor documents no `Retry-After`.
 * @param nowMs - the clock, epoch ms (for an HTTP-date).
 */
export function retryAfterMs(raw: string | string[] | undefined, nowMs: number): number | undefined {
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Reads at most `maxChars` of a body as text and drops the rest (an error body is small; a huge one is cut). */
export async function readCapped(body: AsyncIterable<Uint8Array>, maxChars = 64 * 1024): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const bytes of body) {
    text += decoder.decode(bytes, { stream: true });
    if (text.length >= maxChars) break;
  }
  return text.slice(0, maxChars);
}
