import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DiscoveryClient,
  questionMessage,
  type AssistantAnswer,
} from '../../../../src/platform/docs-api/discovery-client.js';
import {
  AssistantKeyRefusedError,
  AssistantStreamError,
  AssistantThreadNotFoundError,
  DocsApiError,
  DocsApiNetworkError,
  DocsApiNotFoundError,
  DocsApiRateLimitedError,
  DocsApiServerError,
} from '../../../../src/platform/docs-api/errors.js';
import { docsApiErrorText } from '../../../../src/platform/docs-api/error-text.js';
import type { AssistantEvent } from '../../../../src/platform/docs-api/ui-message-stream.js';
import { answerChunks, sse } from '../../../helpers/sse.js';
import { rejectionOf } from '../../../helpers/rejection.js';

// The discovery client against undici's MockAgent: requests as the spec describes them, every
// error typed, and answer streams good and bad. test/unit/platform/docs-api/discovery-stream.test.ts covers streams
// over a real connection (cut mid-way, idle timeouts, aborts).

const BASE = 'https://api.mintlify.test/discovery';
const ORIGIN = 'https://api.mintlify.test';
const KEY = 'mint_dsc_secret_assistant_key';
const THREAD_KEY = 'tk_secret_thread_key';
const MESSAGE_PATH = '/discovery/v2/assistant/acme%20docs/message';
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' };
const PAGE = {
  path: '/api-keys/rotate',
  content: 'Rotate a key from Settings.',
  metadata: { title: 'Rotate an API key' },
};

let agent: MockAgent;
let client: DiscoveryClient;
let observed: Array<[string, number | undefined]>;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  observed = [];
  client = new DiscoveryClient({
    baseUrl: `${BASE}/`,
    apiKey: KEY,
    domain: 'acme docs',
    dispatcher: agent,
    timeoutMs: 200,
    retryMinDelayMs: 1,
    maxAnswerChars: 50,
    observer: { docsApiRequest: (op, status) => void observed.push([op, status]) },
  });
});
afterEach(async () => {
  await agent.close();
});

const pool = () => agent.get(ORIGIN);
const ask = (extra: Record<string, unknown> = {}) =>
  client.sendMessage({ fp: 'fp_1', messages: [questionMessage('How do I rotate a key?', 'm1')], ...extra });

async function collect(answer: AssistantAnswer): Promise<{ events: AssistantEvent[]; error?: unknown }> {
  const events: AssistantEvent[] = [];
  try {
    for await (const e of answer.events) events.push(e);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

/** The error `p` rejects with, checked to be of `type` and free of the keys. */
async function rejection<T extends Error>(p: Promise<unknown>, type: new (...a: never[]) => T): Promise<T> {
  const err = await rejectionOf(p, type);
  for (const text of [String((err as Error).message), JSON.stringify(err), inspect(err, { depth: 5 })]) {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(THREAD_KEY);
  }
  return err as T;
}

describe('DiscoveryClient.sendMessage', () => {
  it('posts the v2 body with the bearer key, streams text and search pages, captures the thread headers', async () => {
    let seen: { body?: unknown; headers?: Record<string, string> } = {};
    pool()
      .intercept({ path: MESSAGE_PATH, method: 'POST' })
      .reply((opts) => {
        seen = { body: JSON.parse(String(opts.body)), headers: opts.headers as Record<string, string> };
        return {
          statusCode: 200,
          data: sse(
            answerChunks(['To rotate ', 'a key, open Settings.'], [PAGE, { content: 'no path' }], 'rotate key'),
          ),
          responseOptions: { headers: { ...SSE_HEADERS, 'x-thread-id': 'th_1', 'x-thread-key': THREAD_KEY } },
        };
      });
    const answer = await ask();
    expect(seen.body).toEqual({
      fp: 'fp_1',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'How do I rotate a key?' }] }],
    });
    expect(seen.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    });
    expect(answer.threadId).toBe('th_1');
    expect(answer.threadKey).toBe(THREAD_KEY);
    expect(JSON.stringify(answer)).not.toContain(THREAD_KEY); // not enumerable: a logged answer leaves it out
    expect(inspect(answer)).not.toContain(THREAD_KEY);
    const { events, error } = await collect(answer);
    expect(error).toBeUndefined();
    expect(events).toEqual([
      {
        type: 'search',
        toolCallId: 'call_1',
        query: 'rotate key',
        pages: [
          {
            path: '/api-keys/rotate',
            title: 'Rotate an API key',
            content: 'Rotate a key from Settings.',
            metadata: { title: 'Rotate an API key' },
          },
        ],
      },
      { type: 'text', delta: 'To rotate ' },
      { type: 'text', delta: 'a key, open Settings.' },
      { type: 'finish', threadId: undefined },
    ]);
    expect(observed).toEqual([['assistant_message', 200]]);
  });

  it('continues a thread with threadId and threadKey in the body; a later answer has no new key', async () => {
    let body: unknown;
    pool()
      .intercept({ path: MESSAGE_PATH, method: 'POST' })
      .reply((opts) => {
        body = JSON.parse(String(opts.body));
        return {
          statusCode: 200,
          data: sse([
            { type: 'text-delta', id: 't', delta: 'More.' },
            { type: 'finish', threadId: 'th_1' },
          ]),
          responseOptions: { headers: SSE_HEADERS },
        };
      });
    const answer = await ask({
      threadId: 'th_1',
      threadKey: THREAD_KEY,
      retrievalPageSize: 5,
      currentPath: '/quickstart',
      filter: { version: 'v2' },
    });
    expect(body).toMatchObject({
      threadId: 'th_1',
      threadKey: THREAD_KEY,
      retrievalPageSize: 5,
      currentPath: '/quickstart',
      filter: { version: 'v2' },
    });
    expect([answer.threadId, answer.threadKey]).toEqual([undefined, undefined]);
    expect((await collect(answer)).events.at(-1)).toEqual({ type: 'finish', threadId: 'th_1' });
  });

  it.each([401, 403] as const)('maps %i to the key refused, typed, with no key in it', async (status) => {
    pool().intercept({ path: MESSAGE_PATH, method: 'POST' }).reply(status, { message: 'Invalid token' });
    const err = await rejection(ask(), AssistantKeyRefusedError);
    expect(err.status).toBe(status);
    expect(err.retryable).toBe(false);
    expect(observed).toEqual([['assistant_message', status]]);
  });

  it('maps 404 to an unknown thread when continuing one (a wrong key), else to not found', async () => {
    pool().intercept({ path: MESSAGE_PATH, method: 'POST' }).reply(404, { message: 'Thread not found' });
    const err = await rejection(ask({ threadId: 'th_1', threadKey: 'wrong' }), AssistantThreadNotFoundError);
    expect(err.code).toBe('assistant_thread_not_found'); // a code of its own, not the domain's not_found
    pool().intercept({ path: MESSAGE_PATH, method: 'POST' }).reply(404, { message: 'Domain not found' });
    const unknownSite = await rejection(ask(), DocsApiNotFoundError); // no thread: the domain is unknown
    expect(unknownSite).not.toBeInstanceOf(AssistantThreadNotFoundError);
  });

  it('maps 429 to rate limited with Retry-After (seconds or an HTTP-date), and never retries a message', async () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    client = new DiscoveryClient({
      baseUrl: BASE,
      apiKey: KEY,
      domain: 'acme docs',
      dispatcher: agent,
      now: () => now,
    });
    pool()
      .intercept({ path: MESSAGE_PATH, method: 'POST' })
      .reply(429, { message: 'Too many requests' }, { headers: { 'retry-after': '120' } });
    expect((await rejection(ask(), DocsApiRateLimitedError)).retryAfterMs).toBe(120_000);
    pool()
      .intercept({ path: MESSAGE_PATH, method: 'POST' })
      .reply(429, {}, { headers: { 'retry-after': 'Sun, 22 Nov 2026 10:05:00 GMT' } });
    expect((await rejection(ask(), DocsApiRateLimitedError)).retryAfterMs).toBe(300_000);
    pool().intercept({ path: MESSAGE_PATH, method: 'POST' }).reply(429, {});
    expect((await rejection(ask(), DocsApiRateLimitedError)).retryAfterMs).toBeUndefined();
    expect(agent.pendingInterceptors()).toHaveLength(0);
  });

  it('maps 5xx to a server error and does not retry it', async () => {
    pool().intercept({ path: MESSAGE_PATH, method: 'POST' }).reply(503, 'upstream down');
    const err = await rejection(ask(), DocsApiServerError);
    expect([err.status, err.retryable]).toEqual([503, true]);
    expect(docsApiErrorText(err)).toBe('The docs service failed; try again in a minute.');
  });

  it('a request that never reached the server says so (sent: false): safe to send again', async () => {
    pool()
      .intercept({ path: MESSAGE_PATH, method: 'POST' })
      .replyWithError(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    expect((await rejection(ask(), DocsApiNetworkError)).sent).toBe(false);
    pool()
      .intercept({ path: MESSAGE_PATH, method: 'POST' })
      .replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    expect((await rejection(ask(), DocsApiNetworkError)).sent).toBe(true);
    expect(observed).toEqual([
      ['assistant_message', undefined],
      ['assistant_message', undefined],
    ]);
  });

  it('refuses what the server would refuse before any request', async () => {
    await expect(ask({ threadId: 'th_1' })).rejects.toThrow(RangeError); // a thread id without its key
    await expect(ask({ threadKey: THREAD_KEY })).rejects.toThrow(RangeError);
    await expect(ask({ currentPath: `/${'x'.repeat(200)}` })).rejects.toThrow(/200 characters/);
    await expect(client.sendMessage({ fp: ' ', messages: [questionMessage('q')] })).rejects.toThrow(RangeError);
    await expect(client.sendMessage({ fp: 'fp', messages: [] })).rejects.toThrow(RangeError);
    expect(observed).toEqual([]);
  });
});

describe('the answer stream', () => {
  const answerWith = (text: string) =>
    pool().intercept({ path: MESSAGE_PATH, method: 'POST' }).reply(200, text, { headers: SSE_HEADERS });

  it('skips chunk types it does not use, known or future', async () => {
    answerWith(
      sse([
        { type: 'start', messageId: 'm' },
        { type: 'reasoning-delta', id: 'r', delta: 'thinking' },
        { type: 'data-suggestions', data: { items: [] } },
        { type: 'tool-approval-request', toolCallId: 'c', approvalId: 'a' },
        { type: 'source-url', sourceId: 's', url: 'https://docs.acme.test/a' },
        { type: 'text-delta', id: 't', delta: 'Hi', providerMetadata: { x: 1 } },
        { type: 'tool-output-available', toolCallId: 'unknown_call', output: [PAGE] }, // not a search call
        { type: 'finish', messageMetadata: { threadId: 'th_meta' } },
      ]),
    );
    expect((await collect(await ask())).events).toEqual([
      { type: 'text', delta: 'Hi' },
      { type: 'finish', threadId: 'th_meta' },
    ]);
  });

  it('a search that found nothing is an empty page list; a tool output of an unexpected shape too', async () => {
    answerWith(
      sse([
        { type: 'tool-input-available', toolCallId: 'c1', toolName: 'search', input: { query: 'warp drive' } },
        { type: 'tool-output-available', toolCallId: 'c1', output: [] },
        { type: 'tool-input-available', toolCallId: 'c2', toolName: 'search', input: 'not an object' },
        { type: 'tool-output-available', toolCallId: 'c2', output: { results: [PAGE] } },
        { type: 'tool-input-available', toolCallId: 'c3', toolName: 'search', input: {} },
        { type: 'tool-output-available', toolCallId: 'c3', output: 'no pages' },
        { type: 'finish' },
      ]),
    );
    const pages = (await collect(await ask())).events
      .filter((e) => e.type === 'search')
      .map((e) => [e.query, e.pages.map((p) => p.path)]);
    expect(pages).toEqual([
      ['warp drive', []],
      [undefined, ['/api-keys/rotate']],
      [undefined, []],
    ]);
  });

  it('an event that is not JSON ends the stream as malformed, after the text before it', async () => {
    answerWith(sse([{ type: 'text-delta', id: 't', delta: 'Half' }, '{not json', { type: 'finish' }]));
    const { events, error } = await collect(await ask());
    expect(events).toEqual([{ type: 'text', delta: 'Half' }]);
    expect(error).toBeInstanceOf(AssistantStreamError);
    expect(error).toMatchObject({ reason: 'malformed', textChars: 4, retryable: false });
    expect(observed).toEqual([['assistant_message', 200]]);
  });

  it.each([
    ['a known chunk of the wrong shape', sse([{ type: 'text-delta', id: 't', delta: 42 }])],
    ['a chunk without a type', sse([{ delta: 'x' }])],
    ['a JSON body instead of a stream', JSON.stringify({ answer: 'hi' })],
    ['an empty body', ''],
  ])('%s is malformed', async (_name, text) => {
    answerWith(text);
    const { error } = await collect(await ask());
    expect(error).toMatchObject({ name: 'AssistantStreamError', reason: 'malformed' });
  });

  it('an answer over the character cap ends as too long, with what was read before', async () => {
    answerWith(
      sse([
        { type: 'text-delta', id: 't', delta: 'x'.repeat(30) },
        { type: 'text-delta', id: 't', delta: 'y'.repeat(30) },
        { type: 'finish' },
      ]),
    );
    const { events, error } = await collect(await ask());
    expect(events).toEqual([{ type: 'text', delta: 'x'.repeat(30) }]);
    expect(error).toMatchObject({ reason: 'too_long', textChars: 60 });
    expect(docsApiErrorText(error)).toMatch(/could not read/);
  });

  it('a stream that ends without finish or [DONE] was cut off; [DONE] alone ends it well', async () => {
    answerWith(sse([{ type: 'text-delta', id: 't', delta: 'Part' }], false));
    expect((await collect(await ask())).error).toMatchObject({ reason: 'cut_off', retryable: true });
    answerWith(sse([{ type: 'text-delta', id: 't', delta: 'All' }]));
    expect(await collect(await ask())).toEqual({ events: [{ type: 'text', delta: 'All' }] });
  });

  it("an error chunk is an event; with no finish after it, the stream ends as the assistant's error", async () => {
    answerWith(
      sse([
        { type: 'text-delta', id: 't', delta: 'So' },
        { type: 'error', errorText: 'model overloaded' },
      ]),
    );
    const { events, error } = await collect(await ask());
    expect(events).toEqual([
      { type: 'text', delta: 'So' },
      { type: 'error', errorText: 'model overloaded' },
    ]);
    expect(error).toMatchObject({ reason: 'assistant_error', retryable: true });
  });

  it('stops reading at finish, and breaking out of the loop releases the answer', async () => {
    answerWith(sse([{ type: 'finish' }, '{garbage after the end']));
    expect((await collect(await ask())).error).toBeUndefined();
    answerWith(sse(answerChunks(['one ', 'two'], [PAGE])));
    const answer = await ask();
    for await (const e of answer.events) if (e.type === 'search') break;
    expect(observed.at(-1)).toEqual(['assistant_message', 200]);
  });
});

describe('DiscoveryClient.search and getPage', () => {
  it('searches with the spec body and returns pages, dropping results without a path', async () => {
    let body: unknown;
    pool()
      .intercept({ path: '/discovery/v1/search/acme%20docs', method: 'POST' })
      .reply((opts) => {
        body = JSON.parse(String(opts.body));
        return {
          statusCode: 200,
          data: [PAGE, { content: 'orphan' }, { path: '/sso', content: 'SSO', metadata: { title: 7 } }],
        };
      });
    const pages = await client.search({ query: 'rotate', pageSize: 5, scoreThreshold: 0.5, filter: { tag: 'api' } });
    expect(body).toEqual({ query: 'rotate', pageSize: 5, scoreThreshold: 0.5, filter: { tag: 'api' } });
    expect(pages.map((p) => [p.path, p.title])).toEqual([
      ['/api-keys/rotate', 'Rotate an API key'],
      ['/sso', undefined],
    ]);
    expect(observed).toEqual([['search_docs', 200]]);
  });

  it('retries a search after 5xx (it reads, costs no credits); refuses bad arguments before any request', async () => {
    pool().intercept({ path: '/discovery/v1/search/acme%20docs', method: 'POST' }).reply(502, {});
    pool().intercept({ path: '/discovery/v1/search/acme%20docs', method: 'POST' }).reply(200, []);
    await expect(client.search({ query: 'x' })).resolves.toEqual([]);
    for (const bad of [
      { query: ' ' },
      { query: 'x', pageSize: 51 },
      { query: 'x', pageSize: 0 },
      { query: 'x', scoreThreshold: 1.5 },
    ]) {
      await expect(client.search(bad)).rejects.toThrow(RangeError);
    }
    expect(observed).toEqual([
      ['search_docs', 502],
      ['search_docs', 200],
    ]);
  });

  it('refuses, before any request, an empty page path and a retrieval page size that is not a positive integer', async () => {
    await expect(client.getPage('  ')).rejects.toBeInstanceOf(RangeError);
    for (const retrievalPageSize of [0, 2.5, -1])
      await expect(ask({ retrievalPageSize })).rejects.toThrow('retrievalPageSize must be a positive integer');
    expect(agent.pendingInterceptors()).toHaveLength(0); // nothing was asked of the API
  });

  it('reads a page, and maps its 404 to not found (not retried)', async () => {
    pool()
      .intercept({ path: '/discovery/v1/page/acme%20docs', method: 'POST', body: JSON.stringify({ path: '/sso' }) })
      .reply(200, { path: '/sso', content: '# SSO' });
    await expect(client.getPage('/sso')).resolves.toEqual({ path: '/sso', content: '# SSO' });
    pool()
      .intercept({ path: '/discovery/v1/page/acme%20docs', method: 'POST' })
      .reply(404, { message: 'Page not found' });
    const err = await rejection(client.getPage('/nope'), DocsApiNotFoundError);
    expect(err.apiMessage).toBe('Page not found');
    expect(agent.pendingInterceptors()).toHaveLength(0);
  });

  it('a search whose answer is not the documented array is an invalid response; 401 is the key refused', async () => {
    pool().intercept({ path: '/discovery/v1/search/acme%20docs', method: 'POST' }).reply(200, { results: [] });
    expect(await rejection(client.search({ query: 'x' }), DocsApiError)).toMatchObject({ code: 'invalid_response' });
    pool()
      .intercept({ path: '/discovery/v1/page/acme%20docs', method: 'POST' })
      .reply(401, { message: 'Unauthorized' });
    await rejection(client.getPage('/a'), AssistantKeyRefusedError);
  });
});
