/**
 * The fake's search terms: seeded daily hits and clicks per term, summed over any range of UTC days
 * (shape: SearchesResponse.searches, spec: test/fixtures/mintlify/analytics.openapi.json). Some
 * terms are searched often and never clicked through (`ctr` 0, no `topClickedPage`): searches the
 * docs answered with nothing worth clicking.
 */
import { HOSTILE_TEXT } from './hostile-text.js';
import { DAY_MS, dailyCount, hash01, isoAt } from './seed.js';

/** One row of SearchesResponse.searches. */
export interface FakeSearchRow {
  searchQuery: string;
  hits: number;
  ctr: number;
  topClickedPage: string | null;
  lastSearchedAt: string;
}

interface SearchTerm {
  term: string;
  /** Mean hits per weekday. */
  perDay: number;
  /** Share of searches followed by a click on `page`. */
  ctr: number;
  /** The page readers click; null: nobody clicks anything. */
  page: string | null;
}

/** Searched often, never clicked through: the gaps a report should show first. */
export const FAKE_UNCLICKED_SEARCHES: readonly string[] = [
  'sso saml',
  'webhooks',
  'delete account',
  'terraform provider',
  'graphql',
  'self-hosted',
];

const UNCLICKED_PER_DAY = [38, 31, 22, 18, 15, 12];

const CLICKED: readonly (readonly [string, number, number, string])[] = [
  ['api key', 120, 0.62, '/api-reference/authentication'],
  ['quickstart', 95, 0.81, '/quickstart'],
  ['rate limit', 60, 0.55, '/api-reference/rate-limits'],
  ['custom domain', 54, 0.47, '/guides/custom-domain'],
  ['redirects', 41, 0.66, '/guides/redirects'],
  ['openapi', 39, 0.58, '/guides/openapi-setup'],
  ['analytics', 33, 0.4, '/guides/analytics'],
  ['versioning', 28, 0.52, '/guides/versioning'],
  ['mcp', 26, 0.61, '/guides/mcp-server'],
  ['slack', 20, 0.7, '/integrations/slack/docs-agent-bot'],
  ['code blocks', 19, 0.57, '/guides/code-blocks'],
  ['localization', 16, 0.45, '/guides/localization'],
  ['rate limits', 14, 0.5, '/api-reference/rate-limits'],
  ['Rate Limit', 9, 0.5, '/api-reference/rate-limits'],
  ['search', 12, 0.3, '/guides/search'],
  ['oauth pkce', 11, 0.08, '/guides/migrating-from-legacy-authentication-to-oauth-2-with-pkce-for-single-page-apps'],
  ['llms.txt', 10, 0.5, '/guides/llms-txt'],
  ['tabs', 9, 0.72, '/components/tabs'],
  ['mermaid', 8, 0.6, '/components/mermaid-diagrams'],
  ['navigation', 8, 0.55, '/guides/navigation'],
  ['themes', 7, 0.5, '/guides/themes'],
  ['errors', 7, 0.45, '/api-reference/errors'],
  ['pricing', 6, 0.66, '/pricing'],
  ['authentication', 6, 0.5, '/api-reference/authentication'],
  ['changelog', 5, 0.8, '/changelog'],
];

const TERMS: readonly SearchTerm[] = [
  ...FAKE_UNCLICKED_SEARCHES.map((term, i) => ({ term, perDay: UNCLICKED_PER_DAY[i] ?? 10, ctr: 0, page: null })),
  ...CLICKED.map(([term, perDay, ctr, page]) => ({ term, perDay, ctr, page })),
  // Search terms are reader text too.
  { term: HOSTILE_TEXT.mentions.slice(0, 40), perDay: 3, ctr: 0, page: null },
  { term: '<https://evil.example|free credits>', perDay: 2, ctr: 0, page: null },
];

/**
 * Search terms over the UTC days `[fromDay, toDay)`: hits and clicks summed, `ctr` = clicks / hits
 * (a fraction, 3 decimals), `topClickedPage` null without clicks, `lastSearchedAt` on the last day
 * with hits; terms without hits omitted; sorted by hits desc then term. `totalSearches` is the sum of
 * all hits (spec: "sum of all hits, not distinct queries").
 */
export function searchesForDays(fromDay: number, toDay: number): { rows: FakeSearchRow[]; totalSearches: number } {
  const rows: FakeSearchRow[] = [];
  for (const t of TERMS) {
    let hits = 0;
    let clicks = 0;
    let lastDay: number | undefined;
    for (let day = fromDay; day < toDay; day++) {
      const h = dailyCount(t.perDay, t.term, day);
      if (h === 0) continue;
      hits += h;
      lastDay = day;
      if (t.page) clicks += Math.min(h, Math.round(h * t.ctr * (0.8 + 0.4 * hash01(t.term, day, 'ctr'))));
    }
    if (lastDay === undefined) continue;
    rows.push({
      searchQuery: t.term,
      hits,
      ctr: Math.round((clicks / hits) * 1000) / 1000,
      topClickedPage: clicks > 0 ? t.page : null,
      lastSearchedAt: isoAt(lastDay, Math.floor(hash01(t.term, lastDay, 'at') * DAY_MS)),
    });
  }
  rows.sort((a, b) => b.hits - a.hits || (a.searchQuery < b.searchQuery ? -1 : a.searchQuery > b.searchQuery ? 1 : 0));
  return { rows, totalSearches: rows.reduce((n, r) => n + r.hits, 0) };
}
