import { z } from 'zod';

/**
 * Zod schemas of the deployments API's answers (spec: deployments-openapi.json, copied in
 * test/fixtures/mintlify, composed from the vendor's openapi.json and its page api/preview/trigger),
 * tolerant like the rest: unknown fields ignored, every field the spec leaves optional optional.
 */

/** spec: POST /project/preview/{projectId} → 202 `{statusId, previewUrl}` (neither marked required). */
export const previewResponseSchema = z.object({
  statusId: z.string().optional(),
  previewUrl: z.string().optional(),
});
/** A parsed answer to a preview request. */
export type PreviewResponse = z.output<typeof previewResponseSchema>;

/** Update statuses (spec: GET /project/update-status/{statusId} → `status` enum). */
const UPDATE_STATUSES = ['queued', 'in_progress', 'success', 'failure'] as const;

const files = z.array(z.string()).optional();

/**
 * spec: GET /project/update-status/{statusId} → 200. A status outside the spec's enum reads as
 * undefined (still building, as far as the bot can tell), not as a broken answer.
 */
export const updateStatusSchema = z.object({
  _id: z.string().optional(),
  projectId: z.string().optional(),
  createdAt: z.string().optional(),
  endedAt: z.string().optional(),
  status: z.enum(UPDATE_STATUSES).optional().catch(undefined),
  summary: z.string().optional(),
  logs: z.array(z.string()).optional(),
  subdomain: z.string().optional(),
  screenshot: z.string().optional(),
  screenshotLight: z.string().optional(),
  screenshotDark: z.string().optional(),
  author: z.string().optional(),
  commit: z
    .object({
      sha: z.string().optional(),
      ref: z.string().optional(),
      message: z.string().optional(),
      filesChanged: z.object({ added: files, modified: files, removed: files }).optional(),
    })
    .optional(),
});
/** A parsed update (or preview) status; every field optional, as in the spec. */
export type UpdateStatus = z.output<typeof updateStatusSchema>;
