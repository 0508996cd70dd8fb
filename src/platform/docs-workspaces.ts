/**
 * Per-workspace docs projects (DOCS_WORKSPACE_PROJECTS): which docs projects, admin API key and
 * (when asking is on) docs site a workspace (`T…`) or a Grid org (`E…`) uses. Unmapped workspaces
 * use the defaults (DOCS_PROJECT_ID, DOCS_PROJECT_IDS, DOCS_API_KEY, DOCS_DOMAIN,
 * DOCS_ASSISTANT_API_KEY, DOCS_SITE_URL). Keys are never in the mapping itself: an entry names the environment
 * variable holding its key, so the mapping can be logged or reviewed without secrets.
 */
import { z } from 'zod';
import type { DiscoveryClient } from './docs-api/discovery-client.js';
import { currentRequestContext, installationRefOf, type InstallationRef } from './request-context.js';

const PROJECT_ID = /^[A-Za-z0-9_.-]{1,100}$/;
const ENV_NAME = /^[A-Z][A-Z0-9_]{0,99}$/;
const envName = z.string().regex(ENV_NAME, 'must name an environment variable (A-Z, 0-9, _)');

/** One mapping entry as written in DOCS_WORKSPACE_PROJECTS. */
const entrySchema = z.strictObject({
  /** The workspace's projects, its default first. */
  projects: z
    .array(z.string().regex(PROJECT_ID, 'must be project ids (letters, digits, _ . -)'))
    .min(1, 'must name at least one project')
    .max(50, 'must name at most 50 projects'),
  /** The variable holding the admin API key (mint_…) of these projects; default DOCS_API_KEY. */
  apiKeyEnv: envName.optional(),
  /** Asking: the docs site's domain identifier (like DOCS_DOMAIN). */
  domain: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,200}$/, "must be the docs site's domain identifier (letters, digits, _ . -)")
    .optional(),
  /** Asking: the variable holding that site's assistant API key (like DOCS_ASSISTANT_API_KEY). */
  assistantKeyEnv: envName.optional(),
  /** Asking: the site's public URL its answers link to (like DOCS_SITE_URL, which is the default). */
  siteUrl: z
    .url({ message: 'must be an https:// URL' })
    .refine((v) => /^https:\/\//i.test(v), 'must be an https:// URL')
    .optional(),
});

/** A mapping entry as written. */
type DocsWorkspaceEntry = z.output<typeof entrySchema>;

/**
 * DOCS_WORKSPACE_PROJECTS: a JSON object from a workspace id (`T…`) or Grid org id (`E…`) to its
 * entry, e.g. `{"T0B":{"projects":["b-docs"],"apiKeyEnv":"DOCS_API_KEY_B"}}`. Unset: `{}`.
 */
export const workspaceProjectsField = z
  .string()
  .default('{}')
  .transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object (see docs/configuration.md)' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(z.string().regex(/^[TE][A-Z0-9]{1,30}$/, 'keys must be workspace (T…) or Grid org (E…) ids'), entrySchema),
  );

/** What the mapping is checked against: the defaults and the raw environment the keys are read from. */
interface DocsWorkspaceDefaults {
  DOCS_API_KEY: string;
  DOCS_PROJECT_ID: string;
  DOCS_PROJECT_IDS: readonly string[];
  DOCS_ASSISTANT_API_KEY?: string | undefined;
  DOCS_DOMAIN?: string | undefined;
  DOCS_SITE_URL?: string | undefined;
}

/** Asking's settings: the discovery API's key and the docs site's domain. */
export interface AskSite {
  apiKey: string;
  domain: string;
}

/** One mapped workspace or org, its keys read. Holds secrets: never log it. */
export interface DocsWorkspace {
  projects: readonly string[];
  apiKey: string;
  ask?: AskSite;
  /** The variable its assistant key was read from (`assistantKeyEnv`), for log lines. */
  askKeyEnv?: string;
  /** The site its answers link to (`siteUrl`); absent: DOCS_SITE_URL. */
  siteUrl?: string;
}

/** Where asking's settings of a workspace are given, as log lines name them (names, never values). */
export interface AskSettingNames {
  /** e.g. `DOCS_ASSISTANT_API_KEY`, or `DOCS_ASSISTANT_API_KEY_B (DOCS_WORKSPACE_PROJECTS T0B.assistantKeyEnv)`. */
  key: string;
  /** e.g. `DOCS_DOMAIN`, or `DOCS_WORKSPACE_PROJECTS T0B.domain`. */
  domain: string;
}

/** The defaults' {@link AskSettingNames}. */
export const DEFAULT_ASK_SETTINGS: AskSettingNames = { key: 'DOCS_ASSISTANT_API_KEY', domain: 'DOCS_DOMAIN' };

/** The discovery client as the bot holds it: asking, and which settings the current workspace's site comes from. */
export type AskingClient = Pick<DiscoveryClient, 'sendMessage' | 'close'> & {
  /** The settings naming the current request's (or worker's) site; absent: the defaults'. */
  settingNames?: () => AskSettingNames;
};

/** Pairs `[variable, problem]` as readConfig reports them. */
type Problems = [string, string][];

const VAR = 'DOCS_WORKSPACE_PROJECTS';

/** How log lines name an entry's assistant key variable: `X (DOCS_WORKSPACE_PROJECTS id.assistantKeyEnv)`. */
export function askKeyVariable(id: string, env: string): string {
  return `${env} (${VAR} ${id}.assistantKeyEnv)`;
}

/** The key `name` holds, or a problem (never the value itself). */
function keyIn(env: Record<string, string>, id: string, name: string, what: string, out: Problems): string {
  const value = env[name];
  if (value === undefined) out.push([VAR, `${id} names ${name} for its ${what}, but ${name} is unset`]);
  else if (!value.startsWith('mint_')) out.push([VAR, `${id}: ${name} must start with mint_ (the ${what})`]);
  return value ?? '';
}

/**
 * Reads the keys each entry names from `env` and checks the mapping against the defaults: each
 * named variable set and a `mint_…` key; `domain` and `assistantKeyEnv` together, and on every
 * entry exactly when asking is on (DOCS_DOMAIN), so no workspace is ever answered from another's
 * site; a project given with one key only (the defaults' projects use DOCS_API_KEY).
 * @returns the workspaces by id, and the problems (none when valid); values never appear in them.
 */
export function resolveDocsWorkspaces(
  mapping: Record<string, DocsWorkspaceEntry>,
  defaults: DocsWorkspaceDefaults,
  env: Record<string, string>,
): { workspaces: Map<string, DocsWorkspace>; problems: Problems } {
  const problems: Problems = [];
  const workspaces = new Map<string, DocsWorkspace>();
  const keyOfProject = new Map<string, string>();
  for (const p of [defaults.DOCS_PROJECT_ID, ...defaults.DOCS_PROJECT_IDS]) keyOfProject.set(p, defaults.DOCS_API_KEY);
  const asking = Boolean(defaults.DOCS_DOMAIN);
  for (const [id, e] of Object.entries(mapping)) {
    const apiKey = e.apiKeyEnv ? keyIn(env, id, e.apiKeyEnv, 'admin API key', problems) : defaults.DOCS_API_KEY;
    for (const p of e.projects) {
      const known = keyOfProject.get(p);
      if (known !== undefined && known !== apiKey)
        problems.push([VAR, `${id}: project ${p} is given elsewhere with another API key (one key per project)`]);
      keyOfProject.set(p, apiKey);
    }
    const ws: DocsWorkspace = { projects: [...new Set(e.projects)], apiKey };
    if (Boolean(e.domain) !== Boolean(e.assistantKeyEnv))
      problems.push([VAR, `${id}: domain and assistantKeyEnv go together (asking needs both)`]);
    else if (asking && !e.domain)
      problems.push([VAR, `${id} needs domain and assistantKeyEnv while asking is on (DOCS_DOMAIN is set)`]);
    else if (!asking && e.domain)
      problems.push([VAR, `${id}: domain and assistantKeyEnv are only used with DOCS_DOMAIN (asking on)`]);
    else if (e.domain && e.assistantKeyEnv) {
      ws.ask = { domain: e.domain, apiKey: keyIn(env, id, e.assistantKeyEnv, 'assistant API key', problems) };
      ws.askKeyEnv = e.assistantKeyEnv;
    }
    if (e.siteUrl && !asking) problems.push([VAR, `${id}: siteUrl is only used with DOCS_DOMAIN (asking on)`]);
    else if (e.siteUrl) ws.siteUrl = e.siteUrl;
    workspaces.set(id, ws);
  }
  return { workspaces, problems };
}

/**
 * Which docs projects, keys and docs site the work of a workspace uses: the workspace's own entry
 * (its `teamId`), else its Grid org's (`enterpriseId`), else the defaults. A workspace never gets
 * another's projects; a project always goes with the one key it was given.
 */
export class DocsWorkspaces {
  private readonly keys = new Map<string, string>();
  private readonly defaultProjects: readonly string[];

  /**
   * @param defaults - the default projects (DOCS_PROJECT_ID first), their key, asking's site and
   *   the URL answers link to (DOCS_SITE_URL).
   * @param workspaces - {@link resolveDocsWorkspaces}' map (checked: one key per project).
   */
  constructor(
    private readonly defaults: {
      projects: readonly string[];
      apiKey: string;
      ask?: AskSite | undefined;
      siteUrl?: string | undefined;
    },
    private readonly workspaces: ReadonlyMap<string, DocsWorkspace> = new Map(),
  ) {
    this.defaultProjects = defaults.projects;
    for (const p of defaults.projects) this.keys.set(p, defaults.apiKey);
    for (const ws of workspaces.values()) for (const p of ws.projects) this.keys.set(p, ws.apiKey);
  }

  /** What logging or serializing it shows: the ids and projects, never a key. */
  toJSON(): { defaults: readonly string[]; workspaces: Record<string, readonly string[]> } {
    const workspaces = Object.fromEntries([...this.workspaces].map(([id, ws]) => [id, ws.projects]));
    return { defaults: this.defaultProjects, workspaces };
  }

  /** Whether any workspace or org is mapped (DOCS_WORKSPACE_PROJECTS set). */
  get mapped(): boolean {
    return this.workspaces.size > 0;
  }

  /** Whether workspace (or org) `id` has an entry of its own in DOCS_WORKSPACE_PROJECTS. */
  hasOwnEntry(id: string): boolean {
    return this.workspaces.has(id);
  }

  /** The id of `ref`'s entry: its workspace's, else its org's, else undefined (the defaults). */
  private entryId(ref: InstallationRef): string | undefined {
    if (ref.teamId && this.workspaces.has(ref.teamId)) return ref.teamId;
    return ref.enterpriseId && this.workspaces.has(ref.enterpriseId) ? ref.enterpriseId : undefined;
  }

  /** The entry of `ref`'s workspace, else its org's, else undefined (the defaults). */
  private entry(ref: InstallationRef): DocsWorkspace | undefined {
    const id = this.entryId(ref);
    return id === undefined ? undefined : this.workspaces.get(id);
  }

  /** Where `ref`'s asking site is configured (names only, for log lines): its entry, else the defaults. */
  askSettingsFor(ref: InstallationRef): AskSettingNames {
    const id = this.entryId(ref);
    const env = id === undefined ? undefined : this.workspaces.get(id)?.askKeyEnv;
    if (id === undefined || env === undefined) return DEFAULT_ASK_SETTINGS;
    return { key: askKeyVariable(id, env), domain: `${VAR} ${id}.domain` };
  }

  /** The projects `ref`'s work may use, its default first. */
  projectsFor(ref: InstallationRef): readonly string[] {
    return this.entry(ref)?.projects ?? this.defaultProjects;
  }

  /** {@link projectsFor} the current request's (or worker's) workspace. */
  current(): readonly string[] {
    return this.projectsFor(installationRefOf(currentRequestContext()));
  }

  /** The admin API key of `projectId`, or undefined for a project nobody was given. Secret. */
  keyFor(projectId: string): string | undefined {
    return this.keys.get(projectId);
  }

  /** Asking's site for `ref`'s workspace (undefined: asking is off). Secret. */
  askFor(ref: InstallationRef): AskSite | undefined {
    const own = this.entry(ref);
    return own ? own.ask : this.defaults.ask;
  }

  /**
   * The docs site URL answers in `ref`'s workspace link to (their sources, and the only site links
   * in their text may go to): its entry's `siteUrl`, else DOCS_SITE_URL; undefined: no links.
   */
  siteUrlFor(ref: InstallationRef): string | undefined {
    return this.entry(ref)?.siteUrl ?? this.defaults.siteUrl;
  }

  /** {@link siteUrlFor} the current request's (or worker's) workspace. */
  currentSiteUrl(): string | undefined {
    return this.siteUrlFor(installationRefOf(currentRequestContext()));
  }

  /** The distinct asking sites (the default first), e.g. to build one client each. Secret. */
  askSites(): AskSite[] {
    const all = [this.defaults.ask, ...[...this.workspaces.values()].map((w) => w.ask)];
    const seen = new Map<string, AskSite>();
    for (const a of all) if (a) seen.set(`${a.domain}\u0000${a.apiKey}`, a);
    return [...seen.values()];
  }
}

/**
 * `base` asking the docs site of the current request's (or worker's) workspace
 * ({@link DocsWorkspaces.askFor}: one client per site and key, over `base`'s dispatcher), and
 * naming where that site's settings are given ({@link DocsWorkspaces.askSettingsFor}).
 */
export function workspaceDiscovery(
  base: Pick<DiscoveryClient, 'forSite' | 'close'>,
  workspaces: DocsWorkspaces,
): AskingClient {
  const current = () => installationRefOf(currentRequestContext());
  return {
    sendMessage(body, opts) {
      const site = workspaces.askFor(current());
      // Unreachable (the configuration requires a site of every entry while asking is on): refuse, never fall back.
      if (!site) return Promise.reject(new Error("asking is not configured for this workspace's docs"));
      return base.forSite(site).sendMessage(body, opts);
    },
    close: () => base.close(),
    settingNames: () => workspaces.askSettingsFor(current()),
  };
}
