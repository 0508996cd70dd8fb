import { z } from 'zod';

/**
 * Zod schemas of the docs API's response bodies, tolerant by design (spec: admin-openapi.json,
 * analytics.openapi.json, copied in test/fixtures/mintlify): unknown fields are ignored, fields the
 * spec leaves optional stay optional, `prLink`, `archivedAt` and `source.ref` may be null.
 */

/** Agent job statuses (spec: AgentJob.status). `active` is the only non-terminal one. */
const AGENT_JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
/** One of {@link AGENT_JOB_STATUSES}. */
export type AgentJobStatus = (typeof AGENT_JOB_STATUSES)[number];
/** A status after which the job will not change again (completed, archived, failed). */
export type TerminalStatus = Exclude<AgentJobStatus, 'active'>;

/** True when the spec says polling may stop ("Poll until status is completed, archived, or failed"). */
export function isTerminal(status: AgentJobStatus | undefined): status is TerminalStatus {
  return status === 'completed' || status === 'archived' || status === 'failed';
}

/** spec: components.schemas.AgentJob (no field is required by the spec). */
export const agentJobSchema = z.object({
  id: z.string().optional(),
  status: z.enum(AGENT_JOB_STATUSES).optional(),
  source: z.object({ repository: z.string().optional(), ref: z.string().nullable().optional() }).optional(),
  model: z.string().optional(),
  prLink: z.string().nullable().optional(),
  createdAt: z.string().optional(),
  archivedAt: z.string().nullable().optional(),
});
/** A parsed AgentJob; every field optional, as in the spec. */
export type AgentJob = z.output<typeof agentJobSchema>;

/**
 * spec: components.schemas.Error / AnalyticsErrorResponse (`error` text, optional `details`); the
 * discovery API answers `{message}` (discovery spec, 404 of /v1/page).
 */
export const apiErrorSchema = z.object({
  error: z.string().optional(),
  message: z.string().optional(),
  details: z.array(z.object({ message: z.string() })).optional(),
});

/** spec: VisitorsTrafficTotals — `total` is deduplicated, so it is not human + ai. */
const visitorsTotalsSchema = z.object({ human: z.number(), ai: z.number(), total: z.number() });

/** spec: VisitorsByPageResponse (GET /v1/analytics/{projectId}/visitors → 200). */
export const visitorsResponseSchema = z.object({
  totals: visitorsTotalsSchema,
  visitors: z.array(z.object({ path: z.string(), human: z.number(), ai: z.number(), total: z.number() })),
  hasMore: z.boolean(),
});
/** A parsed visitors page: `totals`, `visitors` rows in the API's order, `hasMore`. */
export type VisitorsResponse = z.output<typeof visitorsResponseSchema>;
