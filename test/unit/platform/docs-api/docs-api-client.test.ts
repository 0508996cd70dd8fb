import { createServer } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DocsApiClient } from '../../../../src/platform/docs-api/client.js';
import {
  DocsApiBadRequestError,
  DocsApiError,
  DocsApiInvalidResponseError,
  DocsApiNetworkError,
  DocsApiNotFoundError,
  DocsApiRateLimitedError,
  DocsApiServerError,
  DocsApiUnauthorizedError,
} from '../../../../src/platform/docs-api/errors.js';
import { docsApiErrorText } from '../../../../src/platform/docs-api/error-text.js';
import { MOCKED_DOCS_API_URL, mockedDocsApiClient } from '../../../helpers/fake-docs-api-client.js';
import { rejectionOf } from '../../../helpers/rejection.js';

const BASE = MOCKED_DOCS_API_URL;
const KEY = 'mint_secret_key_123';
const JOB = {
  id: 'job_abc',
  status: 'active',
  source: { repository: 'https://github.com/acme/docs', ref: null },
  model: 'm',
  prLink: null,
  createdAt: '2026-11-22T10:00:00.000Z',
  archivedAt: null,
  someFutureField: { nested: true },
};

let agent: MockAgent;
let client: DocsApiClient;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = mockedDocsApiClient(agent, KEY, { baseUrl: `${BASE}/` });
});
afterEach(async () => {
  await agent.close();
});

const pool = () => agent.get(BASE);

/**
 * A client whose requests time out after 20 ms, for the tests of a request that never answers in
 * time (their mocked answer comes after 1 s): each such test waits 20 ms, not the usual 200.
 */
const hurried = (opts: Partial<ConstructorParameters<typeof DocsApiClient>[0]> = {}) =>
  mockedDocsApiClient(agent, KEY, { timeoutMs: 20, ...opts });

async function expectError<T extends DocsApiError>(p: Promise<unknown>, type: new (...a: never[]) => T): Promise<T> {
  const err = await rejectionOf(p, type);
  expect(String((err as Error).message)).not.toContain(KEY);
  expect(JSON.stringify(err)).not.toContain(KEY);
  return err as T;
}

describe('DocsApiClient', () => {
  it('creates a job with the trimmed prompt, the bearer key and JSON, and parses the 201 tolerantly', async () => {
    let seen: { body?: unknown; headers?: unknown } = {};
    pool()
      .intercept({ path: '/v2/agent/proj%201/job', method: 'POST' })
      .reply((opts) => {
        seen = { body: JSON.parse(String(opts.body)), headers: opts.headers };
        return { statusCode: 201, data: JOB };
      });
    const job = await client.createJob('Add a quickstart');
    expect(job.id).toBe('job_abc');
    expect(job.prLink).toBeNull();
    expect(seen.body).toEqual({ prompt: 'Add a quickstart' });
    expect(seen.headers).toMatchObject({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json' });
  });

  it('reads a job (200) with the optional fields absent', async () => {
    pool()
      .intercept({ path: '/v2/agent/proj%201/job/job_abc', method: 'GET' })
      .reply(200, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
    await expect(client.getJob('job_abc')).resolves.toEqual({
      status: 'completed',
      prLink: 'https://github.com/acme/docs/pull/7',
    });
  });

  it('maps 400 to a bad request carrying the API text', async () => {
    pool().intercept({ path: '/v2/agent/proj%201/job', method: 'POST' }).reply(400, { error: 'prompt is required' });
    const err = await expectError(client.createJob('x'), DocsApiBadRequestError);
    expect(err.apiMessage).toBe('prompt is required');
  });

  it('maps 401 to unauthorized, with a sentence for the admin and no key', async () => {
    pool().intercept({ path: '/v2/agent/proj%201/job', method: 'POST' }).reply(401, { error: 'Invalid API key' });
    const err = await expectError(client.createJob('x'), DocsApiUnauthorizedError);
    expect(docsApiErrorText(err)).toMatch(/API key was rejected.*tell the admin/);
  });

  it('maps 404 to not found and does not retry it', async () => {
    pool().intercept({ path: '/v2/agent/proj%201/job/nope', method: 'GET' }).reply(404, { error: 'Job not found' });
    await expectError(client.getJob('nope'), DocsApiNotFoundError);
  });

  it('maps 429 to rate limited with Retry-After in ms, and never retries a POST', async () => {
    pool()
      .intercept({ path: '/v2/agent/proj%201/job', method: 'POST' })
      .reply(429, { error: 'Too many' }, { headers: { 'retry-after': '30' } });
    const err = await expectError(client.createJob('x'), DocsApiRateLimitedError);
    expect(err.retryAfterMs).toBe(30_000);
    expect(docsApiErrorText(err)).toBe('The docs service is rate limiting us right now; try again in 30s.');
    // A second, unexpected POST would fail with "no interceptor"; the pool must be fully consumed.
    expect(agent.pendingInterceptors()).toHaveLength(0);
  });

  it('retries a GET after 5xx and succeeds', async () => {
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc', method: 'GET' }).reply(503, { error: 'down' });
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc', method: 'GET' }).reply(200, JOB);
    await expect(client.getJob('job_abc')).resolves.toMatchObject({ id: 'job_abc', status: 'active' });
  });

  it('gives up on a GET after its retries with a server error', async () => {
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc', method: 'GET' }).reply(500, 'oops').times(3);
    const err = await expectError(client.getJob('job_abc'), DocsApiServerError);
    expect(err.status).toBe(500);
    expect(docsApiErrorText(err)).toBe('The docs service failed; try again in a minute.');
  });

  it('does not retry a POST after 5xx', async () => {
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc/message', method: 'POST' }).reply(502, {});
    await expectError(client.sendMessage('job_abc', 'more'), DocsApiServerError);
  });

  it('rejects a malformed 2xx body as an invalid response', async () => {
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc', method: 'GET' }).reply(200, '<html>not json</html>');
    await expectError(client.getJob('job_abc'), DocsApiInvalidResponseError);
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc', method: 'GET' }).reply(200, { status: 'exploded' });
    await expectError(client.getJob('job_abc'), DocsApiInvalidResponseError);
    pool().intercept({ path: '/v2/agent/proj%201/job', method: 'POST' }).reply(201, { status: 'active' });
    await expectError(client.createJob('x'), DocsApiInvalidResponseError);
  });

  it('times out a request that never answers, as a network error', async () => {
    pool().intercept({ path: '/v2/agent/proj%201/job', method: 'POST' }).reply(201, JOB).delay(1_000);
    const err = await expectError(hurried().createJob('x'), DocsApiNetworkError);
    expect(err.message).toContain('timed out');
    expect(docsApiErrorText(err)).toMatch(/could not be reached/);
  });

  it('a request cut off after it was written may have arrived: sent', async () => {
    pool()
      .intercept({ path: '/v2/agent/proj%201/job', method: 'POST' })
      .replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const err = await expectError(client.createJob('x'), DocsApiNetworkError);
    expect(err.sent).toBe(true);
  });

  it.each(['ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH'])(
    'a connection never made (%s) certainly sent nothing',
    async (code) => {
      pool()
        .intercept({ path: '/v2/agent/proj%201/job', method: 'POST' })
        .replyWithError(Object.assign(new Error(code), { code }));
      const err = await expectError(client.createJob('x'), DocsApiNetworkError);
      expect(err.sent).toBe(false);
      expect(err.message).toContain(code);
    },
  );

  it('a refused connection (a real closed port) certainly sent nothing; a timeout after writing may have', async () => {
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      });
    });
    const refused = new DocsApiClient({
      baseUrl: `http://127.0.0.1:${closed}`,
      apiKey: KEY,
      projectId: 'p',
      timeoutMs: 2_000,
    });
    try {
      const err = await expectError(refused.createJob('x'), DocsApiNetworkError);
      expect(err.sent).toBe(false);
      expect(err.message).toContain('ECONNREFUSED');
    } finally {
      await refused.close();
    }
    pool().intercept({ path: '/v2/agent/proj%201/job', method: 'POST' }).reply(201, JOB).delay(1_000);
    expect((await expectError(hurried().createJob('x'), DocsApiNetworkError)).sent).toBe(true);
  });

  it('an answer cut off mid-body: a 2xx is a network error that may have arrived (a job may exist); a 5xx stays a server error', async () => {
    // A real server that sends the status and part of the body, then drops the connection.
    let status = 201;
    const server = createServer((socket) => {
      socket.once('data', () => {
        socket.write(
          `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id":"job_`,
        );
        socket.destroy();
      });
    });
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
    );
    const cut = new DocsApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: KEY,
      projectId: 'p',
      timeoutMs: 2_000,
      retryMinDelayMs: 1,
    });
    try {
      const created = await expectError(cut.createJob('x'), DocsApiNetworkError);
      expect(created.sent).toBe(true);
      status = 500;
      await expectError(cut.createJob('x'), DocsApiServerError);
    } finally {
      await cut.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('sends both dates, limit and offset to the visitors endpoint', async () => {
    pool()
      .intercept({
        path: '/v1/analytics/proj%201/visitors?dateFrom=2026-11-15&dateTo=2026-11-22&limit=50&offset=100',
        method: 'GET',
      })
      .reply(200, {
        totals: { human: 3, ai: 2, total: 4 },
        visitors: [{ path: '/a', human: 3, ai: 2, total: 4 }],
        hasMore: false,
      });
    const res = await client.getVisitors({ dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 100 });
    expect(res.totals.total).toBe(4);
    expect(res.hasMore).toBe(false);
  });

  it('tells its observer about every HTTP request: operation, status (none on a network error) and seconds', async () => {
    const seen: Array<[string, number | undefined, number]> = [];
    const observed = hurried({ observer: { docsApiRequest: (op, status, s) => void seen.push([op, status, s]) } });
    pool().intercept({ path: '/v2/agent/proj%201/job', method: 'POST' }).reply(201, JOB);
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc', method: 'GET' }).reply(503, { error: 'down' });
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc', method: 'GET' }).reply(200, JOB);
    pool()
      .intercept({ path: '/v2/agent/proj%201/job/job_abc/message', method: 'POST' })
      .reply(200, { status: 'exploded' });
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc/message', method: 'POST' }).reply(200, JOB).delay(1_000);
    await observed.createJob('x');
    await observed.getJob('job_abc');
    await expectError(observed.sendMessage('job_abc', 'more'), DocsApiInvalidResponseError);
    await expectError(observed.sendMessage('job_abc', 'more'), DocsApiNetworkError);
    expect(seen.map(([op, status]) => [op, status])).toEqual([
      ['create_job', 201],
      ['get_job', 503], // each retry is a request of its own
      ['get_job', 200],
      ['send_message', 200], // a 200 whose body is invalid still answered 200
      ['send_message', undefined],
    ]);
    expect(seen.every(([, , s]) => s >= 0 && s < 5)).toBe(true);
    expect(seen[4]![2]).toBeGreaterThanOrEqual(0.015); // the timed-out request took its 20 ms
  });

  it('acts on another project through forProject: every path names it, one client per project over the same dispatcher', async () => {
    pool().intercept({ path: '/v2/agent/proj_b/job', method: 'POST' }).reply(201, JOB);
    pool().intercept({ path: '/v2/agent/proj_b/job/job_abc', method: 'GET' }).reply(200, JOB);
    pool().intercept({ path: '/v2/agent/proj_b/job/job_abc/message', method: 'POST' }).reply(200, JOB);
    pool()
      .intercept({
        path: '/v1/analytics/proj_b/visitors?dateFrom=2026-11-15&dateTo=2026-11-22&limit=5&offset=0',
        method: 'GET',
      })
      .reply(200, { totals: { human: 1, ai: 0, total: 1 }, visitors: [], hasMore: false });
    const b = client.forProject('proj_b');
    expect(b.projectId).toBe('proj_b');
    expect(client.forProject('proj_b')).toBe(b);
    expect(client.forProject('proj 1')).toBe(client);
    await expect(b.createJob('x')).resolves.toMatchObject({ id: 'job_abc' });
    await expect(b.getJob('job_abc')).resolves.toMatchObject({ id: 'job_abc' });
    await expect(b.sendMessage('job_abc', 'more')).resolves.toMatchObject({ id: 'job_abc' });
    await expect(
      b.getVisitors({ dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 5, offset: 0 }),
    ).resolves.toMatchObject({ hasMore: false });
    await b.close(); // a sibling does not own the dispatcher: the first client still works
    pool().intercept({ path: '/v2/agent/proj%201/job/job_abc', method: 'GET' }).reply(200, JOB);
    await expect(client.getJob('job_abc')).resolves.toMatchObject({ id: 'job_abc' });
  });
});
