/**
 * The fake's reader feedback: seeded entries per page and UTC day — page-level 👍/👎 (`contextual`)
 * with comments, code snippet feedback, bare votes (`thumbs_only`) and feedback from AI agents —
 * and their per-page aggregate (shapes: FeedbackResponse.feedback and
 * FeedbackGroupedByPageResponse.feedback, spec: test/fixtures/mintlify/analytics.openapi.json).
 * A few pages draw many 👎, and every week each hostile text of `./hostile-text.ts` arrives once as a
 * 👎 comment, on a fixed weekday.
 */
import { HOSTILE_PATH, HOSTILE_TEXT } from './hostile-text.js';
import { DAY_MS, dailyCount, dayOfWeek, hash01, isoAt, seededUlid } from './seed.js';

/** spec: the feedback `source` enum. */
export const FAKE_FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
/** spec: the feedback `status` enum. */
export const FAKE_FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;
type Source = (typeof FAKE_FEEDBACK_SOURCES)[number];
type Status = (typeof FAKE_FEEDBACK_STATUSES)[number];

/** One entry of FeedbackResponse.feedback (the fields of its variant only). */
export type FakeFeedbackEntry = {
  id: string;
  path: string;
  comment: string | null;
  createdAt: string;
  source: Source;
  status: Status;
} & (
  { helpful: boolean; contact: string | null } | { code: string; filename: string | null; lang: string | null } | object
);

/** One row of FeedbackGroupedByPageResponse.feedback. */
export interface FakeFeedbackByPageRow {
  path: string;
  thumbsUp: number;
  thumbsDown: number;
  code: number;
  total: number;
}

interface PageFeedback {
  path: string;
  /** Mean page-level votes per weekday. */
  votesPerDay: number;
  /** Share of the votes that are 👎. */
  downShare: number;
  /** Comments left with a 👎 (one is picked per comment). */
  complaints: readonly string[];
  /** Hostile texts that arrive once a week each as a 👎 comment. */
  weekly?: readonly string[];
  /** Mean code snippet feedback per weekday, and the snippet. */
  code?: { perDay: number; code: string; filename: string | null; lang: string | null; comment: string };
}

const PRAISE = ['Clear and helpful, thanks!', 'Exactly what I needed.', 'Great example.'];

const PAGES: readonly PageFeedback[] = [
  {
    path: '/api-reference/authentication',
    votesPerDay: 5,
    downShare: 0.55,
    complaints: [
      'Which header does the key go in? The example and the text disagree.',
      'No word on how to rotate a key.',
      'The 401 vs 403 explanation is confusing.',
    ],
    weekly: [HOSTILE_TEXT.mentions, HOSTILE_TEXT.blockKit],
  },
  {
    path: '/guides/custom-domain',
    votesPerDay: 4,
    downShare: 0.6,
    complaints: [
      'The CNAME step fails with Cloudflare proxying on; say so.',
      'How long does the TLS certificate take?',
    ],
    weekly: [HOSTILE_TEXT.links],
  },
  {
    path: '/settings/authentication-personalization/authentication-setup',
    votesPerDay: 2,
    downShare: 0.7,
    complaints: ['Okta setup is not covered at all.', 'Screenshots are from an old dashboard.'],
    weekly: [HOSTILE_TEXT.fence],
  },
  {
    path: '/guides/migrating-from-legacy-authentication-to-oauth-2-with-pkce-for-single-page-apps',
    votesPerDay: 1.5,
    downShare: 0.8,
    complaints: ['The PKCE verifier step is missing.'],
    weekly: [HOSTILE_TEXT.long],
  },
  {
    path: HOSTILE_PATH,
    votesPerDay: 0.5,
    downShare: 1,
    complaints: ['Billing page link is broken.'],
    weekly: [],
  },
  {
    path: '/api-reference/rate-limits',
    votesPerDay: 2,
    downShare: 0.5,
    complaints: ['Are the limits per key or per organization?'],
    weekly: [HOSTILE_TEXT.mrkdwn],
  },
  {
    path: '/quickstart',
    votesPerDay: 7,
    downShare: 0.12,
    complaints: ['Step 3 assumes Node 22.'],
    code: {
      perDay: 0.8,
      code: 'npm i -g mint\nmint dev',
      filename: null,
      lang: 'bash',
      comment: 'mint dev fails on Windows with EPERM.',
    },
  },
  {
    path: '/api-reference/endpoint/create-job',
    votesPerDay: 1.5,
    downShare: 0.3,
    complaints: ['What happens when the branch already exists?'],
    code: {
      perDay: 1,
      code: 'curl -X POST https://api.mintlify.com/v2/agent/$PROJECT/job',
      filename: 'create-job.sh',
      lang: 'bash',
      comment: 'Missing the Authorization header.',
    },
  },
  { path: '/guides/redirects', votesPerDay: 1.5, downShare: 0.3, complaints: ['Do wildcards work?'] },
  { path: '/components/tabs', votesPerDay: 1, downShare: 0.1, complaints: ['Tabs lose their state on reload.'] },
];

const THUMBS_ONLY_PAGES = ['/introduction', '/installation', '/guides/navigation', '/components/cards'];
const AGENT_PAGE = '/ai/model-context-protocol';
const AGENT_COMMENT = 'The MCP server example uses a tool name that the server does not list.';

function status(key: string): Status {
  const h = hash01(key, 'status');
  return h < 0.6 ? 'pending' : h < 0.75 ? 'in_progress' : h < 0.9 ? 'resolved' : 'dismissed';
}

/** The common fields of an entry keyed `key` on `day`. */
function base(path: string, source: Source, day: number, key: string, comment: string | null): FakeFeedbackEntry {
  const at = Math.floor(hash01(key, 'at') * DAY_MS);
  return {
    id: seededUlid(day * DAY_MS + at, key),
    path,
    comment,
    createdAt: isoAt(day, at),
    source,
    status: status(key),
  };
}

/** The page-level votes of one page on one day (the weekly hostile comments included). */
function votes(p: PageFeedback, day: number): FakeFeedbackEntry[] {
  const out: FakeFeedbackEntry[] = [];
  const n = dailyCount(p.votesPerDay, `${p.path}|votes`, day);
  for (let i = 0; i < n; i++) {
    const key = `${p.path}|${day}|vote|${i}`;
    const helpful = hash01(key, 'helpful') >= p.downShare;
    const pool = helpful ? PRAISE : p.complaints;
    const comment =
      hash01(key, 'commented') < (helpful ? 0.25 : 0.75)
        ? (pool[Math.floor(hash01(key, 'which') * pool.length)] ?? null)
        : null;
    const contact = hash01(key, 'contact') < 0.2 ? `reader${i}@example.com` : null;
    out.push({ ...base(p.path, 'contextual', day, key, comment), helpful, contact });
  }
  (p.weekly ?? []).forEach((text, i) => {
    if (dayOfWeek(day) !== (2 * i + 1) % 7) return;
    const key = `${p.path}|${day}|weekly|${i}`;
    out.push({ ...base(p.path, 'contextual', day, key, text), helpful: false, contact: null });
  });
  return out;
}

/** Every entry made on UTC day `day`. */
function entriesOfDay(day: number): FakeFeedbackEntry[] {
  const out: FakeFeedbackEntry[] = [];
  for (const p of PAGES) {
    out.push(...votes(p, day));
    const c = p.code;
    for (let i = 0; c && i < dailyCount(c.perDay, `${p.path}|code`, day); i++) {
      const key = `${p.path}|${day}|code|${i}`;
      const comment = hash01(key, 'commented') < 0.7 ? c.comment : null;
      out.push({
        ...base(p.path, 'code_snippet', day, key, comment),
        code: c.code,
        filename: c.filename,
        lang: c.lang,
      });
    }
  }
  for (const path of THUMBS_ONLY_PAGES) {
    for (let i = 0; i < dailyCount(2, `${path}|thumbs`, day); i++)
      out.push(base(path, 'thumbs_only', day, `${path}|${day}|thumbs|${i}`, null));
  }
  for (let i = 0; i < dailyCount(0.7, `${AGENT_PAGE}|agent`, day); i++)
    out.push(base(AGENT_PAGE, 'agent', day, `${AGENT_PAGE}|${day}|agent|${i}`, AGENT_COMMENT));
  return out;
}

/** Filters of both feedback endpoints. */
export interface FakeFeedbackFilters {
  source?: Source | undefined;
  status?: readonly Status[] | undefined;
}

/**
 * Feedback entries made on the UTC days `[fromDay, toDay)` that pass the filters, newest first
 * (`createdAt` desc, then `id` desc; the spec names no order).
 */
export function feedbackForDays(
  fromDay: number,
  toDay: number,
  filters: FakeFeedbackFilters = {},
): FakeFeedbackEntry[] {
  const out: FakeFeedbackEntry[] = [];
  for (let day = fromDay; day < toDay; day++) {
    for (const e of entriesOfDay(day)) {
      if (filters.source && e.source !== filters.source) continue;
      if (filters.status && filters.status.length > 0 && !filters.status.includes(e.status)) continue;
      out.push(e);
    }
  }
  return out.sort((a, b) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
  );
}

/**
 * Per-page counts of those entries: `thumbsUp`/`thumbsDown` count contextual votes only (spec), `code`
 * code snippet feedback, `total` every entry (bare votes and agent feedback included); sorted by total
 * desc then path (the spec names no order).
 */
export function feedbackByPageForDays(
  fromDay: number,
  toDay: number,
  filters: FakeFeedbackFilters = {},
): FakeFeedbackByPageRow[] {
  const rows = new Map<string, FakeFeedbackByPageRow>();
  for (const e of feedbackForDays(fromDay, toDay, filters)) {
    const row = rows.get(e.path) ?? { path: e.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
    if ('helpful' in e) row[e.helpful ? 'thumbsUp' : 'thumbsDown'] += 1;
    if (e.source === 'code_snippet') row.code += 1;
    row.total += 1;
    rows.set(e.path, row);
  }
  return [...rows.values()].sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1));
}
