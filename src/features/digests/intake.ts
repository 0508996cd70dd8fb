/**
 * What the digests listeners record before they ack: the intake kinds, each with its payload's
 * schema and version; the handlers take them from the intake, typed from these schemas.
 */
import { z } from 'zod';
import { intakeKind } from '../../platform/intake.js';

/** Retry on a failed digest, recorded. */
export interface DigestRetryIntake {
  teamId: string;
  channel: string;
  user: string;
  /** The failure notice, edited to say the digest is on its way. */
  ts?: string;
  responseUrl?: string;
}

const retrySchema: z.ZodType<DigestRetryIntake> = z.looseObject({
  teamId: z.string(),
  channel: z.string(),
  user: z.string(),
  ts: z.string().optional(),
  responseUrl: z.string().optional(),
});

/** Kinds of intake the digests feature handles. */
export const DIGESTS_INTAKE = { retry: intakeKind('digests.retry', retrySchema, { awaited: true }) };
