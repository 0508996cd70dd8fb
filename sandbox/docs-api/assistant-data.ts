/**
 * The fake's docs assistant conversations: seeded turns per UTC day (shape:
 * AssistantConversationsResponse.conversations, spec: test/fixtures/mintlify/analytics.openapi.json).
 * Some questions recur unanswered, worded a little differently each time (case, punctuation); the
 * hostile texts of `./hostile-text.ts` are asked once a week each, on a fixed weekday.
 */
import { HOSTILE_PATH, HOSTILE_TEXT } from './hostile-text.js';
import { DAY_MS, dailyCount, dayOfWeek, hash01, isoAt, seededUlid } from './seed.js';

/** The public site the fake's page URLs and sources point at. */
export const FAKE_DOCS_SITE = 'https://docs.acme.test';

/** One row of AssistantConversationsResponse.conversations. */
export interface FakeConversation {
  id: string;
  timestamp: string;
  query: string;
  response: string;
  responseType: 'answer' | 'clarifying_question';
  sources: { title: string; url: string }[];
  resolutionStatus: 'answered' | 'unanswered';
  queryCategory: string | null;
  pageUrl: string | null;
}

interface Question {
  /** The ways readers word it; one is picked per turn. */
  variants: readonly string[];
  perDay: number;
  /** Asked once more on this weekday (0 = Sunday) every week. */
  weeklyOn?: number;
  resolutionStatus: 'answered' | 'unanswered';
  responseType?: 'clarifying_question';
  response: string;
  sources: readonly { title: string; url: string }[];
  queryCategory: string | null;
  page: string | null;
}

const NOT_COVERED = "I couldn't find this in the documentation. You may want to contact support.";
const source = (title: string, path: string) => ({ title, url: `${FAKE_DOCS_SITE}${path}` });

/** Questions the assistant could not answer, asked again and again with small variations. */
export const FAKE_RECURRING_UNANSWERED: readonly (readonly string[])[] = [
  [
    'How do I set up SSO with Okta?',
    'how do i set up sso with okta',
    'How do I set up SSO with Okta??',
    'How do I set up SSO with OKTA',
  ],
  [
    'Does the API support webhooks for job completion?',
    'does the api support webhooks for job completion',
    'Does the API support webhooks for job completion ?',
  ],
  ['Is there a Terraform provider?', 'is there a terraform provider', 'Is there a terraform provider!'],
  ['Can I delete my account through the API?', 'can i delete my account through the api?'],
];

const QUESTIONS: readonly Question[] = [
  ...FAKE_RECURRING_UNANSWERED.map((variants, i) => ({
    variants,
    perDay: [3, 2, 1.5, 1][i] ?? 1,
    weeklyOn: (i * 2 + 2) % 7,
    resolutionStatus: 'unanswered' as const,
    response: NOT_COVERED,
    sources: [],
    queryCategory: ['Authentication', 'API', 'Integrations', 'Account'][i] ?? null,
    page:
      ['/settings/authentication-personalization/authentication-setup', '/api-reference/introduction', null, '/faq'][
        i
      ] ?? null,
  })),
  ...Object.values(HOSTILE_TEXT).map((text, i) => ({
    variants: [text],
    perDay: 0,
    weeklyOn: (i * 3 + 1) % 7,
    resolutionStatus: 'unanswered' as const,
    response: NOT_COVERED,
    sources: [],
    queryCategory: null,
    page: i === 0 ? HOSTILE_PATH : i % 2 === 0 ? '/quickstart' : null,
  })),
  {
    variants: ['How do I add a custom domain?', 'custom domain setup'],
    perDay: 5,
    resolutionStatus: 'answered',
    response: 'Add a CNAME record pointing at cname.mintlify-dns.com, then add the domain in the dashboard.',
    sources: [source('Custom domain', '/guides/custom-domain')],
    queryCategory: 'Setup',
    page: '/guides/custom-domain',
  },
  {
    variants: ['What are the API rate limits?'],
    perDay: 4,
    resolutionStatus: 'answered',
    response: 'The analytics API allows 100 requests per organization per hour.',
    sources: [source('Rate limits', '/api-reference/rate-limits')],
    queryCategory: 'API',
    page: '/api-reference/rate-limits',
  },
  {
    variants: ['How do I start an agent job?'],
    perDay: 3,
    resolutionStatus: 'answered',
    response: 'POST /v2/agent/{projectId}/job with a prompt; poll GET …/job/{id} until it completes.',
    sources: [
      source('Create agent job', '/api-reference/endpoint/create-job'),
      source('Get agent job', '/api-reference/endpoint/get-job'),
    ],
    queryCategory: 'API',
    page: null,
  },
  {
    variants: ['Does it work?', 'help'],
    perDay: 1,
    resolutionStatus: 'answered',
    responseType: 'clarifying_question',
    response: 'Which feature are you asking about: the editor, the API or the assistant?',
    sources: [],
    queryCategory: null,
    page: '/introduction',
  },
];

/** The turns of one question on UTC day `day`. */
function turns(q: Question, qi: number, day: number): FakeConversation[] {
  const n = dailyCount(q.perDay, `q${qi}`, day) + (q.weeklyOn === dayOfWeek(day) ? 1 : 0);
  const out: FakeConversation[] = [];
  for (let i = 0; i < n; i++) {
    const key = `q${qi}|${day}|${i}`;
    const at = Math.floor(hash01(key, 'at') * DAY_MS);
    out.push({
      id: seededUlid(day * DAY_MS + at, key),
      timestamp: isoAt(day, at),
      query: q.variants[Math.floor(hash01(key, 'variant') * q.variants.length)] ?? '',
      response: q.response,
      responseType: q.responseType ?? 'answer',
      sources: q.sources.map((s) => ({ ...s })),
      resolutionStatus: q.resolutionStatus,
      queryCategory: q.queryCategory,
      pageUrl: q.page === null ? null : `${FAKE_DOCS_SITE}${q.page}`,
    });
  }
  return out;
}

/** Conversations on the UTC days `[fromDay, toDay)`, newest first (by `id`, a ULID: time, then seeded bits). */
export function conversationsForDays(fromDay: number, toDay: number): FakeConversation[] {
  const out: FakeConversation[] = [];
  for (let day = fromDay; day < toDay; day++) QUESTIONS.forEach((q, qi) => out.push(...turns(q, qi, day)));
  return out.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
