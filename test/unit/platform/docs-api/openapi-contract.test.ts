import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocsApiClient } from '../../../../src/platform/docs-api/client.js';
import type { FakeDocsApi } from '../../../../sandbox/fake-docs-api.js';
import { validateRequest, validateResponse } from '../../../helpers/openapi.js';
import { closeFakeDocsApiWithClient, startFakeDocsApiWithClient } from '../../../helpers/fake-docs-api-client.js';

// The client's real requests, over real HTTP, checked against the vendor's OpenAPI documents.
let clock = 0;
let fake: FakeDocsApi;
let client: DocsApiClient;

beforeAll(async () => {
  ({ fake, client } = await startFakeDocsApiWithClient({
    apiKey: 'mint_contract',
    projectId: 'proj_1',
    jobDurationMs: 1_000,
    now: () => clock,
  }));
});
afterAll(() => closeFakeDocsApiWithClient({ fake, client }));

describe('client ↔ spec contract', () => {
  it('every request the client sends, and every answer it parses, is what the spec describes', async () => {
    const job = await client.createJob('Add a quickstart for the Python SDK');
    await client.getJob(job.id);
    clock += 2_000;
    const done = await client.getJob(job.id);
    expect(done).toMatchObject({ status: 'completed', prLink: expect.stringMatching(/^https:\/\/github\.com\//) });
    await client.sendMessage(job.id, 'Also add a Go example');
    const visitors = await client.getVisitors({ dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 250, offset: 0 });
    expect(visitors.visitors.length).toBeGreaterThan(0);

    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v2/agent/proj_1/job',
      `GET /v2/agent/proj_1/job/${job.id}`,
      `GET /v2/agent/proj_1/job/${job.id}`,
      `POST /v2/agent/proj_1/job/${job.id}/message`,
      'GET /v1/analytics/proj_1/visitors',
    ]);
    for (const r of fake.requests) {
      expect(validateRequest(r), `${r.method} ${r.path}`).toEqual([]);
      expect(
        validateResponse({ method: r.method, path: r.path, status: r.status, body: r.responseBody }),
        `${r.method} ${r.path}`,
      ).toEqual([]);
    }
  });

  it('the validator catches a request the spec forbids (so the check above can fail)', () => {
    expect(
      validateRequest({
        method: 'POST',
        path: '/v2/agent/p/job',
        headers: { authorization: 'Bearer mint_x', 'content-type': 'application/json' },
        body: {},
      }),
    ).not.toEqual([]);
    expect(
      validateRequest({
        method: 'GET',
        path: '/v1/analytics/p/visitors?limit=500',
        headers: { authorization: 'Bearer mint_x' },
      }),
    ).not.toEqual([]);
  });
});
