import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentBudget } from '../../../../src/features/access/budget.js';
import { createAccess } from '../../../../src/features/access/index.js';
import { createChannelSettings, SettingsStore } from '../../../../src/features/settings/index.js';
import { ACCESS_CHECK_FAILED_TEXT, type AccessGate, type AgentCall } from '../../../../src/platform/access.js';
import { readConfig } from '../../../../src/platform/config.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { BotMetrics } from '../../../../src/platform/metrics.js';
import {
  currentInstallationSlot,
  currentRequestContext,
  withRequestContext,
  type RequestContext,
} from '../../../../src/platform/request-context.js';
import { WorkspaceAccess } from '../../../../src/platform/workspace-access.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { Scrape } from '../../../helpers/prometheus.js';
import { dropPrefix, randomPrefix, testRedis } from '../../../helpers/redis.js';

/*
 * OAuth mode: two workspace installs (Alpha, Beta) share the docs project proj_shared, whose hourly
 * budget is 3, and a Slack Connect channel C0SHARED. Access and the channel settings are built as
 * the bot builds them, on the real Redis; Slack answers each installation's auth.test and
 * users.info as its own workspace. Alpha's flood uses up Alpha's budget only; a 429 from the docs
 * API holds the project for both; the audit says whose refusal; Alpha's settings of the shared
 * channel are not Beta's.
 */

const ALPHA: RequestContext = { requestId: 'rA', teamId: 'T0ALPHA', enterpriseInstall: false };
const BETA: RequestContext = { requestId: 'rB', teamId: 'T0BETA', enterpriseInstall: false };

/** Slack as each installation's token sees it: its own workspace, its people of it. */
const slackWeb = {
  auth: { test: async () => ({ ok: true, team_id: currentRequestContext()?.teamId, user_id: 'UBOT' }) },
  users: {
    info: async ({ user }: { user: string }) => ({
      ok: true,
      user: { id: user, team_id: currentRequestContext()?.teamId, tz: 'UTC' },
    }),
  },
};

describe('agent budgets per installation (OAuth mode)', () => {
  let redis: Redis;
  const prefixes: string[] = [];
  const logs: string[] = [];
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    for (const p of prefixes) await dropPrefix(redis, p);
    redis.disconnect();
  });

  /** The access gate as createAccess builds it; `oauth` gives it an installation store (OAuth mode). */
  function gateOf(
    oauth: boolean,
    metrics = new BotMetrics({ registry: new Registry(), defaultMetrics: false }),
    budgetWindowS?: number,
  ): AccessGate {
    const prefix = randomPrefix();
    prefixes.push(prefix);
    const config = readConfig({
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: 'secret',
      DOCS_API_KEY: 'mint_test',
      DOCS_PROJECT_ID: 'proj_shared',
      AGENT_CALLS_PER_HOUR: '3',
    });
    const logger = createLogger('info', { write: (l: string) => void logs.push(l) } as never);
    const access = createAccess({
      platform: {
        redis,
        prefix,
        slack: { web: slackWeb } as never,
        metrics,
        logger,
        now: Date.now,
        workspaces: new WorkspaceAccess(redis, prefix),
        installations: oauth ? ({} as never) : undefined,
      },
      config,
      projectFor: async () => 'proj_shared',
      ...(budgetWindowS !== undefined ? { budgetWindowS } : {}),
    });
    return access.gate;
  }

  const call = (user: string): AgentCall => ({
    actor: { user, teamId: '' },
    channel: 'C0SHARED',
    action: 'start_job',
    promptChars: 10,
  });
  const admit = (ctx: RequestContext, gate: AccessGate, user: string) =>
    withRequestContext(ctx, () => gate.admitAgentCall({ ...call(user), actor: { user, teamId: ctx.teamId! } }));

  it("a flood from Alpha uses up Alpha's budget of the shared project, not Beta's", async () => {
    const gate = gateOf(true);
    const alpha = await Promise.all(['U1', 'U2', 'U3', 'U4'].map((u) => admit(ALPHA, gate, u)));
    expect(alpha.map((d) => (d.allowed ? 'ok' : d.reason))).toEqual(['ok', 'ok', 'ok', 'project_budget']);
    expect(await admit(BETA, gate, 'U9')).toEqual({ allowed: true });
    // Each App Home shows its own installation's budget.
    expect(await withRequestContext(ALPHA, () => gate.budgetLeft('U1'))).toMatchObject({ project: 0, perProject: 3 });
    expect(await withRequestContext(BETA, () => gate.budgetLeft('U9'))).toMatchObject({ project: 2, perProject: 3 });
    // A request given back returns to its own installation's budget.
    await withRequestContext(ALPHA, () => gate.refund(call('U1')));
    expect(await withRequestContext(ALPHA, () => gate.budgetLeft('U1'))).toMatchObject({ project: 1 });
    expect(await withRequestContext(BETA, () => gate.budgetLeft('U9'))).toMatchObject({ project: 2 });
    // The refusal's audit line names Alpha's installation.
    const refusal = logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.audit && l.reason === 'project_budget' && l.actor === 'U4');
    expect(refusal).toMatchObject({ teamId: 'T0ALPHA', enterpriseInstall: false, project: 'proj_shared' });
  });

  it("all installations together stay within the project's total (the docs API's limit), and a request given back is every budget's again", async () => {
    const prefix = randomPrefix();
    prefixes.push(prefix);
    let slot = 'team:T0ALPHA';
    const budget = new AgentBudget(redis, prefix, {
      perProject: 60,
      perUser: 1_000,
      perProjectTotal: 100,
      installationOf: () => slot,
    });
    for (let i = 0; i < 60; i++) expect(await budget.take('U1', 'proj_shared')).toEqual({ ok: true });
    expect(await budget.take('U1', 'proj_shared')).toMatchObject({ ok: false, which: 'project' });
    slot = 'team:T0BETA';
    for (let i = 0; i < 40; i++) expect(await budget.take('U2', 'proj_shared')).toEqual({ ok: true });
    // Beta has 20 of its own left, but the project's 100 are spent: no 101st request, no 429.
    expect(await budget.remaining('U2', 'proj_shared')).toMatchObject({ project: 0 });
    expect(await budget.take('U2', 'proj_shared')).toMatchObject({ ok: false, which: 'project' });
    await budget.give('U2', 'proj_shared');
    expect(await budget.take('U2', 'proj_shared')).toEqual({ ok: true });
    slot = 'team:T0ALPHA';
    expect(await budget.remaining('U1', 'proj_shared')).toMatchObject({ project: 0 });
  });

  it('the budget gauge has one series per installation, labelled with it; single-token mode keeps the project label only', async () => {
    const scrape = async (m: BotMetrics) => new Scrape(await m.registry.metrics());
    const oauth = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    const gate = gateOf(true, oauth);
    for (const u of ['U1', 'U2']) await admit(ALPHA, gate, u);
    await admit(BETA, gate, 'U9');
    // The gauge is set after each admitted call (not awaited by it): wait for the scrape to show it.
    await vi.waitFor(async () => {
      const s = await scrape(oauth);
      expect(s.series('docs_bot_agent_budget_remaining')).toEqual([
        { project: 'proj_shared', installation: 'team:T0ALPHA' },
        { project: 'proj_shared', installation: 'team:T0BETA' },
      ]);
      expect(s.value('docs_bot_agent_budget_remaining', { installation: 'team:T0ALPHA' })).toBe(1);
      expect(s.value('docs_bot_agent_budget_remaining', { installation: 'team:T0BETA' })).toBe(2);
    });
    const plain = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
    await admit({ requestId: 'r1', teamId: 'T0ALPHA' }, gateOf(false, plain), 'U1');
    await vi.waitFor(async () =>
      expect((await scrape(plain)).series('docs_bot_agent_budget_remaining')).toEqual([{ project: 'proj_shared' }]),
    );
  });

  it(
    'the budget gauge is read again at scrapes: once the window has passed it shows the full budget, with no request taking from it',
    { timeout: 60_000 },
    async () => {
      // The window is Redis's TTL on the budget's keys (rate-limiter-flexible), not the bot's clock: a
      // 3-second window stands for the hour (room for the admits and a scrape on a loaded machine), and
      // the test polls until it has passed and a scrape has read the budget again (at most every 5 s).
      const scrape = async (m: BotMetrics) => new Scrape(await m.registry.metrics());
      const refilled = { timeout: 20_000, interval: 200 };
      const oauth = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
      const gate = gateOf(true, oauth, 3);
      for (const u of ['U1', 'U2', 'U3']) await admit(ALPHA, gate, u);
      await admit(BETA, gate, 'U9');
      const alpha = { project: 'proj_shared', installation: 'team:T0ALPHA' };
      const beta = { project: 'proj_shared', installation: 'team:T0BETA' };
      await vi.waitFor(async () => {
        const s = await scrape(oauth);
        expect(s.value('docs_bot_agent_budget_remaining', alpha)).toBe(0);
        expect(s.value('docs_bot_agent_budget_remaining', beta)).toBe(2);
      });
      // The gauge says the budget is full again without anyone taking from it.
      await vi.waitFor(async () => {
        const s = await scrape(oauth);
        expect(s.value('docs_bot_agent_budget_remaining', alpha)).toBe(3);
        expect(s.value('docs_bot_agent_budget_remaining', beta)).toBe(3);
      }, refilled);
      // So does the budget itself (what App Home says).
      expect(await withRequestContext(ALPHA, () => gate.budgetLeft('U1'))).toMatchObject({ project: 3 });
      expect((await scrape(oauth)).series('docs_bot_agent_budget_remaining')).toEqual([alpha, beta]);

      const plain = new BotMetrics({ registry: new Registry(), defaultMetrics: false });
      const single = gateOf(false, plain, 3);
      for (const u of ['U1', 'U2']) await admit({ requestId: 'r1', teamId: 'T0ALPHA' }, single, u);
      await vi.waitFor(async () =>
        expect((await scrape(plain)).value('docs_bot_agent_budget_remaining', { project: 'proj_shared' })).toBe(1),
      );
      await vi.waitFor(
        async () =>
          expect((await scrape(plain)).value('docs_bot_agent_budget_remaining', { project: 'proj_shared' })).toBe(3),
        refilled,
      );
    },
  );

  it('a 429 from the docs API holds the project for every installation until its Retry-After', async () => {
    const gate = gateOf(true);
    await withRequestContext(ALPHA, () => gate.noteRateLimited(call('U1'), 90_000));
    const beta = await admit(BETA, gate, 'U9');
    expect(beta).toMatchObject({ allowed: false, reason: 'project_budget' });
    expect(await withRequestContext(BETA, () => gate.budgetLeft('U9'))).toMatchObject({ project: 0 });
  });

  it('single-token mode keeps one budget per project', async () => {
    const gate = gateOf(false);
    const one = { requestId: 'r1', teamId: 'T0ALPHA' };
    for (const u of ['U1', 'U2', 'U3']) expect(await admit(one, gate, u)).toEqual({ allowed: true });
    expect(await admit(one, gate, 'U9')).toMatchObject({ allowed: false, reason: 'project_budget' });
    // The count is the project's own key, as before installations existed.
    expect(await redis.keys(`${prefixes.at(-1)}:agent-budget:project:*`)).toEqual([
      `${prefixes.at(-1)}:agent-budget:project:proj_shared`,
    ]);
  });
});

describe('OAuth mode with no installation in the request context: refused, never the shared keys', () => {
  let redis: Redis;
  let prefix: string;
  beforeAll(() => {
    redis = testRedis();
  });
  afterEach(async () => {
    await dropPrefix(redis, prefix);
  });
  afterAll(() => redis.disconnect());
  const keys = () => redis.keys(`${prefix}:*`);
  /** Work outside a request, and work recorded before its installation was (no `enterpriseInstall`). */
  const noInstallation = [
    <T>(fn: () => T) => fn(),
    <T>(fn: () => T) => withRequestContext({ requestId: 'r-old', teamId: 'T0ALPHA' }, fn),
  ];

  it('the agent budget refuses (installation_missing) before taking anything; single-token mode is as before', async () => {
    prefix = randomPrefix();
    const budget = new AgentBudget(redis, prefix, {
      perProject: 3,
      perUser: 3,
      installationOf: currentInstallationSlot,
    });
    for (const run of noInstallation) {
      await expect(run(() => budget.take('U1', 'proj_shared'))).rejects.toMatchObject({
        code: 'installation_missing',
      });
      await expect(run(() => budget.give('U1', 'proj_shared'))).rejects.toMatchObject({ code: 'installation_missing' });
      await expect(run(() => budget.remaining('U1', 'proj_shared'))).rejects.toMatchObject({
        code: 'installation_missing',
      });
    }
    // Nothing was counted: not the person's budget, not a project key every installation would share.
    expect(await keys()).toEqual([]);
    // With its installation the same request is counted under that installation only.
    expect(await withRequestContext(ALPHA, () => budget.take('U1', 'proj_shared'))).toEqual({ ok: true });
    expect((await redis.keys(`${prefix}:agent-budget:project*`)).sort()).toEqual([
      `${prefix}:agent-budget:project-total:proj_shared`,
      `${prefix}:agent-budget:project:team:T0ALPHA:proj_shared`,
    ]);
    // Single-token mode: no installation is needed, the project's own key as always.
    const plain = new AgentBudget(redis, prefix, { perProject: 3, perUser: 3 });
    expect(await plain.take('U2', 'proj_plain')).toEqual({ ok: true });
    expect(await redis.exists(`${prefix}:agent-budget:project:proj_plain`)).toBe(1);
  });

  it('the access gate answers "I couldn\'t check your access", with one warn line and nothing counted', async () => {
    prefix = randomPrefix();
    const { logger, lines } = arrayLogger('warn');
    const gate = createAccess({
      platform: {
        redis,
        prefix,
        slack: { web: slackWeb } as never,
        metrics: new BotMetrics({ registry: new Registry(), defaultMetrics: false }),
        logger,
        now: Date.now,
        workspaces: new WorkspaceAccess(redis, prefix),
        installations: {} as never,
      },
      config: readConfig({
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: 'secret',
        DOCS_API_KEY: 'mint_test',
        DOCS_PROJECT_ID: 'proj_shared',
      }),
      projectFor: async () => 'proj_shared',
    }).gate;
    const call: AgentCall = { actor: { user: 'U1', teamId: '' }, channel: 'C1', action: 'start_job', promptChars: 10 };
    expect(await gate.admitAgentCall(call)).toEqual({
      allowed: false,
      reason: 'check_failed',
      text: ACCESS_CHECK_FAILED_TEXT,
    });
    expect(await gate.authorize(call.actor, 'view_settings', 'C1')).toMatchObject({ reason: 'check_failed' });
    expect(await gate.budgetLeft('U1')).toBeUndefined(); // App Home shows no budget line
    await gate.refund(call); // gives nothing back to a shared key, and does not throw
    expect(await keys()).toEqual([]);
    const warns = lines.filter((l) => l.level === 40);
    expect(warns.map((l) => [l.msg, (l.err as { code?: string } | undefined)?.code])).toEqual([
      ['could not check access; refused (fail closed)', 'installation_missing'],
      ['could not check access; refused (fail closed)', 'installation_missing'],
      ['could not give back an agent request', 'installation_missing'],
    ]);
    expect(JSON.stringify(lines)).not.toContain('xoxb-');
  });

  it('channel settings: reads and writes refused (installation_missing), nothing written; single-token mode is as before', async () => {
    prefix = randomPrefix();
    const config = readConfig({
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: 'secret',
      DOCS_API_KEY: 'mint_test',
      DOCS_PROJECT_ID: 'proj_shared',
    });
    // A channel's single-token settings exist: OAuth mode must not read them for a request of no installation.
    await new SettingsStore(redis, prefix).update('C0SHARED', { followupPolicy: 'requester' }, 'U1', 1);
    const before = await keys();
    const store = new SettingsStore(redis, prefix, currentInstallationSlot);
    const oauth = createChannelSettings({ platform: { redis, prefix, installations: {} as never }, config });
    const missing = { code: 'installation_missing' };
    for (const run of noInstallation) {
      await expect(run(() => store.update('C0SHARED', { projectId: 'proj_x' }, 'U1', 2))).rejects.toMatchObject(
        missing,
      );
      await expect(run(() => store.get('C0SHARED'))).rejects.toMatchObject(missing);
      await expect(run(() => store.answerAll('C0SHARED'))).rejects.toMatchObject(missing);
      await expect(run(() => oauth.followupPolicyFor('C0SHARED'))).rejects.toMatchObject(missing);
      await expect(run(() => oauth.projectFor('C0SHARED'))).rejects.toMatchObject(missing);
    }
    expect(await keys()).toEqual(before);
    expect(await redis.hget(`${prefix}:settings:channel:C0SHARED`, 'projectId')).toBeNull();
    // Single-token mode reads its settings outside a request as it always did.
    const plain = createChannelSettings({ platform: { redis, prefix }, config });
    expect(await plain.followupPolicyFor('C0SHARED')).toBe('requester');
  });
});

describe('channel settings per installation (OAuth mode)', () => {
  it("Alpha's settings of a channel Beta shares are Alpha's only; single-token mode keeps one set", async () => {
    const redis = testRedis();
    const prefix = randomPrefix();
    const config = readConfig({
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: 'secret',
      DOCS_API_KEY: 'mint_test',
      DOCS_PROJECT_ID: 'proj_shared',
      DOCS_PROJECT_IDS: 'proj_alpha',
    });
    try {
      const store = new SettingsStore(redis, prefix, currentInstallationSlot);
      await withRequestContext(ALPHA, () =>
        store.update('C0SHARED', { projectId: 'proj_alpha', followupPolicy: 'requester' }, 'U1', 1),
      );
      const oauth = createChannelSettings({ platform: { redis, prefix, installations: {} as never }, config });
      const inAlpha = withRequestContext(ALPHA, () =>
        Promise.all([oauth.projectFor('C0SHARED'), oauth.followupPolicyFor('C0SHARED')]),
      );
      expect(await inAlpha).toEqual(['proj_alpha', 'requester']);
      const inBeta = withRequestContext(BETA, () =>
        Promise.all([oauth.projectFor('C0SHARED'), oauth.followupPolicyFor('C0SHARED')]),
      );
      expect(await inBeta).toEqual(['proj_shared', 'anyone']);
      // Single-token mode: the channel's one set of settings, under the key it always had.
      await new SettingsStore(redis, prefix).update('C0SHARED', { followupPolicy: 'requester' }, 'U1', 1);
      const plain = createChannelSettings({ platform: { redis, prefix }, config });
      expect(await withRequestContext(BETA, () => plain.followupPolicyFor('C0SHARED'))).toBe('requester');
      expect(await redis.exists(`${prefix}:settings:channel:C0SHARED`)).toBe(1);
    } finally {
      await dropPrefix(redis, prefix);
      redis.disconnect();
    }
  });
});
