/**
 * Which workspaces an org-wide install reaches, and the guard that keeps a request's workspaces to
 * them. Through an org-wide install (Enterprise Grid) a request's workspace comes from its body
 * (payloads.ts `requestTeamId`, and the listeners' `team_id`, `team.id`, `user.team_id`); in a
 * Slack Connect channel the body can name the other organization's workspace (an org-wide
 * interaction's `team` is null, so `user.team_id`, the clicker's own workspace, is used). Where
 * such a workspace has docs projects of its own (DOCS_WORKSPACE_PROJECTS: another tenant of the
 * same deployment), acting on it would let a person of that organization use its projects, keys
 * and docs site under this org's installation and post what they give into this org's channel.
 * So such a request is refused before any listener runs unless every such workspace is one Slack
 * lists for the install (`auth.teams.list`, Slack: "Obtain a full list of workspaces your
 * org-wide app has been approved for"; `limit` ≤ 1000, cursor pages; Tier 2 rate limit) — with a
 * single workspace token, unless it is the token's own. A request naming no workspace with an entry
 * of its own is not checked (no call): it can only get the org's entry or the defaults.
 */
import { LRUCache } from 'lru-cache';

/** How long a list of an org's workspaces is used, in ms (10 minutes). */
export const ORG_WORKSPACES_MAX_AGE_MS = 10 * 60_000;
/** A workspace missing from a list older than this (ms) reads the list again: one added since (1 minute). */
export const ORG_WORKSPACES_MISS_REFRESH_MS = 60_000;
/**
 * How long a request waits for the list, in ms (1.5 s, half of Slack's 3 s to acknowledge); past it
 * the request runs as the org's while the read goes on and fills the list for the next ones.
 */
export const ORG_WORKSPACES_WAIT_MS = 1_500;
/** After a failed read of an org's list, ms before Slack is asked again (30 s; the last list, if any, is used meanwhile). */
export const ORG_WORKSPACES_FAILURE_MS = 30_000;
/** A refusal's warn line is written once per org and workspace in this many ms (10 minutes). */
export const ORG_WORKSPACES_WARN_EVERY_MS = 10 * 60_000;
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
  /** The last failed read of each org's list, kept {@link ORG_WORKSPACES_FAILURE_MS}: no list, no call meanwhile. */
  private readonly failures: LRUCache<string, { err: unknown }>;
  private readonly now: () => number;

  /** @param opts.perf - clock in ms (lru-cache's `perf`); default `performance`. */
  constructor(opts: { perf?: { now(): number } } = {}) {
    const perf = opts.perf ?? performance;
    this.now = () => perf.now();
    this.lists = new LRUCache<string, OrgList, ListTeams>({
      max: 1_000,
      ttl: ORG_WORKSPACES_MAX_AGE_MS,
      ...(opts.perf ? { perf: opts.perf, ttlResolution: 0 } : {}),
      // An expired list is still used while it is read again, and kept when that read fails.
      allowStale: true,
      noDeleteOnStaleGet: true,
      noDeleteOnFetchRejection: true,
      allowStaleOnFetchRejection: true,
      fetchMethod: async (org, _stale, { context }) => {
        try {
          return { teams: await readAll(context), at: this.now() };
        } catch (err) {
          this.failures.set(org, { err });
          throw err;
        }
      },
    });
    this.failures = new LRUCache<string, { err: unknown }>({
      max: 1_000,
      ttl: ORG_WORKSPACES_FAILURE_MS,
      ...(opts.perf ? { perf: opts.perf, ttlResolution: 0 } : {}),
    });
  }

  /**
   * Whether workspace `teamId` is one of org `org`'s install (`list` reads Slack with its token).
   * A workspace missing from a list older than {@link ORG_WORKSPACES_MISS_REFRESH_MS} reads the
   * list again once.
   * @throws the Slack error when the list cannot be read and none was read before (for
   *   {@link ORG_WORKSPACES_FAILURE_MS} after a failed read, without calling Slack again).
   */
  async includes(org: string, teamId: string, list: ListTeams): Promise<boolean> {
    const first = await this.read(org, list, false);
    if (first.teams.has(teamId)) return true;
    if (this.now() - first.at < ORG_WORKSPACES_MISS_REFRESH_MS) return false;
    return (await this.read(org, list, true)).teams.has(teamId);
  }

  /** `org`'s list, read from Slack when not kept (or `forceRefresh`); the last one when that read fails. */
  private async read(org: string, list: ListTeams, forceRefresh: boolean): Promise<OrgList> {
    const failed = this.failures.get(org);
    const last = this.lists.get(org);
    if (failed !== undefined) {
      if (last) return last;
      throw failed.err;
    }
    // A forced read (a workspace missing from the list) waits for Slack's answer, not the list kept.
    const kept = await this.lists.fetch(org, { context: list, forceRefresh, allowStale: !forceRefresh });
    if (kept) return kept;
    // lru-cache answers undefined when the read failed with no list kept (allowStaleOnFetchRejection).
    throw this.failures.get(org)?.err ?? new Error('auth.teams.list gave no list');
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
