/**
 * Which workspaces an org-wide install reaches, and the guard that keeps a request's workspaces to
 * them. Through an org-wide install (Enterprise Grid) a request's workspace comes from its body
 * (org-wide.ts `requestTeamId`, and the listeners' `team_id`, `team.id`, `user.team_id`); in a
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
import type { App } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../logger.js';
import { currentRequestContext } from '../request-context.js';
import { withinTime } from '../time-limit.js';
import { slackErrorCode } from './errors.js';
import { workspaceId } from './org-wide.js';
import { postToResponseUrl } from './respond.js';

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

/** What {@link orgWorkspaceGuard} needs. */
export interface OrgWorkspaceGuardOptions {
  workspaces: OrgWorkspaces;
  /**
   * `auth.teams.list` with the current request's installation's token: the platform's `reads`
   * client (a 429 rejected at once, refused tokens noticed, errors counted). Not Bolt's per-request
   * client, which adds an org-wide request's `team_id` to every call.
   */
  listTeams: ListTeams;
  /** Whether `teamId` has docs projects of its own (DocsWorkspaces.hasOwnEntry): only then is it checked. */
  hasOwnEntry: (teamId: string) => boolean;
  /** Single-token mode: SLACK_BOT_TOKEN is org-wide (start-up `auth.test`). OAuth mode reads each request's install. */
  singleTokenOrgWide: boolean;
  /** Single-token mode with a workspace token: its workspace (start-up `auth.test` `team_id`). */
  singleTokenTeamId?: string | undefined;
  logger: Logger;
  /** How long a request waits for the list, in ms. @defaultValue {@link ORG_WORKSPACES_WAIT_MS} */
  waitMs?: number;
  /** Clock of the warn lines' spacing (lru-cache's `perf`), in ms; default `performance`. */
  perf?: { now(): number };
}

/** Said to a person whose workspace is another organization's, with docs projects of its own. */
export const OTHER_ORG_TEXT =
  "I can't act for you here: I'm installed for the organization this channel belongs to, and your workspace has its own docs set up with me. Use me from your own workspace. Nothing was done.";
/** Said when the install's workspaces could not be read. */
export const ORG_CHECK_FAILED_TEXT =
  "I couldn't check which organization your workspace belongs to, so I did nothing. Try again in a minute.";

/** Every workspace id (`T…`) a request's body names where a listener may read one. */
function bodyTeamIds(body: Record<string, unknown>): string[] {
  const team = body.team as { id?: unknown } | null | undefined;
  const user = body.user as { team_id?: unknown } | null | undefined;
  const ids = [body.context_team_id, body.team_id, team?.id, user?.team_id].map(workspaceId);
  return [...new Set(ids.filter((id): id is string => id !== undefined))];
}

/**
 * A Bolt global middleware (registered after `installationContext` in OAuth mode): a request whose
 * body or context names a workspace with docs projects of its own is let through only when every
 * such workspace is the install's: through an org-wide install, one {@link OrgWorkspaces} lists;
 * with a single workspace token, the token's own; an OAuth workspace install's work is keyed by
 * Bolt's installing workspace, so it is not checked. Otherwise the request is refused before any
 * listener runs: a command's ack says {@link OTHER_ORG_TEXT} (or {@link ORG_CHECK_FAILED_TEXT}
 * when Slack's list could not be read within {@link ORG_WORKSPACES_WAIT_MS}), an interaction with
 * a `response_url` is acked and told there, an event or a form is acked and dropped; one warn line
 * (ids only) per org and workspace every {@link ORG_WORKSPACES_WARN_EVERY_MS}.
 */
export function orgWorkspaceGuard(app: App, opts: OrgWorkspaceGuardOptions): void {
  const warned = new LRUCache<string, true>({
    max: 1_000,
    ttl: ORG_WORKSPACES_WARN_EVERY_MS,
    ...(opts.perf ? { perf: opts.perf, ttlResolution: 0 } : {}),
  });
  const warnOnce = (key: string, fields: Record<string, unknown>, msg: string) => {
    if (warned.has(key)) return;
    warned.set(key, true);
    opts.logger.warn(fields, msg);
  };
  app.use(async (args) => {
    const { next } = args;
    const body = args.body as unknown as Record<string, unknown>;
    const ctx = currentRequestContext();
    const ids = [...new Set([...(ctx?.teamId ? [ctx.teamId] : []), ...bodyTeamIds(body)])].filter(opts.hasOwnEntry);
    if (ids.length === 0 || ctx?.enterpriseInstall === false) return next();
    const orgWide = ctx?.enterpriseInstall ?? opts.singleTokenOrgWide;
    // OAuth mode: the install's org; single-token mode: the one token's ('own').
    const org = ctx?.enterpriseId ?? 'own';
    let refusal: string;
    if (!orgWide) {
      const foreign = opts.singleTokenTeamId === undefined ? [] : ids.filter((id) => id !== opts.singleTokenTeamId);
      if (foreign.length === 0) return next();
      warnOnce(`${org}|${foreign[0]}`, { teamId: foreign[0], ownTeamId: opts.singleTokenTeamId }, NOT_OURS_LINE);
      refusal = OTHER_ORG_TEXT;
    } else {
      const list = opts.listTeams;
      try {
        const ours = Promise.all(ids.map((id) => opts.workspaces.includes(org, id, list)));
        const answers = await withinTime<boolean[] | 'late'>(
          ours,
          opts.waitMs ?? ORG_WORKSPACES_WAIT_MS,
          () => 'late' as const,
        );
        if (answers === 'late') {
          warnOnce(`${org}|failed`, { enterpriseId: org, waitedMs: opts.waitMs ?? ORG_WORKSPACES_WAIT_MS }, LATE_LINE);
          refusal = ORG_CHECK_FAILED_TEXT;
        } else {
          const foreign = ids.filter((_, i) => !answers[i]);
          if (foreign.length === 0) return next();
          warnOnce(`${org}|${foreign[0]}`, { teamId: foreign[0], enterpriseId: org }, NOT_OURS_LINE);
          refusal = OTHER_ORG_TEXT;
        }
      } catch (err) {
        const slackError = slackErrorCode(err) ?? 'unknown';
        warnOnce(`${org}|failed`, { enterpriseId: org, slackError }, CHECK_FAILED_LINE);
        refusal = ORG_CHECK_FAILED_TEXT;
      }
    }
    await refuse(args as unknown as RefusedArgs, body, refusal, opts.logger);
  });
}

const NOT_OURS_LINE =
  "refused a request naming a workspace with docs projects of its own that is not the install's (another organization's, in a Slack Connect channel?)";
const LATE_LINE =
  "the org-wide install's workspaces (auth.teams.list) did not come in time; refused a request naming a workspace with docs projects of its own (the read goes on)";
const CHECK_FAILED_LINE =
  "could not read the org-wide install's workspaces (auth.teams.list); refused requests naming a workspace with docs projects of its own";

/** The parts of Bolt's middleware arguments a refusal uses. */
interface RefusedArgs {
  ack?: (r?: unknown) => Promise<void>;
}

/** Answers a refused request as its kind allows (see {@link orgWorkspaceGuard}); never throws. */
async function refuse(args: RefusedArgs, body: Record<string, unknown>, text: string, logger: Logger): Promise<void> {
  const isCommand = typeof body.command === 'string';
  if (args.ack) await args.ack(isCommand ? { response_type: 'ephemeral', text } : undefined);
  const responseUrl = typeof body.response_url === 'string' ? body.response_url : undefined;
  if (isCommand || !responseUrl) return;
  await postToResponseUrl(responseUrl, { response_type: 'ephemeral', replace_original: false, text }).catch(
    (err: unknown) => logger.warn({ err }, 'could not tell the person why their request was refused'),
  );
}
