import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DocsApiClient } from '../../../../src/platform/docs-api/client.js';
import { docsApiErrorText } from '../../../../src/platform/docs-api/error-text.js';
import { DocsApiBadRequestError, DocsApiCursorRejectedError } from '../../../../src/platform/docs-api/errors.js';
import { CURSOR_REJECTED_DETAIL, DEFAULT_CURSOR_TTL_MS, type FakeDocsApi } from '../../../../sandbox/fake-docs-api.js';
import { validateRequest, validateResponse } from '../../../helpers/openapi.js';
import { closeFakeDocsApiWithClient, startFakeDocsApiWithClient } from '../../../helpers/fake-docs-api-client.js';

// The client's analytics requests over real HTTP to the fake, and the fake's answers, checked against
// the vendor's spec (analytics.openapi.json); paging forward and back through each cursor-paged endpoint.
const T0 = Date.UTC(2026, 10, 23, 8, 0);
const WEEK = { dateFrom: '2026-11-16', dateTo: '2026-11-23' };
let clock = T0;
let fake: FakeDocsApi;
let client: DocsApiClient;

beforeAll(async () => {
  ({ fake, client } = await startFakeDocsApiWithClient(
    { apiKey: 'mint_contract', projectId: 'proj_1', now: () => clock },
    { retryMinDelayMs: 1 },
  ));
});
afterAll(() => closeFakeDocsApiWithClient({ fake, client }));
beforeEach(() => {
  clock = T0;
  fake.requests.length = 0;
});

/** Every request recorded so far and its answer conform to the spec. */
function expectAllConform(): void {
  expect(fake.requests.length).toBeGreaterThan(0);
  for (const r of fake.requests) {
    expect(validateRequest(r), `${r.method} ${r.path}`).toEqual([]);
    expect(
      validateResponse({ method: r.method, path: r.path, status: r.status, body: r.responseBody }),
      `${r.method} ${r.path} → ${r.status}`,
    ).toEqual([]);
  }
}

/** Walks every page forward, then back with the cursors kept: each page reads the same both ways. */
async function walk<P>(
  read: (cursor: string | undefined) => Promise<P>,
  next: (page: P) => string | null,
  key: (page: P) => string,
): Promise<P[]> {
  const cursors: (string | undefined)[] = [undefined];
  const pages: P[] = [];
  for (;;) {
    const page = await read(cursors[cursors.length - 1]);
    pages.push(page);
    const c = next(page);
    if (c === null) break;
    cursors.push(c);
  }
  for (let i = pages.length - 1; i >= 0; i--) expect(key(await read(cursors[i]))).toBe(key(pages[i]!));
  return pages;
}

describe('analytics client ↔ fake ↔ spec', () => {
  it('views page by offset like visitors, and sum to the site-wide totals', async () => {
    const first = await client.getViews({ ...WEEK, limit: 100, offset: 0 });
    const second = await client.getViews({ ...WEEK, limit: 100, offset: 100 });
    expect(first.hasMore).toBe(true);
    expect(second.hasMore).toBe(false);
    const rows = [...first.views, ...second.views];
    expect(rows.reduce((n, r) => n + r.total, 0)).toBe(first.totals.total);
    const visitors = await client.getVisitors({ ...WEEK, limit: 1, offset: 0 });
    expect(first.views[0]!.total).toBeGreaterThan(visitors.visitors[0]!.total);
    expectAllConform();
  });

  it('searches: forward to the last page and back, every term once, by hits', async () => {
    const pages = await walk(
      (cursor) => client.getSearches({ ...WEEK, limit: 7, cursor }),
      (p) => p.nextCursor,
      (p) => JSON.stringify(p.searches),
    );
    expect(pages.length).toBeGreaterThan(3);
    const rows = pages.flatMap((p) => p.searches);
    expect(new Set(rows.map((r) => r.searchQuery)).size).toBe(rows.length);
    expect(rows.map((r) => r.hits)).toEqual([...rows.map((r) => r.hits)].sort((a, b) => b - a));
    expect(rows.reduce((n, r) => n + r.hits, 0)).toBe(pages[0]!.totalSearches);
    expectAllConform();
  });

  it('feedback: forward and back with filters; by page without paging', async () => {
    const pages = await walk(
      (cursor) =>
        client.getFeedback({ ...WEEK, limit: 20, source: 'contextual', status: ['pending', 'in_progress'], cursor }),
      (p) => p.nextCursor,
      (p) => JSON.stringify(p.feedback),
    );
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.slice(0, -1).every((p) => p.hasMore)).toBe(true);
    expect(pages.at(-1)!.hasMore).toBe(false);
    const entries = pages.flatMap((p) => p.feedback);
    expect(
      entries.every((e) => e.source === 'contextual' && (e.status === 'pending' || e.status === 'in_progress')),
    ).toBe(true);
    const byPage = await client.getFeedbackByPage({
      ...WEEK,
      limit: 100,
      source: 'contextual',
      status: ['pending', 'in_progress'],
    });
    expect(byPage.hasMore).toBe(false);
    expect(byPage.feedback.reduce((n, r) => n + r.thumbsDown, 0)).toBe(
      entries.filter((e) => e.helpful === false).length,
    );
    await client.getFeedbackByPage({ ...WEEK, limit: 3, source: 'code_snippet' });
    expectAllConform();
  });

  it('assistant: forward and back by ULID cursors, newest first', async () => {
    const pages = await walk(
      (cursor) => client.getAssistantConversations({ ...WEEK, limit: 40, cursor }),
      (p) => p.nextCursor,
      (p) => JSON.stringify(p.conversations),
    );
    const turns = pages.flatMap((p) => p.conversations);
    expect(pages.length).toBeGreaterThan(2);
    expect(turns.map((t) => t.timestamp)).toEqual([...turns.map((t) => t.timestamp)].sort().reverse());
    expect(pages.slice(0, -1).every((p) => p.nextCursor === p.conversations.at(-1)!.id)).toBe(true);
    expectAllConform();
  });

  it('a cursor past its lifetime, or of another query, is refused (400 details): "run the report again"', async () => {
    const first = await client.getSearches({ ...WEEK, limit: 10 });
    const cursor = first.nextCursor!;
    clock += DEFAULT_CURSOR_TTL_MS - 1;
    await expect(client.getSearches({ ...WEEK, limit: 10, cursor })).resolves.toMatchObject({
      searches: expect.any(Array),
    });
    const other = await client.getSearches({ ...WEEK, limit: 11, cursor }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(DocsApiCursorRejectedError);
    clock += DEFAULT_CURSOR_TTL_MS + 1;
    const expired = await client.getSearches({ ...WEEK, limit: 10, cursor }).catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(DocsApiCursorRejectedError);
    expect((expired as DocsApiCursorRejectedError).details).toEqual([CURSOR_REJECTED_DETAIL]);
    expect(docsApiErrorText(expired)).toMatch(
      /^This page of the report expired; run the report again\.\nThe docs service said: /,
    );

    const feedback = await client.getFeedback({ ...WEEK, limit: 10 });
    clock += DEFAULT_CURSOR_TTL_MS + 1;
    await expect(client.getFeedback({ ...WEEK, limit: 10, cursor: feedback.nextCursor! })).rejects.toBeInstanceOf(
      DocsApiCursorRejectedError,
    );
    const turns = await client.getAssistantConversations({ ...WEEK, limit: 10 });
    await expect(
      client.getAssistantConversations({ ...WEEK, dateTo: '2026-11-22', limit: 10, cursor: turns.nextCursor! }),
    ).rejects.toBeInstanceOf(DocsApiCursorRejectedError);
    expect(fake.requests.filter((r) => r.status === 400)).toHaveLength(4); // each refused once, never retried
    expectAllConform();
  });

  it('a query the spec forbids is answered 400 with details the client surfaces', async () => {
    const err = await client.getFeedback({ ...WEEK, limit: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocsApiBadRequestError);
    expect(err).not.toBeInstanceOf(DocsApiCursorRejectedError);
    expect((err as DocsApiBadRequestError).details).toEqual(['limit must be between 1 and 100']);
    const r = fake.requests.at(-1)!;
    expect(validateRequest(r)).not.toEqual([]); // the spec forbids it too: the fake and the spec agree
    expect(validateResponse({ method: r.method, path: r.path, status: r.status, body: r.responseBody })).toEqual([]);
  });
});
