import { Queue, type ConnectionOptions } from 'bullmq';

/** BullMQ queue of weekly visitor digests: one job scheduler per subscribed channel. */
export const DIGEST_QUEUE = 'send-digest';

/** Data of a digest job (set by the channel's job scheduler, or by `/docs-visitors digest`). */
export interface DigestJobData {
  teamId: string;
  channel: string;
  /** Who subscribed (or asked for a test delivery). */
  requestedBy: string;
  /** IANA time zone whose calendar days the digest covers (the schedule's); default DIGEST_TZ. */
  tz?: string;
  /** `scheduled` by the channel's job scheduler, or `manual` (`/docs-visitors digest`, Retry). Default `scheduled`. */
  trigger?: 'scheduled' | 'manual';
}

/** Creates the digest queue under `prefix` (QUEUE_PREFIX). */
export function createDigestQueue(connection: ConnectionOptions, prefix: string): Queue<DigestJobData> {
  return new Queue<DigestJobData>(DIGEST_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: {
      removeOnComplete: { age: 7 * 24 * 3600, count: 1000 },
      removeOnFail: { age: 30 * 24 * 3600 },
      attempts: 3,
      backoff: { type: 'exponential', delay: 30_000 },
    },
  });
}
