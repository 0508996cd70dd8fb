/**
 * The fake docs API's analytics data: a fixed catalogue of 137 doc pages with deterministic, seeded
 * daily visitor counts (human, AI and total per page and UTC day), so that the unique-visitors
 * endpoint answers the same numbers on every run and tests can rely on them.
 *
 * Shape of a row: VisitorsByPageResponse.visitors (spec: test/fixtures/mintlify/analytics.openapi.json).
 */

/** One row of VisitorsByPageResponse.visitors (spec: analytics.openapi.json). */
export interface FakeVisitorRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

import { DAY_MS, dayOfWeek, hash01 } from './seed.js';

export { DAY_MS } from './seed.js';

/** Pages in {@link FAKE_NEW_PAGES} have no visitors on UTC days before this date. */
export const FAKE_NEW_PAGES_SINCE = '2026-11-10';

/** Pages that only get visitors from {@link FAKE_NEW_PAGES_SINCE} on. */
export const FAKE_NEW_PAGES: readonly string[] = [
  '/ai/agent',
  '/api-reference/endpoint/send-message',
  '/guides/agent-workflows-from-slack-to-pull-request',
  '/integrations/slack/docs-agent-bot',
];

const FAKE_PAGE_COUNT = 137;

/** Doc sections and their page slugs; the catalogue is padded with monthly changelog pages. */
const SECTIONS: readonly (readonly [string, readonly string[]])[] = [
  [
    '',
    [
      'introduction',
      'quickstart',
      'installation',
      'development',
      'authentication',
      'pricing',
      'faq',
      'support',
      'changelog',
    ],
  ],
  [
    'guides',
    [
      'writing-content',
      'navigation',
      'themes',
      'custom-domain',
      'analytics',
      'search',
      'seo',
      'redirects',
      'versioning',
      'localization',
      'openapi-setup',
      'mdx-components',
      'code-blocks',
      'images-and-embeds',
      'reusable-snippets',
      'custom-css-and-js',
      'github-integration',
      'gitlab-integration',
      'preview-deployments',
      'broken-links',
      'llms-txt',
      'mcp-server',
      'ai-assistant',
      'feedback',
      'hidden-pages',
      'monorepo-setup',
      'migrating-from-readme',
      'migrating-from-gitbook',
      'migrating-from-docusaurus',
      'migrating-from-legacy-authentication-to-oauth-2-with-pkce-for-single-page-apps',
      'agent-workflows-from-slack-to-pull-request',
    ],
  ],
  [
    'api-reference',
    [
      'introduction',
      'authentication',
      'rate-limits',
      'errors',
      'endpoint/create-job',
      'endpoint/get-job',
      'endpoint/send-message',
      'endpoint/list-jobs',
      'endpoint/trigger-update',
      'endpoint/get-update-status',
      'endpoint/visitors',
      'endpoint/views',
      'endpoint/feedback',
      'endpoint/feedback-by-page',
      'endpoint/searches',
      'endpoint/assistant-conversations',
      'endpoint/assistant-thread',
      'endpoint/assistant-caller-stats',
      'endpoint/create-assistant-message',
      'endpoint/search-documentation',
      'endpoint/create-agent-job-v1',
      'endpoint/get-agent-job-v1',
    ],
  ],
  [
    'components',
    [
      'accordions',
      'banner',
      'badges',
      'callouts',
      'cards',
      'code-groups',
      'columns',
      'examples',
      'expandables',
      'fields',
      'frames',
      'icons',
      'mermaid-diagrams',
      'panel',
      'response-fields',
      'steps',
      'tabs',
      'tiles',
      'tooltips',
      'tree',
      'update',
      'color',
    ],
  ],
  [
    'integrations',
    [
      'analytics/amplitude',
      'analytics/clearbit',
      'analytics/fathom',
      'analytics/google-analytics',
      'analytics/google-tag-manager',
      'analytics/heap',
      'analytics/hotjar',
      'analytics/logrocket',
      'analytics/mixpanel',
      'analytics/plausible',
      'analytics/posthog',
      'analytics/segment',
      'support/intercom',
      'support/front',
      'privacy/osano',
      'sdks/speakeasy',
      'sdks/stainless',
      'slack/docs-agent-bot',
    ],
  ],
  [
    'settings',
    [
      'global',
      'navigation',
      'custom-domain',
      'custom-scripts',
      'seo',
      'broken-links',
      'github',
      'gitlab',
      'ci-checks',
      'preview-deployments',
      'versioning',
      'redirects',
      'authentication-personalization/authentication-setup',
      'authentication-personalization/personalization-setup',
      'authentication-personalization/partial-authentication',
      'authentication-personalization/sending-data-from-your-identity-provider-to-personalize-content',
    ],
  ],
  ['ai', ['assistant', 'contextual-menu', 'llmstxt', 'model-context-protocol', 'agent']],
];

/** The catalogue: section pages in order, padded to {@link FAKE_PAGE_COUNT}; throws if the list is not 137 distinct paths. */
function buildCatalogue(): string[] {
  const pages = SECTIONS.flatMap(([section, slugs]) =>
    slugs.map((slug) => (section ? `/${section}/${slug}` : `/${slug}`)),
  );
  // Pad with monthly changelog pages (2025-01, 2025-02, …) up to the fixed size.
  for (let month = 0; pages.length < FAKE_PAGE_COUNT; month++) {
    pages.push(`/changelog/${2025 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, '0')}`);
  }
  if (pages.length !== FAKE_PAGE_COUNT || new Set(pages).size !== FAKE_PAGE_COUNT) {
    throw new Error('fake docs catalogue must hold 137 distinct pages');
  }
  return pages;
}

/** The fixed catalogue of 137 doc page paths the fake analytics report on. */
export const FAKE_DOC_PAGES: readonly string[] = buildCatalogue();

interface PageModel {
  path: string;
  /** Mean human visitors per weekday at the reference week. */
  base: number;
  /** AI visitors relative to human ones. */
  aiShare: number;
  /** Growth per week (log scale): > 0 risers, < 0 fallers, 0 steady. */
  slope: number;
  /** First UTC day number with visitors (new pages), else -Infinity. */
  sinceDay: number;
}

/** Day number (days since 1970-01-01 UTC) of the Monday of the week trends are anchored on (2026-11-02). */
const TREND_REFERENCE_DAY = Date.UTC(2026, 10, 2) / DAY_MS;
const NEW_PAGES_SINCE_DAY = Date.parse(`${FAKE_NEW_PAGES_SINCE}T00:00:00Z`) / DAY_MS;
/** The most visited pages, in order; the rest are ranked by a seeded shuffle. */
const HEAD_PAGES = [
  '/quickstart',
  '/introduction',
  '/installation',
  '/api-reference/introduction',
  '/guides/navigation',
  '/components/cards',
];

const PAGE_MODELS: readonly PageModel[] = (() => {
  const tail = FAKE_DOC_PAGES.filter((p) => !HEAD_PAGES.includes(p)).sort(
    (a, b) => hash01(a, 'rank') - hash01(b, 'rank'),
  );
  return [...HEAD_PAGES, ...tail].map((path, index) => {
    const trend = hash01(path, 'trend');
    return {
      path,
      // Zipf-like popularity: rank 1 ≈ 1800 humans per weekday, rank 137 ≈ 8.
      base: 1800 / Math.pow(index + 1, 1.1),
      aiShare: path.startsWith('/api-reference/') ? 0.4 + 0.6 * hash01(path, 'ai') : 0.05 + 0.35 * hash01(path, 'ai'),
      slope: trend < 0.12 ? 0.1 + 0.1 * hash01(path, 'slope') : trend < 0.24 ? -0.05 - 0.1 * hash01(path, 'slope') : 0,
      sinceDay: FAKE_NEW_PAGES.includes(path) ? NEW_PAGES_SINCE_DAY : -Infinity,
    };
  });
})();

/** Visitors of one page on one UTC day (`total` = human + ai − overlap, overlap ≤ min(human, ai)). */
function dailyVisitors(page: PageModel, day: number): FakeVisitorRow {
  if (day < page.sinceDay) return { path: page.path, human: 0, ai: 0, total: 0 };
  const week = Math.floor((day - TREND_REFERENCE_DAY) / 7);
  const trend = Math.min(4, Math.max(0.25, Math.exp(page.slope * week)));
  const weekNoise = 0.75 + 0.5 * hash01(page.path, week, 'week');
  const weekend = dayOfWeek(day) === 0 || dayOfWeek(day) === 6 ? 0.55 : 1;
  const level = page.base * trend * weekNoise;
  const human = Math.floor(level * weekend * (0.85 + 0.3 * hash01(page.path, day, 'h')) + hash01(page.path, day, 'hd'));
  const ai = Math.floor(
    level * page.aiShare * (0.7 + 0.6 * hash01(page.path, day, 'a')) + hash01(page.path, day, 'ad'),
  );
  const overlap = Math.floor(Math.min(human, ai) * (0.05 + 0.25 * hash01(page.path, day, 'o')));
  return { path: page.path, human, ai, total: human + ai - overlap };
}

/**
 * Visitors per page summed over the UTC days `[fromDay, toDay)` (day numbers since the epoch), rows
 * with total 0 omitted, sorted by total desc then path asc; plus site-wide totals (fewer than the sum
 * of pages, since visitors see several pages, but never below the busiest page; human/ai/total keep
 * `max(human, ai) ≤ total ≤ human + ai`).
 */
export function visitorsForDays(
  fromDay: number,
  toDay: number,
): { totals: Omit<FakeVisitorRow, 'path'>; rows: FakeVisitorRow[] } {
  const rows: FakeVisitorRow[] = [];
  for (const page of PAGE_MODELS) {
    const sum: FakeVisitorRow = { path: page.path, human: 0, ai: 0, total: 0 };
    for (let day = fromDay; day < toDay; day++) {
      const d = dailyVisitors(page, day);
      sum.human += d.human;
      sum.ai += d.ai;
      sum.total += d.total;
    }
    if (sum.total > 0) rows.push(sum);
  }
  rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const sumOf = (key: 'human' | 'ai' | 'total'): number => rows.reduce((acc, r) => acc + r[key], 0);
  const maxOf = (key: 'human' | 'ai' | 'total'): number => rows.reduce((acc, r) => Math.max(acc, r[key]), 0);
  const human = Math.max(Math.round(sumOf('human') * 0.62), maxOf('human'));
  const ai = Math.max(Math.round(sumOf('ai') * 0.7), maxOf('ai'));
  const total = Math.min(human + ai, Math.max(Math.round(sumOf('total') * 0.6), maxOf('total'), human, ai));
  return { totals: { human, ai, total }, rows };
}

/**
 * Content view events per page over the UTC days `[fromDay, toDay)`: each visitor of a page views it
 * a seeded 1.3–2.2 times (humans) or 1.1–2.6 times (AI), so views ≥ visitors; `total` = human + ai
 * (events add up, unlike visitors) and the site-wide totals are the sums of the pages. Rows with total
 * 0 omitted, sorted by total desc then path asc (shape: ViewsByPageResponse).
 */
export function viewsForDays(
  fromDay: number,
  toDay: number,
): { totals: Omit<FakeVisitorRow, 'path'>; rows: FakeVisitorRow[] } {
  const rows: FakeVisitorRow[] = [];
  for (const page of PAGE_MODELS) {
    const sum: FakeVisitorRow = { path: page.path, human: 0, ai: 0, total: 0 };
    for (let day = fromDay; day < toDay; day++) {
      const d = dailyVisitors(page, day);
      sum.human += Math.round(d.human * (1.3 + 0.9 * hash01(page.path, day, 'vh')));
      sum.ai += Math.round(d.ai * (1.1 + 1.5 * hash01(page.path, day, 'va')));
    }
    sum.total = sum.human + sum.ai;
    if (sum.total > 0) rows.push(sum);
  }
  rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const totals = { human: 0, ai: 0, total: 0 };
  for (const r of rows) {
    totals.human += r.human;
    totals.ai += r.ai;
    totals.total += r.total;
  }
  return { totals, rows };
}
