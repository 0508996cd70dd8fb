/**
 * What a Web API method of the fake Slack is: a synchronous handler over decoded arguments that
 * returns Slack's `{ ok: true, ... }` body, or fails with an error code that the server answers as
 * HTTP 200 `{ ok: false, error }` (Slack docs: "Web API basics", errors).
 */

/** A decoded argument object or a JSON response body. */
export type Json = Record<string, unknown>;

/** One Web API method: decoded arguments (token removed) → the `ok: true` response body. Throws {@link SlackApiError}. */
export type MethodHandler = (args: Json) => Json;

/** Web API methods by name ("chat.postMessage" → handler). */
export type MethodTable = Record<string, MethodHandler>;

/** An HTTP answer of the fake: status, body (JSON-encoded when sent) and extra headers. */
export interface ApiResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A Slack error code (`invalid_auth`, `channel_not_found`, …) raised by a method handler, and the
 * other fields Slack puts beside `error` in that answer (`needed` and `provided` of `missing_scope`,
 * `errors` and `response_metadata.messages` of `invalid_blocks` / `invalid_arguments`).
 */
export class SlackApiError extends Error {
  constructor(
    readonly code: string,
    readonly extra: Json = {},
  ) {
    super(code);
  }
}

/**
 * Fail the current Web API call with Slack error `code` (and `extra` fields beside it in the answer).
 * @throws always, a {@link SlackApiError}; typed `never` so it can stand in `x ?? fail('…')`.
 */
export const fail = (code: string, extra?: Json): never => {
  throw new SlackApiError(code, extra);
};

/** `v` when it is a non-empty string, else undefined (Slack treats "" like a missing argument). */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** `v` as an object argument, or undefined when it is not a plain object (arrays and null excluded). */
export const obj = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
