/**
 * OAuth mode's tokens: the bot token of the installation a piece of work belongs to, fetched from
 * the installation store (Bolt's `InstallationStore.fetchInstallation`, the query Bolt's own
 * `authorize` makes: `teamId`, `enterpriseId`, `isEnterpriseInstall`) for every Web API call the
 * platform's clients make. The installation comes from the current request context: a listener's
 * is Bolt's (set by {@link installationContext}), a worker's the one recorded with its work. A
 * request from one workspace therefore never reads or posts with another's token.
 */
import type { App, Installation, InstallationQuery } from '@slack/bolt';
import { PlatformErrorCode } from '../errors.js';
import { InstallationError } from '../installation-store.js';
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
}

/** The store's read (RedisInstallationStore). */
export interface InstallationSource {
  fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation<'v1' | 'v2', boolean>>;
}

const isNotFound = (err: unknown) =>
  (err as { code?: unknown } | null)?.code === PlatformErrorCode.InstallationNotFound;

/** The bot tokens of OAuth mode's installations. */
export class InstallationTokens {
  constructor(private readonly store: InstallationSource) {}

  /**
   * The credentials of the installation `ref` names: the org-wide install of `enterpriseId` when
   * `enterpriseInstall` is true; the workspace install of `teamId` when it is false; when it is not
   * recorded (work recorded before it was), the workspace install, else the org's.
   * @throws InstallationError (`installation_not_found` when `ref` names none, or the installation
   *   has no bot token; `installation_key_unknown`, `installation_unreadable`); Redis errors.
   */
  async forRef(ref: InstallationRef): Promise<BotCredentials> {
    const { teamId, enterpriseId, enterpriseInstall } = ref;
    const org = { teamId, enterpriseId, isEnterpriseInstall: true } as InstallationQuery<true>;
    const team = { teamId, enterpriseId, isEnterpriseInstall: false } as InstallationQuery<false>;
    let installation: Installation<'v1' | 'v2', boolean>;
    if (enterpriseInstall === true && enterpriseId) installation = await this.store.fetchInstallation(org);
    else if (enterpriseInstall === false || !enterpriseId) installation = await this.store.fetchInstallation(team);
    else
      installation = await this.store.fetchInstallation(team).catch(async (err: unknown) => {
        if (isNotFound(err)) return this.store.fetchInstallation(org);
        throw err;
      });
    const token = installation.bot?.token;
    if (!token)
      throw new InstallationError(PlatformErrorCode.InstallationNotFound, `${enterpriseId ?? teamId} (no bot token)`);
    return { token, enterpriseInstall: installation.isEnterpriseInstall === true };
  }

  /** The credentials of the current request's (or worker's) installation. @throws as {@link forRef}. */
  async current(): Promise<BotCredentials> {
    return this.forRef(installationRefOf(currentRequestContext()));
  }
}

/**
 * A Bolt global middleware (OAuth mode): the rest of the request runs with the installation Bolt's
 * `authorize` found (`context.enterpriseId`, `context.isEnterpriseInstall`; the workspace stays the
 * edge's `teamId`, else Bolt's) in the request context, so the platform's clients use its token and
 * the intake records it with the request.
 */
export function installationContext(app: App): void {
  app.use(async ({ context, next }) => {
    const current = currentRequestContext();
    const teamId = current?.teamId ?? (typeof context.teamId === 'string' ? context.teamId : undefined);
    const ref = installationRefOf({
      ...(teamId ? { teamId } : {}),
      ...(typeof context.enterpriseId === 'string' ? { enterpriseId: context.enterpriseId } : {}),
      enterpriseInstall: context.isEnterpriseInstall === true,
    });
    await withRequestContext({ requestId: current?.requestId ?? 'unknown', ...current, ...ref }, next);
  });
}

/**
 * Runs `fn` with `ref`'s installation as the current one (a worker's work: the installation
 * recorded with it), keeping the current request id; `requestId` when there is none.
 */
export function withInstallation<T>(ref: InstallationRef, requestId: string, fn: () => T): T {
  const current = currentRequestContext();
  return withRequestContext({ requestId: current?.requestId ?? requestId, ...current, ...installationRefOf(ref) }, fn);
}
