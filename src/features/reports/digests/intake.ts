/**
 * What the digests listeners record before they ack: the intake kinds, each with its payload's
 * schema and version; the handlers take them from the intake, typed from these schemas.
 */
import { z } from 'zod';
import { intakeKind } from '../../../platform/intake.js';

/** Retry on a failed digest, recorded. */
export interface DigestRetryIntake {
  /** The button's signed value: the digest's workspace and channel (absent in version 1 records: refused). */
  value?: string | undefined;
  teamId: string;
  channel: string;
  user: string;
  /** The failure notice, edited to say the digest is on its way. */
  ts?: string;
  responseUrl?: string;
}

const retrySchema: z.ZodType<DigestRetryIntake> = z.looseObject({
  value: z.string().optional(),
  teamId: z.string(),
  channel: z.string(),
  user: z.string(),
  ts: z.string().optional(),
  responseUrl: z.string().optional(),
});

/**
 * Kinds of intake the digests feature handles. `digests.retry` is version 2: its `value` must be
 * checked (a replica of version 1 would queue the digest without it).
 */
export const INTAKE = { retry: intakeKind('digests.retry', retrySchema, { awaited: true, version: 2 }) };
