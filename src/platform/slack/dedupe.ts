import type { Redis } from 'ioredis';

/** How long a seen event or message is remembered, in s (Slack retries within minutes; 24 h is ample). */
export const DEDUPE_TTL_S = 24 * 3600;

/**
 * Exactly-once guards for Slack's at-least-once delivery: Slack retries events
 * (`X-Slack-Retry-Num`) and sometimes redelivers the same message with a new `event_id`
 * (Slack Events API docs). Each claim is an atomic `SET NX EX` in Redis, so it holds across
 * restarts and replicas.
 */
export class Dedupe {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** @returns true the first time `eventId` is claimed, false for a retry or redelivery. */
  async claimEvent(eventId: string): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}:seen-event:${eventId}`, '1', 'EX', DEDUPE_TTL_S, 'NX')) === 'OK';
  }

  /** @returns true the first time the message `(channel, ts)` is claimed for action. */
  async claimMessage(channel: string, ts: string): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}:seen-message:${channel}:${ts}`, '1', 'EX', DEDUPE_TTL_S, 'NX')) === 'OK';
  }
}
