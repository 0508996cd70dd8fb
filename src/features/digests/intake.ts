/** What the digests listeners record before they ack (the intake kinds and their payloads); the handlers take them from the intake. */

/** Kinds of intake the digests feature handles. */
export const DIGESTS_INTAKE = { retry: 'digests.retry' } as const;

/** Retry on a failed digest, recorded. */
export interface DigestRetryIntake {
  teamId: string;
  channel: string;
  user: string;
  /** The failure notice, edited to say the digest is on its way. */
  ts?: string;
  responseUrl?: string;
}
