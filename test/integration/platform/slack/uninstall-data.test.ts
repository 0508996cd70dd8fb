import type { App, Installation } from '@slack/bolt';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postRaw, signatureHeaders } from '../../../../sandbox/driver/http.js';
import {
  removeInstallationSubscriptions,
  subscribeChannel,
  type DigestJobData,
} from '../../../../src/features/reports/digests/store.js';
import { createDigestQueue } from '../../../../src/features/reports/digests/worker.js';
import {
  createChannelSettings,
  forgetChannelSettings,
  SettingsStore,
} from '../../../../src/features/settings/index.js';
import { RedisInstallationStore } from '../../../../src/platform/installation-store.js';
import { createLogger } from '../../../../src/platform/logger.js';
import {
  currentInstallationSlot,
  withRequestContext,
  type InstallationRef,
} from '../../../../src/platform/request-context.js';
import { KeyRing } from '../../../../src/platform/sealed-box.js';
import type { UninstallHook } from '../../../../src/platform/uninstalls.js';
import { arrayLogger, type LogLine } from '../../../helpers/logs.js';
import { startOAuthApp, testOAuth } from '../../../helpers/oauth-app.js';
import { dropPrefix, randomPrefix, testRedis, TEST_REDIS_URL } from '../../../helpers/redis.js';

/**
 * OAuth mode's `app_uninstalled` on the bot's real receiver and Bolt app, with the features' own
 * removals (compose.ts' `onUninstalled`: channel settings, digest subscriptions) on real Redis: what
 * of one installation goes, and that nothing of another does.
 */

const redis = testRedis();
/** The channel settings' removal runs on this connection, which a test cuts to fail it mid-purge. */
const settingsRedis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
const prefix = randomPrefix();
const oauth = testOAuth(['T0A', 'T0B', 'T0AX', 'E0ORG']);
const SIGNING = 'uninstall-test-signing';
const config = { DOCS_PROJECT_ID: 'proj_a', DOCS_PROJECT_IDS: ['proj_a'], FOLLOWUP_POLICY: 'anyone' as const };
let app: App;
let base: string;
let store: RedisInstallationStore;
let queue: Queue<DigestJobData>;
const logs: LogLine[] = [];

beforeAll(async () => {
  const { logger } = arrayLogger('info', logs);
  store = new RedisInstallationStore(redis, prefix, new KeyRing(oauth.installationKey), oauth.installAllowlist);
  const slackApiUrl = 'http://127.0.0.1:9/api/';
  queue = createDigestQueue({ connection: { url: TEST_REDIS_URL }, prefix, logger: createLogger('silent') });
  // As compose.ts builds them.
  const onUninstalled: UninstallHook[] = [
    { what: 'channelSettings', forget: (slot) => forgetChannelSettings({ redis: settingsRedis, prefix }, slot) },
    { what: 'digestSubscriptions', forget: (slot) => removeInstallationSubscriptions(queue, slot) },
  ];
  ({ app, base } = await startOAuthApp({
    oauth,
    installationStore: store,
    slackApiUrl,
    signingSecret: SIGNING,
    logger,
    onUninstalled,
  }));
});
afterEach(async () => {
  if (settingsRedis.status === 'end') await settingsRedis.connect();
  await queue.obliterate({ force: true });
  await dropPrefix(redis, prefix);
  logs.length = 0;
});
afterAll(async () => {
  await app.stop();
  await queue.close();
  await dropPrefix(redis, prefix);
  settingsRedis.disconnect();
  redis.disconnect();
});

/** Who an event or a request comes through: a workspace install (of a Grid org or not) or an org-wide one. */
interface Through {
  teamId: string;
  enterpriseId?: string;
  enterpriseInstall: boolean;
}
const T0A: Through = { teamId: 'T0A', enterpriseInstall: false };
const T0B: Through = { teamId: 'T0B', enterpriseInstall: false };
/** T0AX: an id that starts with T0A's. */
const T0AX: Through = { teamId: 'T0AX', enterpriseInstall: false };
/** Workspace T0W of the Grid org E0ORG, through the org-wide install. */
const ORG: Through = { teamId: 'T0W', enterpriseId: 'E0ORG', enterpriseInstall: true };
/** Workspace T0G of E0ORG with a workspace install of its own. */
const GRID_WORKSPACE: Through = { teamId: 'T0G', enterpriseId: 'E0ORG', enterpriseInstall: false };

/**
 * A signed `event_callback` of `event`, authorized for `who` (Slack's envelope; `eventId` to
 * redeliver one, `eventTime` in epoch seconds: a retry carries its first delivery's).
 */
async function sendEvent(
  who: Through,
  event: Record<string, unknown>,
  eventId = `Ev${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
  eventTime: unknown = Math.floor(Date.now() / 1000),
) {
  const body = JSON.stringify({
    type: 'event_callback',
    team_id: who.teamId,
    api_app_id: 'A0APP',
    event_id: eventId,
    event_time: eventTime,
    event,
    authorizations: [
      {
        enterprise_id: who.enterpriseId ?? null,
        team_id: who.enterpriseInstall ? null : who.teamId,
        user_id: 'U0BOT',
        is_bot: true,
        is_enterprise_install: who.enterpriseInstall,
      },
    ],
  });
  const headers = { 'Content-Type': 'application/json', ...signatureHeaders(SIGNING, body, Date.now() / 1000) };
  return postRaw(`${base}/slack/events`, body, headers);
}
const uninstalled = (who: Through, eventId?: string, eventTime?: unknown) =>
  sendEvent(who, { type: 'app_uninstalled', event_ts: '1.000001' }, eventId, eventTime);

function installationOf(who: Through): Installation<'v2', boolean> {
  const org = who.enterpriseId ? { id: who.enterpriseId } : undefined;
  return {
    team: who.enterpriseInstall ? undefined : { id: who.teamId },
    enterprise: org,
    user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
    bot: { token: `xoxb-${who.teamId}`, scopes: ['chat:write'], id: 'B0BOT', userId: 'U0BOT' },
    isEnterpriseInstall: who.enterpriseInstall,
    authVersion: 'v2',
  };
}

/** Runs `fn` as a request through `who`'s installation (what Bolt's authorize puts in the request context). */
const as = <T>(who: Through, fn: () => Promise<T>) =>
  withRequestContext({ requestId: 'req', ...(who satisfies InstallationRef) }, fn);
const settings = new SettingsStore(redis, prefix, currentInstallationSlot);
/** `/docs-settings followups requester` in `channel`, as an admin of `who` sets it. */
const setPolicy = (who: Through, channel: string) =>
  as(who, () => settings.update(channel, { followupPolicy: 'requester' }, 'U0ADMIN', 1));
/** `/docs-visitors subscribe` in `channel`, through `who`'s installation. */
const subscribe = (who: Through, channel: string) =>
  as(who, () =>
    subscribeChannel(queue, {
      teamId: who.teamId,
      channel,
      requestedBy: 'U0ADMIN',
      schedule: { pattern: '0 9 * * 1', tz: 'UTC' },
    }),
  );
const settingsKeys = async () =>
  (await redis.keys(`${prefix}:settings:*`)).map((k) => k.slice(prefix.length + 1)).sort();
const schedulerIds = async () => (await queue.getJobSchedulers(0, -1)).map((s) => s.id ?? s.key).sort();
/** The next runs the schedulers have queued (BullMQ's `repeat:<scheduler>:<ms>` delayed jobs). */
const nextRuns = async () => (await queue.getDelayed()).map((j) => j.id?.split(':')[1]).sort();
const linesOf = (msg: string) => logs.filter((l) => l.msg === msg);
const REMOVED = "removed the uninstalled installation's data";
const KEPT = 'installation kept: stored again after this event (a reinstall); its data is left too';

/** Installs and configures every installation of the file: each has settings and a subscription. */
async function everyoneConfigured(): Promise<void> {
  for (const who of [T0A, T0B, T0AX, ORG, GRID_WORKSPACE]) await store.storeInstallation(installationOf(who));
  await setPolicy(T0A, 'C0ONE');
  await setPolicy(T0A, 'C0TWO');
  await setPolicy(T0B, 'C0ONE');
  await setPolicy(T0AX, 'C0ONE');
  await setPolicy(ORG, 'C0ONE');
  await setPolicy(GRID_WORKSPACE, 'C0ONE');
  await new SettingsStore(redis, prefix).update('C0ONE', { followupPolicy: 'requester' }, 'U0ADMIN', 1);
  await subscribe(T0A, 'C0ONE');
  await subscribe(T0A, 'C0TWO');
  await subscribe(T0B, 'C0ONE');
  await subscribe(T0AX, 'C0ONE');
  await subscribe(ORG, 'C0ONE');
  await subscribe(GRID_WORKSPACE, 'C0ONE');
}

const ALL_SETTINGS = [
  'settings:channel:C0ONE',
  'settings:enterprise:E0ORG:channel:C0ONE',
  'settings:team:T0A:channel:C0ONE',
  'settings:team:T0A:channel:C0TWO',
  'settings:team:T0AX:channel:C0ONE',
  'settings:team:T0B:channel:C0ONE',
  'settings:team:T0G:channel:C0ONE',
];
const ALL_SCHEDULERS = [
  'digest-T0A-C0ONE',
  'digest-T0A-C0TWO',
  'digest-T0AX-C0ONE',
  'digest-T0B-C0ONE',
  'digest-T0G-C0ONE',
  'digest-T0W-C0ONE',
];
const without = (all: string[], gone: string[]) => all.filter((k) => !gone.includes(k));

describe("OAuth mode: app_uninstalled removes the installation's channel settings and digest subscriptions", () => {
  it("a workspace's uninstall removes its settings and subscriptions, and nobody else's", async () => {
    await everyoneConfigured();
    expect(await settingsKeys()).toEqual(ALL_SETTINGS);
    expect(await schedulerIds()).toEqual(ALL_SCHEDULERS);

    expect((await uninstalled(T0A)).status).toBe(200);
    expect(await settingsKeys()).toEqual(
      without(ALL_SETTINGS, ['settings:team:T0A:channel:C0ONE', 'settings:team:T0A:channel:C0TWO']),
    );
    const left = without(ALL_SCHEDULERS, ['digest-T0A-C0ONE', 'digest-T0A-C0TWO']);
    expect(await schedulerIds()).toEqual(left);
    // The next weekly run of each removed schedule goes with it; the others' stay queued.
    expect(await nextRuns()).toEqual(left);
    expect(linesOf(REMOVED)).toMatchObject([
      {
        level: 30,
        teamId: 'T0A',
        isEnterpriseInstall: false,
        installation: 'team:T0A',
        removed: { channelSettings: 2, digestSubscriptions: 2 },
      },
    ]);
  });

  it("an org-wide install's uninstall removes the org's settings and subscriptions, not its workspace installs'", async () => {
    await everyoneConfigured();
    expect((await uninstalled({ teamId: 'E0ORG', enterpriseId: 'E0ORG', enterpriseInstall: true })).status).toBe(200);
    expect(await settingsKeys()).toEqual(without(ALL_SETTINGS, ['settings:enterprise:E0ORG:channel:C0ONE']));
    expect(await schedulerIds()).toEqual(without(ALL_SCHEDULERS, ['digest-T0W-C0ONE']));
    expect(linesOf(REMOVED)).toMatchObject([
      {
        enterpriseId: 'E0ORG',
        isEnterpriseInstall: true,
        installation: 'enterprise:E0ORG',
        removed: { channelSettings: 1, digestSubscriptions: 1 },
      },
    ]);
    expect((await redis.keys(`${prefix}:installations:*`)).sort()).toEqual(
      ['T0A', 'T0AX', 'T0B', 'T0G'].map((t) => `${prefix}:installations:team:${t}`),
    );
  });

  it('a reinstall starts from the defaults: no settings of its own, no subscription', async () => {
    await everyoneConfigured();
    await uninstalled(T0A);
    await store.storeInstallation(installationOf(T0A));
    const lookup = createChannelSettings({ platform: { redis, prefix, installations: store }, config });
    const effective = await as(T0A, () => lookup.effective('C0ONE'));
    expect(effective).toMatchObject({ followupPolicy: 'anyone', followupIsDefault: true, projectFollowsDefault: true });
    expect(effective.updatedBy).toBeUndefined();
    expect(await as(T0B, () => lookup.followupPolicyFor('C0ONE'))).toBe('requester');
    expect((await schedulerIds()).filter((id) => id.startsWith('digest-T0A-'))).toEqual([]);
  });

  it('tokens_revoked deletes the installation only; the app_uninstalled that comes with it removes the rest', async () => {
    await everyoneConfigured();
    const revoked = await sendEvent(T0A, { type: 'tokens_revoked', tokens: { bot: ['U0BOT'] }, event_ts: '1.000002' });
    expect(revoked.status).toBe(200);
    expect(await redis.exists(`${prefix}:installations:team:T0A`)).toBe(0);
    expect(await settingsKeys()).toEqual(ALL_SETTINGS);
    expect(await schedulerIds()).toEqual(ALL_SCHEDULERS);
    expect(linesOf(REMOVED)).toEqual([]);

    expect((await uninstalled(T0A)).status).toBe(200);
    expect(linesOf('no installation to delete (already deleted, or never stored)')).toMatchObject([{ teamId: 'T0A' }]);
    expect(await settingsKeys()).not.toContain('settings:team:T0A:channel:C0ONE');
    expect(await schedulerIds()).not.toContain('digest-T0A-C0ONE');
  });

  it('an uninstall of an installation the allow-list does not admit (a refused install) reads and removes nothing', async () => {
    // A workspace taken off SLACK_INSTALL_ALLOWLIST after it had settings and a subscription.
    const OFF: Through = { teamId: 'T0OFFLIST', enterpriseInstall: false };
    await everyoneConfigured();
    await setPolicy(OFF, 'C0ONE');
    await subscribe(OFF, 'C0ONE');
    expect((await uninstalled(OFF)).status).toBe(200);
    expect(
      linesOf('uninstall of an installation SLACK_INSTALL_ALLOWLIST does not admit: no data removed'),
    ).toMatchObject([{ teamId: 'T0OFFLIST', isEnterpriseInstall: false }]);
    expect(linesOf(REMOVED)).toEqual([]);
    expect(await settingsKeys()).toContain('settings:team:T0OFFLIST:channel:C0ONE');
    expect(await schedulerIds()).toContain('digest-T0OFFLIST-C0ONE');
  });

  it('a redelivered app_uninstalled is acknowledged again and removes nothing more', async () => {
    await everyoneConfigured();
    expect((await uninstalled(T0A, 'EvREDELIVERED')).status).toBe(200);
    expect((await uninstalled(T0A, 'EvREDELIVERED')).status).toBe(200);
    expect(linesOf(REMOVED).map((l) => l.removed)).toEqual([
      { channelSettings: 2, digestSubscriptions: 2 },
      { channelSettings: 0, digestSubscriptions: 0 },
    ]);
    expect(await settingsKeys()).toHaveLength(ALL_SETTINGS.length - 2);
    expect(await schedulerIds()).toHaveLength(ALL_SCHEDULERS.length - 2);
  });

  it('a retried app_uninstalled that arrives after a reinstall keeps the new installation and its data', async () => {
    // The uninstall a minute ago was not acknowledged; meanwhile an admin installed the app again
    // and set the channel up. Slack's retry carries the first delivery's event_time.
    await everyoneConfigured();
    const aMinuteAgo = Math.floor(Date.now() / 1000) - 60;
    expect((await uninstalled(T0A, 'EvRETRIED', aMinuteAgo)).status).toBe(200);
    expect(await redis.exists(`${prefix}:installations:team:T0A`)).toBe(1);
    expect(await settingsKeys()).toEqual(ALL_SETTINGS);
    expect(await schedulerIds()).toEqual(ALL_SCHEDULERS);
    expect(linesOf(KEPT)).toMatchObject([
      { teamId: 'T0A', reason: 'app_uninstalled', storedAfter: aMinuteAgo * 1000 + 5_000 },
    ]);
    expect(linesOf(REMOVED)).toEqual([]);
    // A retried tokens_revoked of that time keeps it too.
    const revoked = await sendEvent(T0A, { type: 'tokens_revoked', tokens: { bot: ['U0BOT'] } }, 'EvREV', aMinuteAgo);
    expect(revoked.status).toBe(200);
    expect(await redis.exists(`${prefix}:installations:team:T0A`)).toBe(1);
    expect(linesOf(KEPT).map((l) => l.reason)).toEqual(['app_uninstalled', 'tokens_revoked']);
    // An uninstall of now is newer than the install: it goes, with its data.
    expect((await uninstalled(T0A)).status).toBe(200);
    expect(await redis.exists(`${prefix}:installations:team:T0A`)).toBe(0);
    expect(linesOf(REMOVED)).toMatchObject([{ removed: { channelSettings: 2, digestSubscriptions: 2 } }]);
  });

  it('tokens_revoked and app_uninstalled at the same time (as Slack sends them): the data is removed whichever deletes the installation', async () => {
    await everyoneConfigured();
    const [revoked, removed] = await Promise.all([
      sendEvent(T0A, { type: 'tokens_revoked', tokens: { bot: ['U0BOT'] }, event_ts: '1.000002' }),
      uninstalled(T0A),
    ]);
    expect([revoked.status, removed.status]).toEqual([200, 200]);
    expect(await redis.exists(`${prefix}:installations:team:T0A`)).toBe(0);
    expect(linesOf(KEPT)).toEqual([]);
    expect(linesOf(REMOVED)).toMatchObject([{ removed: { channelSettings: 2, digestSubscriptions: 2 } }]);
  });

  it('an event without a usable event_time deletes whatever installation is there', async () => {
    await everyoneConfigured();
    expect((await uninstalled(T0A, undefined, 'yesterday')).status).toBe(200);
    expect(await redis.exists(`${prefix}:installations:team:T0A`)).toBe(0);
    expect(linesOf(REMOVED)).toMatchObject([{ removed: { channelSettings: 2, digestSubscriptions: 2 } }]);
  });

  it('Redis failing mid-purge: not acknowledged (503, Slack sends it again), and the redelivery finishes the job', async () => {
    await everyoneConfigured();
    settingsRedis.disconnect();
    const first = await uninstalled(T0A, 'EvCUT');
    expect(first.status).toBe(503);
    // What could be removed was: the installation and the subscriptions; the settings are left.
    expect(await redis.exists(`${prefix}:installations:team:T0A`)).toBe(0);
    expect(await schedulerIds()).toEqual(without(ALL_SCHEDULERS, ['digest-T0A-C0ONE', 'digest-T0A-C0TWO']));
    expect(await settingsKeys()).toEqual(ALL_SETTINGS);
    expect(logs.filter((l) => l.level === 40)).toMatchObject([{ installation: 'team:T0A', what: 'channelSettings' }]);
    expect(linesOf(REMOVED)).toEqual([]);

    await settingsRedis.connect();
    expect((await uninstalled(T0A, 'EvCUT')).status).toBe(200);
    expect(await settingsKeys()).toEqual(
      without(ALL_SETTINGS, ['settings:team:T0A:channel:C0ONE', 'settings:team:T0A:channel:C0TWO']),
    );
    expect(linesOf(REMOVED)).toMatchObject([{ removed: { channelSettings: 2, digestSubscriptions: 0 } }]);
  });
});
