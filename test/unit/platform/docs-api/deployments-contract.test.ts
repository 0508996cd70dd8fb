import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocsApiClient } from '../../../../src/platform/docs-api/client.js';
import { DocsApiForbiddenError, DocsApiRateLimitedError } from '../../../../src/platform/docs-api/errors.js';
import { FAKE_BUILD_ERROR, type FakeDocsApi } from '../../../../sandbox/fake-docs-api.js';
import { validateRequest, validateResponse } from '../../../helpers/openapi.js';
import { closeFakeDocsApiWithClient, startFakeDocsApiWithClient } from '../../../helpers/fake-docs-api-client.js';

// The preview calls over real HTTP, checked against deployments-openapi.json (test/fixtures/mintlify).
let clock = 0;
let fake: FakeDocsApi;
let client: DocsApiClient;

beforeAll(async () => {
  ({ fake, client } = await startFakeDocsApiWithClient(
    {
      apiKey: 'mint_contract',
      projectId: 'proj_1',
      jobDurationMs: 1_000,
      now: () => clock,
      previews: { buildMs: 4_000 },
    },
    { retryMinDelayMs: 1 },
  ));
});
afterAll(() => closeFakeDocsApiWithClient({ fake, client }));

describe('preview deployments ↔ spec contract', () => {
  it('asks for a preview of a job branch and reads it queued, in progress, then built, as the spec describes', async () => {
    const job = await client.createJob('Add a Python quickstart');
    const branch = (await client.getJob(job.id)).source?.ref ?? '';
    const asked = await client.requestPreview(branch);
    expect(asked.previewUrl).toMatch(/^https:\/\/acme-mintlify-agent-[a-z0-9]+\.mintlify\.site$/);
    const seen: (string | undefined)[] = [];
    for (const t of [0, 1_500, 4_000]) {
      clock += t;
      seen.push((await client.getUpdateStatus(asked.statusId ?? '')).status);
    }
    expect(seen).toEqual(['queued', 'in_progress', 'success']);
    const done = await client.getUpdateStatus(asked.statusId ?? '');
    expect(done.commit?.filesChanged?.modified).toContain('guides/quickstart.mdx');
    expect(done.screenshot).toMatch(/^https:\/\//);
    const previewCalls = fake.requests.filter((r) => r.path.startsWith('/v1/project/'));
    expect(previewCalls.length).toBe(5);
    for (const r of previewCalls) {
      expect(validateRequest(r), `${r.method} ${r.path}`).toEqual([]);
      expect(validateResponse({ method: r.method, path: r.path, status: r.status, body: r.responseBody })).toEqual([]);
    }
  });

  it('a failed build says so with its log; a sixth request in a minute is refused 429; a plan without previews 403', async () => {
    const job = await client.createJob('Add tabs [build-fail]');
    const branch = (await client.getJob(job.id)).source?.ref ?? '';
    clock += 61_000;
    const asked = await client.requestPreview(branch);
    clock += 4_000;
    const failed = await client.getUpdateStatus(asked.statusId ?? '');
    expect(failed).toMatchObject({ status: 'failure', summary: expect.stringMatching(/failed/) });
    expect(failed.logs).toContain(FAKE_BUILD_ERROR);
    for (let i = 0; i < 4; i++) await client.requestPreview(branch);
    await expect(client.requestPreview(branch)).rejects.toBeInstanceOf(DocsApiRateLimitedError);
    fake.previews.plan = 'free';
    clock += 61_000;
    await expect(client.requestPreview(branch)).rejects.toBeInstanceOf(DocsApiForbiddenError);
    fake.previews.plan = 'pro';
  });

  it('a branch no job reported is refused 400 (the preview of an unknown branch)', async () => {
    clock += 61_000;
    await expect(client.requestPreview('no-such-branch')).rejects.toMatchObject({ code: 'bad_request' });
  });
});
