import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_ASSISTANT_KEY, startFakeDocsApi, type FakeDocsApi } from '../../../sandbox/fake-docs-api.js';
import {
  DiscoveryClient,
  questionMessage,
  type AssistantAnswer,
} from '../../../src/platform/docs-api/discovery-client.js';
import { mintlifyApi, validateRequest, validateResponse } from '../../helpers/openapi.js';
import { checkUiMessageStream } from '../../helpers/ui-message-stream.js';

// The discovery client's real requests, over real HTTP to the fake, checked against the vendor's
// spec (test/fixtures/mintlify/discovery-openapi.json, paths below /discovery); the fake's JSON
// answers against the same spec. The spec types the v2 answer only as "Streaming response
// compatible with AI SDK v5", so the stream is checked against the AI SDK's UI message stream
// protocol instead (test/helpers/ui-message-stream.ts).

let fake: FakeDocsApi;
let client: DiscoveryClient;

beforeAll(async () => {
  fake = await startFakeDocsApi({ apiKey: 'mint_admin', projectId: 'p1' });
  client = new DiscoveryClient({ baseUrl: `${fake.url}/discovery`, apiKey: FAKE_ASSISTANT_KEY, domain: 'acme' });
});
afterAll(async () => {
  await client.close();
  await fake.close();
});

async function drain(answer: AssistantAnswer): Promise<void> {
  for await (const e of answer.events) void e;
}

describe('discovery client ↔ spec contract', () => {
  it('every request the client sends, and every JSON answer of the fake, is what the spec describes', async () => {
    const first = await client.sendMessage({
      fp: 'fp_1',
      messages: [questionMessage('How do I verify webhook signatures?')],
      retrievalPageSize: 5,
      currentPath: '/webhooks',
      filter: { version: 'v2', groups: ['admins'] },
    });
    await drain(first);
    await drain(
      await client.sendMessage({
        fp: 'fp_1',
        messages: [questionMessage('and retries?')],
        threadId: first.threadId,
        threadKey: first.threadKey,
      }),
    );
    await drain(await client.sendMessage({ fp: 'fp_1', messages: [questionMessage('What is a swallow?')] }));
    await client.search({
      query: 'webhook',
      pageSize: 10,
      scoreThreshold: 0.2,
      filter: { tag: 'api', groups: ['admins'] },
    });
    await client.getPage('/webhooks', { groups: ['admins'] });
    await client.getPage('/missing').catch(() => undefined);

    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /discovery/v2/assistant/acme/message 200',
      'POST /discovery/v2/assistant/acme/message 200',
      'POST /discovery/v2/assistant/acme/message 200',
      'POST /discovery/v1/search/acme 200',
      'POST /discovery/v1/page/acme 200',
      'POST /discovery/v1/page/acme 404',
    ]);
    for (const r of fake.requests) {
      expect(validateRequest(r), `${r.method} ${r.path}`).toEqual([]);
      const operation = mintlifyApi.matchOperation(r.method, r.path);
      expect(operation?.spec).toBe('discovery');
      if (typeof r.responseBody === 'string') {
        expect(operation?.statuses).toContain(String(r.status));
        expect(checkUiMessageStream(r.responseBody).problems, r.path).toEqual([]);
      } else {
        expect(
          validateResponse({ method: r.method, path: r.path, status: r.status, body: r.responseBody }),
          `${r.path} ${r.status}`,
        ).toEqual([]);
      }
    }
  });

  it('the answer is an SSE UI message stream, with the search tool call before the text', async () => {
    const res = await fetch(`${fake.url}/discovery/v2/assistant/acme/message`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FAKE_ASSISTANT_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fp: 'anonymous', messages: [questionMessage('How do I set up SSO?')] }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(res.headers.get('x-thread-id')).toBeTruthy();
    expect(res.headers.get('x-thread-key')).toBeTruthy();
    const { problems, chunks } = checkUiMessageStream(await res.text());
    expect(problems).toEqual([]);
    const types = chunks.map((c) => c.type);
    expect(types.indexOf('tool-output-available')).toBeLessThan(types.indexOf('text-delta'));
    expect(types.filter((t) => t === 'text-delta').length).toBeGreaterThan(1);
  });

  it('the checks can fail: the validator refuses what the spec forbids, the stream checker a broken stream', () => {
    const headers = { authorization: 'Bearer k', 'content-type': 'application/json' };
    expect(
      validateRequest({
        method: 'POST',
        path: '/discovery/v2/assistant/acme/message',
        headers,
        body: { messages: [] },
      }),
    ).not.toEqual([]);
    expect(
      validateRequest({
        method: 'POST',
        path: '/discovery/v2/assistant/acme/message',
        headers,
        body: { fp: 'f', messages: [{ id: 'm', role: 'user', parts: [{ type: 'text' }] }] },
      }),
    ).not.toEqual([]);
    expect(
      validateRequest({
        method: 'POST',
        path: '/discovery/v1/search/acme',
        headers,
        body: { query: 'x', pageSize: 51 },
      }),
    ).not.toEqual([]);
    expect(
      validateRequest({
        method: 'POST',
        path: '/discovery/v1/page/acme',
        headers: { 'content-type': 'application/json' },
        body: { path: '/a' },
      }),
    ).not.toEqual([]);
    expect(
      validateResponse({ method: 'POST', path: '/discovery/v1/search/acme', status: 200, body: { results: [] } }),
    ).not.toEqual([]);
    expect(checkUiMessageStream('data: {"type":"text-delta","id":"t","delta":"x"}\n\n').problems).not.toEqual([]);
  });
});
