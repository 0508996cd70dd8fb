import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DocsApiClient, type DocsApiOperation } from '../../../../src/platform/docs-api/client.js';
import { docsApiErrorText } from '../../../../src/platform/docs-api/error-text.js';
import {
  DocsApiBadRequestError,
  DocsApiCursorRejectedError,
  DocsApiError,
  DocsApiForbiddenError,
  DocsApiInvalidResponseError,
  DocsApiNetworkError,
  DocsApiRateLimitedError,
  DocsApiServerError,
  DocsApiUnauthorizedError,
} from '../../../../src/platform/docs-api/errors.js';
import { MOCKED_DOCS_API_URL, mockedDocsApiClient } from '../../../helpers/fake-docs-api-client.js';
import { rejectionOf } from '../../../helpers/rejection.js';

// The analytics calls beyond visitors (views, searches, feedback by page, feedback, assistant),
// against undici's MockAgent: what each sends, how tolerantly it reads, and each failure.
const BASE = MOCKED_DOCS_API_URL;
const KEY = 'mint_secret_key_456';
const RANGE = { dateFrom: '2026-11-16', dateTo: '2026-11-23' };
const A = '/v1/analytics/proj%201';
/** RANGE as sent. */
const QS = 'dateFrom=2026-11-16&dateTo=2026-11-23';

let agent: MockAgent;
let client: DocsApiClient;
let ops: [DocsApiOperation, number | undefined][];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  ops = [];
  client = mockedDocsApiClient(agent, KEY, {
    observer: { docsApiRequest: (op, status) => void ops.push([op, status]) },
  });
});
afterEach(async () => {
  await agent.close();
});

const pool = () => agent.get(BASE);

async function rejection<T extends DocsApiError>(p: Promise<unknown>, type: new (...a: never[]) => T): Promise<T> {
  const err = await rejectionOf(p, type);
  expect(String((err as Error).message)).not.toContain(KEY);
  return err as T;
}

const SEARCH = {
  searchQuery: 'sso saml',
  hits: 263,
  ctr: 0,
  topClickedPage: null,
  lastSearchedAt: '2026-11-22T10:00:00.000Z',
};
const CONTEXTUAL = {
  id: 'fb_1',
  path: '/guides/custom-domain',
  comment: 'The CNAME step fails',
  createdAt: '2026-11-20T09:00:00.000Z',
  source: 'contextual',
  status: 'pending',
  helpful: false,
  contact: 'reader@example.com',
};
const TURN = {
  id: '01JD0000000000000000000000',
  timestamp: '2026-11-20T09:00:00.000Z',
  query: 'How do I set up SSO with Okta?',
  response: "I couldn't find this in the documentation.",
  sources: [],
  resolutionStatus: 'unanswered',
  queryCategory: 'Authentication',
  pageUrl: null,
};

describe('analytics calls: what is sent', () => {
  it('views: both dates, limit and offset, like visitors; rows and totals parsed', async () => {
    pool()
      .intercept({ path: `${A}/views?dateFrom=2026-11-16&dateTo=2026-11-23&limit=50&offset=100`, method: 'GET' })
      .reply(200, {
        totals: { human: 9, ai: 3, total: 12 },
        views: [{ path: '/a', human: 9, ai: 3, total: 12 }],
        hasMore: false,
      });
    const res = await client.getViews({ ...RANGE, limit: 50, offset: 100 });
    expect(res).toEqual({
      totals: { human: 9, ai: 3, total: 12 },
      views: [{ path: '/a', human: 9, ai: 3, total: 12 }],
      hasMore: false,
    });
    expect(ops).toEqual([['get_views', 200]]);
  });

  it('searches: the first page without a cursor, the next with the nextCursor it was given', async () => {
    pool()
      .intercept({ path: `${A}/searches?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10`, method: 'GET' })
      .reply(200, { searches: [SEARCH], totalSearches: 4896, nextCursor: 'c/2+=' });
    pool()
      .intercept({
        path: `${A}/searches?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10&cursor=c%2F2%2B%3D`,
        method: 'GET',
      })
      .reply(200, {
        searches: [{ ...SEARCH, searchQuery: 'api key', ctr: 0.62, topClickedPage: '/api-reference/authentication' }],
        totalSearches: 4896,
        nextCursor: null,
      });
    const first = await client.getSearches({ ...RANGE, limit: 10 });
    expect(first).toEqual({ searches: [SEARCH], totalSearches: 4896, nextCursor: 'c/2+=' });
    const second = await client.getSearches({ ...RANGE, limit: 10, cursor: first.nextCursor ?? undefined });
    expect(second.nextCursor).toBeNull();
    expect(second.searches[0]).toMatchObject({
      searchQuery: 'api key',
      topClickedPage: '/api-reference/authentication',
    });
    expect(ops.map(([op]) => op)).toEqual(['get_searches', 'get_searches']);
  });

  it('feedback by page: limit and the filters (status comma-separated, as the spec asks)', async () => {
    pool()
      .intercept({
        path: `${A}/feedback/by-page?${QS}&limit=100&source=contextual&status=pending%2Cin_progress`,
        method: 'GET',
      })
      .reply(200, {
        feedback: [{ path: '/guides/custom-domain', thumbsUp: 6, thumbsDown: 21, code: 0, total: 27 }],
        hasMore: false,
      });
    const res = await client.getFeedbackByPage({
      ...RANGE,
      limit: 100,
      source: 'contextual',
      status: ['pending', 'in_progress'],
    });
    expect(res.feedback).toEqual([{ path: '/guides/custom-domain', thumbsUp: 6, thumbsDown: 21, code: 0, total: 27 }]);
    expect(ops).toEqual([['get_feedback_by_page', 200]]);
  });

  it('feedback: filters and cursor; no filter sent when none (or an empty status list) is asked', async () => {
    pool()
      .intercept({ path: `${A}/feedback?dateFrom=2026-11-16&dateTo=2026-11-23&limit=50`, method: 'GET' })
      .reply(200, { feedback: [CONTEXTUAL], nextCursor: 'n1', hasMore: true });
    pool()
      .intercept({
        path: `${A}/feedback?${QS}&limit=50&source=code_snippet&status=resolved&cursor=n1`,
        method: 'GET',
      })
      .reply(200, { feedback: [], nextCursor: null, hasMore: false });
    const first = await client.getFeedback({ ...RANGE, limit: 50, status: [] });
    expect(first).toMatchObject({ nextCursor: 'n1', hasMore: true });
    await expect(
      client.getFeedback({ ...RANGE, limit: 50, source: 'code_snippet', status: ['resolved'], cursor: 'n1' }),
    ).resolves.toEqual({
      feedback: [],
      nextCursor: null,
      hasMore: false,
    });
  });

  it('assistant: limit and cursor; turns parsed with responseType defaulting to answer (spec)', async () => {
    pool()
      .intercept({
        path: `${A}/assistant?dateFrom=2026-11-16&dateTo=2026-11-23&limit=1000&cursor=01JD0000000000000000000000`,
        method: 'GET',
      })
      .reply(200, { conversations: [TURN], nextCursor: null, hasMore: false });
    const res = await client.getAssistantConversations({ ...RANGE, limit: 1000, cursor: TURN.id });
    expect(res.conversations).toEqual([{ ...TURN, responseType: 'answer' }]);
    expect(ops).toEqual([['get_assistant_conversations', 200]]);
  });

  it('counts every attempt through onAttempt, and acts on the project forProject names', async () => {
    pool()
      .intercept({ path: '/v1/analytics/proj_b/searches?dateFrom=2026-11-16&dateTo=2026-11-23&limit=5', method: 'GET' })
      .reply(503, { error: 'down' });
    pool()
      .intercept({ path: '/v1/analytics/proj_b/searches?dateFrom=2026-11-16&dateTo=2026-11-23&limit=5', method: 'GET' })
      .reply(200, { searches: [], totalSearches: 0, nextCursor: null });
    let attempts = 0;
    await client.forProject('proj_b').getSearches({ ...RANGE, limit: 5 }, { onAttempt: () => void attempts++ });
    expect(attempts).toBe(2);
  });
});

describe('analytics calls: tolerant reading', () => {
  it('a value outside a spec enum reads as other, never a failure; extra fields are dropped', async () => {
    pool()
      .intercept({ path: `${A}/feedback?dateFrom=2026-11-16&dateTo=2026-11-23&limit=50`, method: 'GET' })
      .reply(200, {
        feedback: [
          { ...CONTEXTUAL, source: 'chat_widget', status: 'escalated', sentiment: 'angry' },
          {
            id: 'fb_2',
            path: '/q',
            comment: null,
            createdAt: null,
            source: 'code_snippet',
            status: 42,
            code: 'npm i',
            filename: null,
            lang: 'bash',
          },
          {
            id: 'fb_3',
            path: '/r',
            comment: 'meh',
            createdAt: '2026-11-20T09:00:00.000Z',
            source: null,
            status: 'pending',
          },
          { id: 'fb_4', path: '/s' },
        ],
        nextCursor: null,
        hasMore: false,
        cursorExpiresAt: '2026-11-23T00:00:00Z',
      });
    const res = await client.getFeedback({ ...RANGE, limit: 50 });
    expect(res.feedback.map((e) => [e.source, e.status])).toEqual([
      ['other', 'other'],
      ['code_snippet', 'other'],
      ['other', 'pending'],
      ['other', 'other'],
    ]);
    expect(res.feedback[3]).toMatchObject({ comment: null, createdAt: null });
    expect(res.feedback[0]).not.toHaveProperty('sentiment');
    expect(res).not.toHaveProperty('cursorExpiresAt');
    expect(res.feedback[1]).toMatchObject({
      code: 'npm i',
      filename: null,
      lang: 'bash',
      comment: null,
      createdAt: null,
    });
  });

  it("never reads the reader's contact email", async () => {
    pool()
      .intercept({ path: `${A}/feedback?dateFrom=2026-11-16&dateTo=2026-11-23&limit=50`, method: 'GET' })
      .reply(200, { feedback: [CONTEXTUAL], nextCursor: null, hasMore: false });
    const res = await client.getFeedback({ ...RANGE, limit: 50 });
    expect(res.feedback[0]).toMatchObject({ helpful: false, comment: 'The CNAME step fails' });
    expect(JSON.stringify(res)).not.toContain('reader@example.com');
  });

  it('assistant: unknown resolutionStatus and responseType read as other; absent nullables as null', async () => {
    const { queryCategory: _c, pageUrl: _p, ...bare } = TURN;
    pool()
      .intercept({ path: `${A}/assistant?dateFrom=2026-11-16&dateTo=2026-11-23&limit=100`, method: 'GET' })
      .reply(200, {
        conversations: [
          { ...TURN, resolutionStatus: 'partially_answered', responseType: 'handoff_to_human' },
          {
            ...bare,
            resolutionStatus: 'answered',
            responseType: 'clarifying_question',
            sources: [{ title: 'SSO', url: 'https://docs.acme.test/sso', score: 0.4 }],
          },
        ],
        nextCursor: null,
        hasMore: false,
      });
    const [odd, plain] = (await client.getAssistantConversations({ ...RANGE, limit: 100 })).conversations;
    expect(odd).toMatchObject({ resolutionStatus: 'other', responseType: 'other' });
    expect(plain).toMatchObject({
      resolutionStatus: 'answered',
      responseType: 'clarifying_question',
      queryCategory: null,
      pageUrl: null,
    });
    expect(plain?.sources).toEqual([{ title: 'SSO', url: 'https://docs.acme.test/sso' }]);
  });

  it('searches: a missing topClickedPage or nextCursor reads as null', async () => {
    const { topClickedPage: _t, ...noPage } = SEARCH;
    pool()
      .intercept({ path: `${A}/searches?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10`, method: 'GET' })
      .reply(200, { searches: [noPage], totalSearches: 263 });
    await expect(client.getSearches({ ...RANGE, limit: 10 })).resolves.toEqual({
      searches: [SEARCH],
      totalSearches: 263,
      nextCursor: null,
    });
  });

  it('a body missing a field the spec requires (and does not allow null) is an invalid response', async () => {
    pool()
      .intercept({ path: `${A}/searches?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10`, method: 'GET' })
      .reply(200, { searches: [{ ...SEARCH, hits: 'many' }], totalSearches: 1, nextCursor: null });
    const err = await rejection(client.getSearches({ ...RANGE, limit: 10 }), DocsApiInvalidResponseError);
    expect(err.message).toContain('searches.0.hits');
  });
});

describe('analytics calls: errors', () => {
  const viewsPath = `${A}/views?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10&offset=0`;
  const views = () => client.getViews({ ...RANGE, limit: 10, offset: 0 });

  it('400 carries the API details, each on one line, and says them in one plain line', async () => {
    pool()
      .intercept({ path: viewsPath, method: 'GET' })
      .reply(400, {
        error: 'Invalid query parameters',
        details: [{ message: 'limit must be\nbetween 1 and 250' }, { message: '<!channel> dateFrom must be a date' }],
      });
    const err = await rejection(views(), DocsApiBadRequestError);
    expect(err).not.toBeInstanceOf(DocsApiCursorRejectedError);
    expect(err.details).toEqual(['limit must be between 1 and 250', '<!channel> dateFrom must be a date']);
    expect(err.apiMessage).toBe(
      'Invalid query parameters: limit must be between 1 and 250; <!channel> dateFrom must be a date',
    );
    const text = docsApiErrorText(err);
    expect(text).not.toContain('\n');
    expect(text).toContain('&lt;!channel&gt; dateFrom must be a date');
    expect(ops).toEqual([['get_views', 400]]); // never retried
  });

  it('a 400 to a request that carried a cursor is a refused cursor: "run the report again"', async () => {
    for (const [path, call] of [
      [
        `${A}/searches?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10&cursor=old`,
        () => client.getSearches({ ...RANGE, limit: 10, cursor: 'old' }),
      ],
      [
        `${A}/feedback?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10&cursor=old`,
        () => client.getFeedback({ ...RANGE, limit: 10, cursor: 'old' }),
      ],
      [
        `${A}/assistant?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10&cursor=old`,
        () => client.getAssistantConversations({ ...RANGE, limit: 10, cursor: 'old' }),
      ],
    ] as const) {
      pool()
        .intercept({ path, method: 'GET' })
        .reply(400, { error: 'Invalid cursor', details: [{ message: 'cursor is invalid or has expired' }] });
      const err = await rejection(call(), DocsApiCursorRejectedError);
      expect(err).toBeInstanceOf(DocsApiBadRequestError);
      expect(err.code).toBe('cursor_rejected'); // a code of its own, not a plain bad_request
      expect(err.details).toEqual(['cursor is invalid or has expired']);
      expect(docsApiErrorText(err)).toBe(
        'This page of the report expired; run the report again.\n' +
          'The docs service said: Invalid cursor: cursor is invalid or has expired',
      );
    }
    // The same 400 to a first page (no cursor) is a plain bad request.
    pool()
      .intercept({ path: `${A}/searches?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10`, method: 'GET' })
      .reply(400, { error: 'Invalid query parameters' });
    const plain = await rejection(client.getSearches({ ...RANGE, limit: 10 }), DocsApiBadRequestError);
    expect(plain).not.toBeInstanceOf(DocsApiCursorRejectedError);
  });

  it("a 400 to a cursor request about something else keeps the API's details, escaped and cut, on a line of their own", async () => {
    const detail = `<!channel> dateTo must be on or after dateFrom ${'x'.repeat(400)}`;
    pool()
      .intercept({ path: `${A}/feedback?dateFrom=2026-11-16&dateTo=2026-11-23&limit=10&cursor=c2`, method: 'GET' })
      .reply(400, { error: 'Invalid query parameters', details: [{ message: detail }] });
    const err = await rejection(client.getFeedback({ ...RANGE, limit: 10, cursor: 'c2' }), DocsApiCursorRejectedError);
    const [sentence, said, ...rest] = docsApiErrorText(err).split('\n');
    expect(sentence).toBe('This page of the report expired; run the report again.');
    expect(said).toMatch(
      /^The docs service said: Invalid query parameters: &lt;!channel&gt; dateTo must be on or after/,
    );
    // Cut to 300 chars before escaping (the escapes may add a few).
    const words = said!.slice('The docs service said: '.length).replace(/&lt;/g, '<').replace(/&gt;/g, '>');
    expect(words.length).toBeLessThanOrEqual(300);
    expect(rest).toEqual([]);
  });

  it('401 and 403 name the key problem and are not retried', async () => {
    pool().intercept({ path: viewsPath, method: 'GET' }).reply(401, { error: 'Invalid API key' });
    expect(docsApiErrorText(await rejection(views(), DocsApiUnauthorizedError))).toMatch(/API key was rejected/);
    pool().intercept({ path: viewsPath, method: 'GET' }).reply(403, { error: 'Forbidden' });
    expect(docsApiErrorText(await rejection(views(), DocsApiForbiddenError))).toMatch(/scope or IP allowlist/);
    expect(ops).toEqual([
      ['get_views', 401],
      ['get_views', 403],
    ]);
  });

  it('429 is not retried and carries Retry-After in ms when sent', async () => {
    pool()
      .intercept({ path: viewsPath, method: 'GET' })
      .reply(429, { error: 'Too many requests' }, { headers: { 'retry-after': '120' } });
    const err = await rejection(views(), DocsApiRateLimitedError);
    expect(err.retryAfterMs).toBe(120_000);
    expect(ops).toEqual([['get_views', 429]]);
  });

  it('5xx is retried once: a second 5xx is the error (two requests of the shared budget, not three)', async () => {
    pool().intercept({ path: viewsPath, method: 'GET' }).reply(500, { error: 'boom' }).times(3);
    const err = await rejection(views(), DocsApiServerError);
    expect(err.status).toBe(500);
    expect(ops).toEqual([
      ['get_views', 500],
      ['get_views', 500],
    ]);
    expect(agent.pendingInterceptors()).toHaveLength(1);
  });

  it('a timeout is retried once, then is a network error', async () => {
    // The answer comes after 1 s, long past a 20-ms timeout (20 ms: the test waits for two of them, no more).
    const hurried = mockedDocsApiClient(agent, KEY, {
      timeoutMs: 20,
      observer: { docsApiRequest: (op, status) => void ops.push([op, status]) },
    });
    pool().intercept({ path: viewsPath, method: 'GET' }).reply(200, {}).delay(1_000).times(2);
    const err = await rejection(hurried.getViews({ ...RANGE, limit: 10, offset: 0 }), DocsApiNetworkError);
    expect(err.message).toContain('timed out');
    expect(ops).toEqual([
      ['get_views', undefined],
      ['get_views', undefined],
    ]);
  });

  it('analyticsRetries sets how many retries the analytics calls make', async () => {
    const patient = new DocsApiClient({
      baseUrl: BASE,
      apiKey: KEY,
      projectId: 'proj 1',
      dispatcher: agent,
      retryMinDelayMs: 1,
      analyticsRetries: 2,
    });
    pool().intercept({ path: viewsPath, method: 'GET' }).reply(502, {}).times(2);
    pool()
      .intercept({ path: viewsPath, method: 'GET' })
      .reply(200, { totals: { human: 0, ai: 0, total: 0 }, views: [], hasMore: false });
    await expect(patient.getViews({ ...RANGE, limit: 10, offset: 0 })).resolves.toMatchObject({ hasMore: false });
  });
});
