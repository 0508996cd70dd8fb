import type { Logger } from './logger.js';

/** One audit event: who did what where, and how it ended. */
export interface AuditEvent {
  /** Slack user id of the person acting. */
  actor: string;
  /** Channel id (or DM id) it happened in. */
  channel: string;
  /** What was attempted: `job.start`, `job.followup`, `settings.change`, `digest.subscribe`, … */
  action: string;
  /** `ok`, `refused` or `failed`; settings changes say `changed`, `unchanged` or `error`. */
  outcome: 'ok' | 'refused' | 'failed' | 'changed' | 'unchanged' | 'error';
  /** For refusals: why (see RefusalReason); for failures: a short code. */
  reason?: string;
  /** Any other non-secret facts (job id, project, instruction length). Never message text. */
  [key: string]: unknown;
}

/**
 * Writes one JSON log line with `audit: true` (pino, level info), so an operator can ship and
 * query the trail (`jq 'select(.audit)'`). Instruction text is never included, only its length.
 */
export function audit(logger: Logger, event: AuditEvent): void {
  logger.info({ audit: true, ...event }, `audit ${event.action} ${event.outcome}`);
}
