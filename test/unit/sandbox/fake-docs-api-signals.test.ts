import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_RECURRING_UNANSWERED,
  FAKE_UNCLICKED_SEARCHES,
  HOSTILE_TEXT,
  startFakeDocsApi,
  type FakeConversation,
  type FakeDocsApi,
  type FakeFeedbackByPageRow,
  type FakeFeedbackEntry,
  type FakeSearchRow,
} from '../../../sandbox/fake-docs-api.js';
import { validateRequest, validateResponse } from '../../helpers/openapi.js';

// The fake's reader-signal endpoints: query checks as the spec has them, and seeded data with the
// gaps and the hostile text the reports and the digest must handle, in every week.
const KEY = 'mint_signals';
let api: FakeDocsApi;

beforeAll(async () => {
  api = await startFakeDocsApi({ apiKey: KEY, projectId: 'p', now: () => Date.UTC(2026, 10, 23, 8) });
});
afterAll(async () => {
  await api.close();
});

/** GETs an analytics path of project p; checks the request and the answer against the spec. */
async function get<T>(
  path: string,
  opts: { key?: string | null; method?: string; offSpec?: boolean } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = opts.key === null ? {} : { authorization: `Bearer ${opts.key ?? KEY}` };
  const res = await fetch(`${api.url}/v1/analytics/p${path}`, { method: opts.method ?? 'GET', headers });
  const body = (await res.json()) as T;
  if (!opts.offSpec) {
    expect(validateResponse({ method: 'GET', path: `/v1/analytics/p${path}`, status: res.status, body }), path).toEqual(
      [],
    );
  }
  return { status: res.status, body };
}

/** Monday-to-Monday weeks, the week of 2026-11-16 and the five before it. */
const WEEKS = [0, 1, 2, 3, 4, 5].map((back) => {
  const from = new Date(Date.UTC(2026, 10, 16 - 7 * back)).toISOString().slice(0, 10);
  const to = new Date(Date.UTC(2026, 10, 23 - 7 * back)).toISOString().slice(0, 10);
  return `dateFrom=${from}&dateTo=${to}`;
});

type Searches = { searches: FakeSearchRow[]; totalSearches: number; nextCursor: string | null };
type Feedback = { feedback: FakeFeedbackEntry[]; nextCursor: string | null; hasMore: boolean };
type ByPage = { feedback: FakeFeedbackByPageRow[]; hasMore: boolean };
type Conversations = { conversations: FakeConversation[]; nextCursor: string | null; hasMore: boolean };

describe('fake reader-signal endpoints: queries', () => {
  it.each([
    ['/searches?limit=0', 'limit must be between 1 and 100'],
    ['/searches?limit=101', 'limit must be between 1 and 100'],
    ['/searches?limit=ten', 'limit must be a number'],
    ['/feedback/by-page?limit=101', 'limit must be between 1 and 100'],
    ['/feedback?source=email', 'source must be one of: code_snippet, contextual, agent, thumbs_only'],
    [
      '/feedback/by-page?status=pending,open',
      'status must be a comma-separated list of: pending, in_progress, resolved, dismissed',
    ],
    ['/assistant?limit=1001', 'limit must be between 1 and 1000'],
    ['/assistant?cursor=not-a-ulid', 'cursor must be a ULID'],
    ['/views?limit=251', 'limit must be between 1 and 250'],
    ['/views?offset=-1', 'offset must be greater than or equal to 0'],
    ['/searches?dateFrom=2026-11-23&dateTo=2026-11-16', 'dateFrom must be before dateTo'],
    ['/feedback?dateTo=2026-02-30', 'dateTo must be a date in YYYY-MM-DD or ISO 8601 format'],
  ])('%s → 400 with the detail "%s"', async (path, detail) => {
    const { status, body } = await get<{ error: string; details: { message: string }[] }>(path);
    expect(status).toBe(400);
    expect(body.details).toEqual([{ message: detail }]);
  });

  it("uses each endpoint's documented default limit", async () => {
    const range = WEEKS[0];
    const all = (await get<Searches>(`/searches?${range}&limit=100`)).body;
    expect((await get<Searches>(`/searches?${range}`)).body).toEqual(all); // every term fits in the default 50
    expect(all.searches.length).toBeGreaterThan(30);
    expect((await get<ByPage>(`/feedback/by-page?${range}`)).body.feedback).toHaveLength(10);
    expect((await get<Feedback>(`/feedback?${range}`)).body.feedback).toHaveLength(50);
    expect((await get<Conversations>(`/assistant?${range}`)).body.conversations).toHaveLength(100);
  });

  it('asks for the key and the method like every other route, and takes injected failures', async () => {
    expect((await get('/searches', { key: null, offSpec: true })).status).toBe(401);
    expect((await get('/feedback/by-page', { method: 'POST', offSpec: true })).status).toBe(405);
    api.failNext(/\/assistant$/, 429, 1, undefined, { 'retry-after': '60' });
    expect((await get('/assistant', { offSpec: true })).status).toBe(429);
    expect((await get<Conversations>(`/assistant?${WEEKS[0]}`)).status).toBe(200);
  });

  it('the recorded requests of this file conform to the spec whenever the fake answered 200', () => {
    for (const r of api.requests.filter((x) => x.status === 200)) expect(validateRequest(r), r.path).toEqual([]);
  });
});

describe('fake reader-signal data', () => {
  it('searches: terms searched often that nobody clicked through rank high (ctr 0, no top page)', async () => {
    for (const range of WEEKS) {
      const { body } = await get<Searches>(`/searches?${range}&limit=15`);
      const unclicked = body.searches.filter((r) => r.ctr === 0 && r.topClickedPage === null);
      expect(unclicked.map((r) => r.searchQuery)).toEqual(expect.arrayContaining(FAKE_UNCLICKED_SEARCHES.slice(0, 2)));
      expect(unclicked.every((r) => r.hits >= 20)).toBe(true);
      const clicked = body.searches.filter((r) => r.ctr > 0);
      expect(clicked.length).toBeGreaterThan(5);
      expect(clicked.every((r) => r.ctr <= 1 && r.topClickedPage?.startsWith('/'))).toBe(true);
      expect(
        body.searches.every((r) => r.lastSearchedAt >= range.slice(9, 19) && r.lastSearchedAt < range.slice(27)),
      ).toBe(true);
    }
  });

  it('searches: the same range reads the same, and this week differs from the week before', async () => {
    const a = (await get<Searches>(`/searches?${WEEKS[0]}&limit=100`)).body;
    const b = (await get<Searches>(`/searches?${WEEKS[0]}&limit=100`)).body;
    const before = (await get<Searches>(`/searches?${WEEKS[1]}&limit=100`)).body;
    expect(b).toEqual(a);
    expect(before.totalSearches).not.toBe(a.totalSearches);
    const hits = (s: Searches, q: string) => s.searches.find((r) => r.searchQuery === q)?.hits;
    expect(FAKE_UNCLICKED_SEARCHES.filter((q) => hits(a, q) !== hits(before, q)).length).toBeGreaterThan(3);
  });

  it('feedback: every week, each hostile text arrives as a 👎 comment, among ordinary comments and praise', async () => {
    for (const range of WEEKS) {
      const entries: FakeFeedbackEntry[] = [];
      let cursor: string | null = null;
      do {
        const page: Feedback = (await get<Feedback>(`/feedback?${range}&limit=100${cursor ? `&cursor=${cursor}` : ''}`))
          .body;
        entries.push(...page.feedback);
        cursor = page.nextCursor;
      } while (cursor);
      for (const text of Object.values(HOSTILE_TEXT)) {
        expect(
          entries.filter((e) => e.comment === text && 'helpful' in e && !e.helpful).length,
          text.slice(0, 30),
        ).toBeGreaterThanOrEqual(1);
      }
      expect(entries.some((e) => 'helpful' in e && e.helpful && e.comment)).toBe(true);
      expect(new Set(entries.map((e) => e.source))).toEqual(
        new Set(['contextual', 'code_snippet', 'thumbs_only', 'agent']),
      );
      expect(
        entries.filter((e) => e.source === 'code_snippet').every((e) => 'code' in e && 'lang' in e && 'filename' in e),
      ).toBe(true);
      expect(
        entries.filter((e) => e.source === 'thumbs_only').every((e) => !('helpful' in e) && e.comment === null),
      ).toBe(true);
      expect(entries.length).toBe(new Set(entries.map((e) => e.id)).size);
    }
  });

  it('feedback by page: the counts of the entries, several pages with more 👎 than 👍', async () => {
    const range = WEEKS[0];
    const entries = (await get<Feedback>(`/feedback?${range}&limit=100&source=contextual`)).body;
    const more = (await get<Feedback>(`/feedback?${range}&limit=100&source=contextual&cursor=${entries.nextCursor}`))
      .body;
    const all = [...entries.feedback, ...more.feedback];
    expect(more.hasMore).toBe(false);
    const rows = (await get<ByPage>(`/feedback/by-page?${range}&limit=100&source=contextual`)).body.feedback;
    for (const row of rows) {
      const mine = all.filter((e) => e.path === row.path);
      expect(row.thumbsDown).toBe(mine.filter((e) => 'helpful' in e && !e.helpful).length);
      expect(row.thumbsUp).toBe(mine.filter((e) => 'helpful' in e && e.helpful).length);
      expect(row.total).toBe(mine.length);
    }
    expect(rows.filter((r) => r.thumbsDown > r.thumbsUp).length).toBeGreaterThanOrEqual(3);
    const everything = (await get<ByPage>(`/feedback/by-page?${range}&limit=100`)).body.feedback;
    expect(everything.some((r) => r.code > 0)).toBe(true);
    // Bare votes and agent feedback count in total only.
    expect(everything.some((r) => r.thumbsUp + r.thumbsDown + r.code < r.total)).toBe(true);
  });

  it('assistant: recurring unanswered questions in several wordings and each hostile text, every week', async () => {
    for (const range of WEEKS) {
      const turns = (await get<Conversations>(`/assistant?${range}&limit=1000`)).body.conversations;
      const unanswered = turns.filter((t) => t.resolutionStatus === 'unanswered');
      const [top] = FAKE_RECURRING_UNANSWERED;
      const asked = unanswered.filter((t) => top!.includes(t.query));
      expect(asked.length).toBeGreaterThanOrEqual(5);
      expect(new Set(asked.map((t) => t.query)).size).toBeGreaterThanOrEqual(2);
      for (const text of Object.values(HOSTILE_TEXT)) expect(unanswered.some((t) => t.query === text)).toBe(true);
      expect(unanswered.every((t) => t.sources.length === 0)).toBe(true);
      expect(turns.some((t) => t.resolutionStatus === 'answered' && t.sources.length > 0)).toBe(true);
      expect(turns.some((t) => t.responseType === 'clarifying_question')).toBe(true);
      expect(turns.some((t) => t.pageUrl === null) && turns.some((t) => t.pageUrl?.startsWith('https://'))).toBe(true);
    }
  });
});
