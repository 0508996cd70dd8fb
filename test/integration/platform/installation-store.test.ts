import type { Installation } from '@slack/bolt';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlatformErrorCode } from '../../../src/platform/errors.js';
import { InstallationError, logKeyRotation, RedisInstallationStore } from '../../../src/platform/installation-store.js';
import { KeyRing, keyId } from '../../../src/platform/sealed-box.js';
import { arrayLogger } from '../../helpers/logs.js';
import { dropPrefix, randomPrefix, testRedis } from '../../helpers/redis.js';
import { rejectionOf } from '../../helpers/rejection.js';

const redis = testRedis();
const KEY = Buffer.alloc(32, 1).toString('base64');
const OTHER_KEY = Buffer.alloc(32, 2).toString('hex');
let prefix: string;

beforeEach(() => {
  prefix = randomPrefix();
});
afterEach(async () => {
  await dropPrefix(redis, prefix);
});
afterAll(() => redis.disconnect());

/** A workspace install as Bolt's InstallProvider stores it (oauth.v2.access), on a Grid org. */
const workspaceInstall: Installation<'v2', false> = {
  team: { id: 'T0A', name: 'Team A' },
  enterprise: { id: 'E0ORG', name: 'Org' },
  user: { id: 'U0ADMIN', token: 'xoxp-user-secret-1', scopes: ['chat:write'] },
  bot: { token: 'xoxb-bot-secret-A', scopes: ['chat:write', 'commands'], id: 'B0BOT', userId: 'U0BOT' },
  tokenType: 'bot',
  isEnterpriseInstall: false,
  appId: 'A0APP',
  authVersion: 'v2',
};

/** An org-wide install: no team, the enterprise id is the key. */
const orgInstall: Installation<'v2', true> = {
  team: undefined,
  enterprise: { id: 'E0ORG', name: 'Org' },
  user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
  bot: { token: 'xoxb-bot-secret-ORG', scopes: ['chat:write'], id: 'B0BOT', userId: 'U0BOT' },
  tokenType: 'bot',
  isEnterpriseInstall: true,
  appId: 'A0APP',
  authVersion: 'v2',
};

/** SLACK_INSTALL_ALLOWLIST: the org E0ORG (so its workspace T0A too) and the workspace T0B. */
const ALLOW = new Set(['E0ORG', 'T0B']);
const store = (ring = new KeyRing(KEY), allow: ReadonlySet<string> = ALLOW) =>
  new RedisInstallationStore(redis, prefix, ring, allow);
const teamQuery = { teamId: 'T0A', enterpriseId: 'E0ORG', isEnterpriseInstall: false } as const;
const orgQuery = { teamId: undefined, enterpriseId: 'E0ORG', isEnterpriseInstall: true } as const;

async function failure(p: Promise<unknown>): Promise<InstallationError> {
  return rejectionOf(p, InstallationError);
}

/** The test Redis, each GET of which is followed, before its answer returns, by `after` (another request's write landing right after the read). */
function writesAfterGet(after: () => Promise<unknown>): typeof redis {
  return new Proxy(redis, {
    get(target, prop) {
      if (prop === 'get')
        return async (k: string) => {
          const v = await target.get(k);
          await after();
          return v;
        };
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('RedisInstallationStore on real Redis', () => {
  it('round-trips a workspace install (by team) and an org-wide install (by enterprise), side by side', async () => {
    const s = store();
    await s.storeInstallation(workspaceInstall);
    await s.storeInstallation(orgInstall);
    expect(await s.fetchInstallation(teamQuery)).toEqual(workspaceInstall);
    expect(await s.fetchInstallation(orgQuery)).toEqual(orgInstall);
    expect((await redis.keys(`${prefix}:*`)).sort()).toEqual([
      `${prefix}:installations:enterprise:E0ORG`,
      `${prefix}:installations:team:T0A`,
    ]);
  });

  it('keeps no token (nor any of the installation in clear) in Redis', async () => {
    await store().storeInstallation(workspaceInstall);
    await store().storeInstallation(orgInstall);
    for (const k of await redis.keys(`${prefix}:*`)) {
      const raw = (await redis.get(k)) ?? '';
      expect(raw).toMatch(/"kid":"[0-9a-f]{8}"/);
      for (const text of ['xoxb-', 'xoxp-', 'secret', 'Team A', 'U0BOT', 'token']) expect(raw).not.toContain(text);
    }
  });

  it('seals each write with a fresh IV: the same installation twice is stored differently', async () => {
    await store().storeInstallation(workspaceInstall);
    const first = await redis.get(`${prefix}:installations:team:T0A`);
    await store().storeInstallation(workspaceInstall);
    expect(await redis.get(`${prefix}:installations:team:T0A`)).not.toBe(first);
  });

  it('a bot without the key cannot read it: installation_key_unknown, naming no token or key', async () => {
    await store().storeInstallation(workspaceInstall);
    const err = await failure(store(new KeyRing(OTHER_KEY)).fetchInstallation(teamQuery));
    expect(err.code).toBe(PlatformErrorCode.InstallationKeyUnknown);
    expect(err.message).toContain('team:T0A');
    for (const secret of ['xoxb-', KEY, OTHER_KEY]) expect(err.message).not.toContain(secret);
  });

  it('refuses a tampered record, and a record moved to another workspace: installation_unreadable', async () => {
    await store().storeInstallation(workspaceInstall);
    const key = `${prefix}:installations:team:T0A`;
    const sealed = JSON.parse((await redis.get(key)) ?? '{}') as { data: string };
    const bytes = Buffer.from(sealed.data, 'base64');
    bytes[0] = bytes[0]! ^ 1;
    await redis.set(key, JSON.stringify({ ...sealed, data: bytes.toString('base64') }));
    expect((await failure(store().fetchInstallation(teamQuery))).code).toBe(PlatformErrorCode.InstallationUnreadable);

    await store().storeInstallation(workspaceInstall);
    await redis.copy(key, `${prefix}:installations:team:T0B`);
    const moved = await failure(
      store().fetchInstallation({ teamId: 'T0B', enterpriseId: undefined, isEnterpriseInstall: false }),
    );
    expect(moved.code).toBe(PlatformErrorCode.InstallationUnreadable);

    await redis.set(key, 'not json');
    expect((await failure(store().fetchInstallation(teamQuery))).code).toBe(PlatformErrorCode.InstallationUnreadable);
  });

  it('a key that is not 32 bytes (current or previous) is refused, and the message names neither key', () => {
    for (const ring of [() => new KeyRing('c2hvcnQta2V5'), () => new KeyRing(KEY, 'deadbeef')]) {
      const err = (() => {
        try {
          ring();
        } catch (e) {
          return e as Error;
        }
        return undefined;
      })();
      expect(err?.message).toBe('an installation key must be 32 bytes as hex or base64');
      expect(err?.message).not.toContain('c2hvcnQta2V5');
      expect(err?.message).not.toContain('deadbeef');
    }
  });

  it('rotation: the previous key still opens old records; storing again seals with the new key', async () => {
    await store(new KeyRing(KEY)).storeInstallation(workspaceInstall);
    const rotated = store(new KeyRing(OTHER_KEY, KEY));
    expect(await rotated.fetchInstallation(teamQuery)).toEqual(workspaceInstall);
    await rotated.storeInstallation(workspaceInstall);
    const raw = (await redis.get(`${prefix}:installations:team:T0A`)) ?? '';
    expect(JSON.parse(raw)).toMatchObject({ kid: keyId(Buffer.from(OTHER_KEY, 'hex')) });
    expect(await store(new KeyRing(OTHER_KEY)).fetchInstallation(teamQuery)).toEqual(workspaceInstall);
  });

  it('SLACK_INSTALL_ALLOWLIST: stores and gives only what it admits; an org-wide install only by its org', async () => {
    const outside: Installation<'v2', false> = { ...workspaceInstall, team: { id: 'T0C' }, enterprise: undefined };
    const notAllowed = await failure(store().storeInstallation(outside));
    expect(notAllowed.code).toBe(PlatformErrorCode.InstallationNotAllowed);
    expect(notAllowed.message).toBe('installation team:T0C is of a workspace or org not in SLACK_INSTALL_ALLOWLIST');
    expect(await redis.keys(`${prefix}:*`)).toEqual([]);
    // A workspace listed does not admit its org's org-wide install.
    const byTeam = store(new KeyRing(KEY), new Set(['T0A']));
    expect((await failure(byTeam.storeInstallation(orgInstall))).code).toBe(PlatformErrorCode.InstallationNotAllowed);
    await byTeam.storeInstallation(workspaceInstall);
    expect(await byTeam.fetchInstallation(teamQuery)).toEqual(workspaceInstall);
    // Its id removed from the list: refused at use, and kept.
    await store().storeInstallation(orgInstall);
    const narrowed = store(new KeyRing(KEY), new Set(['T0B']));
    for (const q of [teamQuery, orgQuery]) {
      const err = await failure(narrowed.fetchInstallation(q));
      expect(err.code).toBe(PlatformErrorCode.InstallationNotAllowed);
      expect(err.message).not.toContain('xoxb-');
    }
    expect(await redis.keys(`${prefix}:*`)).toHaveLength(2);
  });

  it('rotation: a record read with the previous key is sealed again with the current one, once, with one info line', async () => {
    await store(new KeyRing(KEY)).storeInstallation(workspaceInstall);
    await store(new KeyRing(KEY)).storeInstallation(orgInstall);
    const { logger, lines } = arrayLogger('info');
    const rotated = new RedisInstallationStore(redis, prefix, new KeyRing(OTHER_KEY, KEY), ALLOW, logger);
    const kid = async (slot: string) =>
      (JSON.parse((await redis.get(`${prefix}:installations:${slot}`)) ?? '{}') as { kid?: string }).kid;
    expect(await rotated.fetchInstallation(teamQuery)).toEqual(workspaceInstall);
    expect(await rotated.fetchInstallation(teamQuery)).toEqual(workspaceInstall);
    expect(await kid('team:T0A')).toBe(keyId(Buffer.from(OTHER_KEY, 'hex')));
    // Not read yet: still under the previous key, which the operator's check finds.
    expect(await kid('enterprise:E0ORG')).toBe(keyId(Buffer.from(KEY, 'base64')));
    expect(lines).toMatchObject([
      { level: 30, msg: 'installation sealed again with the current SLACK_INSTALLATION_KEY', installation: 'team:T0A' },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/xoxb-|xoxp-/);
    // Without the previous key, the record read since still opens.
    expect(await store(new KeyRing(OTHER_KEY)).fetchInstallation(teamQuery)).toEqual(workspaceInstall);
  });

  it('rotation: a record stored again while it was being read (a token refresh) is not overwritten with the old one', async () => {
    await store(new KeyRing(KEY)).storeInstallation(workspaceInstall);
    const refreshed = { ...workspaceInstall, bot: { ...workspaceInstall.bot!, token: 'xoxb-bot-secret-refreshed' } };
    const current = store(new KeyRing(OTHER_KEY));
    // Redis whose GET returns the record and then, before the re-seal, sees the refresh stored.
    const racing = writesAfterGet(() => current.storeInstallation(refreshed));
    const { logger, lines } = arrayLogger('info');
    const rotated = new RedisInstallationStore(racing, prefix, new KeyRing(OTHER_KEY, KEY), ALLOW, logger);
    expect(await rotated.fetchInstallation(teamQuery)).toEqual(workspaceInstall);
    expect(await current.fetchInstallation(teamQuery)).toEqual(refreshed);
    expect(lines).toEqual([]);
  });

  it('logs the key ids (never the keys) at start-up during a rotation, and nothing otherwise', () => {
    const { logger, lines } = arrayLogger('info');
    logKeyRotation(new KeyRing(KEY), logger);
    expect(lines).toEqual([]);
    logKeyRotation(new KeyRing(OTHER_KEY, KEY), logger);
    expect(lines).toMatchObject([
      {
        level: 30,
        currentKeyId: keyId(Buffer.from(OTHER_KEY, 'hex')),
        previousKeyId: keyId(Buffer.from(KEY, 'base64')),
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain(KEY);
    expect(JSON.stringify(lines)).not.toContain(OTHER_KEY);
  });

  it('an uninstall older than the record keeps it (a reinstall); one newer, or a record without storedAt, deletes it', async () => {
    const now = 1_800_000_000_000;
    const s = new RedisInstallationStore(redis, prefix, new KeyRing(KEY), ALLOW, undefined, () => now);
    await s.storeInstallation(workspaceInstall);
    // Asked to delete what was stored up to a second before the record: kept, and still given.
    expect(await s.removeInstallation(teamQuery, now - 1_000)).toBe('reinstalled');
    expect(await s.fetchInstallation(teamQuery)).toEqual(workspaceInstall);
    // Up to the record's own time, or later: deleted.
    expect(await s.removeInstallation(teamQuery, now)).toBe('deleted');
    expect(await s.removeInstallation(teamQuery, now)).toBe('absent');
    // A record written before storedAt was kept (by an older replica) counts as older than any uninstall.
    const key = `${prefix}:installations:team:T0A`;
    await redis.set(key, new KeyRing(KEY).seal(JSON.stringify(workspaceInstall), key));
    expect(await s.removeInstallation(teamQuery, 0)).toBe('deleted');
    // So does one this bot can't open (sealed with a key it no longer has).
    await store(new KeyRing(OTHER_KEY)).storeInstallation(workspaceInstall);
    expect(await s.removeInstallation(teamQuery, 0)).toBe('deleted');
    // Without a time, it deletes whatever is there.
    await s.storeInstallation(workspaceInstall);
    expect(await s.removeInstallation(teamQuery)).toBe('deleted');
  });

  it('a record that changes between the read and the delete is judged again: a reinstall is kept, a re-seal deleted, a delete meanwhile is absent', async () => {
    let now = 1_000;
    const current = new RedisInstallationStore(redis, prefix, new KeyRing(KEY), ALLOW, undefined, () => now);
    const reinstall = { ...workspaceInstall, bot: { ...workspaceInstall.bot!, token: 'xoxb-bot-secret-NEW' } };
    /** A store whose first read of the record is followed at once by `meanwhile` (another request's write). */
    const racing = (meanwhile: () => Promise<unknown>) => {
      let first = true;
      const client = writesAfterGet(async () => {
        if (first) await meanwhile();
        first = false;
      });
      return new RedisInstallationStore(client, prefix, new KeyRing(KEY), ALLOW);
    };
    const key = `${prefix}:installations:team:T0A`;

    // Stored at 1,000; the uninstall is of 2,000; the app is installed again at 3,000 while it runs.
    await current.storeInstallation(workspaceInstall);
    const reinstalling = racing(async () => ((now = 3_000), await current.storeInstallation(reinstall)));
    expect(await reinstalling.removeInstallation(teamQuery, 2_000)).toBe('reinstalled');
    expect(await current.fetchInstallation(teamQuery)).toEqual(reinstall);

    // The record is re-sealed meanwhile (same installation, same storedAt): still older, deleted.
    now = 1_000;
    await current.storeInstallation(workspaceInstall);
    const stored = (await redis.get(key))!;
    const { plain } = new KeyRing(KEY).open(stored, key) as { plain: string };
    const resealing = racing(() => redis.set(key, new KeyRing(KEY).seal(plain, key)));
    expect(await resealing.removeInstallation(teamQuery, 2_000)).toBe('deleted');
    expect(await redis.exists(key)).toBe(0);

    // A token Slack refused for good: deleted only while the record holds it, also when a reinstall lands meanwhile.
    await current.storeInstallation(workspaceInstall);
    expect(await current.removeInstallationHolding(teamQuery, 'xoxb-other')).toBe('reinstalled');
    const refusedToken = workspaceInstall.bot!.token;
    const reinstalledMeanwhile = racing(() => current.storeInstallation(reinstall));
    expect(await reinstalledMeanwhile.removeInstallationHolding(teamQuery, refusedToken)).toBe('reinstalled');
    expect(await current.fetchInstallation(teamQuery)).toEqual(reinstall);
    expect(await current.removeInstallationHolding(teamQuery, reinstall.bot.token)).toBe('deleted');

    // A record sealed with a key this bot lacks is kept by the token check (it can't say which token it holds).
    await store(new KeyRing(OTHER_KEY)).storeInstallation(workspaceInstall);
    expect(await current.removeInstallationHolding(teamQuery, refusedToken)).toBe('reinstalled');
    await redis.del(key);

    // tokens_revoked deletes it meanwhile: absent (and the uninstall goes on to remove the data).
    await current.storeInstallation(workspaceInstall);
    const revoking = racing(() => redis.del(key));
    expect(await revoking.removeInstallation(teamQuery, 2_000)).toBe('absent');
  });

  it('deletes one installation, leaving the other; a missing one is installation_not_found', async () => {
    const s = store();
    await s.storeInstallation(workspaceInstall);
    await s.storeInstallation(orgInstall);
    await s.deleteInstallation(teamQuery);
    expect((await failure(s.fetchInstallation(teamQuery))).code).toBe(PlatformErrorCode.InstallationNotFound);
    expect(await s.fetchInstallation(orgQuery)).toEqual(orgInstall);
    await s.deleteInstallation(teamQuery);
  });

  it('gives up (throws, so Slack sends the event again) when the record changes under every read', async () => {
    const current = store();
    await current.storeInstallation(workspaceInstall);
    let reads = 0;
    // A token refresh lands after each read.
    const churning = writesAfterGet(async () => {
      reads++;
      await current.storeInstallation(workspaceInstall);
    });
    const s = new RedisInstallationStore(churning, prefix, new KeyRing(KEY), ALLOW);
    await expect(s.removeInstallation(teamQuery, Date.now() + 60_000)).rejects.toThrow(
      'installation team:T0A kept changing while it was being removed; not removed',
    );
    expect(reads).toBe(3);
    expect(await current.fetchInstallation(teamQuery)).toEqual(workspaceInstall);
  });
});
