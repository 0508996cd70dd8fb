/**
 * The docs the fake discovery API answers from: ten pages of a fictional product ("Acme Cloud")
 * and a plain keyword match over them. A question shares a keyword with a page, or the page is not
 * about it; nothing here is clever, so tests can tell which question is answered and which is not.
 */

/** One page of the fake docs site: its path (as the search endpoint returns it), title, keywords and text. */
export interface FakeDocPage {
  path: string;
  title: string;
  /** Lower-case words a question must share with the page to find it. */
  keywords: string[];
  /** The page's text (Markdown), returned by the page endpoint and cut short in search results. */
  content: string;
  /** The docs version it belongs to; absent: every version's (see {@link passesFilter}). */
  version?: string;
  /** Its language; absent: every language's. */
  language?: string;
  /** The groups that may see it; absent: public. */
  groups?: string[];
}

/** The `filter` of the assistant and search endpoints (spec: `version`, `language`, `groups`; search also `tag`). */
export interface FakeFilter {
  version?: string;
  language?: string;
  groups?: string[];
}

/**
 * Whether `page` is searched under `filter` (spec, discovery-openapi.json: "Optional version
 * filter", "Optional language filter", and for `groups` "results are limited to pages the specified
 * groups can view. If omitted or empty on a protected deployment, results are limited to public
 * pages"): a page of another version or language is left out (a page with none is in all); a page
 * with groups is found only when the filter names one of them.
 */
export function passesFilter(page: FakeDocPage, filter: FakeFilter | null | undefined): boolean {
  const f = filter ?? {};
  if (f.version && page.version && page.version !== f.version) return false;
  if (f.language && page.language && page.language !== f.language) return false;
  if (page.groups?.length && !page.groups.some((g) => f.groups?.includes(g))) return false;
  return true;
}

/** `parts` joined by spaces (keeps the page texts readable in source). */
const sentences = (...parts: string[]): string => parts.join(' ');

/**
 * The default pages: quickstart, API keys (rotating a key), SSO, webhooks, rate limits, billing,
 * CLI; workspaces in two versions (`v1`, `v2`), and an on-call runbook only the `staff` group sees.
 */
export const FAKE_DISCOVERY_PAGES: FakeDocPage[] = [
  {
    path: '/quickstart',
    title: 'Quickstart',
    keywords: ['quickstart', 'start', 'started', 'install', 'setup', 'begin', 'first', 'project'],
    content: sentences(
      'Install the CLI with `npm install -g acme-cli`, run `acme login`,',
      'then `acme init` to create your first project and `acme deploy` to ship it.',
    ),
  },
  {
    path: '/api-keys',
    title: 'API keys',
    keywords: ['api', 'key', 'keys', 'rotate', 'rotating', 'rotation', 'revoke', 'token', 'tokens', 'secret'],
    content: sentences(
      'Create keys under Settings → API keys. To rotate a key, click **Rotate**:',
      'a new key is shown once, and the old key keeps working for 24 hours so you can roll it out.',
      'Revoke a key to stop it at once.',
    ),
  },
  {
    path: '/sso',
    title: 'Single sign-on (SSO)',
    keywords: ['sso', 'saml', 'okta', 'single', 'sign-on', 'signon', 'idp', 'azure', 'entra'],
    content: sentences(
      'Acme Cloud supports SAML 2.0 single sign-on with Okta, Microsoft Entra ID and any SAML identity provider.',
      'Owners enable it under Settings → Security and can require it for every member.',
    ),
  },
  {
    path: '/webhooks',
    title: 'Webhooks',
    keywords: ['webhook', 'webhooks', 'event', 'events', 'signature', 'verify', 'callback', 'callbacks'],
    content: sentences(
      'Webhooks POST a JSON event to your endpoint.',
      'Verify the `Acme-Signature` header, an HMAC-SHA256 of the body with your signing secret.',
      'Failed deliveries are retried 5 times with backoff.',
    ),
  },
  {
    path: '/rate-limits',
    title: 'Rate limits',
    keywords: ['rate', 'limit', 'limits', 'throttle', 'throttling', '429', 'quota'],
    content: sentences(
      'Each API key may make 600 requests per minute.',
      'Over the limit, the API answers 429 with a `Retry-After` header in seconds.',
    ),
  },
  {
    path: '/billing',
    title: 'Plans and billing',
    keywords: ['billing', 'plan', 'plans', 'invoice', 'invoices', 'price', 'pricing', 'payment', 'upgrade'],
    content: sentences(
      'Plans are billed monthly. Invoices are under Settings → Billing;',
      'owners can change the payment method and upgrade or downgrade at any time.',
    ),
  },
  {
    path: '/cli',
    title: 'CLI reference',
    keywords: ['cli', 'command', 'commands', 'terminal', 'login', 'deploy', 'logs'],
    content: '`acme login` signs in, `acme deploy` deploys the current project, `acme logs --follow` streams its logs.',
  },
  {
    path: '/v1/workspaces',
    title: 'Workspaces (v1)',
    keywords: ['workspace', 'workspaces'],
    content: 'In v1 each account has one workspace; invite members under Settings → Members.',
    version: 'v1',
  },
  {
    path: '/v2/workspaces',
    title: 'Workspaces (v2)',
    keywords: ['workspace', 'workspaces'],
    content: 'In v2 an account can have many workspaces; switch between them with `acme workspace use <name>`.',
    version: 'v2',
  },
  {
    path: '/internal/runbook',
    title: 'On-call runbook',
    keywords: ['runbook', 'on-call', 'oncall', 'incident', 'incidents'],
    content: 'Page the on-call engineer with `acme page`, then open an incident channel.',
    groups: ['staff'],
  },
];

/** Lower-case words of `text` (letters, digits, hyphens), each also without a plural "s". */
export function words(text: string): string[] {
  const found = text.toLowerCase().match(/[a-z0-9][a-z0-9-]*/g) ?? [];
  return found.flatMap((w) => (w.length > 3 && w.endsWith('s') ? [w, w.slice(0, -1)] : [w]));
}

/**
 * The pages that pass `filter` ({@link passesFilter}) sharing a keyword with `text`, most shared
 * keywords first (ties in catalogue order), at most `limit` of them; none when no page shares one.
 */
export function matchPages(
  pages: FakeDocPage[],
  text: string,
  limit: number,
  filter?: FakeFilter | null,
): FakeDocPage[] {
  const asked = new Set(words(text));
  return pages
    .filter((page) => passesFilter(page, filter))
    .map((page, order) => ({ page, order, score: page.keywords.filter((k) => asked.has(k)).length }))
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, Math.max(0, limit))
    .map((m) => m.page);
}

/** A page as a search result (spec: `{content, path, metadata}`); the content cut to `maxContent` characters. */
export function searchResult(
  page: FakeDocPage,
  maxContent = 400,
): { path: string; content: string; metadata: { title: string } } {
  return { path: page.path, content: page.content.slice(0, maxContent), metadata: { title: page.title } };
}
