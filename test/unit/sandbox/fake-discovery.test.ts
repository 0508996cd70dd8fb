import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_ASSISTANT_KEY,
  NOT_FOUND_TEXT,
  startFakeDocsApi,
  type FakeDocsApi,
} from '../../../sandbox/fake-docs-api.js';
import {
  DiscoveryClient,
  questionMessage,
  type AssistantAnswer,
} from '../../../src/platform/docs-api/discovery-client.js';
import {
  AssistantKeyRefusedError,
  AssistantStreamError,
  AssistantThreadNotFoundError,
  DocsApiNotFoundError,
  DocsApiRateLimitedError,
  DocsApiServerError,
} from '../../../src/platform/docs-api/errors.js';
import type { AssistantEvent } from '../../../src/platform/docs-api/ui-message-stream.js';

// The fake discovery API through the real client over HTTP: answers from its pages, "not found"
// when none match, threads and their keys, and every failure it can be told to produce.

let clock = Date.parse('2026-11-22T10:00:00Z');
let fake: FakeDocsApi;
let client: DiscoveryClient;

beforeAll(async () => {
  fake = await startFakeDocsApi({ apiKey: 'mint_admin_key', projectId: 'p1', now: () => clock });
  client = new DiscoveryClient({
    baseUrl: `${fake.url}/discovery`,
    apiKey: FAKE_ASSISTANT_KEY,
    domain: 'acme',
    readRetries: 0,
  });
});
afterAll(async () => {
  await client.close();
  await fake.close();
});
afterEach(() => {
  fake.discovery.hourlyLimit = 10_000;
  fake.discovery.firstTokenDelayMs = 0;
});

const ask = (question: string, thread: { threadId?: string; threadKey?: string } = {}) =>
  client.sendMessage({ fp: 'fp_alice', messages: [questionMessage(question)], ...thread });

async function read(
  answer: AssistantAnswer,
): Promise<{ text: string; paths: string[][]; events: AssistantEvent[]; error?: unknown }> {
  const events: AssistantEvent[] = [];
  let error: unknown;
  try {
    for await (const e of answer.events) events.push(e);
  } catch (err) {
    error = err;
  }
  const text = events.map((e) => (e.type === 'text' ? e.delta : '')).join('');
  const paths = events.flatMap((e) => (e.type === 'search' ? [e.pages.map((p) => p.path)] : []));
  return { text, paths, events, error };
}

/** A raw POST to the fake's discovery API (for what the client refuses to send). */
async function post(path: string, body: unknown, key = FAKE_ASSISTANT_KEY): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${fake.url}/discovery${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

describe('fake discovery API: filter', () => {
  const scoped = (question: string, filter: { version?: string; language?: string; groups?: string[] }) =>
    client.sendMessage({ fp: 'fp_alice', messages: [questionMessage(question)], filter });

  it('narrows answers and searches to a version; pages of no version are in every one', async () => {
    expect((await read(await ask('How do workspaces work?'))).paths).toEqual([['/v1/workspaces', '/v2/workspaces']]);
    expect((await read(await scoped('How do workspaces work?', { version: 'v2' }))).paths).toEqual([
      ['/v2/workspaces'],
    ]);
    expect((await read(await scoped('How do I rotate an API key?', { version: 'v2' }))).paths).toEqual([['/api-keys']]);
    const searched = await post('/v1/search/acme', { query: 'workspaces', filter: { version: 'v1' } });
    expect((searched.body as Array<{ path: string }>).map((r) => r.path)).toEqual(['/v1/workspaces']);
  });

  it("shows a group's pages only to a filter naming the group (public pages otherwise)", async () => {
    expect((await read(await ask('Where is the on-call runbook?'))).paths).toEqual([[]]);
    expect((await read(await scoped('Where is the on-call runbook?', { groups: ['staff'] }))).paths).toEqual([
      ['/internal/runbook'],
    ]);
    expect(
      (await post('/v2/assistant/acme/message', { fp: 'a', messages: [], filter: { groups: 'staff' } })).status,
    ).toBe(400);
  });
});

describe('fake discovery API: answers', () => {
  it('answers from the matching page, in several text deltas, with the page as the search output', async () => {
    const answer = await ask('How do I rotate an API key?');
    const { text, paths, events, error } = await read(answer);
    expect(error).toBeUndefined();
    expect(paths).toEqual([['/api-keys']]);
    expect(text).toContain('To rotate a key, click **Rotate**');
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(3);
    expect(events.at(-1)).toEqual({ type: 'finish', threadId: undefined });
    const search = events.find((e) => e.type === 'search');
    expect(search?.type === 'search' && search.pages[0]).toMatchObject({
      title: 'API keys',
      content: expect.stringContaining('Rotate'),
    });
  });

  it('answers a question no page covers with a plain "not found" and no pages', async () => {
    const { text, paths } = await read(await ask('What is the airspeed of an unladen swallow?'));
    expect(text).toBe(NOT_FOUND_TEXT);
    expect(paths).toEqual([[]]);
  });

  it('starts a thread with X-Thread-Id and X-Thread-Key, and continues it only with both', async () => {
    const first = await ask('Does Acme support SSO with Okta?');
    expect(first.threadId).toMatch(/\S/);
    expect(first.threadKey).toMatch(/^[\w-]{20,}$/);
    await read(first);
    const thread = fake.discovery.threads.get(first.threadId!);
    expect(thread).toMatchObject({
      key: first.threadKey,
      fp: 'fp_alice',
      turns: [{ question: 'Does Acme support SSO with Okta?', paths: ['/sso'] }],
    });

    // A follow-up that names no page is answered from the thread's earlier question; no new key.
    const followUp = await ask('Can owners require it for everyone?', {
      threadId: first.threadId,
      threadKey: first.threadKey,
    });
    expect([followUp.threadId, followUp.threadKey]).toEqual([first.threadId, undefined]);
    expect((await read(followUp)).paths).toEqual([['/sso']]);
    expect(thread?.turns).toHaveLength(2);

    // The same follow-up outside the thread finds nothing.
    expect((await read(await ask('Can owners require it for everyone?'))).text).toBe(NOT_FOUND_TEXT);
  });

  it('answers 404 for a thread id without its key, with a wrong key, or unknown', async () => {
    const first = await ask('How do webhooks sign events?');
    await read(first);
    const message = (extra: Record<string, unknown>) =>
      post('/v2/assistant/acme/message', { fp: 'f', messages: [questionMessage('and retries?')], ...extra });
    expect(await message({ threadId: first.threadId })).toEqual({ status: 404, body: { message: 'Thread not found' } });
    await expect(ask('and retries?', { threadId: first.threadId, threadKey: 'wrong' })).rejects.toBeInstanceOf(
      AssistantThreadNotFoundError,
    );
    await expect(
      ask('and retries?', { threadId: 'no-such-thread', threadKey: first.threadKey }),
    ).rejects.toBeInstanceOf(AssistantThreadNotFoundError);
    expect(fake.discovery.threads.get(first.threadId!)?.turns).toHaveLength(1);
  });

  it('waits the first-token delay before the first text delta', async () => {
    fake.discovery.firstTokenDelayMs = 150;
    const started = performance.now();
    const answer = await ask('Where are invoices?');
    for await (const e of answer.events) {
      if (e.type !== 'text') continue;
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      break;
    }
  });
});

describe('fake discovery API: search and page', () => {
  it('searches by keyword (at most pageSize) and serves a page by path, 404 for an unknown one', async () => {
    expect((await client.search({ query: 'rate limit 429' })).map((p) => [p.path, p.title])).toEqual([
      ['/rate-limits', 'Rate limits'],
    ]);
    expect(await client.search({ query: 'deploy a project', pageSize: 1 })).toHaveLength(1);
    expect(await client.search({ query: 'swallow' })).toEqual([]);
    await expect(client.getPage('/webhooks')).resolves.toMatchObject({
      path: '/webhooks',
      content: expect.stringContaining('HMAC-SHA256'),
    });
    await expect(client.getPage('/nope')).rejects.toBeInstanceOf(DocsApiNotFoundError);
  });
});

describe('fake discovery API: refusals and faults', () => {
  it('refuses a wrong key, the admin key and no key with 401', async () => {
    const wrong = new DiscoveryClient({ baseUrl: `${fake.url}/discovery`, apiKey: 'mint_admin_key', domain: 'acme' });
    await expect(wrong.sendMessage({ fp: 'f', messages: [questionMessage('SSO?')] })).rejects.toBeInstanceOf(
      AssistantKeyRefusedError,
    );
    await wrong.close();
    const res = await fetch(`${fake.url}/discovery/v1/search/acme`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"sso"}',
    });
    expect(res.status).toBe(401);
  });

  it('answers 429 past the hourly limit of its clock, and admits again an hour later', async () => {
    clock += 3_600_001; // an hour without earlier tests' requests
    fake.discovery.hourlyLimit = 2;
    await read(await ask('SSO?'));
    await read(await ask('Webhooks?'));
    await expect(ask('Billing?')).rejects.toBeInstanceOf(DocsApiRateLimitedError);
    expect(await client.search({ query: 'sso' })).toHaveLength(1); // each endpoint has its own count
    clock += 3_600_001;
    await expect(read(await ask('Billing?'))).resolves.toMatchObject({ paths: [['/billing']] });
  });

  it('answers an injected 5xx', async () => {
    fake.failNext(/\/discovery\/v2\/assistant\//, 503, 1, { message: 'upstream unavailable' });
    await expect(ask('SSO?')).rejects.toBeInstanceOf(DocsApiServerError);
  });

  it('cuts an answer mid-way when told: the client ends with a cut-off after the text it read', async () => {
    fake.discovery.cutNextAnswers(2);
    const { events, error } = await read(await ask('How do I rotate an API key?'));
    expect(events.filter((e) => e.type === 'text')).toHaveLength(2);
    expect(events.some((e) => e.type === 'finish')).toBe(false);
    expect(error).toBeInstanceOf(AssistantStreamError);
    expect(error).toMatchObject({ reason: 'cut_off', retryable: true });
    // The next answer is whole again.
    expect((await read(await ask('How do I rotate an API key?'))).error).toBeUndefined();
  });

  it.each([
    ['no fp', { messages: [questionMessage('q')] }, 'fp is required'],
    ['no messages', { fp: 'f' }, 'messages is required'],
    ['a message without parts', { fp: 'f', messages: [{ id: 'm', role: 'user' }] }, 'parts must be an array'],
    [
      'a part of an unknown type',
      { fp: 'f', messages: [{ id: 'm', role: 'user', parts: [{ type: 'image', url: 'x' }] }] },
      'type must be one of',
    ],
    ['a v1-style role', { fp: 'f', messages: [{ id: 'm', role: 'data', parts: [] }] }, 'role must be'],
    [
      'a currentPath over 200 characters',
      { fp: 'f', messages: [questionMessage('q')], currentPath: 'x'.repeat(201) },
      'at most 200',
    ],
    [
      'a filter of the wrong type',
      { fp: 'f', messages: [questionMessage('q')], filter: { groups: 'admins' } },
      'filter.groups',
    ],
    [
      'no user text',
      { fp: 'f', messages: [{ id: 'm', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] },
      'user message with text',
    ],
  ])('refuses a message body with %s (400)', async (_name, body, message) => {
    const res = await post('/v2/assistant/acme/message', body);
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toContain(message);
  });

  it('refuses a search or page body the spec refuses, an unknown domain and another method', async () => {
    expect((await post('/v1/search/acme', { query: 'x', pageSize: 51 })).status).toBe(400);
    expect((await post('/v1/search/acme', { query: 'x', scoreThreshold: 2 })).status).toBe(400);
    expect((await post('/v1/search/acme', { pageSize: 5 })).status).toBe(400);
    expect((await post('/v1/page/acme', {})).status).toBe(400);
    expect(await post('/v1/search/other-site', { query: 'x' })).toEqual({
      status: 404,
      body: { message: 'Domain not found' },
    });
    const get = await fetch(`${fake.url}/discovery/v1/search/acme`, {
      headers: { authorization: `Bearer ${FAKE_ASSISTANT_KEY}` },
    });
    expect(get.status).toBe(405);
  });
});
