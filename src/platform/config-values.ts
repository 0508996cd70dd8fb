/**
 * The kinds of value the configuration's variables take (zod schemas for config.ts): durations in
 * ms, counts, flags, id lists, `host:port` lists and API URLs that carry a secret. Every problem
 * line names what is wrong without echoing the value.
 */
import { z } from 'zod';

/** A whole, positive number of milliseconds; `def` when unset. */
export const intMs = (def: number) =>
  z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .positive('must be greater than 0')
    .default(def);

/**
 * SHUTDOWN_DRAIN_MS: 0–20000 ms; unset: its mode's default (shutdown.ts `shutdownDrainMs`). At most
 * 20 s, so the drain and the 9 s stop after it fit in Kubernetes' default 30 s grace period.
 */
export const drainMs = z.coerce
  .number({ message: 'must be a whole number of milliseconds (0–20000)' })
  .int('must be a whole number of milliseconds (0–20000)')
  .min(0, 'must be a whole number of milliseconds (0–20000)')
  .max(20_000, 'must be at most 20000 (with the 9 s stop after it, within 30 s)')
  .optional();

/**
 * A comma-separated list of ids, each matching `item` (spaces around commas allowed, empty entries
 * and repeats dropped; unset: none). The list parser of this schema (Slack ids, project ids, hosts);
 * SLACK_INSTALL_ALLOWLIST has its own (install-allowlist.ts: bad entries named by place).
 * @param message - the whole problem line after the variable's name (never echoes the value).
 */
export const idList = (item: RegExp, message: string) =>
  z
    .string()
    .default('')
    .transform((v) => [
      ...new Set(
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ])
    .refine((ids) => ids.every((id) => item.test(id)), message);

/** Hosts a plain-http URL may name: the loopback interface only (the local fakes, a sidecar proxy). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True when `url` is https://, or http:// to a loopback host (127.0.0.0/8, ::1, localhost). */
function isSecureOrLoopback(url: string): boolean {
  const u = new URL(url);
  if (u.protocol === 'https:') return true;
  if (u.protocol !== 'http:') return false;
  return LOOPBACK_HOSTS.has(u.hostname) || /^127(\.\d{1,3}){3}$/.test(u.hostname);
}

/**
 * An API base URL that carries a secret (the docs API key, the Slack token): https:// only, or
 * http:// to a loopback host, so a misconfiguration never sends the secret in cleartext. The
 * problem line never echoes the value.
 */
export const apiUrl = (def: string) =>
  z
    .url({ message: 'must be a URL' })
    .refine(
      isSecureOrLoopback,
      'must be an https:// URL (http:// only to a loopback host such as 127.0.0.1 or localhost)',
    )
    .default(def);

/** `true` or `false`; false when unset. */
export const flag = z
  .enum(['true', 'false'], { message: 'must be true or false' })
  .default('false')
  .transform((v) => v === 'true');

/**
 * A comma-separated list of `host:port` (Sentinels or Cluster seed nodes), ports 1–65535 (the
 * alternation: 1–9999, 10000–59999, 60000–64999, 65000–65499, 65500–65529, 65530–65535).
 */
export const hostPorts = idList(
  /^[A-Za-z0-9_.-]+:([1-9]\d{0,3}|[1-5]\d{4}|6[0-4]\d{3}|65[0-4]\d{2}|655[0-2]\d|6553[0-5])$/,
  'must be comma-separated host:port pairs (ports 1–65535)',
);

/** A whole, positive count; `def` when unset. */
export const count = (def: number) =>
  z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .positive('must be greater than 0')
    .default(def);

/**
 * The bytes of an installation key: 32 bytes given as 64 hex digits or base64 (44 characters with
 * padding); undefined for anything else.
 */
export function installationKeyBytes(v: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(v)) {
    const b = Buffer.from(v, 'base64');
    return b.length === 32 ? b : undefined;
  }
  return undefined;
}

/** An AES-256 key for installations at rest: 32 bytes, hex or base64 (e.g. `openssl rand -base64 32`); unset allowed. */
export const installationKey = z
  .string()
  .refine(
    (v) => installationKeyBytes(v) !== undefined,
    'must be 32 random bytes as 64 hex digits or base64 (e.g. openssl rand -base64 32)',
  )
  .optional();

/** `VARIABLE`, or `VARIABLE: T0B.projects` for a problem inside a structured value (DOCS_WORKSPACE_PROJECTS). */
export function issuePath(path: readonly PropertyKey[]): string {
  const [head, ...rest] = path.map(String);
  return rest.length ? `${head}: ${rest.join('.')}` : (head ?? 'config');
}
