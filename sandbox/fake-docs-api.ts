/**
 * A fake of the Mintlify docs API for tests and the local sandbox: agent jobs (admin API v2), the
 * analytics endpoints (visitors, views, searches, feedback by page, feedback, assistant
 * conversations) and, under `/discovery`, the discovery API (assistant answers streamed as AI SDK v5
 * UI message streams, search, page content), served by `node:http` on 127.0.0.1.
 *
 * Shapes and status codes follow the vendor specs copied to `test/fixtures/mintlify/`:
 * - admin-openapi.json (OpenAPI 3.0.1): POST /v2/agent/{projectId}/job → 201 AgentJob | 400 | 429;
 *   GET /v2/agent/{projectId}/job/{id} → 200 AgentJob | 404;
 *   POST /v2/agent/{projectId}/job/{id}/message → 200 AgentJob | 400 | 404 | 429.
 * - analytics.openapi.json (OpenAPI 3.1.0): GET /v1/analytics/{projectId}/visitors → 200
 *   VisitorsByPageResponse, …/views → 200 ViewsByPageResponse (both offset paging), …/searches → 200
 *   SearchesResponse, …/feedback/by-page → 200 FeedbackGroupedByPageResponse (no paging),
 *   …/feedback → 200 FeedbackResponse, …/assistant → 200 AssistantConversationsResponse (cursor
 *   paging); each → 400 AnalyticsErrorResponse `{error, details}` for a bad query or cursor | 500.
 *   The data is deterministic per UTC day, so any range (a week and the week before) has its own:
 *   searches nobody clicked through, pages with 👎 and comments, recurring unanswered questions, and
 *   the hostile reader texts of `HOSTILE_TEXT` every week. The fake does not count requests against
 *   the vendor's 100 per hour (as for visitors): inject a 429 with `failNext`.
 * - discovery-openapi.json (OpenAPI 3.0.1), below `/discovery` and with its own assistant key:
 *   POST /v2/assistant/{domain}/message → 200 UI message stream (thread headers; 404 for a thread
 *   without its key); POST /v1/search/{domain} → 200 results; POST /v1/page/{domain} → 200 | 404.
 *   See `./docs-api/discovery-route.ts`.
 * - deployments-openapi.json (composed; see its SOURCE.md): POST /v1/project/preview/{projectId} {branch}
 *   → 202 {statusId, previewUrl} | 400 (unknown branch) | 403 (a plan without previews) | 429 (past 5 a
 *   minute); GET /v1/project/update-status/{statusId} → 200 queued → in_progress → success | failure
 *   (`./docs-api/previews.ts`).
 * Beyond the specs: a missing or wrong `Authorization: Bearer <key>` answers 401 `{"error": …}` (the
 * vendor's pages say a bad key answers 401; the specs declare no 401), an unknown project id answers
 * 404 `{"error": "Project not found"}`, unknown routes 404 and known routes with another method 405.
 *
 * Job status is computed lazily from the injected clock on every read (no timers), so tests can
 * drive it with `now: () => t`.
 *
 * The code lives in `./docs-api/`: `server.ts` (HTTP, auth, routing, request log, injected failures),
 * `agent-jobs.ts` (jobs and their runs), `query-params.ts` (analytics query checks), `visitors-route.ts`
 * and `visitors-data.ts` (the page catalogue, its deterministic daily visitors and views),
 * `signals-routes.ts` and `cursors.ts` (the cursor-paged endpoints), `searches-data.ts`,
 * `feedback-data.ts`, `assistant-data.ts` and `hostile-text.ts` (reader signals), `seed.ts` (seeded
 * randomness), `discovery-route.ts` (the discovery endpoints), `discovery-answer.ts` (the assistant's
 * answers and their stream), `discovery-pages.ts` (the docs it answers from) and
 * `discovery-validate.ts` (its request checks). This module is the stable entry point.
 */
export {
  defaultFakeOutcome,
  type FakeAgentJob,
  type FakeAgentJobBody,
  type FakeOutcome,
} from './docs-api/agent-jobs.js';
export { startFakeDocsApi } from './docs-api/server.js';
export type { FakeDocsApi, FakeDocsApiOptions, RecordedRequest } from './docs-api/types.js';
export { FAKE_DOC_PAGES, FAKE_NEW_PAGES, FAKE_NEW_PAGES_SINCE, type FakeVisitorRow } from './docs-api/visitors-data.js';
export {
  FAKE_ASSISTANT_KEY,
  FAKE_DOCS_DOMAIN,
  type FakeAssistantThread,
  type FakeDiscovery,
  type FakeDiscoveryOptions,
} from './docs-api/discovery-route.js';
export { FAKE_DISCOVERY_PAGES, type FakeDocPage } from './docs-api/discovery-pages.js';
export { NOT_FOUND_TEXT } from './docs-api/discovery-answer.js';
export { FAKE_DOCS_SITE, FAKE_RECURRING_UNANSWERED, type FakeConversation } from './docs-api/assistant-data.js';
export { CURSOR_REJECTED_DETAIL } from './docs-api/cursors.js';
export { type FakeFeedbackByPageRow, type FakeFeedbackEntry } from './docs-api/feedback-data.js';
export { HOSTILE_PATH, HOSTILE_TEXT } from './docs-api/hostile-text.js';
export {
  FAKE_BUILD_ERROR,
  FAKE_FILES_CHANGED,
  previewUrlOf,
  type FakeDeployment,
  type FakePlan,
  type FakePreviewsOptions,
} from './docs-api/previews.js';
export { FAKE_UNCLICKED_SEARCHES, type FakeSearchRow } from './docs-api/searches-data.js';
export { DEFAULT_CURSOR_TTL_MS } from './docs-api/server.js';
