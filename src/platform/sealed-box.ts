/**
 * Encryption at rest for small records (OAuth installations): AES-256-GCM from `node:crypto`, a
 * random 12-byte IV per seal (NIST SP 800-38D's recommended IV length), the 16-byte tag checked on
 * open. A sealed record names the id of its key (the first 8 hex digits of the key's SHA-256, never
 * the key), so a key ring of the current key and a previous one opens records of either while a
 * rotation is under way (docs/operations.md, "Rotating the installation key"). `aad` binds a record
 * to where it is kept (its Redis key): a record copied elsewhere does not open.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { installationKeyBytes } from './config-values.js';

/** A sealed record as stored (JSON): version, key id, IV, tag and ciphertext in base64. */
interface Sealed {
  v: 1;
  kid: string;
  iv: string;
  tag: string;
  data: string;
}

/** Why a record does not open: its key is not in the ring, or it fails authentication / is malformed. */
type OpenFailure = 'key_unknown' | 'unreadable';

/** The id a record names its key by: the first 8 hex digits of SHA-256(key). */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** The current key (seals and opens) and, during a rotation, the previous one (opens only). */
export class KeyRing {
  private readonly keys = new Map<string, Buffer>();
  private readonly current: { id: string; key: Buffer };

  /**
   * @param current - SLACK_INSTALLATION_KEY: 32 bytes as hex or base64.
   * @param previous - SLACK_INSTALLATION_KEY_PREVIOUS, same form.
   * @throws Error when a key is not 32 bytes (the config schema refuses that first); the message names no key.
   */
  constructor(current: string, previous?: string) {
    const bytes = (v: string) => {
      const b = installationKeyBytes(v);
      if (!b) throw new Error('an installation key must be 32 bytes as hex or base64');
      return b;
    };
    const key = bytes(current);
    this.current = { id: keyId(key), key };
    if (previous !== undefined) this.keys.set(keyId(bytes(previous)), bytes(previous));
    this.keys.set(this.current.id, key);
  }

  /** Seals `plain` with the current key. @returns the stored form (JSON text, no plaintext in it). */
  seal(plain: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const sealed: Sealed = {
      v: 1,
      kid: this.current.id,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
    return JSON.stringify(sealed);
  }

  /** The ids of the current key and, during a rotation, the previous one (never the keys). */
  get ids(): { current: string; previous?: string } {
    const previous = [...this.keys.keys()].find((id) => id !== this.current.id);
    return { current: this.current.id, ...(previous ? { previous } : {}) };
  }

  /**
   * Opens a stored record. @returns the plaintext and whether it was sealed with the current key
   * (`stale`: with the previous one, so it should be sealed again), or why it does not open (never throws).
   */
  open(stored: string, aad: string): { plain: string; stale: boolean } | { failure: OpenFailure } {
    let sealed: Sealed;
    try {
      sealed = JSON.parse(stored) as Sealed;
    } catch {
      return { failure: 'unreadable' };
    }
    if (sealed?.v !== 1 || typeof sealed.kid !== 'string') return { failure: 'unreadable' };
    const key = this.keys.get(sealed.kid);
    if (!key) return { failure: 'key_unknown' };
    try {
      const tag = Buffer.from(sealed.tag, 'base64');
      if (tag.length !== 16) return { failure: 'unreadable' };
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'), { authTagLength: 16 });
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
      return { plain: plain.toString('utf8'), stale: sealed.kid !== this.current.id };
    } catch {
      return { failure: 'unreadable' };
    }
  }
}
