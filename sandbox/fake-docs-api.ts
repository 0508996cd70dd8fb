/**
 * A fake of the Mintlify docs API for tests and the local sandbox: agent jobs (admin API v2) and the
 * unique-visitors analytics endpoint, served by `node:http` on 127.0.0.1.
 *
 * Shapes and status codes follow the vendor specs copied to `test/fixtures/mintlify/`:
 * - admin-openapi.json (OpenAPI 3.0.1): POST /v2/agent/{projectId}/job → 201 AgentJob | 400 | 429;
 *   GET /v2/agent/{projectId}/job/{id} → 200 AgentJob | 404;
 *   POST /v2/agent/{projectId}/job/{id}/message → 200 AgentJob | 400 | 404 | 429.
 * - analytics.openapi.json (OpenAPI 3.1.0): GET /v1/analytics/{projectId}/visitors → 200
 *   VisitorsByPageResponse | 400 AnalyticsErrorResponse | 500.
 * Beyond the specs: a missing or wrong `Authorization: Bearer <key>` answers 401 `{"error": …}` (the
 * vendor's pages say a bad key answers 401; the specs declare no 401), an unknown project id answers
 * 404 `{"error": "Project not found"}`, unknown routes 404 and known routes with another method 405.
 *
 * Job status is computed lazily from the injected clock on every read (no timers), so tests can
 * drive it with `now: () => t`.
 *
 * The code lives in `./docs-api/`: `server.ts` (HTTP, auth, routing, request log, injected failures),
 * `agent-jobs.ts` (jobs and their runs), `visitors-route.ts` (the analytics query) and
 * `visitors-data.ts` (the page catalogue and its deterministic daily visitors). This module is the
 * stable entry point.
 */
export { defaultFakeOutcome, type FakeAgentJob, type FakeAgentJobBody, type FakeOutcome } from './docs-api/agent-jobs.js';
export { startFakeDocsApi } from './docs-api/server.js';
export type { FakeDocsApi, FakeDocsApiOptions, RecordedRequest } from './docs-api/types.js';
export { FAKE_DOC_PAGES, FAKE_NEW_PAGES, FAKE_NEW_PAGES_SINCE, type FakeVisitorRow } from './docs-api/visitors-data.js';
