/**
 * HTTP helpers of the discovery API client: the typed error of a non-2xx answer, `Retry-After`,
 * a size-capped read of an error body, and the checks of request arguments made before any request.
 */
import type { z } from 'zod';
import { AssistantKeyRefusedError, AssistantThreadNotFoundError } from './discovery-errors.js';
import { discoveryErrorSchema, type AssistantMessageBody, type SearchBody } from './discovery-schemas.js';
import {
  DocsApiBadRequestError,
  DocsApiError,
  DocsApiInvalidResponseError,
  DocsApiNotFoundError,
  DocsApiRateLimitedError,
  DocsApiServerError,
} from './errors.js';

/** Which call an answer belongs to (a 404 means something else on each). */
export type DiscoveryCall = 'message' | 'search' | 'page';

/** The API's own words from an error body (`{message}`, per the spec's 404, or `{error}`), cut to 200 characters. */
function apiMessage(text: string): string {
  try {
    const parsed = discoveryErrorSchema.safeParse(JSON.parse(text));
    const words = parsed.success ? (parsed.data.message ?? parsed.data.error) : undefined;
    if (words) return words.slice(0, 200);
  } catch {
    // not JSON: no details
  }
  return 'no details';
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

/**
 * The typed error of a non-2xx answer: 400 → {@link DocsApiBadRequestError}; 401/403 →
 * {@link AssistantKeyRefusedError}; 404 → {@link AssistantThreadNotFoundError} for a message that
 * continues a thread (`inThread`), else {@link DocsApiNotFoundError} (an unknown domain, or a page:
 * "Page not found or no search index available", spec);
 * 429 → {@link DocsApiRateLimitedError} with `Retry-After`; 5xx → {@link DocsApiServerError};
 * anything else → {@link DocsApiInvalidResponseError}.
 */
export function discoveryErrorFor(
  call: DiscoveryCall,
  status: number,
  text: string,
  retryAfter: string | string[] | undefined,
  nowMs: number,
  inThread = false,
): DocsApiError {
  if (status === 400) return new DocsApiBadRequestError(apiMessage(text));
  if (status === 401 || status === 403) return new AssistantKeyRefusedError(status);
  if (status === 404)
    return call === 'message' && inThread
      ? new AssistantThreadNotFoundError()
      : new DocsApiNotFoundError(apiMessage(text));
  if (status === 429) return new DocsApiRateLimitedError(retryAfterMs(retryAfter, nowMs));
  if (status >= 500) return new DocsApiServerError(status);
  return new DocsApiInvalidResponseError(`unexpected HTTP ${status}`);
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

/**
 * Checks a message body before it is sent (spec and guide rules the server would refuse later).
 * @throws RangeError when `fp` is empty, `messages` is empty, `threadId` and `threadKey` do not come
 *   together (guide: a threadId without its key is answered 404), `currentPath` is over 200
 *   characters (spec), or `retrievalPageSize` is not a positive integer.
 */
export function checkMessageBody(body: AssistantMessageBody): void {
  if (body.fp.trim() === '') throw new RangeError('fp must not be empty (use "anonymous" or a stable id)');
  if (body.messages.length === 0) throw new RangeError('messages must hold at least the question');
  if ((body.threadId === undefined) !== (body.threadKey === undefined))
    throw new RangeError('threadId and threadKey go together');
  if (body.currentPath !== undefined && body.currentPath.length > 200)
    throw new RangeError('currentPath is over 200 characters');
  const size = body.retrievalPageSize;
  if (size !== undefined && !(Number.isInteger(size) && size > 0))
    throw new RangeError('retrievalPageSize must be a positive integer');
}

/**
 * Checks a search body: a non-blank `query`, `pageSize` an integer 1–50, `scoreThreshold` 0–1 (spec).
 * @throws RangeError otherwise.
 */
export function checkSearchBody(body: SearchBody): void {
  if (body.query.trim() === '') throw new RangeError('query must not be blank');
  const size = body.pageSize;
  if (size !== undefined && !(Number.isInteger(size) && size >= 1 && size <= 50))
    throw new RangeError('pageSize must be an integer from 1 to 50');
  const score = body.scoreThreshold;
  if (score !== undefined && !(score >= 0 && score <= 1)) throw new RangeError('scoreThreshold must be from 0 to 1');
}

/** The parsed body of a 2xx JSON answer. @throws {DocsApiInvalidResponseError} when it is not JSON or not the shape. */
export function parseJson<S extends z.ZodType>(status: number, text: string, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DocsApiInvalidResponseError(`HTTP ${status} body is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new DocsApiInvalidResponseError(`HTTP ${status} body is not the documented shape`);
  return parsed.data;
}
