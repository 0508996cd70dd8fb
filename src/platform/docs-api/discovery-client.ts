/**
 * The discovery API client: the docs assistant, search and page content of one docs site (spec:
 * test/fixtures/mintlify/discovery-openapi.json; vendor guide guides/assistant-embed.mdx). Its requests
 * go through the docs API's one transport (transport.ts, as {@link DocsApiClient}'s): one keep-alive
 * undici agent, a timeout on every request, zod-parsed bodies, typed errors (errors.ts), an observer
 * for metrics, and the key never in a message or log line; the answer is read as it streams.
 *
 * Retries (what is safe): search and page read and use no credits, so they are retried on network
 * errors and 5xx like the admin client's GETs. An assistant message is never retried here: it
 * uses the customer's credits and adds to the thread. A message that failed with a
 * {@link DocsApiNetworkError} whose `sent` is false never reached the server and may be sent
 * again as it was; after 5xx, a timeout or a cut-off the caller decides (the issue: retry once).
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { hasCode } from '../errors.js';
import type { DocsApiObserver } from './observer.js';
import { checkMessageBody, checkSearchBody } from './discovery-checks.js';
import {
  pageResponseSchema,
  searchResponseSchema,
  type AssistantMessageBody,
  type AssistantUIMessage,
  type DocsPage,
  type PageContent,
  type SearchBody,
} from './discovery-schemas.js';
import {
  AssistantKeyRefusedError,
  AssistantThreadNotFoundError,
  DocsApiErrorCode,
  DocsApiNetworkError,
  type DocsApiError,
} from './errors.js';
import { DocsApiTransport, retryTransient, type RefineError, type StreamedResponse } from './transport.js';
import { readAssistantStream, type AssistantEvent } from './ui-message-stream.js';

/** The vendor's discovery API base (spec: servers[0].url). */
const DEFAULT_DISCOVERY_URL = 'https://api.mintlify.com/discovery';

/** Options of {@link DiscoveryClient}. */
interface DiscoveryClientOptions {
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
  private readonly transport: DocsApiTransport;
  private readonly sites = new Map<string, DiscoveryClient>();

  constructor(private readonly opts: DiscoveryClientOptions) {
    this.transport = new DocsApiTransport({ ...opts, baseUrl: opts.baseUrl ?? DEFAULT_DISCOVERY_URL });
  }

  /** The docs site this client asks about. */
  get domain(): string {
    return this.opts.domain;
  }

  /**
   * The client of another docs site (`domain`, with its assistant key: DOCS_WORKSPACE_PROJECTS):
   * same URL, timeouts and dispatcher (so connections are reused); kept per site and key; its
   * close() does nothing. This client itself for its own site and key.
   */
  forSite(site: { domain: string; apiKey: string }): DiscoveryClient {
    if (site.domain === this.opts.domain && site.apiKey === this.opts.apiKey) return this;
    const id = `${site.domain}\u0000${site.apiKey}`;
    const client =
      this.sites.get(id) ?? new DiscoveryClient({ ...this.opts, ...site, dispatcher: this.transport.dispatcher });
    this.sites.set(id, client);
    return client;
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
    const timeout = AbortSignal.timeout(this.opts.answerTimeoutMs ?? 120_000);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let res: StreamedResponse;
    try {
      res = await this.transport.stream('assistant_message', this.path('message'), body, {
        accept: 'text/event-stream',
        idleMs: this.opts.answerIdleTimeoutMs ?? 30_000,
        signal,
        refine: refined(body.threadId !== undefined),
      });
    } catch (err) {
      if (opts.signal?.aborted && hasCode(err, DocsApiErrorCode.NetworkError))
        throw new DocsApiNetworkError('aborted by the caller', { cause: err.cause });
      throw err;
    }
    const header = (name: string): string | undefined => {
      const value = res.headers[name];
      return (Array.isArray(value) ? value[0] : value) || undefined;
    };
    const events = this.events(res, { caller: opts.signal, timeout });
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
      this.transport.send('search_docs', 'POST', this.path('search'), searchResponseSchema, body, refined(false)),
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
      this.transport.send('get_page', 'POST', this.path('page'), pageResponseSchema, body, refined(false)),
    );
    return { path: page.path ?? path, content: page.content };
  }

  /** Closes the dispatcher if the client created it. */
  async close(): Promise<void> {
    await this.transport.close();
  }

  private path(call: 'message' | 'search' | 'page'): string {
    const domain = encodeURIComponent(this.opts.domain);
    if (call === 'message') return `/v2/assistant/${domain}/message`;
    return call === 'search' ? `/v1/search/${domain}` : `/v1/page/${domain}`;
  }

  /** The answer's events; reports the request to the observer when the stream ends, however it ends. */
  private async *events(
    res: StreamedResponse,
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
      res.end();
    }
  }

  private withReadRetries<T>(fn: () => Promise<T>): Promise<T> {
    return retryTransient(fn, this.opts.readRetries ?? 2, this.opts.retryMinDelayMs ?? 250);
  }
}

/**
 * The discovery API's own reading of an error status: 401/403 → {@link AssistantKeyRefusedError} (the
 * assistant key); 404 → {@link AssistantThreadNotFoundError} for a message that continues a thread
 * (`inThread`), else {@link DocsApiNotFoundError} stays (an unknown domain, or a page: "Page not found or
 * no search index available", spec); the rest as the transport reads them.
 */
function refined(inThread: boolean): RefineError {
  return (err: DocsApiError) => {
    if (hasCode(err, DocsApiErrorCode.Unauthorized) || hasCode(err, DocsApiErrorCode.Forbidden))
      return new AssistantKeyRefusedError(err.status === 403 ? 403 : 401);
    if (inThread && hasCode(err, DocsApiErrorCode.NotFound)) return new AssistantThreadNotFoundError();
    return err;
  };
}
