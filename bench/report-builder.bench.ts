import { bench, describe } from 'vitest';
import type { VisitorsResponse } from '../src/platform/docs-api/schemas.js';
import { buildDigestMessage } from '../src/features/reports/digests/blocks.js';
import { renderDigestChart } from '../src/features/reports/digests/chart.js';
import { buildDigestContent } from '../src/features/reports/digests/content.js';
import { buildReportMessage } from '../src/features/reports/blocks.js';
import { planWindows } from '../src/features/reports/rows.js';
import { ValueSigner } from '../src/platform/slack/signed-value.js';

/**
 * Report building for the largest page the API serves (250 rows), with ordinary and with
 * 200-character paths, plus the digest (content, blocks, chart). Run: `npm run bench`.
 */

function rows(n: number, pathLength: number): VisitorsResponse['visitors'] {
  return Array.from({ length: n }, (_, i) => {
    const head = `/guides/section-${i}/`;
    return {
      path: (head + 'slug-'.repeat(60)).slice(0, Math.max(head.length, pathLength)),
      human: 90_000 - i * 7,
      ai: 12_000 + i,
      total: 100_000 - i,
    };
  });
}

const totals = { human: 1_234_567, ai: 345_678, total: 1_400_000 };
const shortPage: VisitorsResponse = { totals, visitors: rows(250, 32), hasMore: true };
const longPage: VisitorsResponse = { totals, visitors: rows(250, 200), hasMore: true };
const state = {
  dateFrom: '2026-11-15',
  dateTo: '2026-11-22',
  limit: 250,
  offset: 0,
  skip: 0,
  requester: 'U0ALICE',
  channel: 'C0DOCS',
  projectId: 'proj_docs',
};
const lastWindow = { ...state, skip: -1 };
/** Button values are signed as in production (one HMAC per button). */
const signer = ValueSigner.fromSecret('bench-signing-secret');

describe('report for one 250-row API page', () => {
  bench('first window, 32-char paths', () => {
    buildReportMessage({ state, page: shortPage, signer });
  });
  bench('first window, 200-char paths', () => {
    buildReportMessage({ state, page: longPage, signer });
  });
  bench('last window (Previous from the next page), 200-char paths', () => {
    buildReportMessage({ state: lastWindow, page: longPage, signer });
  });
  bench('planWindows only, 200-char paths', () => {
    planWindows(longPage.visitors);
  });
});

describe('digest', () => {
  const week = (range: { dateFrom: string; dateTo: string }, shift: number) => ({
    range,
    totals,
    rows: rows(250, 40).map((r, i) => ({ ...r, human: Math.max(0, r.human + ((i * 37) % 11) * shift) })),
    truncated: false,
  });
  const current = week({ dateFrom: '2026-11-16', dateTo: '2026-11-23' }, 900);
  const previous = week({ dateFrom: '2026-11-09', dateTo: '2026-11-16' }, -900);
  bench('content + blocks, 250 pages per week', () => {
    buildDigestMessage(
      buildDigestContent(current, previous),
      { kind: 'scheduled', scheduleText: 'Mondays at 09:00 UTC' },
      signer,
    );
  });
  bench(
    'chart PNG, top 10 pages',
    async () => {
      await renderDigestChart(current.rows.slice(0, 10), 'Top pages, Nov 16 – Nov 22, 2026: human vs AI visitors');
    },
    { iterations: 20 },
  );
});
