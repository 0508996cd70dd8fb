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

/** What the client read of one HTTP answer. */
export interface RawResponse {
  status: number;
  text: string;
  /** The `Retry-After` header as undici gives it. */
  retryAfter: string | string[] | undefined;
}

/**
 * The parsed body of a 2xx answer, else the typed error of the status (see {@link errorFor}).
 * @throws {DocsApiInvalidResponseError} for a 2xx body that is not JSON or not of `schema`'s shape.
 */
export function parseResponse<S extends z.ZodType>(res: RawResponse, schema: S): z.output<S> {
  const { status, text } = res;
  if (status >= 200 && status < 300) {
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
  throw errorFor(res);
}

/** One line: runs of whitespace (newlines included) become one space, ends trimmed. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The API's own words from an error body (spec: Error / AnalyticsErrorResponse, `{error, details?:
 * [{message}]}`), each on one line; empty when the body is not of that shape.
 */
export function apiErrorWords(text: string): { error: string | undefined; details: string[] } {
  try {
    const parsed = apiErrorSchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const error = parsed.data.error === undefined ? undefined : oneLine(parsed.data.error) || undefined;
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
 * any other status is an invalid response.
 */
export function errorFor(res: RawResponse): DocsApiError {
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
    case 429: {
      const raw = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
      const seconds = raw === undefined ? NaN : Number(raw);
      return new DocsApiRateLimitedError(Number.isFinite(seconds) ? seconds * 1000 : undefined);
    }
    default:
      if (status >= 500) return new DocsApiServerError(status);
      return new DocsApiInvalidResponseError(`unexpected HTTP ${status}`);
  }
}
