import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { startFakeDocsApi, type FakeDocsApi } from '../../../sandbox/fake-docs-api.js';
import { SlackDirectory } from '../../../src/features/access/directory.js';
import { createAccessGate } from '../../../src/features/access/service.js';
import { ChannelSettingsLookup } from '../../../src/features/settings/service.js';
import { ConfigError, readConfig } from '../../../src/platform/config.js';
import { DocsApiClient } from '../../../src/platform/docs-api/client.js';
import { questionMessage } from '../../../src/platform/docs-api/discovery-client.js';
import { createLogger } from '../../../src/platform/logger.js';
import { BotMetrics } from '../../../src/platform/metrics.js';
import { withRequestContext } from '../../../src/platform/request-context.js';
import { buildPlatform, discoveryClient, docsWorkspacesOf } from '../../../src/platform/runtime.js';
import { randomPrefix, TEST_REDIS_URL } from '../../helpers/redis.js';
import { grantingBudget, OPEN_POLICY } from '../../helpers/access.js';

/*
 * Per-workspace docs projects (DOCS_WORKSPACE_PROJECTS) against the fake docs API, which serves
 * proj_b only with Beta's key and the discovery site `beta-site` only with Beta's assistant key:
 * Beta's work goes to Beta's project and site with Beta's keys, the others' to the defaults, a
 * project of another workspace is refused before any API call, and a bad mapping stops the start
 * with one line per problem and no key in it.
 */

const A_KEY = 'mint_default_admin_key';
const B_KEY = 'mint_beta_admin_key_secret';
const B_ASSIST = 'mint_dsc_beta_assistant_secret';
let docs: FakeDocsApi;

const env = (over: Record<string, string> = {}) => ({
  SLACK_BOT_TOKEN: 'xoxb-test',
  SLACK_SIGNING_SECRET: 'secret',
  DOCS_API_URL: docs?.url ?? 'https://api.mintlify.com',
  DOCS_API_KEY: A_KEY,
  DOCS_PROJECT_ID: 'proj_a',
  DOCS_API_KEY_BETA: B_KEY,
  DOCS_WORKSPACE_PROJECTS: JSON.stringify({ T0BETA: { projects: ['proj_b'], apiKeyEnv: 'DOCS_API_KEY_BETA' } }),
  ...over,
});

beforeAll(async () => {
  docs = await startFakeDocsApi({
    apiKey: A_KEY,
    projectId: 'proj_a',
    projectKeys: { proj_b: B_KEY },
    jobDurationMs: 60_000,
    discovery: { apiKey: B_ASSIST, domain: 'beta-site' },
  });
});
afterAll(() => docs.close());

const problems = (e: Record<string, string>): string[] => {
  try {
    readConfig(e);
  } catch (err) {
    return (err as ConfigError).problems;
  }
  return [];
};

describe('DOCS_WORKSPACE_PROJECTS at start', () => {
  it('maps a workspace to its projects and key; unset, nothing changes', () => {
    const ws = docsWorkspacesOf(readConfig(env()));
    expect(ws.mapped).toBe(true);
    expect(ws.projectsFor({ teamId: 'T0BETA' })).toEqual(['proj_b']);
    expect(ws.projectsFor({ teamId: 'T0ALPHA' })).toEqual(['proj_a']);
    // An org's entry covers its workspaces that have none of their own.
    const org = docsWorkspacesOf(readConfig(env({ DOCS_WORKSPACE_PROJECTS: '{"E0ORG":{"projects":["proj_o"]}}' })));
    expect(org.projectsFor({ teamId: 'T0ORGA', enterpriseId: 'E0ORG' })).toEqual(['proj_o']);
    expect(org.keyFor('proj_o')).toBe(A_KEY);
    const plain = readConfig(env({ DOCS_WORKSPACE_PROJECTS: '' }));
    expect(plain.docsWorkspaces).toBeUndefined();
    expect(docsWorkspacesOf(plain).mapped).toBe(false);
    // Logging the mapping, or the whole configuration by mistake, shows no key.
    expect(JSON.stringify(ws)).not.toContain('mint_');
    const lines: string[] = [];
    const log = createLogger('info', { write: (l: string) => void lines.push(l) } as never);
    log.info({ config: readConfig(env()), ws }, 'configuration');
    expect(lines.join('')).not.toContain(B_KEY);
    expect(lines.join('')).toContain('proj_b');
  });

  it('a bad mapping is one line per problem, naming the entry, never a key', () => {
    expect(problems(env({ DOCS_WORKSPACE_PROJECTS: '{not json' }))).toEqual([
      'DOCS_WORKSPACE_PROJECTS: must be a JSON object (see docs/configuration.md)',
    ]);
    expect(problems(env({ DOCS_API_KEY_BETA: '' }))).toEqual([
      'DOCS_WORKSPACE_PROJECTS: T0BETA names DOCS_API_KEY_BETA for its admin API key, but DOCS_API_KEY_BETA is unset',
    ]);
    expect(problems(env({ DOCS_API_KEY_BETA: 'sk_beta_not_mint' }))).toEqual([
      'DOCS_WORKSPACE_PROJECTS: T0BETA: DOCS_API_KEY_BETA must start with mint_ (the admin API key)',
    ]);
    expect(
      problems(env({ DOCS_WORKSPACE_PROJECTS: '{"T0BETA":{"projects":["proj_a"],"apiKeyEnv":"DOCS_API_KEY_BETA"}}' })),
    ).toEqual([
      'DOCS_WORKSPACE_PROJECTS: T0BETA: project proj_a is given elsewhere with another API key (one key per project)',
    ]);
    expect(problems(env({ DOCS_WORKSPACE_PROJECTS: '{"T0BETA":{"projects":[]}}' }))).toEqual([
      'DOCS_WORKSPACE_PROJECTS: T0BETA.projects: must name at least one project',
    ]);
    expect(problems(env({ DOCS_WORKSPACE_PROJECTS: '{"T0BETA":{"projects":["b"],"apiKey":"mint_x"}}' }))).toHaveLength(
      1,
    );
    // Asking on: every entry needs its own site, so no workspace is answered from another's.
    const asking = { DOCS_ASSISTANT_API_KEY: 'mint_dsc_default', DOCS_DOMAIN: 'acme' };
    expect(problems(env(asking))).toEqual([
      'DOCS_WORKSPACE_PROJECTS: T0BETA needs domain and assistantKeyEnv while asking is on (DOCS_DOMAIN is set)',
    ]);
    // A site URL of its own (siteUrl): https only, and only while asking is on.
    const site = (url: string, more = {}) => {
      const entry = { projects: ['proj_b'], domain: 'beta', assistantKeyEnv: 'DOCS_API_KEY_BETA', siteUrl: url };
      return problems(env({ ...asking, ...more, DOCS_WORKSPACE_PROJECTS: JSON.stringify({ T0BETA: entry }) }));
    };
    expect(site('https://docs.beta.test')).toEqual([]);
    for (const bad of ['http://docs.beta.test', 'docs.beta.test', 'javascript:alert(1)'])
      expect(site(bad)).toEqual(['DOCS_WORKSPACE_PROJECTS: T0BETA.siteUrl: must be an https:// URL']);
    const entryOff = { projects: ['proj_b'], siteUrl: 'https://docs.beta.test' };
    expect(problems(env({ DOCS_WORKSPACE_PROJECTS: JSON.stringify({ T0BETA: entryOff }) }))).toEqual([
      'DOCS_WORKSPACE_PROJECTS: T0BETA: siteUrl is only used with DOCS_DOMAIN (asking on)',
    ]);
    for (const line of [...problems(env({ DOCS_API_KEY_BETA: 'sk_beta_not_mint' })), ...problems(env(asking))])
      expect(line).not.toMatch(/sk_beta_not_mint|mint_dsc_default|mint_beta/);
  });
});

describe("Beta's work goes to Beta's project with Beta's key", () => {
  it("a job is created and read on proj_b with Beta's key, proj_a's with the default key", async () => {
    const config = readConfig(env());
    const ws = docsWorkspacesOf(config);
    const api = new DocsApiClient({
      baseUrl: docs.url,
      apiKey: config.DOCS_API_KEY,
      projectId: config.DOCS_PROJECT_ID,
      keyFor: (p) => ws.keyFor(p),
      retryMinDelayMs: 1,
    });
    const before = docs.requests.length;
    const b = await api.forProject('proj_b').createJob('Document Beta billing');
    expect((await api.forProject('proj_b').getJob(b.id)).id).toBe(b.id);
    const a = await api.createJob('Document Alpha SSO');
    expect(docs.requests.slice(before).map((r) => `${r.method} ${r.projectId} ${r.status}`)).toEqual([
      'POST proj_b 201',
      'GET proj_b 200',
      'POST proj_a 201',
    ]);
    expect(docs.jobs.get(a.id)?.projectId).toBe('proj_a');
    // The fake refuses proj_b with the default key: the 201 above was Beta's key.
    const plain = new DocsApiClient({ baseUrl: docs.url, apiKey: A_KEY, projectId: 'proj_b', retryMinDelayMs: 1 });
    await expect(plain.createJob('x')).rejects.toMatchObject({ status: 401 });
    await api.close();
    await plain.close();
  });

  it("asking goes to the site of the request's workspace, with its assistant key", async () => {
    const config = readConfig(
      env({
        DOCS_DISCOVERY_URL: `${docs.url}/discovery`,
        DOCS_ASSISTANT_API_KEY: 'mint_dsc_default_site',
        DOCS_DOMAIN: 'alpha-site',
        DOCS_ASSISTANT_API_KEY_BETA: B_ASSIST,
        DOCS_WORKSPACE_PROJECTS: JSON.stringify({
          T0BETA: {
            projects: ['proj_b'],
            apiKeyEnv: 'DOCS_API_KEY_BETA',
            domain: 'beta-site',
            assistantKeyEnv: 'DOCS_ASSISTANT_API_KEY_BETA',
          },
        }),
      }),
    );
    const discovery = discoveryClient(config, new BotMetrics({ registry: new Registry() }), docsWorkspacesOf(config));
    const body = { fp: 'anonymous', messages: [questionMessage('How do I rotate a key?')] };
    const asked = (teamId: string) =>
      withRequestContext({ requestId: 'r1', teamId }, () => discovery!.sendMessage(body));
    const before = docs.requests.length;
    const answer = await asked('T0BETA');
    for await (const _ of answer.events) void _;
    expect(answer.threadId).toBeDefined();
    // Alpha's question goes to Alpha's site with Alpha's key (the fake serves only Beta's: refused).
    await expect(asked('T0ALPHA')).rejects.toMatchObject({ status: 401 });
    const paths = docs.requests.slice(before).map((r) => `${r.path} ${r.status}`);
    expect(paths).toEqual([
      '/discovery/v2/assistant/beta-site/message 200',
      expect.stringMatching(/alpha-site\/message 401$/),
    ]);
    await discovery!.close();
  });
});

describe('the access gate: a project of another workspace', () => {
  it('is refused with the workspace projects, audited, and takes no budget', async () => {
    const logs: string[] = [];
    const logger = createLogger('info', { write: (l: string) => void logs.push(l) } as never);
    const budget = grantingBudget();
    const slack = {
      users: { info: vi.fn(async () => ({ ok: true, user: { id: 'U1', team_id: 'T0BETA', tz: 'UTC' } })) },
      team: { info: vi.fn(async () => ({ ok: true, team: { id: 'T0BETA' } })) },
      auth: { test: vi.fn(async () => ({ ok: true, team_id: 'T0BETA', user_id: 'UBOT' })) },
    };
    const ws = docsWorkspacesOf(readConfig(env()));
    const gate = createAccessGate({
      policy: OPEN_POLICY,
      directory: new SlackDirectory(slack as never),
      budget,
      promptMaxChars: 1000,
      defaultProject: 'proj_a',
      projectFor: async () => 'proj_b',
      workspaceProjects: () => ws.current(),
      logger,
      now: Date.now,
    });
    const call = {
      actor: { user: 'U1', teamId: 'T0BETA' },
      channel: 'C1',
      action: 'continue_job' as const,
      promptChars: 5,
    };
    const inBeta = <T>(fn: () => Promise<T>) => withRequestContext({ requestId: 'r', teamId: 'T0BETA' }, fn);
    const d = await inBeta(() => gate.admitAgentCall({ ...call, project: 'proj_a' }));
    expect(d).toEqual({
      allowed: false,
      reason: 'project_not_allowed',
      text: "The docs project `proj_a` isn't one of this workspace's. Use one of: `proj_b` (an operator maps projects to workspaces). Nothing was sent to the docs agent.",
    });
    expect(budget.take).not.toHaveBeenCalled();
    const audit = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.audit);
    expect(audit).toMatchObject({ outcome: 'refused', reason: 'project_not_allowed', project: 'proj_a' });
    expect(await inBeta(() => gate.admitAgentCall(call))).toEqual({ allowed: true });
    expect(budget.take).toHaveBeenCalledWith('U1', 'proj_b');
    // App Home's budget line is the workspace's default project's.
    await inBeta(() => gate.budgetLeft('U1'));
    expect(budget.remaining).toHaveBeenLastCalledWith('U1', 'proj_b');
  });
});

describe("a channel's project outside its workspace's", () => {
  it("falls back to the workspace's default (shown as stale), and settings offer only the workspace's projects", async () => {
    const ws = docsWorkspacesOf(readConfig(env()));
    const lookup = new ChannelSettingsLookup({
      store: { get: async () => ({ projectId: 'proj_a' }), update: vi.fn(), answerAll: async () => false },
      projects: () => ws.current(),
      defaultFollowupPolicy: 'anyone',
    });
    const inTeam = <T>(teamId: string, fn: () => Promise<T>) => withRequestContext({ requestId: 'r', teamId }, fn);
    expect(await inTeam('T0ALPHA', () => lookup.projectFor('C0SHARED'))).toBe('proj_a');
    expect(await inTeam('T0BETA', () => lookup.effective('C0SHARED'))).toMatchObject({
      projectId: 'proj_b',
      staleProjectId: 'proj_a',
    });
    expect(withRequestContext({ requestId: 'r', teamId: 'T0BETA' }, () => lookup.projects)).toEqual(['proj_b']);
  });
});

describe("a worker's work, single-token mode", () => {
  it("runs as the workspace recorded with it when a mapping is set, so it uses that workspace's projects", async () => {
    const base = { REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: randomPrefix(), LOG_LEVEL: 'silent' };
    const logger = createLogger('silent');
    const mapped = buildPlatform(readConfig(env(base)), logger);
    const plain = buildPlatform(readConfig(env({ ...base, DOCS_WORKSPACE_PROJECTS: '' })), logger);
    try {
      const projects = (p: typeof mapped) =>
        p.slack.forWork({ teamId: 'T0BETA' }, 'w1', async () => p.docsWorkspaces.current());
      expect(await projects(mapped)).toEqual(['proj_b']);
      expect(await projects(plain)).toEqual(['proj_a']);
    } finally {
      await mapped.connections.close();
      await plain.connections.close();
    }
  });
});
