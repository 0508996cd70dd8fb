/**
 * The guard that keeps the workspaces a request names to its install's (see org-workspaces.ts for
 * why): a Bolt global middleware, refusing before any listener runs.
 */
import type { App } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../logger.js';
import { currentRequestContext, type RequestContext } from '../request-context.js';
import { withinTime } from '../time-limit.js';
import { slackErrorCode } from './errors.js';
import { bodyTeamIds } from './payloads.js';
import {
  ORG_WORKSPACES_MAX_AGE_MS,
  ORG_WORKSPACES_WAIT_MS,
  ORG_WORKSPACES_WARN_EVERY_MS,
  type ListTeams,
  type OrgWorkspaces,
} from './org-workspaces.js';
import { refuseBeforeListeners } from './refuse.js';

/** What {@link orgWorkspaceGuard} needs. */
export interface OrgWorkspaceGuardOptions {
  workspaces: OrgWorkspaces;
  /** SLACK_API_URL: a refusal is told through a response_url only when it is Slack's (refuse.ts). */
  slackApiUrl: string;
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
  /**
   * OAuth mode: the org of the current request's installation (`auth.test` `enterprise_id` with its
   * token, through the platform's reads client; undefined outside Grid), asked only when a
   * workspace install's request names an org with an entry of its own, kept 10 minutes per workspace.
   * @throws the Slack error.
   */
  tokenOrg?: () => Promise<string | undefined>;
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

/**
 * A Bolt global middleware (registered after `installationContext` in OAuth mode): a request whose
 * body or context names a workspace with docs projects of its own is let through only when every
 * such workspace is the install's: through an org-wide install, one {@link OrgWorkspaces} lists;
 * with a single workspace token, the token's own; an OAuth workspace install's work is keyed by
 * Bolt's installing workspace, so only the org it names is checked, when that org has an entry of
 * its own: it must be the installation's own (`tokenOrg`). Otherwise the request is refused before any
 * listener runs: a command's ack says {@link OTHER_ORG_TEXT} (or {@link ORG_CHECK_FAILED_TEXT}
 * when Slack's list could not be read within {@link ORG_WORKSPACES_WAIT_MS}), an interaction with
 * a `response_url` is acked and told there, an event or a form is acked and dropped; one warn line
 * (ids only) per org and workspace every {@link ORG_WORKSPACES_WARN_EVERY_MS}.
 */
export function orgWorkspaceGuard(app: App, opts: OrgWorkspaceGuardOptions): void {
  const guard = new WorkspaceGuard(opts);
  app.use(async (args) => {
    const body = args.body as unknown as Record<string, unknown>;
    const refusal = await guard.refusal(currentRequestContext(), body);
    if (refusal === undefined) return args.next();
    const ack = (args as { ack?: (r?: unknown) => Promise<void> }).ack;
    await refuseBeforeListeners(ack, body, refusal, {
      logger: opts.logger,
      failure: REFUSAL_UNTOLD_LINE,
      slackApiUrl: opts.slackApiUrl,
    });
  });
}

/** {@link orgWorkspaceGuard}'s decisions, with its caches and its spaced warn lines. */
class WorkspaceGuard {
  private readonly warned: LRUCache<string, true>;
  /** OAuth workspace installs: each one's own org (auth.test `enterprise_id`), by workspace. */
  private readonly tokenOrgs: LRUCache<string, { org: string | undefined }>;

  constructor(private readonly opts: OrgWorkspaceGuardOptions) {
    const clock = opts.perf ? { perf: opts.perf, ttlResolution: 0 } : {};
    this.warned = new LRUCache({ max: 1_000, ttl: ORG_WORKSPACES_WARN_EVERY_MS, ...clock });
    this.tokenOrgs = new LRUCache({ max: 1_000, ttl: ORG_WORKSPACES_MAX_AGE_MS, ...clock });
  }

  /** What to tell the person when the request is refused; undefined: let it through. */
  async refusal(ctx: RequestContext | undefined, body: Record<string, unknown>): Promise<string | undefined> {
    if (ctx?.enterpriseInstall === false) return this.installOrgRefusal(ctx);
    const ids = [...new Set([...(ctx?.teamId ? [ctx.teamId] : []), ...bodyTeamIds(body)])];
    const own = ids.filter(this.opts.hasOwnEntry);
    if (own.length === 0) return undefined;
    // OAuth mode: the install's org; single-token mode: the one token's ('own').
    const org = ctx?.enterpriseId ?? 'own';
    if (!(ctx?.enterpriseInstall ?? this.opts.singleTokenOrgWide)) {
      const mine = this.opts.singleTokenTeamId;
      const foreign = mine === undefined ? undefined : own.find((id) => id !== mine);
      if (foreign === undefined) return undefined;
      this.warnOnce(`${org}|${foreign}`, { teamId: foreign, ownTeamId: mine }, NOT_OURS_LINE);
      return OTHER_ORG_TEXT;
    }
    return this.orgWideRefusal(org, own);
  }

  /**
   * An OAuth workspace install: its workspace is Bolt's installing one, but its org can be the
   * body's (@slack/oauth takes `source.enterpriseId` when the installation has none), so an org
   * with an entry of its own must be the installation's (`tokenOrg`).
   */
  private async installOrgRefusal(ctx: RequestContext): Promise<string | undefined> {
    const claimed = ctx.enterpriseId;
    if (!claimed || !this.opts.hasOwnEntry(claimed) || !this.opts.tokenOrg) return undefined;
    const key = ctx.teamId ?? '';
    try {
      const kept = this.tokenOrgs.get(key) ?? { org: await this.opts.tokenOrg() };
      this.tokenOrgs.set(key, kept);
      if (kept.org === claimed) return undefined;
      this.warnOnce(`${key}|${claimed}`, { teamId: key, enterpriseId: claimed }, NOT_OUR_ORG_LINE);
      return OTHER_ORG_TEXT;
    } catch (err) {
      const fields = { teamId: key, slackError: slackErrorCode(err) ?? 'unknown' };
      this.warnOnce(`${key}|failed`, fields, TOKEN_ORG_FAILED_LINE);
      return ORG_CHECK_FAILED_TEXT;
    }
  }

  /** An org-wide install: every workspace in `ids` must be one Slack lists for it. */
  private async orgWideRefusal(org: string, ids: string[]): Promise<string | undefined> {
    const waitMs = this.opts.waitMs ?? ORG_WORKSPACES_WAIT_MS;
    try {
      const ours = Promise.all(ids.map((id) => this.opts.workspaces.includes(org, id, this.opts.listTeams)));
      const answers = await withinTime<boolean[] | 'late'>(ours, waitMs, () => 'late' as const);
      if (answers === 'late') {
        this.warnOnce(`${org}|failed`, { enterpriseId: org, waitedMs: waitMs }, LATE_LINE);
        return ORG_CHECK_FAILED_TEXT;
      }
      const foreign = ids.find((_, i) => !answers[i]);
      if (foreign === undefined) return undefined;
      this.warnOnce(`${org}|${foreign}`, { teamId: foreign, enterpriseId: org }, NOT_OURS_LINE);
      return OTHER_ORG_TEXT;
    } catch (err) {
      this.warnOnce(
        `${org}|failed`,
        { enterpriseId: org, slackError: slackErrorCode(err) ?? 'unknown' },
        CHECK_FAILED_LINE,
      );
      return ORG_CHECK_FAILED_TEXT;
    }
  }

  /** One warn line per `key` every {@link ORG_WORKSPACES_WARN_EVERY_MS}. */
  private warnOnce(key: string, fields: Record<string, unknown>, msg: string): void {
    if (this.warned.has(key)) return;
    this.warned.set(key, true);
    this.opts.logger.warn(fields, msg);
  }
}

const NOT_OURS_LINE =
  "refused a request naming a workspace with docs projects of its own that is not the install's (another organization's, in a Slack Connect channel?)";
const NOT_OUR_ORG_LINE =
  "refused a request naming an org with docs projects of its own that is not the workspace install's (another organization's, in a Slack Connect channel?)";
const TOKEN_ORG_FAILED_LINE =
  "could not read a workspace install's org (auth.test); refused a request naming an org with docs projects of its own";
const LATE_LINE =
  "the org-wide install's workspaces (auth.teams.list) did not come in time; refused a request naming a workspace with docs projects of its own (the read goes on)";
const REFUSAL_UNTOLD_LINE = 'could not tell the person why their request was refused';
const CHECK_FAILED_LINE =
  "could not read the org-wide install's workspaces (auth.teams.list); refused requests naming a workspace with docs projects of its own";
