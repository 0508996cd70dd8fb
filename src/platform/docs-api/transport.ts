/**
 * How a request to the docs API travels: one undici dispatcher (keep-alive), the admin key as
 * `Authorization: Bearer`, a timeout on connect, headers and body, the whole body read, each request
 * told to the observer, and no answer turned into a {@link DocsApiNetworkError}. The endpoints are
 * client.ts's; this module knows none of them.
 */
import pRetry from 'p-retry';
import { Agent, request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { DocsApiError } from './errors.js';
import { networkError } from './network-error.js';
import type { DocsApiObserver, DocsApiOperation } from './observer.js';
import { parseResponse, type RawResponse } from './responses.js';

/** Options of {@link DocsApiTransport}. */
export interface DocsApiTransportOptions {
  /** The API's base_url, e.g. `https://api.mintlify.com` (spec: servers[0].url). */
  baseUrl: string;
  /** Admin API key (`mint_…`), sent as `Authorization: Bearer`. Never logged or put in errors. */
  apiKey: string;
  /** undici dispatcher; tests pass a `MockAgent`. @defaultValue a keep-alive `Agent` of its own. */
  dispatcher?: Dispatcher;
  /** Per-request timeout for connect, headers and body, in ms. @defaultValue 10000 */
  timeoutMs?: number;
  /** Told about every HTTP request (retries included), e.g. to count them in metrics. */
  observer?: DocsApiObserver;
}

/** Sends requests to the docs API and parses their answers (see the module comment). */
export class DocsApiTransport {
  /** The dispatcher every request goes through (shared with the clients of other projects). */
  readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly opts: DocsApiTransportOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.ownsDispatcher = !opts.dispatcher;
    this.dispatcher =
      opts.dispatcher ??
      new Agent({
        connect: { timeout: this.timeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        keepAliveTimeout: 30_000,
      });
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  /**
   * One HTTP request, reported to the observer (status, or none on a network error, and its
   * seconds). @returns the 2xx body parsed with `schema`.
   * @throws the typed {@link DocsApiError} of the status, {@link DocsApiNetworkError} when no full
   *   answer came, DocsApiInvalidResponseError for a 2xx body not of `schema`'s shape.
   */
  async send<S extends z.ZodType>(
    operation: DocsApiOperation,
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.output<S>> {
    const started = process.hrtime.bigint();
    let status: number | undefined;
    try {
      const res = await this.exchange(method, path, body);
      status = res.status;
      return parseResponse(res, schema);
    } finally {
      this.opts.observer?.docsApiRequest(operation, status, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  /** Closes the dispatcher if the transport created it. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Sends the request and reads the whole body. @throws {DocsApiNetworkError} when no full response came. */
  private async exchange(method: 'GET' | 'POST', path: string, body: unknown): Promise<RawResponse> {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${this.base}${path}`, {
        method,
        dispatcher: this.dispatcher,
        headers: {
          authorization: `Bearer ${this.opts.apiKey}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw networkError(err, 'maybe');
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      // A response had begun: the request certainly arrived.
      throw networkError(err, 'arrived');
    }
    return { status: res.statusCode, text, retryAfter: res.headers['retry-after'] };
  }
}

/**
 * Runs a GET again on a transient failure ({@link DocsApiError} `server_error` or `network_error`;
 * never a 4xx or 429), `retries` times, the first after `minDelayMs` (doubling, with jitter).
 */
export function retryGet<T>(fn: () => Promise<T>, retries: number, minDelayMs: number): Promise<T> {
  return pRetry(fn, {
    retries,
    minTimeout: minDelayMs,
    factor: 2,
    randomize: true,
    shouldRetry: ({ error }) =>
      error instanceof DocsApiError && (error.code === 'server_error' || error.code === 'network_error'),
  });
}
