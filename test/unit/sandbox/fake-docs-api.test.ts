import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_DOC_PAGES,
  FAKE_NEW_PAGES,
  FAKE_NEW_PAGES_SINCE,
  startFakeDocsApi,
  type FakeAgentJobBody,
  type FakeDocsApi,
  type FakeVisitorRow,
} from '../../../sandbox/fake-docs-api.js';
import { validateRequest, validateResponse } from '../../helpers/openapi.js';

const API_KEY = 'mint_test_0123456789';
const PROJECT = 'proj_abc';
const DURATION_MS = 3000;
const T0 = Date.UTC(2026, 10, 12, 9, 30); // 2026-11-12T09:30Z

let t = T0;
let api: FakeDocsApi;

beforeAll(async () => {
  api = await startFakeDocsApi({ apiKey: API_KEY, projectId: PROJECT, jobDurationMs: DURATION_MS, now: () => t });
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => {
  t = T0;
});

interface CallOptions {
  method?: string;
  /** JSON-encoded and sent with content-type application/json. */
  body?: unknown;
  /** Sent as-is (with content-type application/json). */
  rawBody?: string;
  /** API key to send; null sends no Authorization header. */
  key?: string | null;
  /** The status is not in the spec (401, 405, …): only check the body is `{error: string}`. */
  offSpec?: boolean;
}

interface CallResult<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** Calls the fake and checks the response against the spec (declared status + schema), unless `offSpec`. */
async function call<T = unknown>(path: string, o: CallOptions = {}): Promise<CallResult<T>> {
  const payload = o.rawBody ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  const method = o.method ?? (payload === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = {};
  if (o.key !== null) headers.authorization = `Bearer ${o.key ?? API_KEY}`;
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${api.url}${path}`, { method, headers, body: payload });
  expect(res.headers.get('content-type')).toBe('application/json');
  const body = (await res.json()) as T;
  if (o.offSpec) {
    expect(body).toEqual({ error: expect.any(String) });
  } else {
    expect(validateResponse({ method, path, status: res.status, body })).toEqual([]);
  }
  return { status: res.status, body, headers: res.headers };
}

const jobsPath = `/v2/agent/${PROJECT}/job`;
const jobPath = (id: string): string => `${jobsPath}/${id}`;
const messagePath = (id: string): string => `${jobsPath}/${id}/message`;

async function createJob(prompt: string): Promise<FakeAgentJobBody> {
  const res = await call<FakeAgentJobBody>(jobsPath, { body: { prompt } });
  expect(res.status).toBe(201);
  return res.body;
}

async function getJob(id: string): Promise<FakeAgentJobBody> {
  const res = await call<FakeAgentJobBody>(jobPath(id));
  expect(res.status).toBe(200);
  return res.body;
}

function prNumber(link: string | null): number {
  const m = /^https:\/\/github\.com\/acme\/docs\/pull\/(\d+)$/.exec(link ?? '');
  if (!m?.[1]) throw new Error(`not a PR link: ${String(link)}`);
  return Number(m[1]);
}

describe('openapi helper', () => {
  const auth = { authorization: 'Bearer k', 'content-type': 'application/json' };

  it('rejects a response body that breaks the schema', () => {
    const errors = validateResponse({
      method: 'GET',
      path: '/v2/agent/p/job/j1',
      status: 200,
      body: { status: 'bogus' },
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/status/);
    expect(
      validateResponse({
        method: 'GET',
        path: '/v1/analytics/p/visitors',
        status: 200,
        body: { totals: { human: 1 }, visitors: [] },
      }),
    ).not.toEqual([]);
    expect(
      validateResponse({ method: 'GET', path: '/v2/agent/p/job/j1', status: 200, body: { prLink: 'not a uri' } }),
    ).not.toEqual([]);
  });

  it('rejects a status the operation does not declare, and unknown operations', () => {
    expect(
      validateResponse({ method: 'GET', path: '/v2/agent/p/job/j1', status: 401, body: { error: 'x' } })[0],
    ).toMatch(/status 401 is not declared/);
    expect(validateResponse({ method: 'GET', path: '/v2/nope', status: 200, body: {} })).not.toEqual([]);
    expect(validateRequest({ method: 'DELETE', path: '/v2/agent/p/job', headers: auth })).not.toEqual([]);
  });

  it('rejects bad requests: empty or missing prompt, no auth, bad query values', () => {
    expect(
      validateRequest({ method: 'POST', path: '/v2/agent/p/job', headers: auth, body: { prompt: '' } }),
    ).not.toEqual([]);
    expect(
      validateRequest({ method: 'POST', path: '/v2/agent/p/job/j1/message', headers: auth, body: {} }),
    ).not.toEqual([]);
    expect(
      validateRequest({ method: 'POST', path: '/v2/agent/p/job', headers: {}, body: { prompt: 'x' } }),
    ).toHaveLength(2);
    expect(validateRequest({ method: 'GET', path: '/v1/analytics/p/visitors?limit=0', headers: auth })).not.toEqual([]);
    expect(
      validateRequest({ method: 'GET', path: '/v1/analytics/p/visitors', query: { offset: '-1' }, headers: auth }),
    ).not.toEqual([]);
  });

  it('accepts conforming requests and responses', () => {
    expect(
      validateRequest({ method: 'POST', path: '/v2/agent/p/job', headers: auth, body: { prompt: 'Fix typos' } }),
    ).toEqual([]);
    expect(
      validateRequest({
        method: 'GET',
        path: '/v1/analytics/p/visitors?limit=250&offset=0&dateFrom=2026-01-01',
        headers: auth,
      }),
    ).toEqual([]);
    expect(
      validateResponse({ method: 'GET', path: '/v2/agent/p/job/j1', status: 404, body: { error: 'Job not found' } }),
    ).toEqual([]);
  });
});

describe('fake docs API: agent jobs', () => {
  it('creates a job: 201 active AgentJob, and records the request with the key', async () => {
    const job = await createJob('Document the new rate limits');
    expect(job).toEqual({
      id: expect.stringMatching(/^job_[a-z0-9]{12}$/),
      status: 'active',
      source: { repository: 'https://github.com/acme/docs', ref: expect.stringMatching(/^mintlify\/agent-/) },
      model: expect.any(String),
      prLink: null,
      createdAt: new Date(T0).toISOString(),
      archivedAt: null,
    });
    expect(api.jobs.get(job.id)?.messages).toEqual(['Document the new rate limits']);

    const recorded = await api.waitForRequest(
      (r) => r.status === 201 && (r.responseBody as FakeAgentJobBody).id === job.id,
    );
    expect(recorded.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(recorded.status).toBe(201);
    expect(recorded.body).toEqual({ prompt: 'Document the new rate limits' });
    expect(validateRequest(recorded)).toEqual([]);
  });

  it('accepts a blank prompt, as the spec only asks for minLength 1', async () => {
    const job = await createJob('   ');
    expect(job.status).toBe('active');
  });

  it.each([
    ['empty prompt', { body: { prompt: '' } }],
    ['missing prompt', { body: {} }],
    ['non-string prompt', { body: { prompt: 42 } }],
    ['array body', { body: ['x'] }],
    ['malformed JSON', { rawBody: '{"prompt": ' }],
  ] as [string, CallOptions][])('rejects a create with %s: 400 Error', async (_name, options) => {
    const res = await call<{ error: string }>(jobsPath, options);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.any(String));
  });

  it('answers 401 {error} for a wrong or missing key', async () => {
    const wrong = await call(jobsPath, { body: { prompt: 'x' }, key: 'mint_wrong', offSpec: true });
    expect(wrong.status).toBe(401);
    const missing = await call(`/v1/analytics/${PROJECT}/visitors`, { key: null, offSpec: true });
    expect(missing.status).toBe(401);
    expect(api.requests.at(-1)?.status).toBe(401);
  });

  it('answers 404 for unknown jobs and projects', async () => {
    expect((await call(jobPath('job_doesnotexist'))).status).toBe(404);
    expect((await call(messagePath('job_doesnotexist'), { body: { prompt: 'x' } })).status).toBe(404);
    const other = await call<{ error: string }>('/v2/agent/other-project/job/job_x');
    expect(other).toMatchObject({ status: 404, body: { error: 'Project not found' } });
  });

  it('serves several projects with one key, finds a job only under its own project, and records the project of each request', async () => {
    const multi = await startFakeDocsApi({
      apiKey: API_KEY,
      projectId: PROJECT,
      projectIds: ['proj_b'],
      jobDurationMs: DURATION_MS,
      now: () => t,
    });
    try {
      const post = (path: string, prompt: string) =>
        fetch(`${multi.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt }),
        });
      const get = (path: string) => fetch(`${multi.url}${path}`, { headers: { authorization: `Bearer ${API_KEY}` } });
      const created = (await (await post('/v2/agent/proj_b/job', 'In project B')).json()) as FakeAgentJobBody;
      expect((await get(`/v2/agent/proj_b/job/${created.id}`)).status).toBe(200);
      expect((await get(`/v2/agent/${PROJECT}/job/${created.id}`)).status).toBe(404);
      expect((await post(`/v2/agent/${PROJECT}/job/${created.id}/message`, 'more')).status).toBe(404);
      expect((await get('/v1/analytics/proj_b/visitors?dateFrom=2026-11-01&dateTo=2026-11-08')).status).toBe(200);
      expect((await get('/v1/analytics/proj_c/visitors?dateFrom=2026-11-01&dateTo=2026-11-08')).status).toBe(404);
      expect(multi.requests.map((r) => [r.projectId, r.status])).toEqual([
        ['proj_b', 201],
        ['proj_b', 200],
        [PROJECT, 404],
        [PROJECT, 404],
        ['proj_b', 200],
        ['proj_c', 404],
      ]);
      expect(multi.jobs.get(created.id)?.projectId).toBe('proj_b');
    } finally {
      await multi.close();
    }
  });

  it('answers 404 for unknown routes and 405 for a wrong method', async () => {
    const unknown = await call<{ error: string }>('/v2/unknown', { offSpec: true });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'Not found' } });
    const wrongMethod = await call(jobsPath, { method: 'DELETE', offSpec: true });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });

  it('moves active → completed with a PR link once the clock passes the job duration', async () => {
    const job = await createJob('Add a page about webhooks');
    t = T0 + DURATION_MS - 1;
    expect(await getJob(job.id)).toMatchObject({ status: 'active', prLink: null });
    t = T0 + DURATION_MS;
    const done = await getJob(job.id);
    expect(done.status).toBe('completed');
    expect(done.archivedAt).toBeNull();
    const first = prNumber(done.prLink);
    expect(first).toBeGreaterThanOrEqual(101);

    const second = await createJob('Another PR');
    t += DURATION_MS;
    expect(prNumber((await getJob(second.id)).prLink)).toBe(first + 1);
  });

  it('reports completed without a PR for [no-changes], failed for [fail], archived for [archive]', async () => {
    const noChanges = await createJob('Nothing to do [no-changes]');
    const failed = await createJob('Break [fail]');
    const archived = await createJob('Old [archive]');
    t = T0 + DURATION_MS;
    expect(await getJob(noChanges.id)).toMatchObject({ status: 'completed', prLink: null, archivedAt: null });
    expect(await getJob(failed.id)).toMatchObject({ status: 'failed', prLink: null, archivedAt: null });
    expect(await getJob(archived.id)).toMatchObject({
      status: 'archived',
      archivedAt: new Date(T0 + DURATION_MS).toISOString(),
    });
  });

  it('reactivates a job on a follow-up message, keeping its PR', async () => {
    const job = await createJob('Write the guide');
    t = T0 + DURATION_MS;
    const prLink = (await getJob(job.id)).prLink;
    prNumber(prLink);

    const follow = await call<FakeAgentJobBody>(messagePath(job.id), { body: { prompt: 'Also add an example' } });
    expect(follow.status).toBe(200);
    expect(follow.body).toMatchObject({ id: job.id, status: 'active', prLink: null });
    expect(validateRequest(api.requests.at(-1) ?? { method: '', path: '' })).toEqual([]);
    t += DURATION_MS - 1;
    expect((await getJob(job.id)).status).toBe('active');
    t += 1;
    expect(await getJob(job.id)).toMatchObject({ status: 'completed', prLink });

    await call(messagePath(job.id), { body: { prompt: 'Looks fine [no-changes]' } });
    t += DURATION_MS;
    expect(await getJob(job.id)).toMatchObject({ status: 'completed', prLink });
    expect(api.jobs.get(job.id)?.messages).toEqual([
      'Write the guide',
      'Also add an example',
      'Looks fine [no-changes]',
    ]);
  });

  it('opens a new PR when a follow-up on a job without one yields changes', async () => {
    const job = await createJob('Check [no-changes]');
    const reference = await createJob('Reference PR');
    t = T0 + DURATION_MS;
    expect((await getJob(job.id)).prLink).toBeNull();
    const referenceNumber = prNumber((await getJob(reference.id)).prLink);

    await call(messagePath(job.id), { body: { prompt: 'Now really change it' } });
    t += DURATION_MS;
    expect(prNumber((await getJob(job.id)).prLink)).toBe(referenceNumber + 1);
  });

  it('rejects a follow-up with a bad body: 400', async () => {
    const job = await createJob('Something');
    expect((await call(messagePath(job.id), { body: { prompt: '' } })).status).toBe(400);
    expect((await call(messagePath(job.id), { rawBody: 'not json' })).status).toBe(400);
    expect(api.jobs.get(job.id)?.messages).toEqual(['Something']);
  });
});

interface VisitorsBody {
  totals: { human: number; ai: number; total: number };
  visitors: FakeVisitorRow[];
  hasMore: boolean;
}
interface AnalyticsError {
  error: string;
  details?: { message: string }[];
}

const visitorsPath = (query: Record<string, string | number>): string =>
  `/v1/analytics/${PROJECT}/visitors?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`;

async function visitors(query: Record<string, string | number>): Promise<VisitorsBody> {
  const res = await call<VisitorsBody>(visitorsPath(query));
  expect(res.status).toBe(200);
  return res.body;
}

describe('fake docs API: analytics visitors', () => {
  const week = { dateFrom: '2026-11-02', dateTo: '2026-11-09' };

  it('pages with offset/limit until hasMore is false, covering every row once in order', async () => {
    const full = await visitors({ ...week, limit: 250 });
    expect(full.hasMore).toBe(false);
    expect(full.visitors.length).toBeGreaterThan(100);
    expect(full.visitors.length).toBeLessThanOrEqual(FAKE_DOC_PAGES.length);

    const walked: FakeVisitorRow[] = [];
    let offset = 0;
    for (let page = 0; page < 20; page++) {
      const res = await visitors({ ...week, limit: 25, offset });
      walked.push(...res.visitors);
      expect(res.totals).toEqual(full.totals);
      if (!res.hasMore) break;
      expect(res.visitors).toHaveLength(25);
      offset += 25;
    }
    expect(walked).toEqual(full.visitors);
    expect(new Set(walked.map((r) => r.path)).size).toBe(walked.length);
    for (let i = 1; i < walked.length; i++) {
      const [a, b] = [walked[i - 1], walked[i]] as [FakeVisitorRow, FakeVisitorRow];
      expect(a.total > b.total || (a.total === b.total && a.path < b.path)).toBe(true);
    }
    expect(walked.every((r) => r.total > 0)).toBe(true);
  });

  it('defaults to limit 50, offset 0', async () => {
    const res = await visitors(week);
    expect(res.visitors).toHaveLength(50);
    expect(res.hasMore).toBe(true);
    expect(res.visitors).toEqual((await visitors({ ...week, limit: 250 })).visitors.slice(0, 50));
    expect(api.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: `/v1/analytics/${PROJECT}/visitors`,
      status: 200,
    });
  });

  it('defaults to the 7 UTC days before today when dates are omitted', async () => {
    expect(await visitors({ limit: 250 })).toEqual(
      await visitors({ dateFrom: '2026-11-05', dateTo: '2026-11-12', limit: 250 }),
    );
  });

  it.each([
    [{ limit: 0 }, ['limit must be between 1 and 250']],
    [{ limit: 251 }, ['limit must be between 1 and 250']],
    [{ limit: 'abc' }, ['limit must be an integer']],
    [{ offset: -1 }, ['offset must be greater than or equal to 0']],
    [{ dateFrom: '2026-02-30' }, ['dateFrom must be a date in YYYY-MM-DD or ISO 8601 format']],
    [{ dateTo: 'last week' }, ['dateTo must be a date in YYYY-MM-DD or ISO 8601 format']],
    [{ dateFrom: '2026-11-09', dateTo: '2026-11-09' }, ['dateFrom must be before dateTo']],
    [{ dateFrom: '2026-11-10', dateTo: '2026-11-09' }, ['dateFrom must be before dateTo']],
    [
      { limit: 0, offset: -5, dateFrom: 'x' },
      ['limit must be between 1 and 250', 'offset must be greater than or equal to 0', expect.any(String)],
    ],
  ] as [Record<string, string | number>, string[]][])('rejects %o: 400 with details', async (query, messages) => {
    const res = await call<AnalyticsError>(visitorsPath(query));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid query parameters', details: messages.map((message) => ({ message })) });
    // The spec agrees these requests are invalid (except the date checks, which it cannot express).
    if ('limit' in query || 'offset' in query) {
      expect(
        validateRequest({ method: 'GET', path: visitorsPath(query), headers: { authorization: 'Bearer k' } }),
      ).not.toEqual([]);
    }
  });

  it('accepts ISO 8601 date-times, covering whole UTC days', async () => {
    const iso = await visitors({
      dateFrom: '2026-11-02T00:00:00Z',
      dateTo: '2026-11-09T00:00:00.000+00:00',
      limit: 250,
    });
    expect(iso).toEqual(await visitors({ ...week, limit: 250 }));
  });

  it('keeps max(human, ai) ≤ total ≤ human + ai per page and site-wide', async () => {
    for (const range of [
      week,
      { dateFrom: '2026-10-01', dateTo: '2026-11-01' },
      { dateFrom: '2026-11-11', dateTo: '2026-11-12' },
    ]) {
      const res = await visitors({ ...range, limit: 250 });
      for (const row of [...res.visitors, res.totals]) {
        expect(row.total).toBeLessThanOrEqual(row.human + row.ai);
        expect(row.total).toBeGreaterThanOrEqual(Math.max(row.human, row.ai));
        expect([row.human, row.ai, row.total].every((n) => Number.isInteger(n) && n >= 0)).toBe(true);
      }
      expect(res.totals.total).toBeGreaterThanOrEqual(res.visitors[0]?.total ?? 0);
      expect(res.totals.total).toBeLessThan(res.visitors.reduce((sum, r) => sum + r.total, 0));
    }
  });

  it('is deterministic and varies week to week, with skewed popularity', async () => {
    const a = await call(visitorsPath({ ...week, limit: 250 }));
    const b = await call(visitorsPath({ ...week, limit: 250 }));
    expect(b.body).toEqual(a.body);

    const thisWeek = await visitors({ ...week, limit: 250 });
    const lastWeek = await visitors({ dateFrom: '2026-10-26', dateTo: '2026-11-02', limit: 250 });
    expect(lastWeek.totals).not.toEqual(thisWeek.totals);
    const before = new Map(lastWeek.visitors.map((r) => [r.path, r.total]));
    const changes = thisWeek.visitors.map((r) => r.total / (before.get(r.path) ?? 1));
    expect(changes.some((c) => c > 1.3)).toBe(true); // risers
    expect(changes.some((c) => c < 0.7)).toBe(true); // fallers

    const rows = thisWeek.visitors;
    const median = rows[Math.floor(rows.length / 2)]?.total ?? 0;
    expect(rows[0]?.total ?? 0).toBeGreaterThan(10 * median);
  });

  it(`omits new pages before ${FAKE_NEW_PAGES_SINCE} and lists them from then on`, async () => {
    const paths = async (dateFrom: string, dateTo: string): Promise<string[]> =>
      (await visitors({ dateFrom, dateTo, limit: 250 })).visitors.map((r) => r.path);
    const before = await paths('2026-11-03', FAKE_NEW_PAGES_SINCE);
    const after = await paths(FAKE_NEW_PAGES_SINCE, '2026-11-17');
    for (const page of FAKE_NEW_PAGES) {
      expect(before).not.toContain(page);
      expect(after).toContain(page);
    }
    expect(after.length).toBe(before.length + FAKE_NEW_PAGES.length);
  });
});

describe('fake docs API: failure injection and request log', () => {
  it('answers injected 429s on create, then recovers', async () => {
    api.failNext(/\/job$/, 429, 2);
    for (let i = 0; i < 2; i++) {
      const res = await call<{ error: string }>(jobsPath, { body: { prompt: 'x' } });
      expect(res).toMatchObject({ status: 429, body: { error: 'Rate limit exceeded' } });
    }
    expect((await call(jobsPath, { body: { prompt: 'x' } })).status).toBe(201);
  });

  it('answers an injected 500 with a custom body and headers on analytics', async () => {
    api.failNext(/\/visitors$/, 500, 1, { error: 'boom', details: [{ message: 'db down' }] }, { 'retry-after': '2' });
    const res = await call<AnalyticsError>(visitorsPath(week()));
    expect(res).toMatchObject({ status: 500, body: { error: 'boom', details: [{ message: 'db down' }] } });
    expect(res.headers.get('retry-after')).toBe('2');
    expect((await call(visitorsPath(week()))).status).toBe(200);

    function week(): Record<string, string> {
      return { dateFrom: '2026-11-02', dateTo: '2026-11-09' };
    }
  });

  it('injected failures only hit matching paths', async () => {
    api.failNext(/\/message$/, 503);
    const job = await createJob('unaffected');
    const res = await call(messagePath(job.id), { body: { prompt: 'hit' }, offSpec: true });
    expect(res.status).toBe(503);
  });

  it('waitForRequest resolves on a later request and rejects on timeout', async () => {
    const waiting = api.waitForRequest((r) => r.path.endsWith('/job/job_later'), 2000);
    await call(jobPath('job_later'));
    await expect(waiting).resolves.toMatchObject({ method: 'GET', status: 404, at: T0 });
    await expect(api.waitForRequest(() => false, 50)).rejects.toThrow(/within 50 ms/);
  });
});
