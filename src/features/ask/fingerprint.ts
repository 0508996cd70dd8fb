import { createHmac, hkdfSync } from 'node:crypto';

/**
 * The discovery API's `fp` ("fingerprint identifier for tracking conversation sessions") of a
 * person: HMAC-SHA256 of `team:user` under a key derived (HKDF-SHA256) from the bot's signing
 * secret (SLACK_SIGNING_SECRET, else SLACK_APP_TOKEN), in base64url. Stable across replicas and
 * restarts, the same person in every conversation, and never the Slack id itself.
 * @throws Error when `secret` is empty.
 */
export function fingerprinter(secret: string): (teamId: string, user: string) => string {
  if (!secret) throw new Error('a fingerprint key needs a non-empty secret');
  const key = Buffer.from(hkdfSync('sha256', secret, 'docs-agent-slack', 'ask-fingerprint/v1', 32));
  return (teamId, user) => createHmac('sha256', key).update(`${teamId}:${user}`).digest('base64url');
}
