import { z } from 'zod';
import { isTimeZone, isValidCron } from './calendar.js';
import type { RedisVars as RedisTargetVars } from './redis-target.js';
import { WORKER_WATCH_SAMPLE_MS } from './worker-watch.js';
import { apiUrl, count, drainMs, flag, hostPorts, idList, installationKey, intMs, issuePath } from './config-values.js';
import { PlatformErrorCode } from './errors.js';
import { oauthProblems } from './config-oauth.js';
import { installAllowlistField } from './install-allowlist.js';
import { resolveDocsWorkspaces, workspaceProjectsField, type DocsWorkspace } from './docs-workspaces.js';

const fields = z.object({
  SLACK_BOT_TOKEN: z
    .string({ message: 'is required (the bot token, xoxb-…)' })
    .startsWith('xoxb-', 'must start with xoxb-'),
  SLACK_CLIENT_ID: z
    .string()
    .regex(/^\d+\.\d+$/, "must be the app's Client ID (digits.digits, Basic Information → App Credentials)")
    .optional(),
  SLACK_CLIENT_SECRET: z.string().min(1).optional(),
  SLACK_STATE_SECRET: z
    .string()
    .min(16, 'must be at least 16 characters (a random secret, e.g. from openssl rand -hex 32)')
    .optional(),
  SLACK_INSTALLATION_KEY: installationKey,
  SLACK_INSTALLATION_KEY_PREVIOUS: installationKey,
  SLACK_INSTALL_ALLOWLIST: installAllowlistField,
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
  SLACK_APP_TOKEN: z.string().startsWith('xapp-', 'must start with xapp-').optional(),
  SLACK_API_URL: apiUrl('https://slack.com/api/'),
  DOCS_API_URL: apiUrl('https://api.mintlify.com'),
  DOCS_API_KEY: z
    .string({ message: 'is required (the docs admin API key, mint_…)' })
    .startsWith('mint_', 'must start with mint_'),
  DOCS_PROJECT_ID: z.string({ message: 'is required (the docs project id)' }).min(1, 'is required'),
  DOCS_PROJECT_IDS: idList(/^[A-Za-z0-9_.-]{1,100}$/, 'must be comma-separated project ids (letters, digits, _ . -)'),
  DOCS_WORKSPACE_PROJECTS: workspaceProjectsField,
  ADMIN_USERS: idList(/^[UW][A-Z0-9]{2,30}$/, 'must be comma-separated Slack user ids (U… or W…)'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  REDIS_SENTINELS: hostPorts,
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}$/, 'must be the name Sentinel monitors (letters, digits, _ . -)')
    .optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  REDIS_SENTINEL_TLS: flag,
  REDIS_CLUSTER_NODES: hostPorts,
  REDIS_USERNAME: z.string().min(1).optional(),
  REDIS_PASSWORD: z.string().min(1).optional(),
  REDIS_TLS: flag,
  REDIS_WAIT_REPLICAS: z.coerce
    .number({ message: 'must be a whole number of replicas (0–10)' })
    .int('must be a whole number of replicas (0–10)')
    .min(0, 'must be a whole number of replicas (0–10)')
    .max(10, 'must be a whole number of replicas (0–10)')
    .default(0),
  // Concurrent acks share WAITs: one may wait about 2 × this (+100 ms per WAIT at Redis' hz 10), within Slack's 3 s.
  REDIS_WAIT_TIMEOUT_MS: intMs(200).pipe(
    z.number().max(500, 'must be at most 500 (an ack may wait about twice it; Slack waits 3 s)'),
  ),
  // The worker watch samples every 5 s: a shorter wait would judge a worker on one sample.
  HEALTHZ_DUE_JOB_MAX_WAIT_MS: intMs(60_000).pipe(
    z
      .number()
      .min(
        2 * WORKER_WATCH_SAMPLE_MS,
        `must be at least ${2 * WORKER_WATCH_SAMPLE_MS} (twice the worker watch's ${WORKER_WATCH_SAMPLE_MS / 1000} s sample interval)`,
      ),
  ),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'may hold only letters, digits, - and _')
    .default('docs-agent'),
  PORT: z.coerce
    .number({ message: 'must be a port number (0–65535)' })
    .int('must be a port number (0–65535)')
    .min(0, 'must be a port number (0–65535)')
    .max(65535, 'must be a port number (0–65535)')
    .default(3000),
  SHUTDOWN_DRAIN_MS: drainMs,
  POLL_MIN_INTERVAL_MS: intMs(10_000),
  POLL_MAX_INTERVAL_MS: intMs(120_000),
  JOB_TIMEOUT_MS: intMs(21_600_000),
  SLACK_UPDATE_BUDGET_PER_MINUTE: z.coerce
    .number({ message: 'must be a whole number of edits per minute (1–1000)' })
    .int('must be a whole number of edits per minute (1–1000)')
    .min(1, 'must be a whole number of edits per minute (1–1000)')
    .max(1000, 'must be a whole number of edits per minute (1–1000)')
    .default(40),
  FOLLOWUP_POLICY: z.enum(['anyone', 'requester'], { message: 'must be anyone or requester' }).default('anyone'),
  FOLLOWUP_IGNORE_PREFIX: z.string().default('!aside'),
  // Previews of a job's pull request in its thread: `auto` asks for one (a plan without previews turns
  // them off for that project by itself), `off` never asks.
  DOCS_PREVIEWS: z.enum(['auto', 'off'], { message: 'must be auto or off' }).default('auto'),
  // The vendor's window of 5 preview requests per organization (a minute); lower only against a fake.
  DOCS_PREVIEWS_WINDOW_MS: intMs(60_000),
  DIGEST_CRON: z
    .string()
    .refine((v) => {
      const n = v.trim().split(/\s+/).length;
      return n === 5 || n === 6;
    }, 'must be a cron expression of 5 or 6 fields (BullMQ cron, seconds allowed)')
    .default('0 9 * * 1'),
  DIGEST_TZ: z.string().refine(isTimeZone, 'must be an IANA time zone such as UTC or Europe/Berlin').default('UTC'),
  AGENT_PROMPT_MAX_CHARS: z.coerce
    .number({ message: 'must be a whole number of characters' })
    .int('must be a whole number of characters')
    .min(1000, 'must be at least 1000')
    .default(12_000),
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters (a random secret, e.g. from openssl rand -hex 32)')
    .regex(/^[A-Za-z0-9._~+/-]+=*$/, 'may hold only letters, digits and - . _ ~ + / (a bearer token, RFC 6750)')
    .optional(),
  ACCESS_ALLOWED_USERS: idList(/^[UW][A-Z0-9]+$/, 'must be comma-separated user ids (U… or W…)'),
  ACCESS_ALLOWED_USERGROUPS: idList(/^S[A-Z0-9]+$/, 'must be comma-separated user group ids (S…)'),
  ACCESS_ALLOWED_CHANNELS: idList(/^[CGD][A-Z0-9]+$/, 'must be comma-separated channel ids (C…, G… or D…)'),
  ACCESS_ALLOW_GUESTS: flag,
  ACCESS_ALLOW_EXTERNAL: flag,
  AGENT_CALLS_PER_HOUR: count(100),
  AGENT_CALLS_PER_USER_PER_HOUR: count(20),
  ANALYTICS_CALLS_PER_USER_PER_HOUR: count(20),
  DOCS_ASSISTANT_API_KEY: z
    .string()
    .startsWith('mint_', 'must start with mint_ (the assistant API key, mint_dsc_…)')
    .optional(),
  DOCS_DOMAIN: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,200}$/, "must be the docs site's domain identifier (letters, digits, _ . -)")
    .optional(),
  DOCS_SITE_URL: z
    .url({ message: 'must be a URL' })
    .refine((v) => /^https?:\/\//.test(v), 'must be an http:// or https:// URL')
    .optional(),
  DOCS_DISCOVERY_URL: apiUrl('https://api.mintlify.com/discovery'),
  ASK_ACCESS: z.enum(['editors', 'everyone'], { message: 'must be editors or everyone' }).default('editors'),
  ASK_CALLS_PER_USER_PER_HOUR: count(30),
  ASK_CALLS_PER_HOUR: count(1000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** The rules across variables, the same in both modes. */
const crossRules = (c: z.output<typeof oauthFields>, ctx: z.RefinementCtx): void => {
  if (!c.SLACK_APP_TOKEN && !c.SLACK_SIGNING_SECRET) {
    ctx.addIssue({
      code: 'custom',
      path: ['SLACK_SIGNING_SECRET'],
      message: 'is required in HTTP mode (set it, or set SLACK_APP_TOKEN for Socket Mode)',
    });
  }
  if (!isValidCron(c.DIGEST_CRON, c.DIGEST_TZ)) {
    ctx.addIssue({
      code: 'custom',
      path: ['DIGEST_CRON'],
      message: 'is not a valid cron expression (BullMQ cron, e.g. 0 9 * * 1)',
    });
  }
  for (const [path, message] of redisModeProblems(c)) ctx.addIssue({ code: 'custom', path: [path], message });
  if (Boolean(c.DOCS_ASSISTANT_API_KEY) !== Boolean(c.DOCS_DOMAIN)) {
    const pair = ['DOCS_ASSISTANT_API_KEY', 'DOCS_DOMAIN'] as const;
    const [missing, other] = c.DOCS_DOMAIN ? pair : ([pair[1], pair[0]] as const);
    ctx.addIssue({
      code: 'custom',
      path: [missing],
      message: `is required with ${other} (asking the docs needs both; unset both to turn it off)`,
    });
  }
  if (c.POLL_MAX_INTERVAL_MS < c.POLL_MIN_INTERVAL_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['POLL_MAX_INTERVAL_MS'],
      message: 'must be at least POLL_MIN_INTERVAL_MS',
    });
  }
};

/** OAuth mode (SLACK_CLIENT_ID set): no SLACK_BOT_TOKEN, each installation's token comes from the store. */
const oauthFields = fields.extend({ SLACK_BOT_TOKEN: z.string().optional() });
/** Single-token mode, the default. */
const schema = fields.superRefine(crossRules);
const oauthSchema = oauthFields.superRefine(crossRules);

/** What the mode checks read: the connection variables and REDIS_WAIT_REPLICAS. */
type RedisVars = Omit<RedisTargetVars, 'QUEUE_PREFIX'> & { REDIS_WAIT_REPLICAS: number };

/**
 * The Redis settings that make no sense together, as `[variable, problem]`: one connection mode
 * (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES), the Sentinel settings only with Sentinels,
 * credentials in REDIS_URL itself in URL mode, and the features a Cluster can't run.
 */
function redisModeProblems(c: RedisVars): [string, string][] {
  const out: [string, string][] = [];
  const sentinel = c.REDIS_SENTINELS.length > 0;
  const cluster = c.REDIS_CLUSTER_NODES.length > 0;
  if (sentinel && cluster)
    out.push(['REDIS_CLUSTER_NODES', 'cannot be set with REDIS_SENTINELS: choose Sentinel or Cluster']);
  if (c.REDIS_URL && (sentinel || cluster))
    out.push([
      'REDIS_URL',
      `cannot be set with ${sentinel ? 'REDIS_SENTINELS' : 'REDIS_CLUSTER_NODES'}: choose one connection mode`,
    ]);
  if (sentinel && !c.REDIS_SENTINEL_NAME)
    out.push([
      'REDIS_SENTINEL_NAME',
      "is required with REDIS_SENTINELS (the primary's name in the Sentinels' config, e.g. mymaster)",
    ]);
  if (!sentinel) {
    const stray = {
      REDIS_SENTINEL_NAME: c.REDIS_SENTINEL_NAME,
      REDIS_SENTINEL_PASSWORD: c.REDIS_SENTINEL_PASSWORD,
      REDIS_SENTINEL_TLS: c.REDIS_SENTINEL_TLS,
    };
    for (const [k, v] of Object.entries(stray)) if (v) out.push([k, 'is only used with REDIS_SENTINELS']);
  }
  if (!sentinel && !cluster) {
    for (const k of ['REDIS_USERNAME', 'REDIS_PASSWORD'] as const) {
      if (c[k])
        out.push([k, 'is only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES (with REDIS_URL put it in the URL)']);
    }
    if (c.REDIS_TLS)
      out.push([
        'REDIS_TLS',
        'is only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES (with REDIS_URL use rediss://)',
      ]);
  }
  if (cluster && c.REDIS_WAIT_REPLICAS > 0) {
    out.push([
      'REDIS_WAIT_REPLICAS',
      'is not supported with REDIS_CLUSTER_NODES: replica acknowledgement (WAIT) needs the node that took the write; use Sentinel or a single endpoint for it, or set 0',
    ]);
  }
  return out;
}

/**
 * The names of every environment variable the bot reads, taken from the schema itself (in the
 * schema's order). `test/unit/docs.test.ts` checks docs/configuration.md's table against it.
 */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(fields.shape));

/**
 * The validated operational configuration (docs/configuration.md). Durations are in ms.
 * `SLACK_BOT_TOKEN` is set in single-token mode (the default) and unset in OAuth mode ({@link oauthMode}).
 */
export type Config = z.output<typeof oauthSchema> & {
  /**
   * DOCS_WORKSPACE_PROJECTS with the keys its entries name read from the environment (by
   * {@link readConfig}; docs-workspaces.ts). Holds secrets: never log it. Absent: none mapped.
   */
  docsWorkspaces?: ReadonlyMap<string, DocsWorkspace>;
};

/**
 * The docs projects the bot may act on: `DOCS_PROJECT_ID` (the default, first) and then
 * `DOCS_PROJECT_IDS`, without repeats.
 */
export function docsProjects(c: Pick<Config, 'DOCS_PROJECT_ID' | 'DOCS_PROJECT_IDS'>): string[] {
  return [...new Set([c.DOCS_PROJECT_ID, ...c.DOCS_PROJECT_IDS])];
}

/** Whether asking the docs is on: DOCS_ASSISTANT_API_KEY and DOCS_DOMAIN are both set (the schema requires both or neither). */
export function askConfigured(c: Pick<Config, 'DOCS_ASSISTANT_API_KEY' | 'DOCS_DOMAIN'>): boolean {
  return Boolean(c.DOCS_ASSISTANT_API_KEY && c.DOCS_DOMAIN);
}

/** Thrown by {@link readConfig}; `problems` holds one line per invalid variable, each naming it. */
export class ConfigError extends Error {
  readonly code = PlatformErrorCode.ConfigInvalid;
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and validates the configuration from an environment object.
 *
 * @param env - variables to read (default `process.env`); empty strings count as unset.
 * @returns the typed config with defaults applied.
 * @throws {ConfigError} listing every missing or invalid variable, one line each
 *   (`DOCS_API_KEY: must start with mint_`). Values are never echoed, so secrets stay out of logs.
 */
export function readConfig(env: Record<string, string | undefined> = process.env): Config {
  const input: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') input[k] = v;
  const oauth = oauthProblems(input).map(([k, m]) => `${k}: ${m}`);
  const parsed = (input.SLACK_CLIENT_ID === undefined ? schema : oauthSchema).safeParse(input);
  const mapped = parsed.success
    ? resolveDocsWorkspaces(parsed.data.DOCS_WORKSPACE_PROJECTS, parsed.data, input)
    : undefined;
  const mapping = (mapped?.problems ?? []).map(([k, m]) => `${k}: ${m}`);
  if (parsed.success && mapped && oauth.length === 0 && mapping.length === 0)
    return mapped.workspaces.size > 0 ? { ...parsed.data, docsWorkspaces: mapped.workspaces } : parsed.data;
  const problems = (parsed.error?.issues ?? []).map((i) => `${issuePath(i.path)}: ${i.message}`);
  throw new ConfigError([...new Set([...problems, ...oauth, ...mapping])]);
}
