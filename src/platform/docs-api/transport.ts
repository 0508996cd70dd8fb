/**
 * The one way a request travels to the docs API, for every client (admin and analytics: client.ts;
 * the docs assistant, search and page: discovery-client.ts): one undici dispatcher (keep-alive), the
 * client's key as `Authorization: Bearer`, a timeout on connect, headers and body, each request told
 * to the observer (status, or none, and its seconds), no answer turned into a
 * {@link DocsApiNetworkError}, a non-2xx answer into the typed error of its status (responses.ts),
 * and a 2xx JSON body parsed with the caller's zod schema. An answer read as it arrives (the
 * assistant's server-sent events) is {@link DocsApiTransport.stream}. The endpoints are the clients';
 * this module knows none of them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import pRetry from 'p-retry';
import { Agent, request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { hasCode } from '../errors.js';
import { DocsApiErrorCode, DocsApiNetworkError, NOT_SENT_CODES, type DocsApiError } from './errors.js';
import type { DocsApiObserver, DocsApiOperation } from './observer.js';
import { errorFor, parseResponse, readCapped } from './responses.js';

/** Options of {@link DocsApiTransport}. */
interface DocsApiTransportOptions {
  /** The API's base_url, e.g. `https://api.mintlify.com` (spec: servers[0].url). */
  baseUrl: string;
  /** The key (`mint_…`), sent as `Authorization: Bearer`. Never logged or put in errors. */
  apiKey: string;
  /** undici dispatcher; tests pass a `MockAgent`. @defaultValue a keep-alive `Agent` of its own. */
  dispatcher?: Dispatcher;
  /** Per-request timeout for connect, headers and body, in ms (streams: connect only). @defaultValue 10000 */
  timeoutMs?: number;
  /** Told about every HTTP request (retries included), e.g. to count them in metrics. */
  observer?: DocsApiObserver;
  /** Clock in epoch ms (reads an HTTP-date `Retry-After`). @defaultValue Date.now */
  now?: () => number;
}

/** How a client reads a non-2xx answer: the transport's typed error of the status, made the client's own. */
export type RefineError = (err: DocsApiError) => DocsApiError;

/** A 2xx answer whose body the caller reads as it arrives (see {@link DocsApiTransport.stream}). */
export interface StreamedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Dispatcher.ResponseData['body'];
  /** Reports the request to the observer (once; later calls do nothing): call when the body is read or given up. */
  end(): void;
}

/** Sends requests to the docs API and parses their answers (see the module comment). */
export class DocsApiTransport {
  /** The dispatcher every request goes through (shared with the clients of other projects). */
  readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: DocsApiTransportOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.now = opts.now ?? Date.now;
    this.ownsDispatcher = !opts.dispatcher;
    this.dispatcher = opts.dispatcher ?? new Agent({ connect: { timeout: this.timeoutMs }, keepAliveTimeout: 30_000 });
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  /**
   * One JSON request, reported to the observer (status, or none on a network error, and its
   * seconds). @returns the 2xx body parsed with `schema`.
   * @param refine - turns the typed error of a non-2xx answer into the client's own.
   * @throws the typed {@link DocsApiError} of the status, {@link DocsApiNetworkError} when no full
   *   answer came, DocsApiInvalidResponseError for a 2xx body not of `schema`'s shape.
   */
  async send<S extends z.ZodType>(
    operation: DocsApiOperation,
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    body?: unknown,
    refine?: RefineError,
  ): Promise<z.output<S>> {
    const started = process.hrtime.bigint();
    let status: number | undefined;
    try {
      const timeout = { idleMs: this.timeoutMs, signal: AbortSignal.timeout(this.timeoutMs) };
      const res = await this.open(method, path, body, 'application/json', timeout);
      status = res.statusCode;
      if (status < 200 || status > 299) throw await this.errorOf(res, refine);
      let text: string;
      try {
        text = await res.body.text();
      } catch (err) {
        throw networkError(err, 'arrived'); // a response had begun: the request certainly arrived
      }
      return parseResponse(status, text, schema);
    } finally {
      this.report(operation, status, started);
    }
  }

  /**
   * One POST whose 2xx answer is read as it arrives (server-sent events). A non-2xx answer is
   * reported and thrown as {@link send}'s; a 2xx one is returned unread, and reported when the caller
   * calls its `end()`.
   * @param o.idleMs - most ms to the response headers and between two reads of the body.
   * @param o.signal - aborts the request or the body (a caller's abort, a whole-answer timeout).
   * @throws as {@link send} for the answer's status; {@link DocsApiNetworkError} when none came.
   */
  async stream(
    operation: DocsApiOperation,
    path: string,
    body: unknown,
    o: { accept: string; idleMs: number; signal: AbortSignal; refine?: RefineError },
  ): Promise<StreamedResponse> {
    const started = process.hrtime.bigint();
    let res: Dispatcher.ResponseData;
    try {
      res = await this.open('POST', path, body, o.accept, o);
    } catch (err) {
      this.report(operation, undefined, started);
      throw err;
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      const error = await this.errorOf(res, o.refine);
      this.report(operation, res.statusCode, started);
      throw error;
    }
    let ended = false;
    const end = (): void => {
      if (!ended) this.report(operation, res.statusCode, started);
      ended = true;
    };
    return { status: res.statusCode, headers: res.headers, body: res.body, end };
  }

  /** Closes the dispatcher if the transport created it. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Sends the request. @throws {DocsApiNetworkError} when no response came. */
  private async open(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    accept: string,
    o: { idleMs: number; signal: AbortSignal },
  ): Promise<Dispatcher.ResponseData> {
    try {
      return await request(`${this.base}${path}`, {
        method,
        dispatcher: this.dispatcher,
        headers: {
          authorization: `Bearer ${this.opts.apiKey}`,
          accept,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: o.idleMs,
        bodyTimeout: o.idleMs,
        signal: o.signal,
      });
    } catch (err) {
      throw networkError(err, 'maybe');
    }
  }

  /** The typed error of a non-2xx answer (its body read up to a cap, the rest dropped). */
  private async errorOf(res: Dispatcher.ResponseData, refine: RefineError | undefined): Promise<DocsApiError> {
    // An error body that cannot be read leaves the API's words out, nothing else: the status decides.
    const text = await readCapped(res.body).catch(() => '');
    res.body.destroy();
    const error = errorFor({ status: res.statusCode, text, retryAfter: res.headers['retry-after'] }, this.now());
    return refine ? refine(error) : error;
  }

  private report(operation: DocsApiOperation, status: number | undefined, started: bigint): void {
    this.opts.observer?.docsApiRequest(operation, status, Number(process.hrtime.bigint() - started) / 1e9);
  }
}

/**
 * Runs a read again on a transient failure (`server_error` or `network_error`; never a 4xx or 429),
 * `retries` times, the first after `minDelayMs` (doubling, with jitter). Only for requests that
 * change nothing and cost nothing but a request (GETs, search, page): never a job's POST or an
 * assistant message.
 */
export function retryTransient<T>(fn: () => Promise<T>, retries: number, minDelayMs: number): Promise<T> {
  return pRetry(fn, {
    retries,
    minTimeout: minDelayMs,
    factor: 2,
    randomize: true,
    shouldRetry: ({ error }) =>
      hasCode(error, DocsApiErrorCode.ServerError) || hasCode(error, DocsApiErrorCode.NetworkError),
  });
}

/**
 * The {@link DocsApiNetworkError} for what undici threw when a request got no full answer.
 *
 * @param err - undici's (or Node's) error.
 * @param phase - 'maybe' while sending (sent unless the error shows no connection was ever made),
 *   'arrived' once a response had begun (sent for certain).
 */
function networkError(err: unknown, phase: 'maybe' | 'arrived'): DocsApiNetworkError {
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
function neverConnected(err: unknown, depth = 0): boolean {
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
