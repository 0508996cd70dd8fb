import { describe, expect, it } from 'vitest';
import { docsProjects, readConfig } from '../../../src/platform/config.js';
import { oauthMode } from '../../../src/platform/config-oauth.js';
import { configProblems as problems, VALID_ENV as valid } from '../../helpers/config-env.js';

describe('readConfig', () => {
  it('applies the documented defaults', () => {
    expect(readConfig(valid)).toMatchObject({
      SLACK_API_URL: 'https://slack.com/api/',
      DOCS_API_URL: 'https://api.mintlify.com',
      QUEUE_PREFIX: 'docs-agent',
      PORT: 3000,
      POLL_MIN_INTERVAL_MS: 10_000,
      POLL_MAX_INTERVAL_MS: 120_000,
      JOB_TIMEOUT_MS: 21_600_000,
      SLACK_UPDATE_BUDGET_PER_MINUTE: 40,
      LOG_LEVEL: 'info',
    });
  });

  it('takes SLACK_UPDATE_BUDGET_PER_MINUTE as a whole number from 1 to 1000', () => {
    expect(readConfig({ ...valid, SLACK_UPDATE_BUDGET_PER_MINUTE: '20' }).SLACK_UPDATE_BUDGET_PER_MINUTE).toBe(20);
    for (const bad of ['0', '-3', '2.5', 'lots', '5000']) {
      expect(problems({ ...valid, SLACK_UPDATE_BUDGET_PER_MINUTE: bad })).toEqual([
        'SLACK_UPDATE_BUDGET_PER_MINUTE: must be a whole number of edits per minute (1–1000)',
      ]);
    }
  });

  it('names every missing or invalid variable on its own line, without echoing values', () => {
    const p = problems({
      DOCS_API_KEY: 'sk_live_secret',
      PORT: 'eighty',
      POLL_MIN_INTERVAL_MS: '-5',
      LOG_LEVEL: 'loud',
    });
    expect(p.some((l) => l.startsWith('SLACK_BOT_TOKEN:'))).toBe(true);
    expect(p).toContain('DOCS_API_KEY: must start with mint_');
    expect(p.some((l) => l.startsWith('DOCS_PROJECT_ID:'))).toBe(true);
    expect(p.some((l) => l.startsWith('PORT:'))).toBe(true);
    expect(p.some((l) => l.startsWith('POLL_MIN_INTERVAL_MS:'))).toBe(true);
    expect(p.some((l) => l.startsWith('LOG_LEVEL:'))).toBe(true);
    expect(p.join('\n')).not.toContain('sk_live_secret');
  });

  it('requires the signing secret in HTTP mode only', () => {
    const { SLACK_SIGNING_SECRET: _s, ...noSecret } = valid;
    expect(problems(noSecret)[0]).toMatch(/^SLACK_SIGNING_SECRET: is required in HTTP mode/);
    expect(readConfig({ ...noSecret, SLACK_APP_TOKEN: 'xapp-1' }).SLACK_APP_TOKEN).toBe('xapp-1');
  });

  it('validates the conversation and digest settings', () => {
    expect(readConfig(valid)).toMatchObject({
      FOLLOWUP_POLICY: 'anyone',
      FOLLOWUP_IGNORE_PREFIX: '!aside',
      DIGEST_CRON: '0 9 * * 1',
      DIGEST_TZ: 'UTC',
    });
    const p = problems({
      ...valid,
      FOLLOWUP_POLICY: 'everyone',
      DIGEST_TZ: 'Mars/Olympus',
      DIGEST_CRON: 'every monday',
    });
    expect(p.map((l) => l.split(':')[0])).toEqual(['FOLLOWUP_POLICY', 'DIGEST_CRON', 'DIGEST_TZ']);
    expect(readConfig({ ...valid, DIGEST_CRON: '*/2 * * * * *', DIGEST_TZ: 'Europe/Berlin' }).DIGEST_TZ).toBe(
      'Europe/Berlin',
    );
    // Five fields, but hour 25 does not exist: refused at start-up, not at the first subscribe.
    expect(problems({ ...valid, DIGEST_CRON: '0 25 * * 1' })).toEqual([
      'DIGEST_CRON: is not a valid cron expression (BullMQ cron, e.g. 0 9 * * 1)',
    ]);
  });

  it('takes the prompt cap (AGENT_PROMPT_MAX_CHARS), default 12000, at least 1000', () => {
    expect(readConfig(valid).AGENT_PROMPT_MAX_CHARS).toBe(12_000);
    expect(readConfig({ ...valid, AGENT_PROMPT_MAX_CHARS: '20000' }).AGENT_PROMPT_MAX_CHARS).toBe(20_000);
    expect(problems({ ...valid, AGENT_PROMPT_MAX_CHARS: '500' })).toEqual([
      'AGENT_PROMPT_MAX_CHARS: must be at least 1000',
    ]);
  });

  it("takes HEALTHZ_DUE_JOB_MAX_WAIT_MS from 10000 ms (twice the worker watch's sample interval), default 60000", () => {
    expect(readConfig(valid).HEALTHZ_DUE_JOB_MAX_WAIT_MS).toBe(60_000);
    expect(readConfig({ ...valid, HEALTHZ_DUE_JOB_MAX_WAIT_MS: '10000' }).HEALTHZ_DUE_JOB_MAX_WAIT_MS).toBe(10_000);
    expect(problems({ ...valid, HEALTHZ_DUE_JOB_MAX_WAIT_MS: '9999' })).toEqual([
      "HEALTHZ_DUE_JOB_MAX_WAIT_MS: must be at least 10000 (twice the worker watch's 5 s sample interval)",
    ]);
    expect(problems({ ...valid, HEALTHZ_DUE_JOB_MAX_WAIT_MS: '0' })).toEqual([
      'HEALTHZ_DUE_JOB_MAX_WAIT_MS: must be greater than 0',
    ]);
  });

  it('takes SHUTDOWN_DRAIN_MS from 0 to 20000 ms (unset: the mode decides)', () => {
    expect(readConfig(valid).SHUTDOWN_DRAIN_MS).toBeUndefined();
    expect(readConfig({ ...valid, SHUTDOWN_DRAIN_MS: '0' }).SHUTDOWN_DRAIN_MS).toBe(0);
    expect(readConfig({ ...valid, SHUTDOWN_DRAIN_MS: '20000' }).SHUTDOWN_DRAIN_MS).toBe(20_000);
    expect(problems({ ...valid, SHUTDOWN_DRAIN_MS: '20001' })).toEqual([
      'SHUTDOWN_DRAIN_MS: must be at most 20000 (with the 9 s stop after it, within 30 s)',
    ]);
    for (const bad of ['-1', '2.5', 'soon'])
      expect(problems({ ...valid, SHUTDOWN_DRAIN_MS: bad })).toEqual([
        'SHUTDOWN_DRAIN_MS: must be a whole number of milliseconds (0–20000)',
      ]);
  });

  it('METRICS_TOKEN is optional; when set it must be a bearer token of at least 16 characters, never echoed', () => {
    expect(readConfig(valid).METRICS_TOKEN).toBeUndefined();
    expect(readConfig({ ...valid, METRICS_TOKEN: '' }).METRICS_TOKEN).toBeUndefined();
    expect(readConfig({ ...valid, METRICS_TOKEN: 'b2f1c0ffee5e1f9a7d3c4b5a69788e0f' }).METRICS_TOKEN).toBe(
      'b2f1c0ffee5e1f9a7d3c4b5a69788e0f',
    );
    expect(problems({ ...valid, METRICS_TOKEN: 'short-secret' })).toEqual([
      'METRICS_TOKEN: must be at least 16 characters (a random secret, e.g. from openssl rand -hex 32)',
    ]);
    const p = problems({ ...valid, METRICS_TOKEN: 'has spaces in the secret value' });
    expect(p).toEqual(['METRICS_TOKEN: may hold only letters, digits and - . _ ~ + / (a bearer token, RFC 6750)']);
    expect(p.join('\n')).not.toContain('secret value');
  });

  it('reads the access policy and the agent budget, and names a malformed id list', () => {
    const c = readConfig({
      ...valid,
      ACCESS_ALLOWED_USERS: 'U0ALICE, W0BOB',
      ACCESS_ALLOWED_USERGROUPS: 'S0DOCS',
      ACCESS_ALLOW_GUESTS: 'true',
      AGENT_CALLS_PER_HOUR: '50',
    });
    expect(c).toMatchObject({
      ACCESS_ALLOWED_USERS: ['U0ALICE', 'W0BOB'],
      ACCESS_ALLOWED_USERGROUPS: ['S0DOCS'],
      ACCESS_ALLOWED_CHANNELS: [],
      ACCESS_ALLOW_GUESTS: true,
      ACCESS_ALLOW_EXTERNAL: false,
    });
    expect(c).toMatchObject({ AGENT_CALLS_PER_HOUR: 50, AGENT_CALLS_PER_USER_PER_HOUR: 20, ADMIN_USERS: [] });
    expect(
      problems({
        ...valid,
        ACCESS_ALLOWED_USERS: 'alice',
        ACCESS_ALLOW_EXTERNAL: 'yes',
        AGENT_CALLS_PER_USER_PER_HOUR: '0',
      }),
    ).toEqual([
      'ACCESS_ALLOWED_USERS: must be comma-separated user ids (U… or W…)',
      'ACCESS_ALLOW_EXTERNAL: must be true or false',
      'AGENT_CALLS_PER_USER_PER_HOUR: must be greater than 0',
    ]);
  });

  it('rejects a backoff cap below the first delay', () => {
    expect(problems({ ...valid, POLL_MIN_INTERVAL_MS: '5000', POLL_MAX_INTERVAL_MS: '1000' })).toEqual([
      'POLL_MAX_INTERVAL_MS: must be at least POLL_MIN_INTERVAL_MS',
    ]);
  });

  it('reads the other docs projects and the settings admins as comma-separated lists', () => {
    expect(readConfig(valid)).toMatchObject({ DOCS_PROJECT_IDS: [], ADMIN_USERS: [] });
    const c = readConfig({ ...valid, DOCS_PROJECT_IDS: ' proj_b, proj-c ,,proj_b', ADMIN_USERS: 'U0ADMIN,W012ABC' });
    expect(c.DOCS_PROJECT_IDS).toEqual(['proj_b', 'proj-c']);
    expect(c.ADMIN_USERS).toEqual(['U0ADMIN', 'W012ABC']);
    expect(docsProjects(c)).toEqual(['proj', 'proj_b', 'proj-c']);
    expect(docsProjects({ DOCS_PROJECT_ID: 'proj', DOCS_PROJECT_IDS: ['proj', 'x'] })).toEqual(['proj', 'x']);
    const p = problems({ ...valid, DOCS_PROJECT_IDS: 'proj_b,bad id/x', ADMIN_USERS: 'U0ADMIN,alice' });
    expect(p).toEqual([
      'DOCS_PROJECT_IDS: must be comma-separated project ids (letters, digits, _ . -)',
      'ADMIN_USERS: must be comma-separated Slack user ids (U… or W…)',
    ]);
  });

  it('parses every id list the same way: spaces and repeats dropped, one problem line naming the variable', () => {
    const c = readConfig({
      ...valid,
      ACCESS_ALLOWED_CHANNELS: ' C0DOCS ,,C0DOCS, G0PRIV',
      ADMIN_USERS: 'U0ADMIN, U0ADMIN',
    });
    expect(c.ACCESS_ALLOWED_CHANNELS).toEqual(['C0DOCS', 'G0PRIV']);
    expect(c.ADMIN_USERS).toEqual(['U0ADMIN']);
    // Each keeps its own id pattern: ADMIN_USERS wants 3–31 characters, the allow-list any length.
    expect(readConfig({ ...valid, ACCESS_ALLOWED_USERS: 'U1' }).ACCESS_ALLOWED_USERS).toEqual(['U1']);
    expect(problems({ ...valid, ADMIN_USERS: 'U1' })).toEqual([
      'ADMIN_USERS: must be comma-separated Slack user ids (U… or W…)',
    ]);
    expect(problems({ ...valid, ACCESS_ALLOWED_CHANNELS: 'C0DOCS,#docs', ACCESS_ALLOWED_USERGROUPS: 'U0X' })).toEqual([
      'ACCESS_ALLOWED_USERGROUPS: must be comma-separated user group ids (S…)',
      'ACCESS_ALLOWED_CHANNELS: must be comma-separated channel ids (C…, G… or D…)',
    ]);
  });

  it('takes the per-person analytics share (ANALYTICS_CALLS_PER_USER_PER_HOUR), default 20', () => {
    expect(readConfig(valid).ANALYTICS_CALLS_PER_USER_PER_HOUR).toBe(20);
    expect(readConfig({ ...valid, ANALYTICS_CALLS_PER_USER_PER_HOUR: '5' }).ANALYTICS_CALLS_PER_USER_PER_HOUR).toBe(5);
    expect(problems({ ...valid, ANALYTICS_CALLS_PER_USER_PER_HOUR: '0' })).toEqual([
      'ANALYTICS_CALLS_PER_USER_PER_HOUR: must be greater than 0',
    ]);
  });

  it('requires https:// for the docs API and Slack API URLs, except to loopback hosts, without echoing them', () => {
    for (const ok of [
      'http://127.0.0.1:4000/api/',
      'http://localhost:8080',
      'http://[::1]:9000/',
      'http://127.3.2.1/',
      'https://slack.example.com/api/',
    ]) {
      expect(readConfig({ ...valid, SLACK_API_URL: ok, DOCS_API_URL: ok })).toMatchObject({
        SLACK_API_URL: ok,
        DOCS_API_URL: ok,
      });
    }
    const p = problems({
      ...valid,
      SLACK_API_URL: 'http://slack.internal.example/api/',
      DOCS_API_URL: 'http://10.0.0.7:8080',
    });
    expect(p).toEqual([
      'SLACK_API_URL: must be an https:// URL (http:// only to a loopback host such as 127.0.0.1 or localhost)',
      'DOCS_API_URL: must be an https:// URL (http:// only to a loopback host such as 127.0.0.1 or localhost)',
    ]);
    expect(p.join('\n')).not.toMatch(/internal\.example|10\.0\.0\.7/);
    // Look-alikes of a loopback name are not loopback.
    expect(problems({ ...valid, DOCS_API_URL: 'http://localhost.evil.example/' })).toHaveLength(1);
    expect(problems({ ...valid, DOCS_API_URL: 'http://127.0.0.1.nip.io/' })).toHaveLength(1);
    expect(problems({ ...valid, DOCS_API_URL: 'ftp://127.0.0.1/' })).toHaveLength(1);
  });
});

describe('readConfig: OAuth mode (SLACK_CLIENT_ID)', () => {
  const { SLACK_BOT_TOKEN: _t, ...noToken } = valid;
  const key = Buffer.alloc(32, 7).toString('base64');
  const oauth = {
    ...noToken,
    SLACK_CLIENT_ID: '1234567890.987654321',
    SLACK_CLIENT_SECRET: 'client-secret',
    SLACK_STATE_SECRET: 'a-state-secret-of-some-length',
    SLACK_INSTALLATION_KEY: key,
    SLACK_INSTALL_ALLOWLIST: 'T0SANDBOX, E0ORG',
  };

  it('takes the OAuth variables instead of SLACK_BOT_TOKEN (hex or base64 keys)', () => {
    const c = readConfig(oauth);
    expect(oauthMode(c)).toEqual({
      clientId: '1234567890.987654321',
      clientSecret: 'client-secret',
      stateSecret: 'a-state-secret-of-some-length',
      installationKey: key,
      installAllowlist: new Set(['T0SANDBOX', 'E0ORG']),
    });
    expect(c.SLACK_BOT_TOKEN).toBeUndefined();
    const hex = Buffer.alloc(32, 9).toString('hex');
    expect(oauthMode(readConfig({ ...oauth, SLACK_INSTALLATION_KEY_PREVIOUS: hex }))?.previousInstallationKey).toBe(
      hex,
    );
  });

  it('single-token mode is unchanged: no OAuth settings, SLACK_BOT_TOKEN still required', () => {
    expect(oauthMode(readConfig(valid))).toBeUndefined();
    expect(problems(noToken)).toEqual(['SLACK_BOT_TOKEN: is required (the bot token, xoxb-…)']);
  });

  it('a half-configured OAuth mode is one line naming what is missing', () => {
    const { SLACK_STATE_SECRET: _s, SLACK_INSTALLATION_KEY: _k, ...half } = oauth;
    expect(problems(half)).toEqual([
      'SLACK_CLIENT_ID: OAuth mode also needs SLACK_STATE_SECRET, SLACK_INSTALLATION_KEY (set them, or unset SLACK_CLIENT_ID for single-token mode)',
    ]);
  });

  it('refuses SLACK_BOT_TOKEN beside SLACK_CLIENT_ID, and OAuth variables without SLACK_CLIENT_ID', () => {
    expect(problems({ ...oauth, SLACK_BOT_TOKEN: 'xoxb-1' })).toEqual([
      "SLACK_BOT_TOKEN: cannot be set with SLACK_CLIENT_ID: in OAuth mode each workspace's token comes from its installation (unset one)",
    ]);
    expect(problems({ ...valid, SLACK_INSTALLATION_KEY: key })).toEqual([
      'SLACK_INSTALLATION_KEY: is only used with SLACK_CLIENT_ID (OAuth mode)',
    ]);
  });

  it('requires SLACK_INSTALL_ALLOWLIST, naming it in the one line of what OAuth mode also needs', () => {
    const { SLACK_INSTALL_ALLOWLIST: _a, ...open } = oauth;
    expect(problems(open)).toEqual([
      'SLACK_CLIENT_ID: OAuth mode also needs SLACK_INSTALL_ALLOWLIST (set them, or unset SLACK_CLIENT_ID for single-token mode)',
    ]);
    expect(problems({ ...open, SLACK_INSTALL_ALLOWLIST: '' })).toHaveLength(1);
    expect(problems({ ...oauth, SLACK_INSTALL_ALLOWLIST: ' , ' })).toEqual([
      'SLACK_INSTALL_ALLOWLIST: must name at least one workspace (T…) or org (E…) id',
    ]);
    expect(problems({ ...valid, SLACK_INSTALL_ALLOWLIST: 'T0SANDBOX' })).toEqual([
      'SLACK_INSTALL_ALLOWLIST: is only used with SLACK_CLIENT_ID (OAuth mode)',
    ]);
  });

  it('refuses an id that is not a workspace (T…) or org (E…) id, by its place in the list, not echoed', () => {
    const p = problems({ ...oauth, SLACK_INSTALL_ALLOWLIST: 'T0SANDBOX,xoxb-pasted-secret, E0ORG,C0DOCS' });
    expect(p).toEqual([
      'SLACK_INSTALL_ALLOWLIST: entries 2, 4 of 4 are not Slack workspace or org ids (T… or E…, capitals and digits)',
    ]);
    expect(p.join('\n')).not.toContain('xoxb-pasted-secret');
    expect(problems({ ...oauth, SLACK_INSTALL_ALLOWLIST: 'T0A,t0sandbox' })).toEqual([
      'SLACK_INSTALL_ALLOWLIST: entry 2 of 2 is not a Slack workspace or org id (T… or E…, capitals and digits)',
    ]);
    expect(oauthMode(readConfig({ ...oauth, SLACK_INSTALL_ALLOWLIST: 'T0A,T0A, E0B,' }))?.installAllowlist).toEqual(
      new Set(['T0A', 'E0B']),
    );
  });

  it('refuses a key that is not 32 bytes, without echoing it', () => {
    for (const bad of ['short', Buffer.alloc(16, 1).toString('base64'), 'z'.repeat(64)]) {
      const p = problems({ ...oauth, SLACK_INSTALLATION_KEY: bad });
      expect(p).toEqual([
        'SLACK_INSTALLATION_KEY: must be 32 random bytes as 64 hex digits or base64 (e.g. openssl rand -base64 32)',
      ]);
      expect(p.join('\n')).not.toContain(bad);
    }
  });
});
