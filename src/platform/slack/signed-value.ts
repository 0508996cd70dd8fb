import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../logger.js';

/**
 * Signed values: what the bot puts in a button's `value` or a modal's `private_metadata` and reads
 * back later (a channel, a thread, a job id, a report's query) carries an HMAC, so a payload that
 * passed Slack's signature check but names something the bot never sent is refused.
 *
 * Wire form: `s1.<mac>.<payload>`: `mac` is the first 16 bytes of HMAC-SHA256(key, purpose NUL
 * payload) in base64url (22 chars), so a value signed for one purpose (a feedback button) is no
 * value of another (a settings form). {@link SIGNATURE_OVERHEAD} chars longer than the payload:
 * builders keep payloads within Slack's limits minus that (Slack: button `value` ≤ 2000 chars,
 * modal `private_metadata` ≤ 3000 chars; docs.slack.dev "Button element", "Modal views").
 *
 * The key is derived with HKDF-SHA256 from SLACK_SIGNING_SECRET, or in Socket Mode without a
 * signing secret from SLACK_APP_TOKEN ({@link signerFromConfig}): every replica derives the same key,
 * and rotating that secret makes the buttons and forms already out refuse every click or submission
 * ("run it again"; a posted message keeps its buttons).
 */

/** Characters a signed value adds to its payload (`s1.` + 22 + `.`). */
export const SIGNATURE_OVERHEAD = 26;

const VERSION = 's1.';
const MAC_BYTES = 16;
const MAC_CHARS = 22;
const HKDF_SALT = 'docs-agent-slack';
const HKDF_INFO = 'signed-values/v1';

/** What {@link ValueSigner.open} found: the payload, or why the value is not the bot's. */
type OpenedValue =
  | { ok: true; payload: string }
  /** `unsigned`: no signature (a message from before signing, or forged); `tampered`: one that does not match. */
  | { ok: false; reason: 'unsigned' | 'tampered' };

/** Signs and checks values the bot hands to Slack and reads back. Stateless; share one per process. */
export class ValueSigner {
  private constructor(private readonly key: Buffer) {}

  /**
   * A signer whose key is derived (HKDF-SHA256, 32 bytes) from `secret`.
   * @throws Error when `secret` is empty.
   */
  static fromSecret(secret: string): ValueSigner {
    if (!secret) throw new Error('a signing key needs a non-empty secret');
    return new ValueSigner(Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, HKDF_INFO, 32)));
  }

  /** `payload` signed for `purpose` (a short fixed name such as `agent-jobs.feedback`). */
  sign(purpose: string, payload: string): string {
    return `${VERSION}${this.mac(purpose, payload)}.${payload}`;
  }

  /** The payload of `value` when the bot signed it for `purpose`; never throws, whatever `value` is. */
  open(purpose: string, value: unknown): OpenedValue {
    if (typeof value !== 'string' || !value.startsWith(VERSION)) return { ok: false, reason: 'unsigned' };
    const mac = value.slice(VERSION.length, VERSION.length + MAC_CHARS);
    const payload = value.slice(SIGNATURE_OVERHEAD);
    if (value.charAt(VERSION.length + MAC_CHARS) !== '.') return { ok: false, reason: 'tampered' };
    // Compared as text: decoding would ignore the last character's spare bits and any stray character.
    const given = Buffer.from(mac, 'utf8');
    const expected = Buffer.from(this.mac(purpose, payload), 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'tampered' };
    return { ok: true, payload };
  }

  private mac(purpose: string, payload: string): string {
    const digest = createHmac('sha256', this.key).update(purpose).update('\0').update(payload).digest();
    return digest.subarray(0, MAC_BYTES).toString('base64url');
  }
}

/** What the key may come from (the config's SLACK_SIGNING_SECRET and SLACK_APP_TOKEN). */
interface SignerSecrets {
  SLACK_SIGNING_SECRET?: string | undefined;
  SLACK_APP_TOKEN?: string | undefined;
}

/**
 * The bot's signer: keyed from SLACK_SIGNING_SECRET when set, else (Socket Mode) from
 * SLACK_APP_TOKEN. The config schema requires one of them.
 * @throws Error when neither is set.
 */
export function signerFromConfig(config: SignerSecrets): ValueSigner {
  const secret = config.SLACK_SIGNING_SECRET || config.SLACK_APP_TOKEN;
  if (!secret) throw new Error('SLACK_SIGNING_SECRET or SLACK_APP_TOKEN is needed to sign button values');
  return ValueSigner.fromSecret(secret);
}

/**
 * The person's answer to a button or form whose value the bot did not sign (older than signing, or
 * changed on the way): nothing was done, and how to get a fresh one.
 * @param again - what to do, e.g. "run `/docs-settings` again".
 */
export function unverifiedValueText(again: string): string {
  const why = 'it is older than my last update, or it was changed on the way';
  return `I couldn't verify that button or form (${why}), so I did nothing. To try again, ${again}.`;
}

/** The warning logged for a value the bot did not sign (operators can search for it). */
const UNVERIFIED_LOG = 'refused a button or form value the bot did not sign';

/**
 * Logs a refused value at warn: where, and why (never the value: it may carry a channel's query).
 * `malformed`: the bot's signature, but a payload its reader can't use (a shape of an older version).
 */
export function warnUnverified(
  logger: Logger,
  purpose: string,
  reason: 'unsigned' | 'tampered' | 'malformed',
  extra: Record<string, unknown> = {},
): void {
  const msg = reason === 'malformed' ? 'refused a signed button or form value it could not read' : UNVERIFIED_LOG;
  logger.warn({ purpose, reason, ...extra }, msg);
}
