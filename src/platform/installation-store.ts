/**
 * OAuth mode's installations in Redis: Bolt's `InstallationStore` (`@slack/oauth`: storeInstallation,
 * fetchInstallation, deleteInstallation; docs.slack.dev bolt-js "Authenticating with OAuth"). A
 * workspace install is kept under `${QUEUE_PREFIX}:installations:team:<team id>`, an org-wide one
 * (`isEnterpriseInstall`) under `${QUEUE_PREFIX}:installations:enterprise:<enterprise id>`, each as
 * the installation's JSON sealed with AES-256-GCM (sealed-box.ts), so Redis never holds a token in
 * clear. Installing again (or Bolt's token rotation) overwrites the record. Only installations
 * SLACK_INSTALL_ALLOWLIST admits are stored or given (install-allowlist.ts).
 */
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import type { Redis } from 'ioredis';
import { PlatformErrorCode, type CodedError } from './errors.js';
import { installationAllowed, type InstallAllowlist } from './install-allowlist.js';
import type { Logger } from './logger.js';
import { installationSlotOf } from './request-context.js';
import type { KeyRing } from './sealed-box.js';
import { defineScript, type RedisScript } from './scripts.js';

type InstallationCode =
  | typeof PlatformErrorCode.InstallationNotFound
  | typeof PlatformErrorCode.InstallationNotAllowed
  | typeof PlatformErrorCode.InstallationKeyUnknown
  | typeof PlatformErrorCode.InstallationUnreadable;

/** Why an installation can't be given; the message names the workspace or org, never a token or key. */
export class InstallationError extends Error implements CodedError<InstallationCode> {
  constructor(
    readonly code: InstallationCode,
    readonly installation: string,
  ) {
    const why = {
      [PlatformErrorCode.InstallationNotFound]: 'is not stored (the app is not installed there)',
      [PlatformErrorCode.InstallationNotAllowed]: 'is of a workspace or org not in SLACK_INSTALL_ALLOWLIST',
      [PlatformErrorCode.InstallationKeyUnknown]:
        'was sealed with a key this bot does not have (SLACK_INSTALLATION_KEY / _PREVIOUS)',
      [PlatformErrorCode.InstallationUnreadable]: 'does not open with its key (tampered, moved or malformed)',
    }[code];
    super(`installation ${installation} ${why}`);
    this.name = 'InstallationError';
  }
}

/**
 * Where an installation or query is kept: the org for an org-wide install, else the workspace
 * (request-context's installationSlotOf, the one rule).
 */
function slot(q: {
  isEnterpriseInstall?: boolean;
  enterpriseId?: string | undefined;
  teamId?: string | undefined;
}): string {
  const found = installationSlotOf({
    ...(q.teamId ? { teamId: q.teamId } : {}),
    ...(q.enterpriseId ? { enterpriseId: q.enterpriseId } : {}),
    enterpriseInstall: q.isEnterpriseInstall === true,
  });
  if (found) return found;
  throw new InstallationError(PlatformErrorCode.InstallationNotFound, 'without a team or enterprise id');
}

/** KEYS[1] the record, ARGV[1] what was read: 1 deleted (it was unchanged), 0 changed meanwhile (kept), -1 gone meanwhile. */
const DELETE_UNCHANGED_LUA = `local v = redis.call('GET', KEYS[1])
if not v then return -1 end
if v == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Reads of a record that keeps changing under an uninstall before it gives up (the event is then redelivered). */
const REMOVAL_TRIES = 3;

/**
 * What {@link RedisInstallationStore.removeInstallation} (and `removeInstallationHolding`) found:
 * the record `deleted`, none there (`absent`), or one kept (`reinstalled`: stored after the cutoff,
 * or, for `removeInstallationHolding`, holding another token or unreadable).
 */
export type RemovalOutcome = 'deleted' | 'absent' | 'reinstalled';

/** The record as sealed: the installation and when this store wrote it (epoch ms; absent in records of versions without it). */
type StoredInstallation = Installation<'v1' | 'v2', boolean> & { storedAt?: number };

/** KEYS[1] the record, ARGV[1] what was read, ARGV[2] its new seal: replaced only if unchanged (a store meanwhile wins). */
const RESEAL_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end return 0`;

/**
 * OAuth mode's start-up line during a key rotation (SLACK_INSTALLATION_KEY_PREVIOUS set): the ids
 * of both keys (never the keys), so the operator can check which records are still under the
 * previous one (docs/operations.md, "Rotating the installation key"). Nothing outside a rotation.
 */
export function logKeyRotation(keys: KeyRing, logger: Pick<Logger, 'info'>): void {
  const { current, previous } = keys.ids;
  if (previous)
    logger.info(
      { currentKeyId: current, previousKeyId: previous },
      'installation key rotation: installations under the previous key are sealed again with the current one when next read',
    );
}

/** Who an installation is for, from the installation itself (its workspace, org, org-wide or not). */
const idsOf = (i: Installation<'v1' | 'v2', boolean>) => ({
  teamId: i.team?.id,
  enterpriseId: i.enterprise?.id,
  isEnterpriseInstall: i.isEnterpriseInstall === true,
});

/**
 * Bolt's installation store on Redis, sealed with the {@link KeyRing} of
 * SLACK_INSTALLATION_KEY(_PREVIOUS), holding and giving only the installations `allow`
 * (SLACK_INSTALL_ALLOWLIST) admits.
 */
export class RedisInstallationStore implements InstallationStore {
  private readonly reseal: RedisScript;
  private readonly deleteUnchanged: RedisScript;

  /**
   * @param logger - where a record re-sealed with the current key is told (one info line).
   * @param now - clock, epoch ms: a record's `storedAt`.
   */
  constructor(
    private readonly redis: Pick<Redis, 'get' | 'set' | 'del' | 'defineCommand'>,
    private readonly prefix: string,
    private readonly keys: KeyRing,
    private readonly allow: InstallAllowlist,
    private readonly logger?: Pick<Logger, 'info' | 'warn'>,
    private readonly now: () => number = Date.now,
  ) {
    this.reseal = defineScript(redis, 'ResealInstallation', 1, RESEAL_LUA);
    this.deleteUnchanged = defineScript(redis, 'DeleteInstallationUnchanged', 1, DELETE_UNCHANGED_LUA);
  }

  private key(s: string): string {
    return `${this.prefix}:installations:${s}`;
  }

  /**
   * Stores (or replaces) an installation, sealed with the current key, with the time it was stored
   * (`storedAt`, epoch ms: an uninstall older than it leaves it alone). @throws Redis errors;
   * InstallationError: `installation_not_found` when it names neither team nor enterprise,
   * `installation_not_allowed` when SLACK_INSTALL_ALLOWLIST does not admit it (the install callback
   * refuses it first: slack/install-refusal.ts).
   */
  async storeInstallation<V extends 'v1' | 'v2'>(installation: Installation<V, boolean>): Promise<void> {
    const ids = idsOf(installation);
    const s = slot(ids);
    if (!installationAllowed(this.allow, ids)) throw new InstallationError(PlatformErrorCode.InstallationNotAllowed, s);
    const key = this.key(s);
    const stored: StoredInstallation = { ...installation, storedAt: this.now() };
    await this.redis.set(key, this.keys.seal(JSON.stringify(stored), key));
  }

  /**
   * The installation a request belongs to (Bolt's `authorize` asks with the request's team,
   * enterprise and `isEnterpriseInstall`), when SLACK_INSTALL_ALLOWLIST admits it: judged on the
   * stored installation's own workspace and org, so one stored before the list was set, or whose
   * id was removed from it since, is refused (and kept: adding the id back restores it). A record
   * sealed with SLACK_INSTALLATION_KEY_PREVIOUS is sealed again with the current key (unless it
   * changed meanwhile), best effort: one info line naming the record, or a warn line when Redis fails.
   * @throws InstallationError: `installation_not_found`, `installation_not_allowed`,
   *   `installation_key_unknown`, `installation_unreadable`; Redis errors.
   */
  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation<'v1' | 'v2', boolean>> {
    const s = slot(query);
    const key = this.key(s);
    const stored = await this.redis.get(key);
    if (stored === null) throw new InstallationError(PlatformErrorCode.InstallationNotFound, s);
    const opened = this.keys.open(stored, key);
    if ('failure' in opened)
      throw new InstallationError(
        opened.failure === 'key_unknown'
          ? PlatformErrorCode.InstallationKeyUnknown
          : PlatformErrorCode.InstallationUnreadable,
        s,
      );
    if (opened.stale) await this.sealAgain(s, key, stored, opened.plain);
    // Bolt is given the installation as it was stored, without the store's own field.
    const { storedAt: _storedAt, ...installation } = JSON.parse(opened.plain) as StoredInstallation;
    if (!installationAllowed(this.allow, idsOf(installation)))
      throw new InstallationError(PlatformErrorCode.InstallationNotAllowed, s);
    return installation;
  }

  /** Replaces record `s` (read as `stored`) with `plain` sealed with the current key; never throws. */
  private async sealAgain(s: string, key: string, stored: string, plain: string): Promise<void> {
    try {
      if ((await this.reseal.run([key], [stored, this.keys.seal(plain, key)])) === 1)
        this.logger?.info({ installation: s }, 'installation sealed again with the current SLACK_INSTALLATION_KEY');
    } catch (err) {
      this.logger?.warn({ installation: s, err }, 'could not seal an installation again with the current key');
    }
  }

  /** Deletes the installation of a workspace or org (uninstall, tokens revoked); none is fine. @throws Redis errors. */
  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.removeInstallation(query);
  }

  /**
   * {@link deleteInstallation}, saying what it found: `absent` (an install SLACK_INSTALL_ALLOWLIST
   * refused was never stored), `deleted`, or, with `storedAfter` (epoch ms), `reinstalled` when the
   * record was stored after that time and so is kept (an uninstall event Slack redelivers after a
   * reinstall must not delete the new installation). A record without `storedAt` (written by a
   * version without it), or one this bot can't open, counts as older. With `storedAfter`, the
   * delete happens only if the record is still what was read: one that changed meanwhile (a
   * reinstall, a token refresh, a re-seal during a key rotation) is read and judged again, and one
   * deleted meanwhile (a `tokens_revoked` beside the `app_uninstalled`) is `absent`; without it,
   * whatever is there is deleted.
   * @throws Redis errors; with `storedAfter`, Error when the record changed under each of
   *   {@link REMOVAL_TRIES} reads.
   */
  async removeInstallation(query: InstallationQuery<boolean>, storedAfter?: number): Promise<RemovalOutcome> {
    if (storedAfter === undefined) return (await this.redis.del(this.key(slot(query)))) > 0 ? 'deleted' : 'absent';
    return this.removeUnless(query, (r) => typeof r?.storedAt === 'number' && r.storedAt > storedAfter);
  }

  /**
   * Deletes the installation only while it holds the bot token `token` (Slack refused that token
   * for good): one that holds another (a reinstall) or can't be opened is kept (`reinstalled`).
   * The same compare-and-delete as {@link removeInstallation}. @throws as it does.
   */
  async removeInstallationHolding(query: InstallationQuery<boolean>, token: string): Promise<RemovalOutcome> {
    return this.removeUnless(query, (r) => r?.bot?.token !== token);
  }

  /**
   * Deletes record `query` unless `keep` says so of it (given undefined when it can't be opened):
   * read, judged, and deleted only if still what was read; read again when it changed meanwhile.
   */
  private async removeUnless(
    query: InstallationQuery<boolean>,
    keep: (record: StoredInstallation | undefined) => boolean,
  ): Promise<RemovalOutcome> {
    const key = this.key(slot(query));
    for (let i = 0; i < REMOVAL_TRIES; i++) {
      const stored = await this.redis.get(key);
      if (stored === null) return 'absent';
      const opened = this.keys.open(stored, key);
      if (keep('failure' in opened ? undefined : recordOf(opened.plain))) return 'reinstalled';
      const deleted = await this.deleteUnchanged.run([key], [stored]);
      if (deleted === 1) return 'deleted';
      if (deleted === -1) return 'absent';
    }
    throw new Error(`installation ${slot(query)} kept changing while it was being removed; not removed`);
  }
}

/** A record as stored (its `storedAt` unchecked: the caller tests its type), or undefined when it is not JSON. */
function recordOf(plain: string): StoredInstallation | undefined {
  try {
    return JSON.parse(plain) as StoredInstallation;
  } catch {
    return undefined;
  }
}
