/**
 * Which workspaces an org-wide install reaches, and the guard that keeps a request's workspace to
 * them. An org-wide install (Enterprise Grid) takes a request's workspace from its body
 * (org-wide.ts `requestTeamId`: the workspace its token must name as `team_id`); in a Slack Connect
 * channel that body can name the other organization's workspace. Where that workspace has docs
 * projects of its own (DOCS_WORKSPACE_PROJECTS), taking it on trust would let a person of another
 * organization pick that entry's projects, keys and site under this org's installation; so before
 * the rest of such a request runs, its workspace must be one Slack lists for the install
 * (`auth.teams.list`, Slack: "Obtain a full list of workspaces your org-wide app has been approved
 * for"; `limit` ≤ 1000, cursor pages; Tier 2 rate limit). A request whose workspace has no entry
 * of its own is not checked: it can only get the org's entry or the defaults.
 */
import type { App } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../logger.js';
import { currentRequestContext, withRequestContext } from '../request-context.js';
import { withinTime } from '../time-limit.js';
import { slackErrorCode } from './errors.js';

/** How long a list of an org's workspaces is used, in ms (10 minutes). */
export const ORG_WORKSPACES_MAX_AGE_MS = 10 * 60_000;
/** A workspace missing from a list older than this (ms) reads the list again: one added since (1 minute). */
export const ORG_WORKSPACES_MISS_REFRESH_MS = 60_000;
/**
 * How long a request waits for the list, in ms (1.5 s, half of Slack's 3 s to acknowledge); past it
 * the request runs as the org's while the read goes on and fills the list for the next ones.
 */
export const ORG_WORKSPACES_WAIT_MS = 1_500;
/** Pages of `auth.teams.list` read at most (1,000 workspaces each, Slack's largest `limit`). */
export const ORG_WORKSPACES_MAX_PAGES = 10;

/** One page of `auth.teams.list`: the workspaces' ids and the next cursor ('' or absent: the last). */
export interface TeamsPage {
  teams?: { id?: string }[];
  response_metadata?: { next_cursor?: string };
}

/** Reads one page of `auth.teams.list` with the install's token. @throws the Slack error. */
export type ListTeams = (args: { limit: number; cursor?: string }) => Promise<TeamsPage>;

/**
 * The workspaces of each org-wide install, read from Slack and kept per org (lru-cache: concurrent
 * reads of one org share one call; a list is kept {@link ORG_WORKSPACES_MAX_AGE_MS}; when a read
 * fails, the last list is used if there is one).
 */
export class OrgWorkspaces {
  private readonly lists: LRUCache<string, OrgList, ListTeams>;
  private readonly now: () => number;

  /** @param opts.perf - clock in ms (lru-cache's `perf`); default `performance`. */
  constructor(opts: { perf?: { now(): number } } = {}) {
    const perf = opts.perf ?? performance;
    this.now = () => perf.now();
    this.lists = new LRUCache<string, OrgList, ListTeams>({
      max: 1_000,
      ttl: ORG_WORKSPACES_MAX_AGE_MS,
      ...(opts.perf ? { perf: opts.perf, ttlResolution: 0 } : {}),
      noDeleteOnFetchRejection: true,
      fetchMethod: async (_org, _stale, { context }) => ({ teams: await readAll(context), at: this.now() }),
    });
  }

  /**
   * Whether workspace `teamId` is one of org `org`'s install (`list` reads Slack with its token).
   * A workspace missing from a list older than {@link ORG_WORKSPACES_MISS_REFRESH_MS} reads the
   * list again once.
   * @throws the Slack error when the list cannot be read and none was read before.
   */
  async includes(org: string, teamId: string, list: ListTeams): Promise<boolean> {
    const first = await this.read(org, list, false);
    if (first.teams.has(teamId)) return true;
    if (this.now() - first.at < ORG_WORKSPACES_MISS_REFRESH_MS) return false;
    return (await this.read(org, list, true)).teams.has(teamId);
  }

  /** `org`'s list, read from Slack when not kept (or `forceRefresh`); the last one when that read fails. */
  private async read(org: string, list: ListTeams, forceRefresh: boolean): Promise<OrgList> {
    try {
      const kept = await this.lists.fetch(org, { context: list, forceRefresh });
      if (kept) return kept;
    } catch (err) {
      const last = this.lists.get(org, { allowStale: true });
      if (last) return last;
      throw err;
    }
    throw new Error('auth.teams.list gave no list');
  }
}

/** An org's workspaces, and when they were read (ms, the clock of {@link OrgWorkspaces}). */
interface OrgList {
  teams: ReadonlySet<string>;
  at: number;
}

/** Every page of `auth.teams.list` (at most {@link ORG_WORKSPACES_MAX_PAGES}). @throws the Slack error. */
async function readAll(list: ListTeams): Promise<ReadonlySet<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < ORG_WORKSPACES_MAX_PAGES; page += 1) {
    const res = await list({ limit: 1_000, ...(cursor ? { cursor } : {}) });
    for (const t of res.teams ?? []) if (typeof t.id === 'string') ids.add(t.id);
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return ids;
}

/** What {@link orgWorkspaceGuard} needs. */
export interface OrgWorkspaceGuardOptions {
  workspaces: OrgWorkspaces;
  /** Whether `teamId` has docs projects of its own (DocsWorkspaces.hasOwnEntry): only then is it checked. */
  hasOwnEntry: (teamId: string) => boolean;
  /** Single-token mode: SLACK_BOT_TOKEN is org-wide (start-up `auth.test`). OAuth mode reads each request's install. */
  singleTokenOrgWide: boolean;
  logger: Logger;
  /** How long a request waits for the list, in ms. @defaultValue {@link ORG_WORKSPACES_WAIT_MS} */
  waitMs?: number;
}

/**
 * A Bolt global middleware: for a request through an org-wide install whose workspace has docs
 * projects of its own, checks that the workspace is one of the install's ({@link OrgWorkspaces});
 * when it is not (another organization's, in a Slack Connect channel) the rest of the request runs
 * as the org's, without a workspace (the org's entry or the defaults; the methods that need
 * `team_id` are then refused by Slack, so its reads fail closed), with one warn line (ids only).
 * When Slack's list cannot be read within {@link ORG_WORKSPACES_WAIT_MS}, the request runs without
 * a workspace too (one warn line).
 * Registered after `installationContext` in OAuth mode.
 */
export function orgWorkspaceGuard(app: App, opts: OrgWorkspaceGuardOptions): void {
  app.use(async ({ client, next }) => {
    const ctx = currentRequestContext();
    const teamId = ctx?.teamId;
    const orgWide = ctx?.enterpriseInstall ?? opts.singleTokenOrgWide;
    if (!ctx || !teamId || !orgWide || !opts.hasOwnEntry(teamId)) return next();
    // OAuth mode: the install's org; single-token mode: the one token's ('own').
    const org = ctx.enterpriseId ?? 'own';
    const list: ListTeams = (args) => client.auth.teams.list(args);
    try {
      const read = opts.workspaces.includes(org, teamId, list);
      const late = () => {
        throw Object.assign(new Error('auth.teams.list did not answer in time'), { code: 'timed_out' });
      };
      if (await withinTime(read, opts.waitMs ?? ORG_WORKSPACES_WAIT_MS, late)) return next();
      opts.logger.warn(
        { teamId, enterpriseId: org },
        "a request's workspace is not one the org-wide install was added to (another organization's, in a Slack Connect channel?); it runs as the org's, without that workspace's docs projects",
      );
    } catch (err) {
      opts.logger.warn(
        { teamId, enterpriseId: org, slackError: slackErrorCode(err) ?? 'unknown' },
        "could not read the org-wide install's workspaces (auth.teams.list); the request runs as the org's, without its workspace",
      );
    }
    const { teamId: _dropped, ...rest } = ctx;
    await withRequestContext(rest, next);
  });
}
