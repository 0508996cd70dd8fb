import type { KnownBlock } from '@slack/types';
import { z } from 'zod';
import { SLACK_LIMITS, truncate } from '../../../platform/slack/limits.js';
import { channelId, teamId } from '../../../platform/slack/payloads.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import { stateCodec } from '../signed-state.js';

/**
 * Retry on a digest that could not be built: the notice posted in the channel after the run's last
 * attempt, and what its button carries (signed: the workspace and the channel of the digest, so a
 * click from any other channel is refused).
 */

/** action_id of Retry on a digest that could not be built. */
export const ACTION_DIGEST_RETRY = 'visitors.digest.retry';
/** What Retry values are signed for (src/platform/slack/signed-value.ts). */
export const DIGEST_RETRY_PURPOSE = 'digests.retry';

/** Where the digest to try again goes. */
interface DigestRetryValue {
  teamId: string;
  channel: string;
}

/** A Retry's value on the wire ({@link stateCodec}). */
const codec = stateCodec<DigestRetryValue, { t: string; c: string }>({
  schema: z.object({ t: teamId, c: channelId }),
  toWire: (v) => ({ t: v.teamId, c: v.channel }),
  fromWire: (w) => ({ teamId: w.t, channel: w.c }),
});

/** The signed value of a Retry (≤ 100 chars; Slack: button value ≤ 2000). @throws Error past 2000 (never for Slack's ids). */
export function encodeDigestRetry(v: DigestRetryValue, signer: Pick<ValueSigner, 'sign'>): string {
  const value = codec.sign(v, DIGEST_RETRY_PURPOSE, signer);
  if (value === undefined) throw new Error('digest retry value too long for a button value');
  return value;
}

/**
 * Where a clicked Retry's digest goes, when the bot signed its value; else why not
 * (`unsigned`/`tampered`: not the bot's, e.g. a notice from before Retry values were signed, its
 * record with no value: the signature is checked first; `malformed`: unreadable).
 */
export function decodeDigestRetry(
  value: string | undefined,
  signer: Pick<ValueSigner, 'open'>,
): { ok: true; retry: DigestRetryValue } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' } {
  const opened = signer.open(DIGEST_RETRY_PURPOSE, value);
  if (!opened.ok) return opened;
  const retry = codec.decode(opened.payload);
  return retry ? { ok: true, retry } : { ok: false, reason: 'malformed' };
}

/**
 * The message posted when a digest run could not be built after its retries, with a Retry button
 * (its value: {@link encodeDigestRetry} of where the digest goes) that queues the digest again.
 */
export function buildDigestFailureMessage(
  reason: string,
  rangeLabel: string,
  retry: { value: DigestRetryValue; signer: Pick<ValueSigner, 'sign'> },
): { text: string; blocks: KnownBlock[] } {
  const text = `The weekly docs digest for ${rangeLabel} could not be built. ${reason}`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: truncate(`:warning: ${text}`, SLACK_LIMITS.sectionText) } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Retry' },
            action_id: ACTION_DIGEST_RETRY,
            value: encodeDigestRetry(retry.value, retry.signer),
          },
        ],
      },
    ],
  };
}
