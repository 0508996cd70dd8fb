import type { Logger } from './logger.js';

/**
 * Every `action` an audit line may carry (docs/operations.md#audit-trail lists exactly these;
 * test/unit/audit-docs.test.ts checks). The access gate's refusals carry its {@link AUDIT_ACTIONS}
 * `start_job` … `change_settings` (platform/access.ts `AccessAction`); the rest are written by the
 * features on success: `start_job` and `continue_job` by agent-jobs, `job.feedback` by its
 * feedback buttons, `preview.rebuild` (a follow-up's pull request rebuilt the preview: the actor is
 * the follow-up's author) and `preview.fix` ("Ask the agent to fix the build") by its previews, `settings.project` / `settings.followups` (/docs-settings) and
 * `settings.edit` (the settings modal) by settings, `digest.*` by digests.
 */
export const AUDIT_ACTIONS = [
  'start_job',
  'continue_job',
  'manage_digests',
  'read_reports',
  'view_settings',
  'change_settings',
  'ask',
  'job.feedback',
  'preview.rebuild',
  'preview.fix',
  'ask.feedback',
  'ask.experts',
  'settings.project',
  'settings.followups',
  'settings.mentions',
  'settings.answer-all',
  'settings.scope',
  'settings.experts',
  'settings.edit',
  'digest.subscribe',
  'digest.reschedule',
  'digest.unsubscribe',
] as const;

/** What an audit line says was attempted. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Every `reason` an audit line may carry: the access gate's refusals (platform/access.ts
 * `RefusalReason`), a follow-up refused because its author can't see a conversation the job's
 * context came from (`not_a_reader`), the settings admin check (`not_admin`, `check_failed`), and
 * the membership re-check of forms and buttons (`not_a_member`, `membership_busy`, `members_unknown`,
 * `check_failed`).
 */
export const AUDIT_REASONS = [
  'guest',
  'external',
  'not_a_person',
  'not_allowed_user',
  'not_allowed_channel',
  'not_admin',
  'check_failed',
  'user_budget',
  'project_budget',
  'prompt_too_long',
  'project_not_allowed',
  'not_a_reader',
  'not_a_member',
  'membership_busy',
  'members_unknown',
  'workspace_budget',
] as const;

/** Why an audit line's action was refused or failed. */
export type AuditReason = (typeof AUDIT_REASONS)[number];

/** One audit event: who did what where, and how it ended. */
interface AuditEvent {
  /** Slack user id of the person acting. */
  actor: string;
  /** Channel id (or DM id) it happened in. */
  channel: string;
  /** What was attempted (see {@link AUDIT_ACTIONS}). */
  action: AuditAction;
  /** `ok`, `refused` or `failed`; settings changes say `changed`, `unchanged` or `error`. */
  outcome: 'ok' | 'refused' | 'failed' | 'changed' | 'unchanged' | 'error';
  /** For refusals and errors: why (see {@link AUDIT_REASONS}). */
  reason?: AuditReason;
  /** Any other non-secret facts (job id, project, instruction length). Never message text. */
  [key: string]: unknown;
}

/**
 * Writes one JSON log line with `audit: true` (pino, level info), so an operator can ship and
 * query the trail (`jq 'select(.audit)'`). Instruction text is never included, only its length.
 * `action` and `reason` take only the values of {@link AUDIT_ACTIONS} and {@link AUDIT_REASONS}.
 */
export function audit(logger: Logger, event: AuditEvent): void {
  logger.info({ audit: true, ...event }, `audit ${event.action} ${event.outcome}`);
}
