/**
 * The cursors of the fake's cursor-paged analytics endpoints (searches, feedback, assistant). The
 * spec only says a cursor is opaque (searches), a "Pagination cursor" (feedback) or a ULID
 * (assistant), and that a bad one is answered 400 (searches: "Invalid query parameters or cursor").
 * The fake keeps what each cursor it issued stands for, bound to the query it was issued for, and
 * forgets it after `ttlMs` (the vendor documents no lifetime; a finite one lets tests see a cursor
 * expire): an unknown, foreign or expired cursor is answered 400 with a `details` line.
 */
import { hash01 } from './seed.js';

/** The 400 detail of a cursor the fake does not accept. */
export const CURSOR_REJECTED_DETAIL = 'cursor is invalid or has expired; request the first page again';

interface Issued {
  /** Where the next page starts: an index into the endpoint's ordered rows. */
  position: number;
  /** Clock time of the last time this cursor was handed out, in ms. */
  issuedAt: number;
}

/** Issues and redeems cursors; one per fake server. */
export class CursorBook {
  private readonly issued = new Map<string, Issued>();

  constructor(private readonly ttlMs: number) {}

  /**
   * The opaque cursor of the page starting at `position` for `endpoint` and `fingerprint` (the query
   * but its cursor): the same query and position always give the same cursor, and handing it out
   * again renews its lifetime. `token` replaces the generated cursor (the assistant's is the ULID of
   * the last conversation on the page).
   */
  issue(endpoint: string, fingerprint: string, position: number, now: number, token?: string): string {
    const cursor = token ?? opaque(endpoint, fingerprint, position);
    this.issued.set(`${endpoint}\n${fingerprint}\n${cursor}`, { position, issuedAt: now });
    return cursor;
  }

  /** The position `cursor` stands for under this query; undefined when unknown, of another query or expired. */
  redeem(endpoint: string, fingerprint: string, cursor: string, now: number): number | undefined {
    const key = `${endpoint}\n${fingerprint}\n${cursor}`;
    const entry = this.issued.get(key);
    if (!entry) return undefined;
    if (now - entry.issuedAt > this.ttlMs) {
      this.issued.delete(key);
      return undefined;
    }
    return entry.position;
  }
}

/** A URL-safe token of 24 characters derived from the parts. */
function opaque(endpoint: string, fingerprint: string, position: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let out = '';
  for (let i = 0; i < 24; i++) out += alphabet[Math.floor(hash01(endpoint, fingerprint, position, i) * 64)];
  return out;
}
