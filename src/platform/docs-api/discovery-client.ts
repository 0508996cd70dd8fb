/**
 * The discovery API client: the docs assistant, search and page content of one docs site (spec:
 * test/fixtures/mintlify/discovery-openapi.json; vendor guide guides/assistant-embed.mdx). Like
 * {@link DocsApiClient}: one keep-alive undici agent, a timeout on every request, zod-parsed bodies,
 * typed errors ({@link DocsApiError} and `./discovery-errors.ts`), an observer for metrics, and
 * the key never in a message or log line.
 *
 * Retries (what is safe): search and page read and use no credits, so they are retried on network
 * errors and 5xx like the admin client's GETs. An assistant message is never retried here: it
 * uses the customer's credits and adds to the thread. A message that failed with a
 * {@link DocsApiNetworkError} whose `sent` is false never reached the server and may be sent
 * again as it was; after 5xx, a timeout or a cut-off the caller decides (the issue: retry once).
 */
import { randomUUID } from 'node:crypto';
import pRetry from 'p-retry';
import { Agent, request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import type { DocsApiObserver, DocsApiOperation } from './client.js';
import {
  checkMessageBody,
  checkSearchBody,
  discoveryErrorFor,
  parseJson,
  readCapped,
  type DiscoveryCall,
} from './discovery-http.js';
import {
  pageResponseSchema,
  searchResponseSchema,
  type AssistantMessageBody,
  type AssistantUIMessage,
  type DocsPage,
  type PageContent,
  type SearchBody,
} from './discovery-schemas.js';
import { DocsApiError, DocsApiNetworkError } from './errors.js';
import { networkError } from './network-error.js';
import { readAssistantStream, type AssistantEvent } from './ui-message-stream.js';

/** The vendor's discovery API base (spec: servers[0].url). */
export const DEFAULT_DISCOVERY_URL = 'https://api.mintlify.com/discovery';

/** Options of {@link DiscoveryClient}. */
export interface DiscoveryClientOptions {
  /** @defaultValue {@link DEFAULT_DISCOVERY_URL} */
  baseUrl?: string;
  /** Assistant API key (`mint_dsc_…`, not the admin key), sent as `Authorization: Bearer`; never logged. */
  apiKey: string;
  /** The docs site's domain identifier, the `{domain}` of every path (the end of the dashboard URL). */
  domain: string;
  /** undici dispatcher; tests pass a `MockAgent`. @defaultValue a keep-alive `Agent` of the client's own. */
  dispatcher?: Dispatcher;
  /** Search and page: timeout of connect, headers and body, in ms. @defaultValue 10000 */
  timeoutMs?: number;
  /** Assistant message: most ms to the response headers and between two reads of the answer. @defaultValue 30000 */
  answerIdleTimeoutMs?: number;
  /** Assistant message: most ms for the whole answer, headers to the end. @defaultValue 120000 */
  answerTimeoutMs?: number;
  /** Most characters of answer text before the stream ends `too_long`. @defaultValue 40000 */
  maxAnswerChars?: number;
  /** Retries of search and page on network errors and 5xx. @defaultValue 2 */
  readRetries?: number;
  /** First retry delay in ms (doubles, with jitter). @defaultValue 250 */
  retryMinDelayMs?: number;
  /**
   * Told about every HTTP request: its status (undefined without one) and seconds to the end of its
   * body (for a message: of the stream).
   */
  observer?: DocsApiObserver;
  /** Clock in epoch ms (reads an HTTP-date `Retry-After`). @defaultValue Date.now */
  now?: () => number;
}

/**
 * An answer that has begun (HTTP 200). `threadId` and `threadKey` come from the `X-Thread-Id` and
 * `X-Thread-Key` headers, which a new conversation carries (the key only then: keep both for
 * follow-ups). `threadKey` is a secret: it is not enumerable, so logging or serializing the
 * answer leaves it out; never log it. Iterate `events` to its end, or break out of the loop: an
 * answer nobody reads holds its connection until `answerTimeoutMs`.
 */
export interface AssistantAnswer {
  threadId: string | undefined;
  readonly threadKey: string | undefined;
  events: AsyncIterable<AssistantEvent>;
}

/** A user message of one text part, as the v2 endpoint takes the question (an AI SDK v5 UIMessage). */
export function questionMessage(text: string, id: string = randomUUID()): AssistantUIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

const MAX_STREAM_CHARS = 4 * 1024 * 1024;
const MAX_EVENT_CHARS = 1024 * 1024;

/**
 * Client of the discovery API of one docs site. See the module doc for retries and timeouts.
 */
export class DiscoveryClient {
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly idleMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: DiscoveryClientOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.idleMs = opts.answerIdleTimeoutMs ?? 30_000;
    this.now = opts.now ?? Date.now;
    this.ownsDispatcher = !opts.dispatcher;
    this.dispatcher = opts.dispatcher ?? new Agent({ connect: { timeout: this.timeoutMs }, keepAliveTimeout: 30_000 });
    this.base = (opts.baseUrl ?? DEFAULT_DISCOVERY_URL).replace(/\/+$/, '');
  }

  /** The docs site this client asks about. */
  get domain(): string {
    return this.opts.domain;
  }

  /**
   * Asks the assistant: `POST /v2/assistant/{domain}/message` (spec; AI SDK v5 UI message stream).
   * Resolves once the answer has begun; its events then stream (see {@link AssistantAnswer}).
   * @param opts.signal - aborts the request or the stream (e.g. at shutdown): the iterator then throws `aborted`.
   * @throws RangeError for a body the server would refuse ({@link checkMessageBody}), before any request.
   * @throws {AssistantKeyRefusedError} (401/403), {@link AssistantThreadNotFoundError} (404 with a
   *   `threadId`; without one a 404 is {@link DocsApiNotFoundError}: an unknown domain),
   *   {@link DocsApiRateLimitedError} (429, `retryAfterMs` when sent), {@link DocsApiServerError}
   *   (5xx), {@link DocsApiNetworkError} (no answer; `sent` false = it never reached the server).
   *   Failures after the answer began come from the events iterator as {@link AssistantStreamError}.
   */
  async sendMessage(body: AssistantMessageBody, opts: { signal?: AbortSignal } = {}): Promise<AssistantAnswer> {
    checkMessageBody(body);
    const started = process.hrtime.bigint();
    const timeout = AbortSignal.timeout(this.opts.answerTimeoutMs ?? 120_000);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let res: Dispatcher.ResponseData;
    try {
      res = await this.post(this.path('message'), body, { accept: 'text/event-stream', idleMs: this.idleMs, signal });
    } catch (err) {
      this.report('assistant_message', undefined, started);
      if (opts.signal?.aborted) throw new DocsApiNetworkError('aborted by the caller', { cause: err });
      throw networkError(err, 'maybe');
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      const error = await this.errorOf('message', res, body.threadId !== undefined);
      this.report('assistant_message', res.statusCode, started);
      throw error;
    }
    const header = (name: string): string | undefined => {
      const value = res.headers[name];
      return (Array.isArray(value) ? value[0] : value) || undefined;
    };
    const events = this.events(res, started, { caller: opts.signal, timeout });
    const answer: AssistantAnswer = { threadId: header('x-thread-id'), threadKey: undefined, events };
    return Object.defineProperty(answer, 'threadKey', { value: header('x-thread-key'), enumerable: false });
  }

  /**
   * Searches the docs: `POST /v1/search/{domain}` (spec → 200 `[{content, path, metadata}]`; no credits).
   * @returns the results as {@link DocsPage}s, in the API's order (results without a path dropped).
   * @throws RangeError for a blank query, `pageSize` outside 1–50 or `scoreThreshold` outside 0–1.
   * @throws {DocsApiError} subclasses after retries (network errors and 5xx are retried).
   */
  async search(body: SearchBody): Promise<DocsPage[]> {
    checkSearchBody(body);
    return this.withReadRetries(() =>
      this.sendJson('search_docs', 'search', this.path('search'), body, searchResponseSchema),
    );
  }

  /**
   * A page's full text: `POST /v1/page/{domain}` with `{path}` (spec → 200 `{path, content}`, 404 page
   * not found or no search index; no credits). `groups`: documentation groups the caller may see.
   * @throws RangeError for an empty path; {@link DocsApiNotFoundError} for an unknown page; other
   *   {@link DocsApiError}s after retries.
   */
  async getPage(path: string, opts: { groups?: string[] } = {}): Promise<PageContent> {
    if (path.trim() === '') throw new RangeError('path must not be empty');
    const body = { path, ...(opts.groups ? { groups: opts.groups } : {}) };
    const page = await this.withReadRetries(() =>
      this.sendJson('get_page', 'page', this.path('page'), body, pageResponseSchema),
    );
    return { path: page.path ?? path, content: page.content };
  }

  /** Closes the dispatcher if the client created it. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private path(call: DiscoveryCall): string {
    const domain = encodeURIComponent(this.opts.domain);
    if (call === 'message') return `/v2/assistant/${domain}/message`;
    return call === 'search' ? `/v1/search/${domain}` : `/v1/page/${domain}`;
  }

  /** The answer's events; reports the request to the observer when the stream ends, however it ends. */
  private async *events(
    res: Dispatcher.ResponseData,
    started: bigint,
    signals: { caller: AbortSignal | undefined; timeout: AbortSignal },
  ): AsyncGenerator<AssistantEvent, void, undefined> {
    try {
      yield* readAssistantStream(res.body, {
        maxAnswerChars: this.opts.maxAnswerChars ?? 40_000,
        maxStreamChars: MAX_STREAM_CHARS,
        maxEventChars: MAX_EVENT_CHARS,
        failureOf: (err) => {
          if (signals.caller?.aborted) return 'aborted';
          const code = (err as { code?: unknown } | undefined)?.code;
          return signals.timeout.aborted || code === 'UND_ERR_BODY_TIMEOUT' ? 'timed_out' : undefined;
        },
      });
    } finally {
      res.body.destroy();
      this.report('assistant_message', res.statusCode, started);
    }
  }

  private post(
    path: string,
    body: unknown,
    o: { accept: string; idleMs: number; signal: AbortSignal },
  ): Promise<Dispatcher.ResponseData> {
    return request(`${this.base}${path}`, {
      method: 'POST',
      dispatcher: this.dispatcher,
      headers: { authorization: `Bearer ${this.opts.apiKey}`, accept: o.accept, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: o.idleMs,
      bodyTimeout: o.idleMs,
      signal: o.signal,
    });
  }

  /** One JSON request (search or page), reported to the observer. */
  private async sendJson<S extends z.ZodType>(
    operation: DocsApiOperation,
    call: DiscoveryCall,
    path: string,
    body: unknown,
    schema: S,
  ): Promise<z.output<S>> {
    const started = process.hrtime.bigint();
    let status: number | undefined;
    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await this.post(path, body, {
          accept: 'application/json',
          idleMs: this.timeoutMs,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (err) {
        throw networkError(err, 'maybe');
      }
      status = res.statusCode;
      if (status < 200 || status > 299) throw await this.errorOf(call, res);
      return parseJson(status, await this.readText(res), schema);
    } finally {
      this.report(operation, status, started);
    }
  }

  private async readText(res: Dispatcher.ResponseData): Promise<string> {
    try {
      return await res.body.text();
    } catch (err) {
      throw networkError(err, 'arrived');
    }
  }

  private async errorOf(call: DiscoveryCall, res: Dispatcher.ResponseData, inThread = false): Promise<DocsApiError> {
    const text = await readCapped(res.body).catch(() => '');
    res.body.destroy();
    return discoveryErrorFor(call, res.statusCode, text, res.headers['retry-after'], this.now(), inThread);
  }

  private withReadRetries<T>(fn: () => Promise<T>): Promise<T> {
    return pRetry(fn, {
      retries: this.opts.readRetries ?? 2,
      minTimeout: this.opts.retryMinDelayMs ?? 250,
      factor: 2,
      randomize: true,
      shouldRetry: ({ error }) =>
        error instanceof DocsApiError && (error.code === 'server_error' || error.code === 'network_error'),
    });
  }

  private report(operation: DocsApiOperation, status: number | undefined, started: bigint): void {
    this.opts.observer?.docsApiRequest(operation, status, Number(process.hrtime.bigint() - started) / 1e9);
  }
}
