/**
 * OAuth mode's tokens: the bot token of the installation a piece of work belongs to, from the
 * installer's `authorize` (@slack/oauth `InstallProvider.authorize`, what Bolt's own `authorize`
 * calls with `teamId`, `enterpriseId`, `isEnterpriseInstall`: it fetches the installation from the
 * store and, with token rotation, refreshes a bot token that expires within 2 hours and stores the
 * new one) for every Web API call the platform's clients make. The installation comes from the
 * current request context: a listener's is Bolt's (set by {@link installationContext}), a worker's
 * the one recorded with its work. A request from one workspace therefore never reads or posts with
 * another's token. The credentials are read once per request (or piece of work) and kept with its
 * context for its later calls ({@link InstallationTokens.current}).
 */
import type { App, InstallationQuery } from '@slack/bolt';
import { errorCode, PlatformErrorCode } from '../errors.js';
import { InstallationError, type RedisInstallationStore } from '../installation-store.js';
import type { Logger } from '../logger.js';
import type { WorkspaceAccess } from '../workspace-access.js';
import { workspaceId } from './payloads.js';
import {
  currentRequestContext,
  installationRefOf,
  withRequestContext,
  type InstallationRef,
} from '../request-context.js';

/** What a call is made with: the installation's bot token, and whether it is org-level (org-wide.ts). */
export interface BotCredentials {
  token: string;
  enterpriseInstall: boolean;
  /** The installation it came from (the store's query): what {@link InstallationTokens.refused} forgets. */
  installation?: InstallationQuery<boolean>;
  /** Token rotation: when the token expires, in epoch seconds (authorize's `botTokenExpiresAt`). */
  expiresAt?: number;
}

/**
 * Slack's answers meaning a token is revoked for good (docs.slack.dev, e.g. chat.postMessage
 * errors: `token_revoked` "the app has been removed", `account_inactive` "the workspace or user
 * was deleted"). `invalid_auth` is not among them: it can mean a misconfigured API URL.
 */
const REVOKED_TOKEN_CODES: ReadonlySet<string> = new Set(['token_revoked', 'account_inactive']);

/**
 * Slack's answers that stop an installation's work ({@link InstallationTokens.refused}):
 * {@link REVOKED_TOKEN_CODES}, and `invalid_auth` ("some aspect of authentication cannot be
 * validated": a token Slack no longer knows, but also an IP allowlist or a wrong SLACK_API_URL).
 */
export const STOPPING_TOKEN_CODES: ReadonlySet<string> = new Set([...REVOKED_TOKEN_CODES, 'invalid_auth']);

/**
 * Slack's answers refusing a call's token (docs.slack.dev, common errors of every method:
 * `invalid_auth`, `not_authed`, `token_expired` with token rotation, and {@link REVOKED_TOKEN_CODES}):
 * the credentials a request kept are dropped, so its next call reads its installation again.
 */
const REFUSED_TOKEN_CODES: ReadonlySet<string> = new Set([
  ...REVOKED_TOKEN_CODES,
  'invalid_auth',
  'not_authed',
  'token_expired',
]);

/** Longest a request (or piece of work) keeps the credentials it read, in ms. */
export const CREDENTIALS_MAX_AGE_MS = 60_000;

/** Kept credentials expire this long before their token does (token rotation), in ms. */
const EXPIRY_MARGIN_MS = 5 * 60_000;

/** What {@link InstallationTokens} forgets a revoked installation with, and logs it to. */
interface RevokedInstallations {
  store: Pick<RedisInstallationStore, 'removeInstallationHolding'>;
  logger: Logger;
}

/** The installer's `authorize` (InstallProvider; its errors wrap the store's as `original`). */
export interface InstallationSource {
  authorize(query: InstallationQuery<boolean>): Promise<{ botToken?: string; botTokenExpiresAt?: number }>;
}

/** Credentials a request context keeps: for which installation, until when (epoch ms). */
interface Kept {
  ref: string;
  creds: Promise<BotCredentials>;
  until: number;
}

/** The store's error behind @slack/oauth's `AuthorizationError` (its `original`), else `err` itself. */
function storeError(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 3 && e && !errorCode(e)?.startsWith('installation_'); i++)
    e = (e as { original?: unknown }).original ?? e;
  return errorCode(e)?.startsWith('installation_') ? e : err;
}

/** The error of work whose installation's token Slack refused ({@link InstallationTokens.refused}). */
const stoppedError = (ref: InstallationRef) =>
  new InstallationError(
    PlatformErrorCode.InstallationNotFound,
    `${ref.enterpriseId ?? ref.teamId} (token refused by Slack)`,
  );

const isNotFound = (err: unknown) => errorCode(err) === PlatformErrorCode.InstallationNotFound;

/** The bot tokens of OAuth mode's installations. */
export class InstallationTokens {
  /** Each request context's credentials (gone with the context). */
  private readonly kept = new WeakMap<object, Kept>();
  /** Tokens Slack refused with a {@link STOPPING_TOKEN_CODES} code: never used again by this process. */
  private readonly stopped = new Set<string>();
  private readonly now: () => number;

  /** @param now - clock in epoch ms (how long credentials are kept). */
  constructor(
    private readonly source: InstallationSource,
    private readonly revoked?: RevokedInstallations,
    /** The workspaces an org-wide install was removed from: an old record's org fallback skips them. */
    private readonly workspaces?: Pick<WorkspaceAccess, 'removed'>,
    now: () => number = Date.now,
  ) {
    this.now = now;
  }

  /**
   * Slack refused `creds`' token ({@link STOPPING_TOKEN_CODES}) without an uninstall event reaching
   * the bot: the first refusal in this process stops the token (every later call of its
   * installation's work, kept credentials included, fails as `installation_not_found` without
   * calling Slack; a reinstall's new token works) and writes one warn line; for good
   * ({@link REVOKED_TOKEN_CODES}) the installation is also deleted, as `tokens_revoked` does (only
   * while it still holds that token, so a reinstall meanwhile is kept). `invalid_auth` deletes
   * nothing (it may be the bot's side: an IP allowlist, SLACK_API_URL): a restart tries the token
   * again. No other installation is touched. Never throws (a Redis failure is logged).
   */
  async refused(creds: BotCredentials, slackError: string): Promise<void> {
    if (REFUSED_TOKEN_CODES.has(slackError)) this.forget();
    if (!STOPPING_TOKEN_CODES.has(slackError) || this.stopped.has(creds.token)) return;
    this.stopped.add(creds.token);
    const query = creds.installation;
    const { teamId, enterpriseId, isEnterpriseInstall } = query ?? {};
    if (!this.revoked || !query) return;
    const { store, logger } = this.revoked;
    if (!REVOKED_TOKEN_CODES.has(slackError)) {
      const msg = "Slack refused this installation's token (invalid_auth); its work stops until a reinstall or restart";
      logger.warn({ teamId, enterpriseId, isEnterpriseInstall, slackError }, msg);
      return;
    }
    try {
      // Gone already (an uninstall event came first), unreadable, or holding another token (a reinstall): kept.
      if ((await store.removeInstallationHolding(query, creds.token)) !== 'deleted') return;
      logger.warn(
        { teamId, enterpriseId, isEnterpriseInstall, slackError },
        "Slack refused this installation's token for good; installation deleted (its work stops; a reinstall restores it)",
      );
    } catch (err) {
      this.revoked.logger.warn({ err, slackError }, 'could not delete an installation whose token Slack refused');
    }
  }

  /**
   * The credentials of the installation `ref` names: the org-wide install of `enterpriseId` when
   * `enterpriseInstall` is true; the workspace install of `teamId` when it is false; when it is not
   * recorded (work recorded before it was), the workspace install, else the org's unless
   * `team_access_revoked` removed the workspace from it ({@link WorkspaceAccess}).
   * @throws InstallationError (`installation_not_found` when `ref` names none, or the installation
   *   has no bot token; `installation_key_unknown`, `installation_unreadable`); Redis errors and a
   *   failed token refresh (wrapped by @slack/oauth as `slack_oauth_installer_authorization_error`).
   */
  async forRef(ref: InstallationRef): Promise<BotCredentials> {
    const { teamId, enterpriseId, enterpriseInstall } = ref;
    const org = { teamId, enterpriseId, isEnterpriseInstall: true } as InstallationQuery<true>;
    const team = { teamId, enterpriseId, isEnterpriseInstall: false } as InstallationQuery<false>;
    const tries =
      enterpriseInstall === true && enterpriseId
        ? [org]
        : enterpriseInstall === false || !enterpriseId
          ? [team]
          : [team, org];
    for (const [i, query] of tries.entries()) {
      try {
        const { botToken, botTokenExpiresAt } = await this.source.authorize(query);
        if (!botToken)
          throw new InstallationError(
            PlatformErrorCode.InstallationNotFound,
            `${enterpriseId ?? teamId} (no bot token)`,
          );
        if (this.stopped.has(botToken)) throw stoppedError(ref);
        return {
          token: botToken,
          enterpriseInstall: query.isEnterpriseInstall === true,
          installation: query,
          ...(botTokenExpiresAt !== undefined ? { expiresAt: botTokenExpiresAt } : {}),
        };
      } catch (err) {
        const cause = storeError(err);
        if (isNotFound(cause) && i < tries.length - 1 && !(teamId && (await this.workspaces?.removed(teamId))))
          continue;
        throw cause;
      }
    }
    throw new InstallationError(PlatformErrorCode.InstallationNotFound, 'without a team or enterprise id');
  }

  /**
   * The credentials of the current request's (or worker's) installation: read once per request
   * context (one `authorize`: a Redis read and a decrypt) and kept with it for its later calls, at
   * most {@link CREDENTIALS_MAX_AGE_MS} and never past 5 minutes before the token expires (token
   * rotation); dropped when Slack refuses the token ({@link refused}) or the read fails.
   * @throws as {@link forRef}.
   */
  async current(): Promise<BotCredentials> {
    const ctx = currentRequestContext();
    const ref = installationRefOf(ctx);
    if (!ctx) return this.forRef(ref);
    const key = JSON.stringify([ref.teamId, ref.enterpriseId, ref.enterpriseInstall]);
    const now = this.now();
    const hit = this.kept.get(ctx);
    if (hit && hit.ref === key && hit.until > now) {
      const creds = await hit.creds;
      if (this.stopped.has(creds.token)) throw stoppedError(ref);
      return creds;
    }
    const kept: Kept = { ref: key, creds: this.forRef(ref), until: now + CREDENTIALS_MAX_AGE_MS };
    this.kept.set(ctx, kept);
    void kept.creds.then(
      (creds) => {
        if (creds.expiresAt !== undefined) kept.until = Math.min(kept.until, creds.expiresAt * 1000 - EXPIRY_MARGIN_MS);
      },
      () => {
        if (this.kept.get(ctx) === kept) this.kept.delete(ctx);
      },
    );
    return kept.creds;
  }

  /** Drops the credentials the current request context kept (its next call reads them again). */
  private forget(): void {
    const ctx = currentRequestContext();
    if (ctx) this.kept.delete(ctx);
  }
}

/**
 * A Bolt global middleware (OAuth mode): the rest of the request runs with the installation Bolt's
 * `authorize` found in the request context, so the platform's clients use its token and the intake
 * records it with the request. The installation is Bolt's only (`context.teamId`,
 * `context.enterpriseId`, `context.isEnterpriseInstall`): Bolt asks `authorize` with the
 * installing side of a request (an event's `authorizations[0]`, a view's
 * `view.app_installed_team_id`; App.js `buildSource`), while the body's top-level workspace can be
 * the other side of a Slack Connect channel (slackapi/bolt-js#687, slackapi/bolt-js#1614). The edge's workspace
 * (`requestTeamId`) is kept only for an org-wide install, whose token needs the workspace a
 * request happened in as `team_id` (org-wide.ts); for a workspace install that disagrees with
 * Bolt's, Bolt's is used and one warn line says so (ids only).
 */
export function installationContext(app: App, logger?: Logger): void {
  app.use(async ({ context, next }) => {
    const current = currentRequestContext();
    const edgeTeamId = current?.teamId;
    const boltTeamId = typeof context.teamId === 'string' ? context.teamId : undefined;
    const enterpriseInstall = context.isEnterpriseInstall === true;
    let teamId = boltTeamId;
    if (enterpriseInstall) teamId = edgeTeamId ?? workspaceId(boltTeamId);
    else if (edgeTeamId && boltTeamId && edgeTeamId !== boltTeamId)
      logger?.warn(
        { teamId: boltTeamId, requestTeamId: edgeTeamId },
        "a request's workspace is not its installation's (a Slack Connect channel?); the installation's is used",
      );
    const ref = installationRefOf({
      ...(teamId ? { teamId } : {}),
      ...(typeof context.enterpriseId === 'string' ? { enterpriseId: context.enterpriseId } : {}),
      enterpriseInstall,
    });
    const { requestId = 'unknown' } = current ?? {};
    await withRequestContext({ requestId, ...ref }, next);
  });
}

/**
 * Runs `fn` with `ref`'s installation as the current one (a worker's work: the installation
 * recorded with it), keeping the current request id; `requestId` when there is none. Only `ref`'s
 * fields name the installation: nothing of an enclosing context's is inherited.
 */
export function withInstallation<T>(ref: InstallationRef, requestId: string, fn: () => T): T {
  const current = currentRequestContext();
  return withRequestContext({ requestId: current?.requestId ?? requestId, ...installationRefOf(ref) }, fn);
}
